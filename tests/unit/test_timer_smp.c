// SOURCES: kernel/time/hrtimer.c kernel/time/hrtimer_base.c kernel/time/hrtimer_heap.c kernel/time/timer.c kernel/time/timer_bucket.c kernel/time/timer_cascade.c kernel/time/timer_expiry.c kernel/time/timer_base.c kernel/time/timer_level.c kernel/time/slack.c kernel/time/jiffies.c kernel/time/path.c tests/unit/host_arch.c kernel/time/percpu.c
// THREADS: also built and run under ThreadSanitizer (make unit)
/* tests/unit/test_timer_smp.c — both timer kinds between two CPUs, each CPU
 * a POSIX thread (host_arch.c gives each thread its CPU number and its own
 * interrupt flag; the spinlocks are the kernel's own).
 *
 * The subject is what a callback running on one CPU means to another:
 *   - a synchronous cancel (hrtimer_cancel, timer_del_sync) waits for the
 *     callback and leaves the timer neither queued nor running, even when
 *     the callback re-arms itself; the try forms say "running" (-1);
 *   - arming a timer for another CPU while its callback runs does not move
 *     it, so one callback never runs on two CPUs at once;
 *   - a synchronous cancel from the timer's own callback panics.
 *
 * The callback holds itself open until the other CPU has acted or a
 * generous time has passed (HOLD_MS), so each ordering below is the one
 * the test is about, on any host.  Nothing asserts on time: the hold only
 * decides who goes first.  Assertions run on the main thread, from what
 * the threads recorded (cmocka's failures must not leave a thread).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "time/percpu.h"
#include "time/arch.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "time/timer.h"

#include "host_test.h"
#include "time_test.h"

#define HOLD_MS 200     /* how long a callback waits for the other CPU */

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* What the threads record. */
static int in_callback;         /* how many CPUs are inside the callback now */
static int most_inside;         /* the most at once */
static int entered;             /* callbacks started */
static int other_done;          /* the other CPU's action returned */
static int other_done_while_inside;     /* ... while the callback still ran */
static int cancel_result;
static int ran_on[2];           /* callbacks started, per CPU */

static void reset_records(void)
{
	in_callback = most_inside = entered = other_done = other_done_while_inside = 0;
	cancel_result = -99;
	ran_on[0] = ran_on[1] = 0;
}

static void note_enter(void)
{
	int now = __atomic_add_fetch(&in_callback, 1, __ATOMIC_SEQ_CST);
	int most = __atomic_load_n(&most_inside, __ATOMIC_SEQ_CST);
	while (now > most && !__atomic_compare_exchange_n(&most_inside, &most, now, false,
	                                                  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	__atomic_add_fetch(&ran_on[host_cpu_id], 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&entered, 1, __ATOMIC_SEQ_CST);
}

static void note_exit(void)
{
	__atomic_sub_fetch(&in_callback, 1, __ATOMIC_SEQ_CST);
}

/* Inside a callback: wait until the other CPU's action returned, or
 * HOLD_MS (the action is waiting for us: the fixed behaviour). */
static void hold_for_other(void)
{
	uint64_t end = mono_ms() + HOLD_MS;
	while (!__atomic_load_n(&other_done, __ATOMIC_SEQ_CST) && mono_ms() < end)
		sched_yield();
	if (__atomic_load_n(&other_done, __ATOMIC_SEQ_CST))
		__atomic_store_n(&other_done_while_inside, 1, __ATOMIC_SEQ_CST);
}

static void wait_entered(int n)
{
	while (__atomic_load_n(&entered, __ATOMIC_SEQ_CST) < n)
		sched_yield();
}

static void two_cpus(void)
{
	host_nr_cpus = 2;
	host_cpu_id = 0;
	host_irqs_disabled = false;
	hrtimer_reset_for_test();
	jiffies_64 = 999;
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		struct timer_base *w = time_timer_base(cpu);
		w->in_run = false;
		w->firing = NULL;
		w->running = NULL;
	}
	timer_wheel_init(1000);
	reset_records();
}

static int teardown(void **state)
{
	(void)state;
	host_panic_catch = NULL;
	hrtimer_reset_for_test();
	host_nr_cpus = 1;
	host_cpu_id = 0;
	host_irqs_disabled = false;
	return 0;
}

/* ---------------------------------------------------------------- CPU 1 */

struct cpu1_job {
	bool wheel;
	uint64_t now_ns;        /* hrtimer_run_expired's now */
	uint32_t now_j;         /* timer_run_expired's now */
};

static void *cpu1(void *arg)
{
	struct cpu1_job *job = arg;
	host_cpu_id = 1;
	host_irqs_disabled = true;      /* as in an interrupt handler */
	if (job->wheel)
		timer_run_expired(job->now_j);
	else
		hrtimer_run_expired(job->now_ns);
	host_irqs_disabled = false;
	return NULL;
}

/* CPU 1 runs its due timers (wheel or heap) in a thread; back once the
 * callback has started there. */
static pthread_t cpu1_runs(struct cpu1_job *job)
{
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, cpu1, job), 0);
	wait_entered(1);
	return th;
}

/* CPU 0's action is over: let the callback go, and wait for CPU 1. */
static void cpu0_done(pthread_t th)
{
	__atomic_store_n(&other_done, 1, __ATOMIC_SEQ_CST);
	pthread_join(th, NULL);
}

/* ------------------------------------------- a cancel waits (hrtimer) */

static struct hrtimer hr;

/* Re-arms itself one period on, as a periodic timer does. */
static enum hrtimer_restart hr_periodic(struct hrtimer *t)
{
	note_enter();
	hold_for_other();
	hrtimer_forward(t, 2000, 1000);
	note_exit();
	return HRTIMER_RESTART;
}

static void test_hrtimer_cancel_waits_for_a_restarting_callback(void **state)
{
	(void)state;
	two_cpus();
	host_cpu_id = 1;
	hrtimer_init(&hr, hr_periodic, "periodic");
	assert_int_equal(hrtimer_start(&hr, 1000), 0);
	host_cpu_id = 0;

	struct cpu1_job job = { .wheel = false, .now_ns = 1500 };
	pthread_t th = cpu1_runs(&job);
	/* CPU 0, while the callback runs on CPU 1. */
	assert_int_equal(hrtimer_try_to_cancel(&hr), -1);
	cancel_result = hrtimer_cancel(&hr);
	cpu0_done(th);

	assert_false(other_done_while_inside);  /* the cancel waited */
	assert_false(hrtimer_is_queued(&hr));   /* and the re-queue was undone */
	assert_false(hrtimer_callback_running(&hr));
	assert_int_equal(cancel_result, 1);     /* it took the re-queued timer off */
	assert_int_equal(hrtimer_count_on(1), 0);
	assert_int_equal(hrtimer_try_to_cancel(&hr), 0);
}

/* ----------------------------------------------- a cancel waits (wheel) */

static struct timer wt;

static void wheel_rearming(struct timer *t)
{
	note_enter();
	hold_for_other();
	timer_mod(t, 1010);
	note_exit();
}

static void test_timer_del_sync_waits_for_a_rearming_callback(void **state)
{
	(void)state;
	two_cpus();
	host_cpu_id = 1;
	timer_init(&wt, wheel_rearming, "rearming");
	timer_add(&wt, 1001);
	host_cpu_id = 0;

	struct cpu1_job job = { .wheel = true, .now_j = 1001 };
	pthread_t th = cpu1_runs(&job);
	assert_int_equal(timer_try_to_del(&wt), -1);
	cancel_result = timer_del_sync(&wt);
	cpu0_done(th);

	assert_false(other_done_while_inside);
	assert_false(timer_pending(&wt));
	assert_false(timer_callback_running(&wt));
	assert_int_equal(cancel_result, 1);
	assert_int_equal(timer_count_on(1), 0);
}

/* ---------------------------- no callback on two CPUs at once (hrtimer) */

static enum hrtimer_restart hr_once(struct hrtimer *t)
{
	(void)t;
	note_enter();
	hold_for_other();
	note_exit();
	return HRTIMER_NORESTART;
}

static void test_hrtimer_running_is_not_moved(void **state)
{
	(void)state;
	two_cpus();
	host_cpu_id = 1;
	hrtimer_init(&hr, hr_once, "once");
	assert_int_equal(hrtimer_start(&hr, 1000), 0);
	host_cpu_id = 0;

	struct cpu1_job job = { .wheel = false, .now_ns = 1500 };
	pthread_t th = cpu1_runs(&job);
	/* Armed for CPU 0, already due, while its callback runs on CPU 1;
	 * then CPU 0 runs its own expired timers. */
	assert_int_equal(hrtimer_start_on(&hr, 1200, 0), 0);
	host_irqs_disabled = true;
	hrtimer_run_expired(1500);
	host_irqs_disabled = false;
	cpu0_done(th);

	/* It stayed on CPU 1, already due, so CPU 1's run took it again
	 * once the first callback had returned: twice, in turn, there. */
	assert_int_equal(most_inside, 1);       /* never on both CPUs */
	assert_int_equal(ran_on[0], 0);
	assert_int_equal(ran_on[1], 2);
	assert_false(hrtimer_is_queued(&hr));
	assert_int_equal(hrtimer_count_on(0) + hrtimer_count_on(1), 0);
}

/* ------------------------------ no callback on two CPUs at once (wheel) */

static void wheel_once(struct timer *t)
{
	(void)t;
	note_enter();
	hold_for_other();
	note_exit();
}

static void test_wheel_running_is_not_moved(void **state)
{
	(void)state;
	two_cpus();
	host_cpu_id = 1;
	timer_init(&wt, wheel_once, "once");
	timer_add(&wt, 1001);
	host_cpu_id = 0;

	struct cpu1_job job = { .wheel = true, .now_j = 1001 };
	pthread_t th = cpu1_runs(&job);
	assert_int_equal(timer_mod_on(&wt, 1001, 0), 0);
	host_irqs_disabled = true;
	timer_run_expired(1001);
	host_irqs_disabled = false;
	cpu0_done(th);

	/* Re-armed for the jiffy being run, it waits on CPU 1's wheel for
	 * the next run there (a wheel never runs a timer twice in a jiffy). */
	assert_int_equal(most_inside, 1);
	assert_int_equal(ran_on[0], 0);
	assert_int_equal(ran_on[1], 1);
	assert_int_equal(timer_count_on(0), 0);
	assert_int_equal(timer_count_on(1), 1);
	assert_int_equal(timer_del_sync(&wt), 1);
}

/* --------------------------- a sync cancel from its own callback panics */

static enum hrtimer_restart hr_cancels_itself(struct hrtimer *t)
{
	expect_panic(hrtimer_cancel(t), "hrtimer_cancel: self from its own callback");
	__atomic_add_fetch(&entered, 1, __ATOMIC_SEQ_CST);
	return HRTIMER_NORESTART;
}

static void wheel_deletes_itself(struct timer *t)
{
	expect_panic(timer_del_sync(t), "timer_del_sync: self from its own callback");
	__atomic_add_fetch(&entered, 1, __ATOMIC_SEQ_CST);
}

static void test_sync_cancel_from_own_callback_panics(void **state)
{
	(void)state;
	two_cpus();
	hrtimer_init(&hr, hr_cancels_itself, "self");
	assert_int_equal(hrtimer_start(&hr, 1000), 0);
	assert_int_equal(hrtimer_run_expired(1000), 1);
	timer_init(&wt, wheel_deletes_itself, "self");
	timer_add(&wt, 1001);
	timer_run_expired(1001);
	assert_int_equal(entered, 2);
	/* The try forms are what a callback may use on itself. */
	assert_int_equal(hrtimer_try_to_cancel(&hr), 0);
	assert_int_equal(timer_try_to_del(&wt), 0);
}

/* ------------------------- every arm on another CPU's wheel tells it */

static unsigned told[2], told_unlocked[2];

static void record_told(unsigned cpu)
{
	told[cpu]++;
}

/* An hrtimer's CPU is told while its heap is still locked: whoever looks
 * at that heap and finds the new timer then finds it told (the tick's
 * kick flag; `stress` judges a CPU's device by that). */
static void record_told_hr(unsigned cpu)
{
	told[cpu]++;
	if (!spin_is_locked(&time_hrtimer_base(cpu)->lock))
		told_unlocked[cpu]++;
}

static void nothing(struct timer *t)
{
	(void)t;
}

static enum hrtimer_restart hr_nothing(struct hrtimer *t)
{
	(void)t;
	return HRTIMER_NORESTART;
}

/* A timer that lives on CPU 1 (armed there far ahead), re-armed sooner
 * from CPU 0 by each arming function: each time CPU 1 is told, as it may
 * be asleep until the old deadline.  Arms on CPU 0's own queue tell no
 * one. */
static void test_every_remote_arm_tells_its_cpu(void **state)
{
	(void)state;
	two_cpus();
	static const struct timer_tick_ops wheel_ops = { .armed_remote = record_told };
	static const struct hrtimer_tick_ops hr_ops = { .armed_remote = record_told_hr };
	timer_set_tick_ops(&wheel_ops);
	hrtimer_set_tick_ops(&hr_ops);
	told_unlocked[0] = told_unlocked[1] = 0;
	host_cpu_id = 1;
	timer_init(&wt, nothing, "far");
	timer_add(&wt, 100000);
	hrtimer_init(&hr, hr_nothing, "far");
	hrtimer_start(&hr, 100000000);
	host_cpu_id = 0;
	told[0] = told[1] = 0;

	timer_mod(&wt, 2000);
	assert_int_equal(told[1], 1);
	timer_mod_range(&wt, 1900, 1950);
	assert_int_equal(told[1], 2);
	timer_del(&wt);
	timer_add(&wt, 1800);
	assert_int_equal(told[1], 3);
	timer_mod_on(&wt, 1700, 1);
	assert_int_equal(told[1], 4);
	hrtimer_start(&hr, 5000);
	assert_int_equal(told[1], 5);
	hrtimer_start_on(&hr, 4000, 1);
	assert_int_equal(told[1], 6);
	assert_int_equal(told[0], 0);

	/* Moved to CPU 0 (not running): no one else to tell. */
	timer_mod_on(&wt, 1500, 0);
	hrtimer_start_on(&hr, 3000, 0);
	timer_mod(&wt, 1400);
	assert_int_equal(told[1], 6);
	assert_int_equal(told[0], 0);
	assert_int_equal(told_unlocked[1], 0);
	timer_del_sync(&wt);
	hrtimer_cancel(&hr);
	timer_set_tick_ops(NULL);
	hrtimer_set_tick_ops(NULL);
}

/* ----------------------------------------------- a randomized stress */

/* Three threads, each CPU i, for a fixed number of steps (the same work on
 * any host).  Each owns a third of the timers (hrtimers and wheel timers)
 * and, at random: arms one for a random CPU (after a sync cancel, so that
 * every callback it then sees is for this arming), moves one that may be
 * queued or running to another CPU with the same deadline, try-cancels one,
 * or sync-cancels one; and every few steps moves the shared clock on and
 * runs its own CPU's due timers, as its interrupt would.  Checked on every
 * event: no callback early, none on two CPUs at once, none that no arming
 * owes (twice for one arm, or after a sync cancel returned: the owed count
 * would go below 0), and after each sync cancel nothing owed; at the end,
 * every CPU drained, nothing owed anywhere (none lost).  Under TSan (make
 * unit's second build) the locks and the callbacks' hand-offs are checked
 * for races as well.  HZ switches against catch-ups and arms have their
 * own randomized stress (test_tick.c, test_random_hz_switches_against_
 * catch_ups), rate changes their own tests (test_clockevents.c). */
#define ST_CPUS 3
#define ST_PER_KIND 12                  /* timers of each kind */
#define ST_STEPS 20000                  /* per thread */
#define ST_JIFFY_NS 1000                /* the stress clock's jiffy */

struct st_timer {
	struct hrtimer hr;
	struct timer wt;
	bool is_hr;
	uint64_t deadline;              /* ns or jiffies: written by the owner only
	                                   while nothing is queued or running */
	int owed;                       /* callbacks owed (atomic) */
	int inside;                     /* callbacks running now (atomic) */
};

static struct st_timer st[2 * ST_PER_KIND];
static uint64_t st_clock;               /* ns, atomic */
static _Thread_local uint64_t st_run_now;       /* the run in progress */
static int st_early, st_twice_at_once, st_unowed, st_owed_after_sync;
static int st_fired_n, st_running_seen;         /* that it did something */

static void st_fired(struct st_timer *x)
{
	int n = __atomic_add_fetch(&st_fired_n, 1, __ATOMIC_RELAXED);
	if (__atomic_add_fetch(&x->inside, 1, __ATOMIC_SEQ_CST) > 1)
		__atomic_add_fetch(&st_twice_at_once, 1, __ATOMIC_RELAXED);
	if (n % 8 == 0)
		sched_yield();          /* a slow callback now and then: the
		                           other CPUs act while it runs */
	uint64_t now = x->is_hr ? st_run_now : st_run_now / ST_JIFFY_NS;
	if (now < x->deadline)
		__atomic_add_fetch(&st_early, 1, __ATOMIC_RELAXED);
	if (__atomic_sub_fetch(&x->owed, 1, __ATOMIC_SEQ_CST) < 0)
		__atomic_add_fetch(&st_unowed, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&x->inside, 1, __ATOMIC_SEQ_CST);
}

static enum hrtimer_restart st_hr_fn(struct hrtimer *t)
{
	st_fired(container_of(t, struct st_timer, hr));
	return HRTIMER_NORESTART;
}

static void st_wheel_fn(struct timer *t)
{
	st_fired(container_of(t, struct st_timer, wt));
}

static uint32_t st_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint32_t)(*x >> 16);
}

static int st_sync_cancel(struct st_timer *x)
{
	return x->is_hr ? hrtimer_cancel(&x->hr) : timer_del_sync(&x->wt);
}

static void st_run_own_cpu(uint64_t now)
{
	st_run_now = now;
	host_irqs_disabled = true;      /* as in the CPU's interrupt */
	hrtimer_run_expired(now);
	timer_run_expired((uint32_t)(now / ST_JIFFY_NS));
	host_irqs_disabled = false;
}

static void st_step(struct st_timer *x, uint32_t r, uint64_t *rnd)
{
	unsigned cpu = st_next(rnd) % ST_CPUS;
	switch (r % 4) {
	case 0: {                                       /* arm afresh */
		if (st_sync_cancel(x) > 0)
			__atomic_sub_fetch(&x->owed, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&x->owed, __ATOMIC_SEQ_CST) != 0)
			__atomic_add_fetch(&st_owed_after_sync, 1, __ATOMIC_RELAXED);
		uint64_t now = __atomic_load_n(&st_clock, __ATOMIC_SEQ_CST);
		uint64_t ahead = st_next(rnd) % 4;      /* due now .. 3 jiffies on */
		x->deadline = x->is_hr ? now + ahead * ST_JIFFY_NS : now / ST_JIFFY_NS + ahead;
		__atomic_add_fetch(&x->owed, 1, __ATOMIC_SEQ_CST);
		int was = x->is_hr ? hrtimer_start_on(&x->hr, x->deadline, cpu)
		                   : timer_mod_on(&x->wt, (uint32_t)x->deadline, cpu);
		if (was != 0)   /* nothing was queued after the sync cancel */
			__atomic_add_fetch(&st_unowed, 1, __ATOMIC_RELAXED);
		break;
	}
	case 1: {                                       /* move, same deadline */
		/* Owed before the arm: 1 if a replaced arming's callback is
		 * still to come, else the arm adds one. */
		__atomic_add_fetch(&x->owed, 1, __ATOMIC_SEQ_CST);
		int was = x->is_hr ? hrtimer_start_on(&x->hr, x->deadline, cpu)
		                   : timer_mod_on(&x->wt, (uint32_t)x->deadline, cpu);
		if (was > 0)    /* it replaced a queued arming: nothing more owed */
			__atomic_sub_fetch(&x->owed, 1, __ATOMIC_SEQ_CST);
		break;
	}
	case 2: {                                       /* try to cancel */
		int r = x->is_hr ? hrtimer_try_to_cancel(&x->hr) : timer_try_to_del(&x->wt);
		if (r > 0)
			__atomic_sub_fetch(&x->owed, 1, __ATOMIC_SEQ_CST);
		else if (r < 0)
			__atomic_add_fetch(&st_running_seen, 1, __ATOMIC_RELAXED);
		break;
	}
	default:                                        /* cancel, waiting */
		if (st_sync_cancel(x) > 0)
			__atomic_sub_fetch(&x->owed, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&x->owed, __ATOMIC_SEQ_CST) != 0)
			__atomic_add_fetch(&st_owed_after_sync, 1, __ATOMIC_RELAXED);
		break;
	}
}

static void *st_cpu(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	host_cpu_id = me;
	host_irqs_disabled = false;
	uint64_t rnd = 0x9E3779B97F4A7C15ull * (me + 1);
	for (unsigned step = 0; step < ST_STEPS; step++) {
		uint32_t r = st_next(&rnd);
		/* One of this thread's own timers: index me, me + 3, ... */
		unsigned mine = (2 * ST_PER_KIND + ST_CPUS - 1 - me) / ST_CPUS;
		struct st_timer *x = &st[me + ST_CPUS * (r % mine)];
		st_step(x, r >> 8, &rnd);
		if (step % 4 == 0)
			st_run_own_cpu(__atomic_add_fetch(&st_clock, ST_JIFFY_NS, __ATOMIC_SEQ_CST));
	}
	return NULL;
}

static void test_random_stress_on_three_cpus(void **state)
{
	(void)state;
	two_cpus();
	host_nr_cpus = ST_CPUS;
	hrtimer_reset_for_test();       /* every heap of the three, knowing its CPU */
	for (unsigned cpu = 0; cpu < ST_CPUS; cpu++) {
		struct timer_base *w = time_timer_base(cpu);
		w->in_run = false;
		w->firing = NULL;
		w->running = NULL;
	}
	timer_wheel_init(0);
	__atomic_store_n(&st_clock, ST_JIFFY_NS, __ATOMIC_SEQ_CST);
	st_early = st_twice_at_once = st_unowed = st_owed_after_sync = 0;
	st_fired_n = st_running_seen = 0;
	for (unsigned i = 0; i < 2 * ST_PER_KIND; i++) {
		st[i] = (struct st_timer){ .is_hr = i % 2 == 0 };
		hrtimer_init(&st[i].hr, st_hr_fn, "stress-hr");
		timer_init(&st[i].wt, st_wheel_fn, "stress-wheel");
	}
	pthread_t th[ST_CPUS];
	for (unsigned cpu = 0; cpu < ST_CPUS; cpu++)
		assert_int_equal(pthread_create(&th[cpu], NULL, st_cpu, (void *)(uintptr_t)cpu), 0);
	for (unsigned cpu = 0; cpu < ST_CPUS; cpu++)
		pthread_join(th[cpu], NULL);

	/* Drain: every CPU runs what is due up to far beyond any deadline. */
	uint64_t end = __atomic_load_n(&st_clock, __ATOMIC_SEQ_CST) + 100 * ST_JIFFY_NS;
	for (unsigned cpu = 0; cpu < ST_CPUS; cpu++) {
		host_cpu_id = cpu;
		st_run_own_cpu(end);
	}
	host_cpu_id = 0;
	print_message("stress: %d callbacks, %d try-cancels found one running\n",
	              st_fired_n, st_running_seen);
	assert_true(st_fired_n > 1000);
	assert_int_equal(st_early, 0);
	assert_int_equal(st_twice_at_once, 0);
	assert_int_equal(st_unowed, 0);
	assert_int_equal(st_owed_after_sync, 0);
	for (unsigned i = 0; i < 2 * ST_PER_KIND; i++) {
		assert_int_equal(st[i].owed, 0);        /* none lost */
		assert_false(hrtimer_is_queued(&st[i].hr));
		assert_false(timer_pending(&st[i].wt));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_hrtimer_cancel_waits_for_a_restarting_callback, teardown),
		cmocka_unit_test_teardown(test_timer_del_sync_waits_for_a_rearming_callback, teardown),
		cmocka_unit_test_teardown(test_hrtimer_running_is_not_moved, teardown),
		cmocka_unit_test_teardown(test_wheel_running_is_not_moved, teardown),
		cmocka_unit_test_teardown(test_sync_cancel_from_own_callback_panics, teardown),
		cmocka_unit_test_teardown(test_every_remote_arm_tells_its_cpu, teardown),
		cmocka_unit_test_teardown(test_random_stress_on_three_cpus, teardown),
	};
	return cmocka_run_group_tests_name("test_timer_smp", tests, NULL, NULL);
}
