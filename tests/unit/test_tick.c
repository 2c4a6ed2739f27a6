// SOURCES: kernel/time/tick.c kernel/time/tick_sched.c kernel/time/tick_boot.c kernel/time/tick_smp.c kernel/time/wakeups.c kernel/time/trace.c kernel/time/timer.c kernel/time/timer_bucket.c kernel/time/timer_cascade.c kernel/time/timer_expiry.c kernel/time/timer_base.c kernel/time/timer_level.c kernel/time/slack.c kernel/time/hrtimer.c kernel/time/hrtimer_base.c kernel/time/hrtimer_heap.c kernel/time/path.c kernel/time/clocksource.c kernel/time/watchdog.c kernel/time/timekeeping.c kernel/time/clockevents.c kernel/time/jiffies.c tests/unit/host_arch.c tests/unit/time_test.c kernel/time/mult_shift.c kernel/lib/format.c kernel/time/tick_jiffies.c kernel/time/tick_switch.c kernel/time/percpu.c
// THREADS: also built and run under ThreadSanitizer (make unit)
/* Host tests for the tick layer (kernel/time/tick.c, tick_sched.c) on a
 * fake clock and a fake clock event device: the skip rules and clamps, and
 * — over thousands of random sleeps, early wakes by other interrupts, and
 * mode, device and HZ switches — that jiffies always equal the whole ticks
 * elapsed on the fake clock, and that no timer fires early, twice, or
 * never. */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "time/percpu.h"
#include "time/clockevent.h"
#include "time/clocksource.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "errno.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"
#include "time/trace.h"
#include "time/wakeups.h"
#include "arch/irq.h"
#include "host_test.h"
#include "time_test.h"
#include "../../kernel/time/tick_internal.h"

extern _Thread_local bool host_irqs_disabled;

#define VEC_DEV    0xF0
#define VEC_OTHER  0x24
#define NEVER      UINT64_MAX

/* ------------------------------------------------ the fake machine */

/* The true time.  It starts at 0 so that it equals ktime_get_ns(). */
static uint64_t fake_ns;

/* The clocksource counts it at 1 GHz (made in setup_machine). */
/* (An atomic load: test_hz_switch_counts_each_period_once moves the clock
 * from another thread.) */
static uint64_t read_fake(struct clocksource *cs)
{
	(void)cs;
	return __atomic_load_n(&fake_ns, __ATOMIC_RELAXED);
}
static struct clocksource fake_cs;

/* Two devices counting at 1 GHz (1 tick = 1 ns): "short" can wait at most
 * 50 ms like a PIT, "long" 10 s like a LAPIC timer.  Only the tick device
 * runs at any time; its next interrupt is dev_next. */
static uint64_t dev_next = NEVER, dev_period;
static struct clock_event_device *dev_running;

static int fake_periodic(struct clock_event_device *d, unsigned hz)
{
	dev_running = d;
	dev_period = 1000000000ull / hz;
	dev_next = fake_ns + dev_period;
	return 0;
}
static int fake_oneshot(struct clock_event_device *d)
{
	dev_running = d;
	dev_period = 0;
	dev_next = NEVER;
	return 0;
}
static unsigned fake_etime_left;        /* answer -ETIME this many more times */
static int fake_next(struct clock_event_device *d, uint64_t ticks)
{
	assert_ptr_equal(d, dev_running);
	if (fake_etime_left) {
		fake_etime_left--;
		return -ETIME;
	}
	assert_true(ticks >= d->min_delta_ticks && ticks <= d->max_delta_ticks);
	dev_next = fake_ns + ticks;
	return 0;
}
static int fake_shutdown(struct clock_event_device *d)
{
	if (d == dev_running) {
		dev_next = NEVER;
		dev_period = 0;
		dev_running = NULL;
	}
	return 0;
}

#define FAKE_DEVICE(nm, rate, maxticks) {                                      \
	.name = nm, .rating = rate, .features = CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT, \
	.freq_hz = 1000000000, .min_delta_ticks = 1000, .max_delta_ticks = maxticks, \
	.irq = -1, .set_periodic = fake_periodic, .set_oneshot = fake_oneshot, \
	.set_next_event = fake_next, .shutdown = fake_shutdown }

static struct clock_event_device dev_short = FAKE_DEVICE("short", 100, 50000000);
static struct clock_event_device dev_long = FAKE_DEVICE("long", 200, 10000000000ull);

/* An AP's own device, which records what its tick asked of it (made in
 * setup_machine, never registered). */
static struct fake_clockevent dev_ap;

/* Like the kernel's AP device, a copy of a registered one's scaling (the
 * same rate: 1 GHz). */
static void scale_dev_ap_like_long(void)
{
	dev_ap.dev.mult = dev_long.mult;
	dev_ap.dev.shift = dev_long.shift;
	dev_ap.dev.min_delta_ns = dev_long.min_delta_ns;
	dev_ap.dev.max_delta_ns = dev_long.max_delta_ns;
}

/* ------------------------------------------------ the reference */

/* Expected jiffies: boundary time and count, advanced the same way the
 * definition says (whole periods of the fake clock), and carried across HZ
 * switches at the switch time. */
static uint64_t exp_boundary;
static uint64_t exp_jiffies;
static uint64_t exp_period;

static void exp_advance(void)
{
	uint64_t n = (fake_ns - exp_boundary) / exp_period;
	exp_jiffies += n;
	exp_boundary += n * exp_period;
}

/* ------------------------------------------------ interrupts */

static void deliver(unsigned vector)
{
	host_irqs_disabled = true;
	struct clock_event_device *d = dev_running;
	if (vector == VEC_DEV) {
		/* The hardware reloads (periodic) or stops (one-shot) as it
		 * fires, before any software runs. */
		if (dev_period)
			dev_next += dev_period;
		else
			dev_next = NEVER;
	}
	tick_irq_enter(vector);
	if (vector == VEC_DEV)
		d->event_handler(d);
	tick_irq_exit();
}

/* jiffies against the reference; a mismatch says which is which, how far
 * off, the rule, and what the tick was doing. */
static void check_jiffies_exact(void)
{
	exp_advance();
	if (jiffies_64 == exp_jiffies)
		return;
	const struct tick_cpu *tc = this_tick();
	bool ahead = jiffies_64 > exp_jiffies;
	fail_msg("jiffies %llu, want %llu (%llu %s the clock): jiffies must count whole periods "
	         "since the boundary, every period the clock has completed and none it has not; "
	         "at %llu ns, mode %s on %s, HZ %u, stopped %d, dev_next %llu, period %llu",
	         (unsigned long long)jiffies_64, (unsigned long long)exp_jiffies,
	         (unsigned long long)(ahead ? jiffies_64 - exp_jiffies : exp_jiffies - jiffies_64),
	         ahead ? "ahead of" : "behind", (unsigned long long)fake_ns, tick_mode_name(tc->mode),
	         tc->dev ? tc->dev->name : "no device", tc->hz, tc->stopped,
	         (unsigned long long)dev_next, (unsigned long long)dev_period);
}

/* ------------------------------------------------ timers under test */

#define NTIMERS 64
struct probe {
	struct timer t;
	struct hrtimer h;
	uint64_t deadline_ns;       /* real-time deadline fixed when armed */
	unsigned fired, armed;
	bool is_hr;
	uint32_t expires;           /* wheel: jiffies it was armed for */
	unsigned armed_hz;
	unsigned hz_changes_at_arm;
	uint64_t worst_late_ns;
};
static struct probe probes[NTIMERS];
static uint64_t late_limit_ns;
/* Each runtime HZ change re-expresses a pending wheel timer in whole ticks
 * of the new rate, rounding up (never early), so it may add up to one
 * tick of lateness per change while the timer waits. */
static unsigned hz_changes;
#define SLOWEST_TICK_NS 10000000ull

static void probe_fired(struct probe *p)
{
	assert_true(p->armed);
	assert_true(fake_ns >= p->deadline_ns);             /* never early */
	uint64_t late = fake_ns - p->deadline_ns;
	uint64_t limit = late_limit_ns;
	if (!p->is_hr)
		limit += (hz_changes - p->hz_changes_at_arm) * SLOWEST_TICK_NS;
	if (late > limit)
		fprintf(stderr, "probe %ld (%s, armed at HZ %u) late %llu ns at %llu: mode %s on %s HZ %u\n",
		        (long)(p - probes), p->is_hr ? "hrtimer" : "wheel", p->armed_hz,
		        (unsigned long long)late, (unsigned long long)fake_ns,
		        tick_mode_name(this_tick()->mode), this_tick()->dev->name, this_tick()->hz);
	assert_true(late <= limit);
	if (late > p->worst_late_ns)
		p->worst_late_ns = late;
	p->armed = 0;
	p->fired++;
}

static void wheel_cb(struct timer *t)
{
	struct probe *p = container_of(t, struct probe, t);
	assert_true(time_after_eq(jiffies, t->expires));   /* jiffies terms too */
	probe_fired(p);
}

static enum hrtimer_restart hr_cb(struct hrtimer *h)
{
	probe_fired(container_of(h, struct probe, h));
	return HRTIMER_NORESTART;
}

static void arm_random(unsigned i)
{
	struct probe *p = &probes[i];
	if (p->armed)
		return;
	exp_advance();
	if (rand() % 2) {
		uint32_t ahead = 1 + (uint32_t)(rand() % (rand() % 4 ? 40 : 3000));
		/* Due when jiffies reaches jiffies + ahead: that boundary, in
		 * real time, counted from the current boundary. */
		p->deadline_ns = exp_boundary + (uint64_t)(jiffies_64 + ahead - exp_jiffies) * exp_period;
		timer_mod(&p->t, jiffies + ahead);
		p->is_hr = false;
		p->expires = jiffies + ahead;
		p->armed_hz = this_tick()->hz;
		p->hz_changes_at_arm = hz_changes;
	} else {
		uint64_t delta = 10000 + (uint64_t)(rand() % 300000000);
		p->deadline_ns = fake_ns + delta;
		hrtimer_start(&p->h, p->deadline_ns);
		p->is_hr = true;
		p->armed_hz = this_tick()->hz;
	}
	p->armed = 1;
}

/* ------------------------------------------------ simulation */

static void run_for(uint64_t duration_ns, unsigned idle_percent, unsigned other_irq_permille)
{
	uint64_t end = fake_ns + duration_ns;
	while (fake_ns < end) {
		bool idle = (unsigned)(rand() % 100) < idle_percent;
		uint64_t other = NEVER;
		if ((unsigned)(rand() % 1000) < other_irq_permille)
			other = fake_ns + 1 + (uint64_t)(rand() % 20000000);
		host_irqs_disabled = true;
		if (idle)
			tick_idle_enter();
		uint64_t busy_until = idle ? NEVER : fake_ns + 1 + (uint64_t)(rand() % 3000000);
		/* An idle CPU leaves idle only through an interrupt (hlt), so
		 * the round's end does not cut a sleep short. */
		uint64_t next = idle ? MIN(dev_next, other) : MIN(MIN(dev_next, other), MIN(busy_until, end));
		assert_true(next != NEVER);         /* an idle CPU always wakes */
		if (next > fake_ns)
			fake_ns = next;
		if (next == dev_next) {
			deliver(VEC_DEV);
			check_jiffies_exact();
		} else if (next == other) {
			bool was_stopped = this_tick()->stopped;
			deliver(VEC_OTHER);
			if (was_stopped)
				check_jiffies_exact();      /* caught up before the handler */
		}
		if (idle)
			tick_idle_exit();
		exp_advance();
		assert_true(jiffies_64 <= exp_jiffies);      /* never ahead */
		if (rand() % 4 == 0)
			arm_random((unsigned)rand() % NTIMERS);
		if (rand() % 50 == 0) {
			struct probe *p = &probes[rand() % NTIMERS];
			if (p->armed && (timer_del(&p->t) | hrtimer_cancel(&p->h)))
				p->armed = 0;
		}
		host_irqs_disabled = false;
	}
}

static void set_hz(unsigned hz)
{
	exp_advance();
	assert_int_equal(tick_set_hz(hz), 0);
	hz_changes++;
	exp_period = 1000000000ull / hz;
	late_limit_ns = 2 * 10000000ull + 1000000;    /* two ticks at the slowest HZ + slack */
}

static int setup_machine(void **state)
{
	(void)state;
	/* A fixed seed keeps CI repeatable; LULL_SEED=N explores others. */
	srand(getenv("LULL_SEED") ? (unsigned)atoi(getenv("LULL_SEED")) : 12345);
	fake_clocksource_init(&fake_cs, "fake", 300, NSEC_PER_SEC, UINT64_MAX, read_fake);
	assert_int_equal(clocksource_register(&fake_cs), 0);
	assert_int_equal(clockevents_register(&dev_short), 0);
	assert_int_equal(clockevents_register(&dev_long), 0);
	fake_clockevent_init(&dev_ap, "ap", 1, CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT,
	                     NSEC_PER_SEC, 1000, 10000000000ull);
	host_irqs_disabled = true;
	tick_init();
	host_irqs_disabled = false;
	exp_period = this_tick()->period_ns;
	exp_boundary = this_tick()->last_jiffy_ns;
	exp_jiffies = jiffies_64;
	late_limit_ns = 2 * exp_period + 1000000;
	for (unsigned i = 0; i < NTIMERS; i++) {
		timer_init(&probes[i].t, wheel_cb, "probe");
		hrtimer_init(&probes[i].h, hr_cb, "probe-hr");
	}
	return 0;
}

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(this_tick()->mode, TICK_MODE_TICKLESS);
	assert_ptr_equal(this_tick()->dev, &dev_long);      /* best rated */
	assert_int_equal(this_tick()->hz, CONFIG_HZ);
	assert_true(tick_skipping_suitable());
}

static void nop_timer(struct timer *t) { (void)t; }
static enum hrtimer_restart nop_hrtimer(struct hrtimer *h) { (void)h; return HRTIMER_NORESTART; }

/* The other CPUs, as kernel/arch/smp.c would answer for them. */

/* Let every probe go. */
static void release_probes(void)
{
	for (unsigned i = 0; i < NTIMERS; i++) {
		timer_del(&probes[i].t);
		hrtimer_cancel(&probes[i].h);
		probes[i].armed = 0;
	}
}

static const char *const limit_names[TICK_LIMIT_COUNT] = {
	[TICK_LIMIT_NONE] = "none", [TICK_LIMIT_TIMER] = "timer", [TICK_LIMIT_HRTIMER] = "hrtimer",
	[TICK_LIMIT_DEVICE] = "device", [TICK_LIMIT_WRAP] = "wrap", [TICK_LIMIT_WATCHDOG] = "watchdog",
};

static const char *limit_name(enum tick_limit l)
{
	return (unsigned)l < TICK_LIMIT_COUNT ? limit_names[l] : "?";
}

/* A dyntick idle entry (`s`, its tick state just after) decided as the
 * 2005 patch's rules say: no skip (`skip` 0), or a skip of `skip` ticks
 * for `limit`; else a failure that says, in words, what it did instead.
 * `what` describes the setting ("the only timer 2 ticks ahead"), `ahead`
 * the whole ticks from the last boundary to the next event. */
static void expect_dyntick(const struct tick_cpu *s, const char *what, unsigned ahead, unsigned skip,
                           enum tick_limit limit)
{
	if (s->stopped && s->skip_limit == TICK_LIMIT_NONE)
		fail_msg("dyntick, %s: tc->stopped is true, but no skip was programmed (the tick keeps "
		         "running): every 'keep ticking' path of dyntick_skip must set it back to false", what);
	if (s->stopped && s->skip > ahead)
		fail_msg("dyntick, %s: a skip of %u ticks ends past the next event; expected %s: whole "
		         "periods (tc->period_ns, %llu ns at HZ=%u) from the last jiffy boundary, rounded "
		         "down, so it ends at or before `next`", what, s->skip, skip ? "fewer" : "none",
		         (unsigned long long)s->period_ns, s->hz);
	if (skip == 0 && s->stopped)
		fail_msg("dyntick, %s: the tick was stopped for a skip of %u tick(s); expected none: a skip "
		         "of TICK_DYNTICK_MIN_SKIP (%u) ticks or fewer is not worth reprogramming the device "
		         "(dyntick_skip returns 0)", what, s->skip, TICK_DYNTICK_MIN_SKIP);
	if (skip == 0)
		return;
	if (!s->stopped)
		fail_msg("dyntick, %s: no skip; expected a skip of %u ticks (more than "
		         "TICK_DYNTICK_MIN_SKIP: worth it)", what, skip);
	if (s->skip != skip)
		fail_msg("dyntick, %s: a skip of %u ticks; expected %u: the whole tick periods "
		         "(tc->period_ns at HZ=%u) from the last jiffy boundary (tc->last_jiffy_ns) to the "
		         "next event, rounded down%s", what, s->skip, skip, s->hz,
		         limit == TICK_LIMIT_DEVICE ? ", then the device's maximum" : "");
	if (s->skip_limit != limit)
		fail_msg("dyntick, %s: the skip's limit is '%s'; expected '%s'", what,
		         limit_name(s->skip_limit), limit_name(limit));
}

/* What the fake device and the tick held just after an interrupt ended a
 * skip, for expect_ticking_again (taken before a test cleans up). */
struct after_wake {
	bool on_tick_device;
	uint64_t period, programmed_ns;
};

static struct after_wake after_wake_now(const struct tick_cpu *tc)
{
	return (struct after_wake){ .on_tick_device = dev_running == tc->dev, .period = dev_period,
	                            .programmed_ns = tc->programmed_ns };
}

/* Dyntick, after an interrupt ended a skip (`when`): the device ticks at
 * HZ again and the one-shot deadline is forgotten (tick_restart). */
static void expect_ticking_again(const struct tick_cpu *tc, struct after_wake w, const char *when)
{
	if (!w.on_tick_device || w.period == 0)
		fail_msg("dyntick at HZ=%u, %s: the device is still in one-shot mode: tick_restart must put "
		         "it back to one tick per period (clockevents_set_periodic)", tc->hz, when);
	if (w.period != tc->period_ns)
		fail_msg("dyntick at HZ=%u, %s: the device ticks every %llu ns; expected %llu, HZ=%u: "
		         "tc->hz, the rate in force (CONFIG_HZ is only the rate a boot starts at)", tc->hz,
		         when, (unsigned long long)w.period, (unsigned long long)tc->period_ns, tc->hz);
	if (w.programmed_ns != 0)
		fail_msg("dyntick at HZ=%u, %s: tc->programmed_ns is still %llu; expected 0: "
		         "tick_restart forgets the one-shot deadline once the tick runs again", tc->hz, when,
		         (unsigned long long)w.programmed_ns);
}

/* Idle with one timer armed `ahead` ticks out; report the programmed skip. */
static struct tick_cpu *idle_with_timer_ahead(uint32_t ahead)
{
	static struct timer t;
	timer_init(&t, nop_timer, "lone");
	release_probes();           /* so only `t` is pending */
	deliver(VEC_DEV);           /* a fresh tick: now is just past a boundary */
	exp_advance();
	timer_mod(&t, jiffies + ahead);
	host_irqs_disabled = true;
	tick_idle_enter();
	struct tick_cpu *tc = this_tick();
	static struct tick_cpu snapshot;
	snapshot = *tc;
	/* Wake it up again and clean up. */
	fake_ns = dev_next;
	deliver(VEC_DEV);
	struct after_wake w = after_wake_now(tc);
	tick_idle_exit();
	timer_del(&t);
	host_irqs_disabled = false;
	if (snapshot.mode == TICK_MODE_DYNTICK && snapshot.stopped)
		expect_ticking_again(tc, w, "after a skip to its end");
	return &snapshot;
}

static void test_dyntick_skip_rules(void **state)
{
	(void)state;
	assert_int_equal(tick_set_device("short"), 0);
	assert_int_equal(tick_set_mode(TICK_MODE_DYNTICK), 0);
	unsigned max_skip = (unsigned)(dev_short.max_delta_ns / this_tick()->period_ns);
	assert_int_equal(tick_max_skip(), max_skip);
	/* Past the first jiffy boundary: at fake time 0 the boot's boundary
	 * lies half a period before 0 (tick_init), below the clock's zero, and
	 * a timer's `next` would seem to lie before it. */
	fake_ns = MAX(fake_ns, dev_next);

	/* Two ticks or fewer: not worth skipping (the 2005 dyntick patch's
	 * MIN_SKIP). */
	struct tick_cpu *s = idle_with_timer_ahead(2);
	expect_dyntick(s, "the only timer 2 ticks ahead", 2, 0, TICK_LIMIT_NONE);
	s = idle_with_timer_ahead(1);
	expect_dyntick(s, "the only timer 1 tick ahead", 1, 0, TICK_LIMIT_NONE);
	/* Three: skip exactly to the timer. */
	s = idle_with_timer_ahead(3);
	expect_dyntick(s, "the only timer 3 ticks ahead", 3, 3, TICK_LIMIT_TIMER);
	assert_string_equal(s->skip_timer, "lone");
	/* Far away: clamped to the device's maximum skip. */
	s = idle_with_timer_ahead(1000);
	expect_dyntick(s, "the only timer 1000 ticks ahead, on a 50 ms device", 1000, max_skip, TICK_LIMIT_DEVICE);
	/* On the long device the timer itself decides. */
	assert_int_equal(tick_set_device("long"), 0);
	s = idle_with_timer_ahead(1000);
	expect_dyntick(s, "the only timer 1000 ticks ahead, on a 10 s device", 1000, 1000, TICK_LIMIT_TIMER);
	check_jiffies_exact();

	/* SMP (the 2005 patch's rule): while another CPU is busy, no tick is
	 * skipped, however far the timer; once all are idle the skip is
	 * back, and the CPU that wakes from it first wakes every CPU whose
	 * tick is stopped.  CPU 1 is a second fake CPU, its tick state set
	 * by hand. */
	release_probes();
	assert_int_equal(timer_count(), 0);
	host_nr_cpus = 2;
	timer_wheel_init(jiffies);              /* CPU 1's wheel too */
	struct tick_cpu *other = time_tick_of(1);
	*other = (struct tick_cpu){ .dev = &dev_long, .mode = TICK_MODE_DYNTICK,
	                            .hz = this_tick()->hz, .period_ns = this_tick()->period_ns };
	other->idle = false;                    /* busy */
	s = idle_with_timer_ahead(1000);
	assert_false(s->stopped);
	other->idle = other->stopped = true;    /* asleep, its tick stopped */
	host_kicks[1] = 0;
	s = idle_with_timer_ahead(1000);
	assert_true(s->stopped);
	assert_int_equal(host_kicks[1], 1);     /* the wake-up in idle_with_timer_ahead */
	/* dyntick skips to the next event of any CPU: CPU 1's timer, 10
	 * jiffies on, ends CPU 0's skip (arming it wakes the idle CPU 1). */
	static struct timer on1;
	timer_init(&on1, nop_timer, "on cpu 1");
	host_kicks[1] = 0;
	timer_mod_on(&on1, jiffies + 10, 1);
	assert_int_equal(host_kicks[1], 1);
	assert_int_equal(timer_count(), 0);
	assert_int_equal(timer_count_on(1), 1);
	s = idle_with_timer_ahead(1000);
	assert_true(s->stopped);
	assert_string_equal(s->skip_timer, "on cpu 1");
	assert_true(s->skip >= 9 && s->skip <= 10);
	/* Tickless is per CPU: CPU 1's timer is CPU 1's business. */
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
	s = idle_with_timer_ahead(1000);
	assert_string_equal(s->skip_timer, "lone");
	assert_int_equal(tick_set_mode(TICK_MODE_DYNTICK), 0);
	assert_int_equal(timer_del(&on1), 1);
	*other = (struct tick_cpu){ 0 };
	host_nr_cpus = 1;
	check_jiffies_exact();
}

/* Idle on the current device with one timer `ahead` ticks out, right
 * after a tick, or (late) 9/10 into that jiffy; interrupts stay off. */
static struct tick_cpu *idle_late(uint32_t ahead, bool late, struct timer *t)
{
	release_probes();
	fake_ns = MAX(fake_ns, dev_next);
	deliver(VEC_DEV);                       /* a tick: jiffies current */
	exp_advance();
	timer_mod(t, jiffies + ahead);
	if (late)
		fake_ns = MAX(fake_ns, this_tick()->last_jiffy_ns + this_tick()->period_ns * 9 / 10);
	host_irqs_disabled = true;
	tick_idle_enter();
	return this_tick();
}

/* The patch's limit holds late in a jiffy too; and `dyntick`'s counters
 * count the ticks slept through, not those programmed. */
static void test_dyntick_skip_limit_and_counts(void **state)
{
	(void)state;
	static struct timer t;
	timer_init(&t, nop_timer, "lone");
	assert_int_equal(tick_set_device("short"), 0);
	assert_int_equal(tick_set_mode(TICK_MODE_DYNTICK), 0);
	struct tick_cpu *tc = this_tick();
	unsigned max_skip = (unsigned)tick_max_skip();
	uint64_t period = tc->period_ns;

	/* A timer one tick past the limit, entered 9/10 into a jiffy: from
	 * the boundary the device would reach it (at HZ=250 on this 50 ms
	 * device: 13 ticks, 52 ms, against 3.6 + 50), but the skip stops at
	 * the patch's max_skip, and the device limited it. */
	const struct skip_counts *k = &time_wakeups_of(0)->stats.by_mode[SKIP_DYNTICK];
	uint64_t skipped = k->ticks_skipped, catchups = k->catchups;
	idle_late(max_skip + 1, true, &t);
	assert_true(tc->stopped);
	assert_int_equal(tc->skip, max_skip);
	assert_int_equal(tc->skip_limit, TICK_LIMIT_DEVICE);
	fake_ns = dev_next;                     /* slept to the end */
	deliver(VEC_DEV);
	tick_idle_exit();
	host_irqs_disabled = false;
	assert_int_equal(k->ticks_skipped - skipped, max_skip);
	assert_int_equal(k->catchups - catchups, 1);
	assert_true(k->longest_skip >= max_skip);      /* the earlier tests slept longer */

	/* Cut short by another interrupt 3.5 ticks in: 3 ticks slept, though
	 * max_skip were programmed. */
	skipped = k->ticks_skipped;
	idle_late(1000, false, &t);
	assert_int_equal(tc->skip, max_skip);
	fake_ns = tc->last_jiffy_ns + period * 7 / 2;
	deliver(VEC_OTHER);
	tick_idle_exit();
	host_irqs_disabled = false;
	assert_int_equal(k->ticks_skipped - skipped, 3);
	check_jiffies_exact();
	/* Leave the tick as the next tests expect: on the long device, its
	 * phase set by a skip that ended on a jiffy boundary (the cut above
	 * restarted it between two). */
	idle_late(5, false, &t);
	fake_ns = dev_next;
	deliver(VEC_DEV);
	tick_idle_exit();
	host_irqs_disabled = false;
	timer_del(&t);
	assert_int_equal(tick_set_device("long"), 0);
}

static struct hrtimer dt_hr;
static struct timer tl_wheel;
static struct hrtimer tl_hr;

/* Teardown of the tests below: a check that failed left the CPU asleep,
 * its timers armed or HZ changed; wake it and put all back, so the next
 * test (another lab's, perhaps) starts as it would have. */
static int wake_and_settle(void **state)
{
	(void)state;
	struct tick_cpu *tc = this_tick();
	host_irqs_disabled = true;
	if (tc->idle) {
		if (tc->stopped && dev_next != NEVER) {
			fake_ns = MAX(fake_ns, dev_next);
			deliver(VEC_DEV);
		} else {
			deliver(VEC_OTHER);
		}
		tick_idle_exit();
	}
	hrtimer_cancel(&dt_hr);
	hrtimer_cancel(&tl_hr);
	timer_del(&tl_wheel);
	release_probes();
	host_irqs_disabled = false;
	if (tc->hz != CONFIG_HZ)
		set_hz(CONFIG_HZ);
	return 0;
}

/* Dyntick at `hz` with one hrtimer 10.5 periods past the last boundary:
 * the skip ends on the boundary before it (10), never past it; and an
 * interrupt 1.5 periods in ends the skip: jiffies caught up, the device
 * ticking at HZ again, the one-shot deadline forgotten (tick_restart). */
static void check_dyntick_skip_and_restart(unsigned hz)
{
	char what[96];
	set_hz(hz);
	assert_int_equal(tick_set_mode(TICK_MODE_DYNTICK), 0);
	/* A wheel timer 5 ticks ahead, in this rate's periods. */
	snprintf(what, sizeof(what), "the only timer 5 ticks ahead at HZ=%u", hz);
	expect_dyntick(idle_with_timer_ahead(5), what, 5, 5, TICK_LIMIT_TIMER);

	hrtimer_init(&dt_hr, nop_hrtimer, "mid-period");
	release_probes();
	fake_ns = MAX(fake_ns, dev_next);
	deliver(VEC_DEV);                       /* a tick: jiffies current */
	exp_advance();
	struct tick_cpu *tc = this_tick();
	uint64_t period = tc->period_ns, boundary = tc->last_jiffy_ns;
	hrtimer_start(&dt_hr, boundary + period * 21 / 2);
	host_irqs_disabled = true;
	tick_idle_enter();
	snprintf(what, sizeof(what), "the only timer an hrtimer 10.5 ticks past the last boundary, HZ=%u", hz);
	expect_dyntick(tc, what, 10, 10, TICK_LIMIT_HRTIMER);

	/* Another interrupt, 1.5 periods in. */
	fake_ns = boundary + period * 3 / 2;
	deliver(VEC_OTHER);
	check_jiffies_exact();
	struct after_wake w = after_wake_now(tc);
	tick_idle_exit();
	hrtimer_cancel(&dt_hr);
	host_irqs_disabled = false;
	check_jiffies_exact();
	expect_ticking_again(tc, w, "after an interrupt ended a skip early");
}

static void test_dyntick_skips_whole_ticks_and_restarts_at_hz(void **state)
{
	(void)state;
	assert_int_equal(tick_set_device("long"), 0);
	static const unsigned hzs[] = { 100, 1000, 250 };
	for (unsigned i = 0; i < sizeof(hzs) / sizeof(hzs[0]); i++)
		check_dyntick_skip_and_restart(hzs[i]);
	set_hz(CONFIG_HZ);
}

/* Tickless: a fresh tick, then (while awake) a wheel timer `wheel_ahead`
 * jiffies on and an hrtimer `hr_after` ns past the last boundary (0: none
 * of that kind), then idle.  Returns the tick state, asleep, interrupts
 * off; tickless_wake() ends it. */
static struct tick_cpu *tickless_idle_with(uint32_t wheel_ahead, uint64_t hr_after)
{
	timer_init(&tl_wheel, nop_timer, "wheel");
	hrtimer_init(&tl_hr, nop_hrtimer, "hr");
	release_probes();
	fake_ns = MAX(fake_ns, dev_next);
	deliver(VEC_DEV);
	exp_advance();
	assert_int_equal(timer_count(), 0);
	if (wheel_ahead)
		timer_mod(&tl_wheel, jiffies + wheel_ahead);
	if (hr_after)
		hrtimer_start(&tl_hr, this_tick()->last_jiffy_ns + hr_after);
	host_irqs_disabled = true;
	tick_idle_enter();
	return this_tick();
}

static void tickless_wake(void)
{
	fake_ns = MAX(fake_ns, dev_next);
	deliver(VEC_DEV);
	tick_idle_exit();
	timer_del(&tl_wheel);
	hrtimer_cancel(&tl_hr);
	host_irqs_disabled = false;
	check_jiffies_exact();
}

/* The idle entry `tc` stopped the tick and programmed the device for
 * `want` ns past the last jiffy boundary, for a timer of kind `limit`
 * called `name`; `what` says the setting, `why` where `want` comes from. */
static void expect_tickless(const struct tick_cpu *tc, const char *what, uint64_t want,
                            enum tick_limit limit, const char *name, const char *why)
{
	int64_t got = (int64_t)(tc->programmed_ns - tc->last_jiffy_ns);
	if (!tc->stopped)
		fail_msg("tickless, %s: the tick was not stopped (the device left on its program, %lld ns "
		         "past the last boundary); expected a one-shot at %llu ns (%s)", what, got,
		         (unsigned long long)want, why);
	if (got != (int64_t)want)
		fail_msg("tickless, %s: the device was programmed %lld ns past the last jiffy boundary "
		         "(limit '%s'); expected %llu ns: %s", what, got, limit_name(tc->skip_limit),
		         (unsigned long long)want, why);
	if (tc->skip_limit != limit)
		fail_msg("tickless, %s: the sleep's limit is '%s'; expected '%s' (next_timer_on's *limit: "
		         "which kind of timer it was)", what, limit_name(tc->skip_limit), limit_name(limit));
	if (!tc->skip_timer || strcmp(tc->skip_timer, name) != 0)
		fail_msg("tickless, %s: the timer named is '%s'; expected '%s' (next_timer_on's *name)",
		         what, tc->skip_timer ? tc->skip_timer : "(none)", name);
}

/* next_timer_on: the earliest of the wheel's next expiry (a jiffy, at the
 * boundary that starts it, counted in this rate's periods from the last
 * boundary) and the hrtimers' (ns), at HZ=100, 1000 and 250; a jiffy
 * already past is due now. */
static void test_tickless_next_timer_is_the_earliest(void **state)
{
	(void)state;
	char what[96];
	assert_int_equal(tick_set_device("long"), 0);
	static const unsigned hzs[] = { 100, 1000, 250 };
	for (unsigned i = 0; i < sizeof(hzs) / sizeof(hzs[0]); i++) {
		set_hz(hzs[i]);
		assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
		uint64_t period = this_tick()->period_ns;
		snprintf(what, sizeof(what), "the only timer a wheel timer 7 jiffies ahead, HZ=%u", hzs[i]);
		expect_tickless(tickless_idle_with(7, 0), what, 7 * period, TICK_LIMIT_TIMER, "wheel",
		                "7 periods of tc->period_ns from tc->last_jiffy_ns, the boundary that starts "
		                "the timer's jiffy");
		tickless_wake();
	}
	uint64_t period = this_tick()->period_ns;
	expect_tickless(tickless_idle_with(0, period * 33 / 10), "the only timer an hrtimer 3.3 "
	                "periods past the boundary", period * 33 / 10, TICK_LIMIT_HRTIMER, "hr",
	                "the hrtimer's own deadline (hrtimer_next_expiry_on)");
	tickless_wake();
	expect_tickless(tickless_idle_with(20, period * 33 / 10), "a wheel timer 20 jiffies ahead and "
	                "an hrtimer 3.3 periods past the boundary", period * 33 / 10, TICK_LIMIT_HRTIMER,
	                "hr", "the earlier of the two, the hrtimer");
	tickless_wake();
	expect_tickless(tickless_idle_with(5, period * 205 / 10), "a wheel timer 5 jiffies ahead and "
	                "an hrtimer 20.5 periods past the boundary", 5 * period, TICK_LIMIT_TIMER,
	                "wheel", "the earlier of the two, the wheel timer");
	tickless_wake();

	/* A jiffy already past: the CPU was busy, interrupts off, through
	 * the timer's jiffy and one more; idle entry catches jiffies up
	 * before it asks, and the timer, not yet run, is due now. */
	timer_init(&tl_wheel, nop_timer, "wheel");
	release_probes();
	fake_ns = MAX(fake_ns, dev_next);
	deliver(VEC_DEV);
	exp_advance();
	timer_mod(&tl_wheel, jiffies + 1);
	fake_ns = this_tick()->last_jiffy_ns + period * 5 / 2;
	host_irqs_disabled = true;
	tick_idle_enter();
	if (dev_next > fake_ns + period)
		fail_msg("tickless, a wheel timer whose jiffy passed while interrupts were off: the device "
		         "was programmed %llu us ahead (limit '%s'); expected an interrupt now: a jiffy "
		         "already past is due at the last boundary (a signed distance, not a huge unsigned "
		         "one)", (unsigned long long)(dev_next - fake_ns) / 1000,
		         limit_name(this_tick()->skip_limit));
	tickless_wake();
	assert_false(timer_pending(&tl_wheel));     /* it ran */
	set_hz(CONFIG_HZ);
}

static void test_tickless_programs_the_deadline(void **state)
{
	(void)state;
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
	struct tick_cpu *s = idle_with_timer_ahead(1000);
	expect_tickless(s, "the only timer a wheel timer 1000 jiffies ahead", 1000 * s->period_ns,
	                TICK_LIMIT_TIMER, "lone", "1000 periods of tc->period_ns from tc->last_jiffy_ns, "
	                "the boundary that starts the timer's jiffy");
	/* Nothing pending: the device's limit. */
	release_probes();
	deliver(VEC_DEV);
	host_irqs_disabled = true;
	tick_idle_enter();
	if (!this_tick()->stopped || this_tick()->skip_limit != TICK_LIMIT_DEVICE)
		fail_msg("tickless, no timer pending: %s (limit '%s'); expected a sleep as long as the "
		         "device allows (limit 'device'): next_timer_on returns false when neither the "
		         "wheel nor the hrtimers have a timer", this_tick()->stopped ? "a sleep" :
		         "the tick kept running", limit_name(this_tick()->skip_limit));
	assert_true(dev_next - fake_ns <= dev_long.max_delta_ns + 2);
	/* An hrtimer armed while idle is honoured at once. */
	static struct hrtimer h;
	hrtimer_init(&h, nop_hrtimer, "soon");
	hrtimer_start(&h, fake_ns + 123456);
	assert_true(dev_next <= fake_ns + 123456 + 2);
	hrtimer_cancel(&h);
	fake_ns = dev_next;
	deliver(VEC_DEV);
	tick_idle_exit();
	host_irqs_disabled = false;
	check_jiffies_exact();
}

/* An hrtimer armed for this CPU from another while this one was awake: the
 * arming CPU saw it not idle and sent no kick, and this CPU's device keeps
 * the program its last interrupt left (the next jiffy).  Going idle, the
 * CPU must see the timer due before that jiffy and program the device for
 * it.  (Failed before tick_sched.c reprogrammed in this case: the device
 * stayed on the jiffy, the timer ran up to a jiffy late.) */
static void test_tickless_idle_entry_sees_a_remote_arm_before_the_jiffy(void **state)
{
	(void)state;
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
	release_probes();
	deliver(VEC_DEV);               /* awake, the busy program: the next jiffy */
	exp_advance();
	uint64_t jiffy = this_tick()->programmed_ns;
	assert_true(jiffy > fake_ns);
	uint64_t soon = fake_ns + (jiffy - fake_ns) / 4;
	static struct hrtimer h;
	hrtimer_init(&h, nop_hrtimer, "remote");
	host_cpu_id = 1;                /* CPU 1 arms it for CPU 0 */
	assert_int_equal(hrtimer_start_on(&h, soon, 0), 0);
	host_cpu_id = 0;
	/* CPU 0 goes idle before the kick (tick_kick_remote_hr's) arrives. */
	assert_true(dev_next > soon + 2);       /* the device still on the jiffy */
	host_irqs_disabled = true;
	tick_idle_enter();
	assert_true(dev_next <= soon + 2);      /* now on the timer */
	fake_ns = dev_next;
	deliver(VEC_DEV);
	tick_idle_exit();
	host_irqs_disabled = false;
	assert_false(hrtimer_is_queued(&h));    /* it ran */
	this_tick()->recheck = false;           /* the kick, never delivered here */
	check_jiffies_exact();
}

/* Issue 31, defect 4: an hrtimer armed from CPU 1 for CPU 0, which is awake
 * (busy) in tickless mode and never goes idle: CPU 0 is kicked, and the
 * kick's interrupt programs the device for the timer, not the next jiffy.
 * (Failed before tick_kick_remote_hr: no kick, the device on the jiffy.) */
#define VEC_KICK 0xF1
static void test_tickless_busy_cpu_is_kicked_for_a_remote_hrtimer(void **state)
{
	(void)state;
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
	release_probes();
	deliver(VEC_DEV);               /* awake: the device on the next jiffy */
	exp_advance();
	uint64_t jiffy = this_tick()->programmed_ns;
	uint64_t soon = fake_ns + (jiffy - fake_ns) / 4;
	unsigned kicks = host_kicks[0];
	static struct hrtimer h;
	hrtimer_init(&h, nop_hrtimer, "remote");
	host_cpu_id = 1;
	assert_int_equal(hrtimer_start_on(&h, soon, 0), 0);
	host_cpu_id = 0;
	assert_int_equal(host_kicks[0], kicks + 1);
	deliver(VEC_KICK);              /* the IPI, on the busy CPU */
	assert_true(dev_next <= soon + 2);
	fake_ns = dev_next;
	deliver(VEC_DEV);
	assert_false(hrtimer_is_queued(&h));    /* it ran at its deadline */
	check_jiffies_exact();
	/* In periodic mode an awake CPU runs hrtimers at its tick: no kick. */
	assert_int_equal(tick_set_mode(TICK_MODE_PERIODIC), 0);
	kicks = host_kicks[0];
	host_cpu_id = 1;
	hrtimer_start_on(&h, fake_ns + 1000, 0);
	host_cpu_id = 0;
	assert_int_equal(host_kicks[0], kicks);
	hrtimer_cancel(&h);
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
	check_jiffies_exact();
}

static void finish_and_check_none_lost(void)
{
	/* Let everything armed come due, then some; end on an interrupt so
	 * jiffies are caught up. */
	run_for(4 * NSEC_PER_SEC, 100, 0);
	host_irqs_disabled = true;
	deliver(VEC_OTHER);
	host_irqs_disabled = false;
	if (this_tick()->mode != TICK_MODE_PERIODIC)
		check_jiffies_exact();
	for (unsigned i = 0; i < NTIMERS; i++) {
		struct probe *p = &probes[i];
		if (p->armed) {
			/* Still pending only if its deadline is yet to come. */
			if (p->deadline_ns <= fake_ns)
				fprintf(stderr, "probe %u lost: deadline %llu, now %llu, wheel %d hr %d\n", i,
				        (unsigned long long)p->deadline_ns, (unsigned long long)fake_ns,
				        timer_pending(&p->t), hrtimer_is_queued(&p->h));
			assert_true(p->deadline_ns > fake_ns);
		}
	}
}

static void test_random_mixture(void **state)
{
	(void)state;
	static const unsigned hzs[] = { 100, 250, 1000 };
	static const enum tick_mode modes[] = { TICK_MODE_PERIODIC, TICK_MODE_DYNTICK, TICK_MODE_TICKLESS };
	for (unsigned round = 0; round < 60; round++) {
		if (rand() % 3 == 0)
			set_hz(hzs[rand() % 3]);
		if (rand() % 3 == 0)
			assert_int_equal(tick_set_mode(modes[rand() % 3]), 0);
		if (rand() % 4 == 0)
			assert_int_equal(tick_set_device(rand() % 2 ? "short" : "long"), 0);
		timer_piggyback = rand() % 2;           /* off half the time: still none lost */
		run_for((uint64_t)(200 + rand() % 2000) * NSEC_PER_MSEC, 90, 200);
	}
	timer_piggyback = true;
	finish_and_check_none_lost();
	unsigned total = 0;
	for (unsigned i = 0; i < NTIMERS; i++)
		total += probes[i].fired;
	assert_true(total > 300);       /* the run did exercise the timers */
}

static void test_across_the_32bit_wrap(void **state)
{
	(void)state;
	/* Park just before jiffies' 32-bit wrap and cross it under load. */
	uint32_t to_wrap = (uint32_t)(0u - jiffies);
	set_hz(1000);
	assert_int_equal(tick_set_mode(TICK_MODE_DYNTICK), 0);
	uint64_t before = jiffies_64;
	if (to_wrap > 5000) {
		/* Fast-forward jiffies (both ours and the reference's). */
		release_probes();
		exp_advance();
		uint64_t skip = to_wrap - 2000;
		jiffies_64 += skip;
		exp_jiffies += skip;
		timer_wheel_init(jiffies);
		before = jiffies_64;
	}
	run_for(6 * NSEC_PER_SEC, 95, 300);
	assert_true((before >> 32) != (jiffies_64 >> 32));      /* crossed */
	finish_and_check_none_lost();
}

/* ------------------------------------------------ what the tick traces */

static void expect_event(unsigned i, enum trace_kind kind, uint64_t t_ns)
{
	assert_true(i < trace_buf.count);
	assert_int_equal(trace_buf.ev[i].kind, kind);
	assert_int_equal(trace_buf.ev[i].t_ns, t_ns);
}

/* While `trace` records, each idle entry, tick interrupt and idle exit is
 * one event, in order, saying what the tick did: a periodic idle tick is
 * enter (no skip), interrupt, exit by the tick; a tickless sleep is an
 * enter with the skip, the sleep and the timer that chose it, then the
 * device's interrupt and an exit charged to that timer; a sleep cut short
 * by another device's interrupt ends in an exit with its vector and no
 * tick interrupt. */
static void test_trace_records_what_the_tick_did(void **state)
{
	(void)state;
	static struct timer t;
	timer_init(&t, nop_timer, "traced");
	release_probes();
	assert_int_equal(tick_set_device("long"), 0);
	set_hz(250);
	assert_int_equal(tick_set_mode(TICK_MODE_PERIODIC), 0);
	host_irqs_disabled = true;
	fake_ns = dev_next;
	deliver(VEC_DEV);

	/* Three periodic ticks of an idle CPU: three events each. */
	trace_start(fake_ns);
	for (unsigned k = 0; k < 3; k++) {
		uint64_t enter = fake_ns;
		tick_idle_enter();
		fake_ns = dev_next;
		deliver(VEC_DEV);
		tick_idle_exit();
		expect_event(3 * k, TRACE_IDLE_ENTER, enter);
		assert_int_equal(trace_buf.ev[3 * k].cause, TICK_LIMIT_NONE);
		assert_int_equal(trace_buf.ev[3 * k].skip, 0);
		assert_int_equal(trace_buf.ev[3 * k].sleep_ns, 0);
		expect_event(3 * k + 1, TRACE_TIMER_IRQ, fake_ns);
		assert_string_equal(trace_buf.ev[3 * k + 1].name, "long");
		expect_event(3 * k + 2, TRACE_IDLE_EXIT, fake_ns);
		assert_int_equal(trace_buf.ev[3 * k + 2].cause, WAKE_TICK);
	}
	assert_int_equal(trace_buf.count, 9);

	/* Tickless, a timer 100 ticks out: one skip of 100 ticks to it. */
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
	fake_ns = dev_next;
	deliver(VEC_DEV);                   /* just past a boundary */
	exp_advance();
	timer_mod(&t, jiffies + 100);
	uint64_t due = exp_boundary + 100 * exp_period;
	trace_start(fake_ns);
	uint64_t enter = fake_ns;
	tick_idle_enter();
	assert_true(this_tick()->stopped);
	/* Device ticks and the fake clock round apart by a few ns. */
	uint64_t wake = dev_next;
	assert_true(wake + 2 >= due && wake <= due + 2);
	fake_ns = wake;
	deliver(VEC_DEV);
	tick_idle_exit();
	assert_int_equal(trace_buf.count, 3);
	expect_event(0, TRACE_IDLE_ENTER, enter);
	assert_int_equal(trace_buf.ev[0].cause, TICK_LIMIT_TIMER);
	assert_int_equal(trace_buf.ev[0].skip, 100);
	assert_true(enter + trace_buf.ev[0].sleep_ns + 2 >= due &&
	            enter + trace_buf.ev[0].sleep_ns <= due + 2);
	assert_string_equal(trace_buf.ev[0].name, "traced");
	expect_event(1, TRACE_TIMER_IRQ, wake);
	expect_event(2, TRACE_IDLE_EXIT, wake);
	assert_int_equal(trace_buf.ev[2].cause, WAKE_TIMER);
	assert_string_equal(trace_buf.ev[2].name, "traced");
	assert_false(timer_pending(&t));    /* it ran on that interrupt */

	/* The same sleep, cut short after 1 ms by another device. */
	fake_ns = dev_next;
	deliver(VEC_DEV);
	timer_mod(&t, jiffies + 100);
	trace_start(fake_ns);
	enter = fake_ns;
	tick_idle_enter();
	assert_true(this_tick()->stopped);
	fake_ns += NSEC_PER_MSEC;
	deliver(VEC_OTHER);
	tick_idle_exit();
	assert_int_equal(trace_buf.count, 2);
	expect_event(0, TRACE_IDLE_ENTER, enter);
	assert_int_equal(trace_buf.ev[0].cause, TICK_LIMIT_TIMER);
	assert_int_equal(trace_buf.ev[0].skip, 100);
	expect_event(1, TRACE_IDLE_EXIT, fake_ns);
	assert_int_equal(trace_buf.ev[1].cause, WAKE_IRQ);
	assert_int_equal(trace_buf.ev[1].vector, VEC_OTHER);

	/* Stopped, it records nothing more. */
	trace_stop();
	tick_idle_enter();
	fake_ns = dev_next;
	deliver(VEC_DEV);
	tick_idle_exit();
	assert_int_equal(trace_buf.count, 2);
	assert_int_equal(trace_buf.dropped, 0);
	timer_del(&t);
	host_irqs_disabled = false;
	check_jiffies_exact();
}

/* ------------------------------------------------ another CPU's tick */

/* The hook kernel/arch/smp.c registers: called on every start or change. */
static unsigned changes;
static void count_change(void) { changes++; }

struct ap_args { enum tick_mode mode; unsigned hz; struct tick_cpu seen; };

/* A host thread plays CPU 1 (tests/unit/host_arch.c): it starts its tick,
 * and reports it, then what idling did to it. */
struct ap_run { enum tick_mode mode; unsigned hz, dev_hz; struct tick_cpu seen, idled; };

static void *ap_thread(void *p)
{
	struct ap_run *a = p;
	host_cpu_id = 1;
	host_irqs_disabled = false;
	tick_secondary_start(&dev_ap.dev, a->mode, a->hz);
	a->seen = *this_tick();
	a->dev_hz = dev_ap.periodic_hz;         /* what its device was asked */
	host_irqs_disabled = true;
	tick_irq_exit();                        /* the end of its first tick: timers run */
	tick_idle_enter();
	a->idled = *this_tick();
	tick_idle_exit();
	host_irqs_disabled = false;
	return NULL;
}

static struct ap_run run_on_ap(enum tick_mode mode, unsigned hz)
{
	struct ap_run a = { .mode = mode, .hz = hz };
	pthread_t t;
	scale_dev_ap_like_long();
	host_nr_cpus = 2;
	assert_int_equal(pthread_create(&t, NULL, ap_thread, &a), 0);
	pthread_join(t, NULL);
	clockevents_shutdown(&dev_ap.dev);
	*time_tick_of(1) = (struct tick_cpu){ 0 };
	host_nr_cpus = 1;
	return a;
}

static void test_other_cpus_follow_the_tick(void **state)
{
	(void)state;
	struct tick_cpu boot = *this_tick();
	/* The hook hears every mode and rate change, and only those. */
	static const struct tick_smp_hooks hooks = { .changed = count_change };
	tick_set_smp_hooks(&hooks);
	changes = 0;
	assert_int_equal(tick_set_mode(TICK_MODE_PERIODIC), 0);
	assert_int_equal(changes, 1);
	set_hz(100);
	assert_int_equal(changes, 2);
	assert_int_equal(tick_set_hz(300), -EINVAL);        /* refused: no change */
	assert_int_equal(changes, 2);
	set_hz(CONFIG_HZ);
	assert_int_equal(tick_set_mode(boot.mode), 0);
	assert_int_equal(changes, 4);
	tick_set_smp_hooks(NULL);

	/* An AP in periodic (and dyntick) mode ticks at the rate given, on
	 * its own device and tick_cpu; the boot CPU's is untouched. */
	struct ap_run ap = run_on_ap(TICK_MODE_PERIODIC, 100);
	assert_ptr_equal(ap.seen.dev, &dev_ap.dev);
	assert_false(ap.seen.stopped);
	assert_int_equal(ap.seen.hz, 100);
	assert_int_equal(ap.dev_hz, 100);
	assert_false(ap.idled.stopped);         /* periodic: idle or not */
	/* dyntick: with CPU 0 busy (it is not in its idle loop), no skip. */
	ap = run_on_ap(TICK_MODE_DYNTICK, 250);
	assert_true(!ap.seen.stopped && ap.dev_hz == 250);
	assert_false(ap.idled.stopped);
	/* Tickless: the AP ticks while busy, and stops once idle with nothing
	 * due, whatever CPU 0 does. */
	ap = run_on_ap(TICK_MODE_TICKLESS, 250);
	assert_false(ap.seen.stopped);
	assert_true(ap.idled.stopped);
	assert_int_equal(ap.idled.skip_limit, TICK_LIMIT_DEVICE);
	assert_ptr_equal(this_tick()->dev, boot.dev);
	assert_int_equal(this_tick()->mode, boot.mode);
}

/* ------------------------------------------------ jiffies' one owner */

/* Two fake CPUs in one thread (host_cpu_id says which runs), each with its
 * own tick device, in random order over 20,000 steps: a CPU's tick fires,
 * a CPU stops its tick to sleep (gives jiffies up if it owns them), or a
 * CPU wakes from a stopped tick (catches jiffies up).  Jiffies must equal
 * the whole periods elapsed whenever the owner ticked or a CPU caught
 * them up, never move on a non-owner's tick, and exactly one CPU (or none,
 * after the owner stopped) owns them; the next CPU to tick takes them. */
static void test_jiffies_have_one_owner_over_handovers(void **state)
{
	(void)state;
	rng_state = 0x5eed0001;
	host_nr_cpus = 2;
	scale_dev_ap_like_long();
	host_cpu_id = 1;
	tick_secondary_start(&dev_ap.dev, this_tick()->mode, time_tick_of(0)->hz);
	host_cpu_id = 0;
	check_jiffies_exact();
	assert_int_equal(tick_jiffies_owner(), 0);
	uint64_t period = this_tick()->period_ns;
	unsigned handovers = 0, catchups = 0, owner_ticks = 0, other_ticks = 0;
	for (unsigned step = 0; step < 20000; step++) {
		fake_ns += rnd64() % (3 * period);
		unsigned c = rnd32() % 2;
		host_cpu_id = c;
		host_irqs_disabled = true;
		uint64_t before = jiffies_64;
		int owner = tick_jiffies_owner();
		switch (rnd32() % 3) {
		case 0: {                                       /* c's tick */
			struct clock_event_device *d = this_tick()->dev;
			d->event_handler(d);
			if (owner == (int)c || owner == TICK_OWNER_NONE) {
				check_jiffies_exact();
				assert_int_equal(tick_jiffies_owner(), (int)c);
				handovers += owner == TICK_OWNER_NONE;
				owner_ticks++;
			} else {
				assert_int_equal(jiffies_64, before);     /* counted once */
				assert_int_equal(tick_jiffies_owner(), owner);
				other_ticks++;
			}
			tick_irq_exit();
			break;
		}
		case 1:                                         /* c stops its tick */
			tick_release_jiffies();
			assert_int_equal(tick_jiffies_owner(), owner == (int)c ? TICK_OWNER_NONE : owner);
			break;
		default:                                        /* c wakes: catch up */
			tick_update_jiffies(this_tick(), fake_ns);
			check_jiffies_exact();
			catchups++;
			break;
		}
		host_irqs_disabled = false;
	}
	/* It happened both ways, many times. */
	assert_true(handovers > 1000 && catchups > 1000 && owner_ticks > 1000 && other_ticks > 1000);
	/* Back to one CPU, the boot CPU owning jiffies. */
	host_cpu_id = 1;
	tick_release_jiffies();
	host_cpu_id = 0;
	host_irqs_disabled = true;
	this_tick()->dev->event_handler(this_tick()->dev);
	tick_irq_exit();
	host_irqs_disabled = false;
	assert_int_equal(tick_jiffies_owner(), 0);
	clockevents_shutdown(&dev_ap.dev);
	*time_tick_of(1) = (struct tick_cpu){ 0 };
	host_nr_cpus = 1;
	check_jiffies_exact();
}


/* Issue 31, defect 7: a device that keeps answering -ETIME (its deadline
 * passed each time it was written), past the core's retries.  Nothing was
 * left armed: the CPU would have slept until some other interrupt (on a
 * real HPET, the comparator's match after the counter wraps).  Now the
 * device is armed for the nearest deadline it still meets, and the timer
 * runs at that interrupt. */
static void test_etime_after_retries_is_expired_now(void **state)
{
	(void)state;
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
	release_probes();
	deliver(VEC_DEV);
	exp_advance();
	static struct hrtimer h;
	hrtimer_init(&h, nop_hrtimer, "etime");
	fake_etime_left = 7;            /* the first try, the core's 4 retries, and 2 more */
	hrtimer_start(&h, fake_ns + 5000);
	assert_int_equal(fake_etime_left, 0);
	assert_true(dev_next != NEVER);                 /* armed after all */
	assert_true(dev_next - fake_ns <= 8 * dev_long.min_delta_ns);     /* and soon */
	assert_true(this_tick()->softirq_pending);
	fake_ns = dev_next > fake_ns + 5000 ? dev_next : fake_ns + 5000;
	deliver(VEC_DEV);               /* that interrupt: the timer runs */
	assert_false(hrtimer_is_queued(&h));
	check_jiffies_exact();
}

/* Issue 31, defect 7: a CPU with no tick device (an AP whose local APIC
 * timer could not be used) that takes an interrupt in the idle window, an
 * IPI bringing it work, must abandon the halt: with no timer of its own,
 * nothing else would wake it.  (tick_idle_abandon answered false.) */
static void test_no_device_cpu_abandons_the_halt_for_an_irq(void **state)
{
	(void)state;
	host_nr_cpus = 2;
	host_cpu_id = 1;                /* CPU 1: never given a device */
	struct tick_cpu *tc = this_tick();
	assert_null(tc->dev);
	host_irqs_disabled = true;
	tick_idle_enter();
	assert_false(tick_idle_abandon());      /* nothing came: halt */
	tick_idle_enter();
	tick_irq_enter(VEC_OTHER);      /* the IPI, taken in the window */
	tick_irq_exit();
	assert_true(tick_idle_abandon());
	host_irqs_disabled = false;
	host_cpu_id = 0;
	host_nr_cpus = 1;
}

/* ------------------------------------------------ HZ changes in one step */

/* tick_set_hz on CPU 0 while CPU 2 catches jiffies up.  CPU 1 holds its
 * own wheel's lock, so CPU 0 stops in the middle of the switch (remapping
 * the wheels, after its catch-up at the old rate); meanwhile the clock
 * moves two old periods on and CPU 2 catches jiffies up (its idle entry or
 * tick restart).  jiffies must end up counting each period once: before
 * the switch was one step, CPU 2 counted two old periods, then CPU 0 put
 * the boundary back and they were counted again at the new rate
 * ("advanced by 10, expected 8": jiffies ahead of the clock for good).
 * Fixed, CPU 2 waits for the switch and counts at the new rate.  The
 * sleeps only decide who goes first (a late CPU 2 would just see the
 * switch done); nothing waits on them for correctness. */
struct hz_switch { unsigned hz; int done; };

static void *hz_switch_cpu0(void *p)
{
	struct hz_switch *a = p;
	host_cpu_id = 0;
	host_irqs_disabled = false;
	assert_int_equal(tick_set_hz(a->hz), 0);
	__atomic_store_n(&a->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *catch_up_cpu2(void *p)
{
	uint64_t *now = p;
	host_cpu_id = 2;
	host_irqs_disabled = true;
	tick_update_jiffies(time_tick_of(2), *now);
	host_irqs_disabled = false;
	return NULL;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ms * 1000000 };
	nanosleep(&ts, NULL);
}

static void test_hz_switch_counts_each_period_once(void **state)
{
	(void)state;
	set_hz(250);
	deliver(VEC_DEV);               /* jiffies exact, just past a boundary */
	check_jiffies_exact();
	host_nr_cpus = 3;
	uint64_t old_period = this_tick()->period_ns;
	uint64_t j0 = jiffies_64, b0 = exp_boundary;

	struct timer_base *w1 = time_timer_base(1);
	host_irqs_disabled = true;
	spin_lock(&w1->lock);           /* "CPU 1" holds its wheel */
	host_irqs_disabled = false;
	struct hz_switch a = { .hz = 1000 };
	pthread_t t0, t2;
	assert_int_equal(pthread_create(&t0, NULL, hz_switch_cpu0, &a), 0);
	sleep_ms(50);                   /* CPU 0 is stopped at CPU 1's wheel */
	uint64_t later = __atomic_load_n(&fake_ns, __ATOMIC_RELAXED) + 2 * old_period;
	__atomic_store_n(&fake_ns, later, __ATOMIC_RELAXED);
	assert_int_equal(pthread_create(&t2, NULL, catch_up_cpu2, &later), 0);
	sleep_ms(50);
	assert_false(__atomic_load_n(&a.done, __ATOMIC_SEQ_CST));
	spin_unlock(&w1->lock);
	pthread_join(t0, NULL);
	pthread_join(t2, NULL);

	/* One more catch-up on CPU 0, at the same time: every whole new
	 * period since the last old boundary, once. */
	host_irqs_disabled = true;
	tick_update_jiffies(this_tick(), later);
	host_irqs_disabled = false;
	uint64_t new_period = this_tick()->period_ns;
	assert_int_equal(new_period, old_period / 4);
	assert_int_equal(jiffies_64 - j0, (later - b0) / new_period);

	host_nr_cpus = 1;
	exp_period = new_period;        /* the reference, from the switch on */
	exp_jiffies = jiffies_64;
	exp_boundary = b0 + (later - b0) / new_period * new_period;
	set_hz(250);
	check_jiffies_exact();
}

/* A wheel timer 300,000,000 jiffies ahead at HZ=100 (34.7 days) is 3e9
 * jiffies at HZ=1000, more than a wheel can say: remapped, it must stay far
 * ahead, not wrap into the past and run at the next tick.  (Failed before
 * the remap capped it: it ran at once.) */
static unsigned far_fired;
static void far_cb(struct timer *t) { (void)t; far_fired++; }

static void test_hz_increase_keeps_a_far_timer_far(void **state)
{
	(void)state;
	set_hz(100);
	static struct timer far;
	timer_init(&far, far_cb, "far");
	far_fired = 0;
	timer_mod(&far, jiffies + 300000000u);
	set_hz(1000);
	int32_t ahead = (int32_t)(far.expires - jiffies);
	assert_true(ahead > 1000000000);        /* still weeks away */
	for (unsigned i = 0; i < 5; i++) {
		fake_ns += this_tick()->period_ns;
		deliver(VEC_DEV);
	}
	assert_int_equal(far_fired, 0);
	assert_true(timer_pending(&far));
	timer_del(&far);
	set_hz(250);
	check_jiffies_exact();
}

/* ------------------------------------------------ dyntick's shared skip */

#define VEC_KICK 0xF1                   /* host_arch.c: arch_vector_is_kick */

/* CPU `cpu` enters its idle loop (interrupts off, as before hlt). */
static struct tick_cpu *idle_on(unsigned cpu)
{
	host_cpu_id = cpu;
	host_irqs_disabled = true;
	tick_idle_enter();
	struct tick_cpu *tc = this_tick();
	host_cpu_id = 0;
	return tc;
}

/* An interrupt on CPU `cpu` ends its sleep: its device's, or a kick. */
static void wake_on(unsigned cpu, unsigned vector)
{
	host_cpu_id = cpu;
	host_irqs_disabled = true;
	if (cpu == 0) {
		deliver(vector);
	} else {
		tick_irq_enter(vector);
		if (vector == VEC_DEV)
			dev_ap.dev.event_handler(&dev_ap.dev);
		tick_irq_exit();
	}
	tick_idle_exit();
	host_cpu_id = 0;
}

/* Two CPUs in dyntick, the 2005 rule: the boot CPU programs the skip to
 * the next event of either CPU once it finds both idle, and its device
 * ends it; CPU 1, idle too, sleeps a tick longer on its own device (a
 * safety net) and is woken by the boot CPU's kick.  A CPU woken by the
 * kick kicks no one back (in QEMU that made the CPUs wake each other
 * 2,500 times a second); one woken by anything else wakes the others. */
static void test_dyntick_cpus_share_one_skip(void **state)
{
	(void)state;
	release_probes();
	assert_int_equal(tick_set_device("long"), 0);
	assert_int_equal(tick_set_mode(TICK_MODE_DYNTICK), 0);
	uint64_t period = this_tick()->period_ns;
	host_nr_cpus = 2;
	timer_wheel_init(jiffies);
	scale_dev_ap_like_long();
	unsigned hz = this_tick()->hz;
	host_cpu_id = 1;
	host_irqs_disabled = true;
	tick_secondary_start(&dev_ap.dev, TICK_MODE_DYNTICK, hz);
	host_cpu_id = 0;
	deliver(VEC_DEV);               /* CPU 0 just ticked */
	exp_advance();
	static struct timer far, on1;
	timer_init(&far, nop_timer, "far");
	timer_init(&on1, nop_timer, "on cpu 1");
	timer_mod(&far, jiffies + 100);
	uint64_t far_ns = this_tick()->last_jiffy_ns + 100 * period;
	memset(host_kicks, 0, sizeof(host_kicks));

	/* CPU 1 idles while CPU 0 is busy: it keeps ticking. */
	struct tick_cpu *t1 = idle_on(1);
	assert_false(t1->stopped);
	/* CPU 0 idles last: it skips to its timer. */
	struct tick_cpu *t0 = idle_on(0);
	assert_true(t0->stopped);
	assert_int_equal(t0->programmed_ns, far_ns);
	assert_int_equal(t0->skip_limit, TICK_LIMIT_TIMER);
	/* CPU 1, at its next tick, sleeps to a tick past the same timer. */
	fake_ns += period;
	wake_on(1, VEC_DEV);
	t1 = idle_on(1);
	assert_true(t1->stopped);
	assert_int_equal(t1->programmed_ns, far_ns + period);
	assert_int_equal(t1->skip_limit, TICK_LIMIT_TIMER);
	assert_string_equal(t1->skip_timer, "far");
	/* CPU 0's device ends the skip: it kicks CPU 1, and here is asleep
	 * again (skipping to `far` re-armed) before CPU 1 takes the kick.
	 * Woken by the kick, CPU 1 kicks no one back. */
	fake_ns = far_ns + 1;
	wake_on(0, VEC_DEV);
	check_jiffies_exact();
	assert_int_equal(host_kicks[1], 1);
	timer_mod(&far, jiffies + 100);
	t0 = idle_on(0);
	assert_true(t0->stopped && t1->stopped);
	wake_on(1, VEC_KICK);
	assert_false(t1->stopped);
	assert_int_equal(host_kicks[0], 0);
	check_jiffies_exact();
	/* An interrupt of another kind wakes CPU 0 (a key typed). */
	wake_on(0, VEC_OTHER);
	assert_false(t0->stopped);

	/* CPU 1 goes idle last, with a timer of its own: it sleeps a tick
	 * past it; CPU 0, idle and ticking, skips to it at its next tick. */
	timer_mod(&far, jiffies + 100);
	timer_mod_on(&on1, jiffies + 40, 1);
	exp_advance();
	uint64_t on1_ns = t1->last_jiffy_ns + 40 * period;
	t0 = idle_on(0);
	assert_false(t0->stopped);                  /* CPU 1 is busy */
	t1 = idle_on(1);
	assert_true(t1->stopped);
	assert_int_equal(t1->programmed_ns, on1_ns + period);
	assert_string_equal(t1->skip_timer, "on cpu 1");
	fake_ns += period / 2;
	wake_on(0, VEC_DEV);
	t0 = idle_on(0);
	assert_true(t0->stopped);
	assert_int_equal(t0->programmed_ns, on1_ns);
	assert_string_equal(t0->skip_timer, "on cpu 1");

	/* Woken by anything but the kick (here its safety net, as if the
	 * kick were lost), CPU 1 wakes the stopped CPU 0. */
	fake_ns = on1_ns + period + 1;
	wake_on(1, VEC_DEV);
	assert_int_equal(host_kicks[0], 1);
	wake_on(0, VEC_KICK);
	assert_int_equal(host_kicks[1], 1);         /* the kicked CPU 0 kicked no one */
	check_jiffies_exact();

	/* Clean up: back to one CPU. */
	host_irqs_disabled = false;
	assert_int_equal(timer_del(&far), 1);
	timer_del(&on1);
	host_cpu_id = 1;
	tick_release_jiffies();
	host_cpu_id = 0;
	clockevents_shutdown(&dev_ap.dev);
	*time_tick_of(1) = (struct tick_cpu){ 0 };
	host_nr_cpus = 1;
	host_irqs_disabled = true;
	deliver(VEC_DEV);
	host_irqs_disabled = false;
	check_jiffies_exact();
}

/* Piggybacking (time/slack.h): an hrtimer with a window [+1 ms, +100 ms],
 * the CPU asleep until its hard end, and a serial interrupt at +10 ms.
 * With piggybacking the timer runs on that interrupt's exit and the next
 * sleep has nothing to wait for; without, it waits for its own wakeup at
 * the hard end. */
static unsigned piggy_runs;
static enum hrtimer_restart piggy_fn(struct hrtimer *h) { (void)h; piggy_runs++; return HRTIMER_NORESTART; }

static void test_piggyback_serves_windows_on_any_wakeup(void **state)
{
	(void)state;
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
	static struct hrtimer h;
	hrtimer_init(&h, piggy_fn, "piggy");
	for (int on = 1; on >= 0; on--) {
		timer_piggyback = on;
		piggy_runs = 0;
		release_probes();
		deliver(VEC_DEV);
		uint64_t t0 = fake_ns;
		hrtimer_start_range_ns(&h, t0 + NSEC_PER_MSEC, 99 * NSEC_PER_MSEC);
		host_irqs_disabled = true;
		tick_idle_enter();
		assert_true(this_tick()->stopped);
		/* Asleep to the hard end, not the soft one. */
		assert_true(dev_next >= t0 + 100 * NSEC_PER_MSEC && dev_next <= t0 + 101 * NSEC_PER_MSEC);
		fake_ns = t0 + 10 * NSEC_PER_MSEC;
		deliver(VEC_OTHER);
		assert_true(this_tick()->late_ns == 0);         /* long before the deadline */
		/* Awake: the busy tick runs again, whether timers ran or not. */
		assert_true(dev_next <= fake_ns + this_tick()->period_ns + NSEC_PER_MSEC);
		tick_idle_exit();
		assert_int_equal(piggy_runs, on ? 1 : 0);
		/* The next sleep: nothing left, or the same hard end. */
		tick_idle_enter();
		if (on) {
			assert_int_equal(this_tick()->skip_limit, TICK_LIMIT_DEVICE);
		} else {
			assert_int_equal(this_tick()->skip_limit, TICK_LIMIT_HRTIMER);
			assert_true(dev_next <= t0 + 101 * NSEC_PER_MSEC);
			/* Taken 3 ms late (a host descheduling the guest): the
			 * latency is measured, for judging how late the timer ran. */
			fake_ns = dev_next + 3 * NSEC_PER_MSEC;
			deliver(VEC_DEV);
			assert_true(this_tick()->late_ns >= 3 * NSEC_PER_MSEC &&
			            this_tick()->late_ns <= 4 * NSEC_PER_MSEC);
			assert_int_equal(piggy_runs, 1);
			tick_idle_enter();
		}
		fake_ns = dev_next;
		deliver(VEC_DEV);
		tick_idle_exit();
		host_irqs_disabled = false;
		check_jiffies_exact();
	}
	timer_piggyback = true;
}

/* ------------------------------- HZ switches against catch-ups, at random */

/* CPU 0 (this thread) moves the clock on by random steps, catches jiffies
 * up now and then, and every few steps switches HZ (100, 250 or 1000) at a
 * clock value it alone decides.  Meanwhile CPUs 1 and 2 (threads) do what
 * their idle entries and interrupts do: catch jiffies up at the clock they
 * read, arm wheel timers on their own CPU a few jiffies on, and run their
 * due ones.  Checked throughout: the jiffy boundary is never ahead of the
 * clock, and jiffies never go back.  At the end jiffies equal the
 * reference (each period counted once, at the rate of its time: exp_*,
 * which only this thread advances), and every timer ran once and none
 * early.  A timer's "not before" is the boundary of the jiffy it was armed
 * for, b + d * period from the (jiffies, boundary) pair read just before
 * the arm; an arm that a switch overlapped (a seqcount says so) is checked
 * for running, not for its time (its caller's jiffies meant the old rate).
 * Under TSan (make unit) the switch's one critical section is checked for
 * races with the catch-ups as well.  Rate changes of a device have their
 * own tests (test_clockevents.c). */
#define HS_STEPS 6000                   /* CPU 0's */
#define HS_TIMERS 8                     /* per worker CPU */
#define HS_WORKERS 2

struct hs_timer {
	struct timer t;
	uint64_t not_before;            /* ns; 0: not checked.  The owner's only */
	int owed;                       /* callbacks owed; the owner's only */
};
static struct hs_timer hs[HS_WORKERS][HS_TIMERS];
static unsigned hs_seq;                 /* odd while CPU 0 switches HZ */
static uint64_t hs_period;              /* the period after the last switch */
static int hs_stop;
static unsigned hs_step;                /* CPU 0's steps begun */
static unsigned hs_rounds[HS_WORKERS];  /* each worker's rounds done */
static int hs_ahead, hs_back, hs_early, hs_unowed, hs_fired, hs_unchecked, hs_arms;

/* A worker's own generator (rnd64's state is the main thread's). */
static uint64_t hs_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void hs_cb(struct timer *t)
{
	struct hs_timer *x = container_of(t, struct hs_timer, t);
	if (__atomic_load_n(&fake_ns, __ATOMIC_SEQ_CST) < x->not_before)
		__atomic_add_fetch(&hs_early, 1, __ATOMIC_RELAXED);
	if (--x->owed < 0)
		__atomic_add_fetch(&hs_unowed, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&hs_fired, 1, __ATOMIC_RELAXED);
}

/* One catch-up and the checks after it; returns jiffies. */
static uint32_t hs_catch_up(uint32_t last)
{
	uint64_t now = __atomic_load_n(&fake_ns, __ATOMIC_SEQ_CST);
	tick_update_jiffies(this_tick(), now);
	uint32_t j;
	uint64_t b;
	tick_jiffies_snapshot(&j, &b);
	if (b > __atomic_load_n(&fake_ns, __ATOMIC_SEQ_CST))
		__atomic_add_fetch(&hs_ahead, 1, __ATOMIC_RELAXED);
	if ((int32_t)(j - last) < 0)
		__atomic_add_fetch(&hs_back, 1, __ATOMIC_RELAXED);
	return j;
}

static void hs_arm(struct hs_timer *x, uint64_t *rnd)
{
	if (timer_del(&x->t))
		x->owed--;
	unsigned s1 = __atomic_load_n(&hs_seq, __ATOMIC_SEQ_CST);
	uint64_t period = __atomic_load_n(&hs_period, __ATOMIC_SEQ_CST);
	uint32_t j;
	uint64_t b;
	tick_jiffies_snapshot(&j, &b);
	uint32_t d = 1 + (uint32_t)(hs_rand(rnd) % 6);
	x->owed++;
	__atomic_add_fetch(&hs_arms, 1, __ATOMIC_RELAXED);
	timer_mod_on(&x->t, j + d, host_cpu_id);       /* on its own CPU */
	bool quiet = s1 % 2 == 0 && __atomic_load_n(&hs_seq, __ATOMIC_SEQ_CST) == s1;
	x->not_before = quiet ? b + d * period : 0;
	if (!quiet)
		__atomic_add_fetch(&hs_unchecked, 1, __ATOMIC_RELAXED);
}

static void *hs_worker(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	host_cpu_id = me;
	uint64_t rnd = 0x243F6A8885A308D3ull * me;
	uint32_t last;
	uint64_t b;
	tick_jiffies_snapshot(&last, &b);
	unsigned *rounds = &hs_rounds[me - 1];
	for (;;) {
		/* One round per step of CPU 0's: lock step, on any host. */
		while (*rounds >= __atomic_load_n(&hs_step, __ATOMIC_SEQ_CST) &&
		       !__atomic_load_n(&hs_stop, __ATOMIC_SEQ_CST))
			sched_yield();
		if (__atomic_load_n(&hs_stop, __ATOMIC_SEQ_CST))
			break;
		host_irqs_disabled = true;      /* as in its idle entry or interrupt */
		uint32_t j = hs_catch_up(last);
		last = j;
		if (hs_rand(&rnd) % 4 == 0)
			hs_arm(&hs[me - 1][hs_rand(&rnd) % HS_TIMERS], &rnd);
		timer_run_expired(j);
		host_irqs_disabled = false;
		__atomic_add_fetch(rounds, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void test_random_hz_switches_against_catch_ups(void **state)
{
	(void)state;
	static const unsigned rates[] = { 100, 250, 1000 };
	set_hz(250);
	check_jiffies_exact();
	host_nr_cpus = 1 + HS_WORKERS;
	/* Every CPU's wheel afresh (this is the last test: what earlier ones
	 * left pending on CPU 0's is forgotten). */
	timer_wheel_init(jiffies);
	for (unsigned cpu = 1; cpu <= HS_WORKERS; cpu++) {
		*time_tick_of(cpu) = (struct tick_cpu){ 0 };
		for (unsigned i = 0; i < HS_TIMERS; i++) {
			hs[cpu - 1][i] = (struct hs_timer){ 0 };
			timer_init(&hs[cpu - 1][i].t, hs_cb, "hz-stress");
		}
	}
	hs_seq = hs_step = 0;
	memset(hs_rounds, 0, sizeof hs_rounds);
	hs_stop = hs_arms = hs_ahead = hs_back = hs_early = hs_unowed = hs_fired = hs_unchecked = 0;
	__atomic_store_n(&hs_period, exp_period, __ATOMIC_SEQ_CST);
	rng_state = 0x5eed0042;
	pthread_t th[HS_WORKERS];
	for (unsigned i = 0; i < HS_WORKERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hs_worker, (void *)(uintptr_t)(i + 1)), 0);

	unsigned switches = 0;
	uint32_t last = jiffies;
	for (unsigned step = 0; step < HS_STEPS; step++) {
		uint64_t r = rnd64();
		__atomic_store_n(&fake_ns, fake_ns + r % (2 * exp_period), __ATOMIC_SEQ_CST);
		if (r % 16 == 0) {
			__atomic_add_fetch(&hs_seq, 1, __ATOMIC_SEQ_CST);
			set_hz(rates[(r >> 8) % 3]);    /* the reference counts up to now, once */
			__atomic_store_n(&hs_period, exp_period, __ATOMIC_SEQ_CST);
			__atomic_add_fetch(&hs_seq, 1, __ATOMIC_SEQ_CST);
			switches++;
		} else if (r % 4 == 0) {
			host_irqs_disabled = true;
			last = hs_catch_up(last);
			host_irqs_disabled = false;
		}
		/* Keep the workers in step: a round of each for each step
		 * here, on any host (the order within is theirs). */
		__atomic_store_n(&hs_step, step + 1, __ATOMIC_SEQ_CST);
		for (unsigned i = 0; i < HS_WORKERS; i++)
			while (__atomic_load_n(&hs_rounds[i], __ATOMIC_SEQ_CST) < step)
				sched_yield();
	}
	__atomic_store_n(&hs_stop, 1, __ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < HS_WORKERS; i++)
		pthread_join(th[i], NULL);

	/* Every period since the start counted once, at the rate of its time. */
	host_irqs_disabled = true;
	tick_update_jiffies(this_tick(), fake_ns);
	host_irqs_disabled = false;
	check_jiffies_exact();
	/* Drain: far past every deadline, each worker CPU runs its wheel. */
	fake_ns += 100 * exp_period;
	for (unsigned cpu = 1; cpu <= HS_WORKERS; cpu++) {
		host_cpu_id = cpu;
		host_irqs_disabled = true;
		tick_update_jiffies(this_tick(), fake_ns);
		timer_run_expired(jiffies);
		host_irqs_disabled = false;
	}
	host_cpu_id = 0;
	print_message("hz stress: %u switches, %d arms, %d timers ran (%d armed across a switch)\n",
	              switches, hs_arms, hs_fired, hs_unchecked);
	/* Each worker arms in about a quarter of its rounds; an arm replaced
	 * before it ran (about one in ten) runs nothing. */
	assert_true(switches > 100 && hs_arms > HS_STEPS / 4 && hs_fired > hs_arms / 2);
	assert_int_equal(hs_ahead, 0);
	assert_int_equal(hs_back, 0);
	assert_int_equal(hs_early, 0);
	assert_int_equal(hs_unowed, 0);
	for (unsigned cpu = 0; cpu < HS_WORKERS; cpu++)
		for (unsigned i = 0; i < HS_TIMERS; i++) {
			assert_int_equal(hs[cpu][i].owed, 0);          /* none lost */
			assert_false(timer_pending(&hs[cpu][i].t));
		}
	host_nr_cpus = 1;
	check_jiffies_exact();
	set_hz(CONFIG_HZ);
	check_jiffies_exact();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_dyntick_skip_rules),
		cmocka_unit_test(test_dyntick_skip_limit_and_counts),
		cmocka_unit_test_teardown(test_dyntick_skips_whole_ticks_and_restarts_at_hz, wake_and_settle),
		cmocka_unit_test_teardown(test_tickless_programs_the_deadline, wake_and_settle),
		cmocka_unit_test_teardown(test_tickless_next_timer_is_the_earliest, wake_and_settle),
		cmocka_unit_test(test_tickless_idle_entry_sees_a_remote_arm_before_the_jiffy),
		cmocka_unit_test(test_tickless_busy_cpu_is_kicked_for_a_remote_hrtimer),
		cmocka_unit_test(test_random_mixture),
		cmocka_unit_test(test_across_the_32bit_wrap),
		cmocka_unit_test(test_trace_records_what_the_tick_did),
		cmocka_unit_test(test_other_cpus_follow_the_tick),
		cmocka_unit_test(test_jiffies_have_one_owner_over_handovers),
		cmocka_unit_test(test_etime_after_retries_is_expired_now),
		cmocka_unit_test(test_no_device_cpu_abandons_the_halt_for_an_irq),
		cmocka_unit_test(test_hz_switch_counts_each_period_once),
		cmocka_unit_test(test_hz_increase_keeps_a_far_timer_far),
		cmocka_unit_test(test_dyntick_cpus_share_one_skip),
		cmocka_unit_test(test_piggyback_serves_windows_on_any_wakeup),
		cmocka_unit_test(test_random_hz_switches_against_catch_ups),
	};
	return cmocka_run_group_tests(tests, setup_machine, NULL);
}
