/* kernel/shell/cmd_stress.c — `stress SECONDS`: every CPU, its timer
 * callbacks and its interrupt handlers arm, move and cancel the same timers
 * at once, and every callback is checked: none lost, doubled, early, run
 * on the wrong CPU or later than a stated bound; and, in tickless mode,
 * no CPU's own device left armed past a due hrtimer of its own
 * (docs/robustness.md, "Stress from every context").
 *
 * Longer than ~400 lines on purpose: the bounds, the accounting of a
 * timer's armings (struct stress_timer), the step, the checks its callback
 * makes and the report all work on one static state, and read best
 * together, top to bottom, in the order they run.
 */
#include "arch/irq.h"
#include "arch/smp.h"
#include "errno.h"
#include "idle.h"
#include "kprintf.h"
#include "panic.h"
#include "shell/args.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "spinlock.h"
#include "time/hrtimer.h"
#include "time/inject.h"
#include "time/percpu.h"
#include "time/jiffies.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"

/* The timers, shared by every CPU: thousands of wheel timers, and as many
 * hrtimers as one CPU's heap holds beside the shell's own (HRTIMER_MAX is
 * 128 a CPU, and any CPU may end up holding them all). */
#define STRESS_WHEEL_TIMERS 2048
#define STRESS_HRTIMERS     96
_Static_assert(STRESS_HRTIMERS + 16 <= HRTIMER_MAX, "room on one CPU for every stress hrtimer");
#define STRESS_MAX_MS   20      /* how far ahead a stress timer is armed */
#define STRESS_DRAIN_MS 2000    /* after the last arm, all must have fired by then
                                   (20 ms ahead, and whatever the host delays) */
#define STRESS_DRAIN_STEP_MS 10 /* looked at this often (timers on other CPUs
                                   fire there, and wake no one here) */
/* The latest a checked callback may run after its deadline, beyond the
 * longest the emulator's host stopped a CPU.  A timer runs at the first
 * interrupt after it is due: in periodic mode up to a tick later (4 ms at
 * HZ=250), and a dyntick CPU woken by the boot CPU a tick after that.  The
 * host adds its own: it stops a virtual CPU for as long as it likes (a
 * time slice under load; a quota's whole period when a CPU quota
 * throttles it, 100 ms by default: Linux's
 * Documentation/scheduler/sched-bwc.rst), and the timer waits that out,
 * which says nothing about lull.  Each CPU's arming loop measures those
 * stops as the longest gap between two of its clock reads (`stall`).  And
 * it delays the interrupts themselves while the virtual CPU runs on: QEMU
 * raises a LAPIC timer's interrupt from its own thread, which a busy host
 * runs late (this command's second line prints both figures: with a load
 * of 5 on two host cores, a callback ran 255 ms beyond a longest stall of
 * 73 ms), and no clock read in the guest can see that.  What lull
 * controls is judged tightly by the look at each CPU's own device
 * (STRESS_UNARMED_BOUND_US, below); this bound only catches a timer lost
 * outright: a callback later than the longest stall plus a second fails,
 * and a timer that never runs is still pending at the end. */
#define STRESS_LATE_BOUND_MS 1000
/* The tight judgement is of what lull controls, not of when the emulator
 * delivers an interrupt: in tickless mode a CPU's device must be armed for
 * no later than its earliest hrtimer, so a CPU that runs with interrupts
 * on while an hrtimer of its own is due, its device armed for later, lost
 * that timer: one armed from another CPU would wait for this CPU's next
 * tick, milliseconds late.  Each arming loop looks before every step.
 * Neither a host stop nor a late interrupt from the emulator can fail it:
 * both leave the device armed in time.  A deadline that passed while the
 * device was written is armed again as soon as the device can
 * (tick_program_oneshot), and that counts as in time. */
#define STRESS_UNARMED_BOUND_US 100

/* One stress timer.  Its arming is described under `lock`, which the CPU
 * arming or cancelling it holds across the call, and its callback holds
 * while it checks the arming it fired for.
 *
 * `owed` counts the callbacks still to come: one for each arming that was
 * neither replaced (the arm returned 1) nor cancelled (the cancel returned
 * 1).  Its CPU takes a due timer off its queue without this lock, so while
 * the timer is not queued, owed callbacks are on their way.  An arm only
 * ever finds one on its way by racing that CPU (it looked, saw the timer
 * queued, and the arm returned 0), since a step leaves a timer alone while
 * a callback is on its way.  So at most two are owed: the described
 * arming's and that older one, and from that arm (`mixed`) until both
 * have run a callback may not be the described arming's.  One that finds
 * the timer queued is the older one, and then the one left owed is the
 * queued, described arming: it will be checked.  Otherwise both have left
 * the queue and their callbacks may run in either order on their two
 * CPUs: neither is checked.  Unchecked callbacks are counted; every other
 * callback is the described arming's and is checked. */
struct stress_timer {
	spinlock_t lock;
	bool hr;
	unsigned owed;
	bool mixed;
	struct timer wheel;
	struct hrtimer hrt;
	unsigned cpu;                   /* the CPU it was last armed for */
	uint32_t expires;               /* wheel: the jiffy */
	uint64_t expires_ns;            /* hrtimer: the deadline */
};

static struct {
	struct stress_timer t[STRESS_HRTIMERS + STRESS_WHEEL_TIMERS];  /* hrtimers first */
	uint64_t end_ns;
	/* Counted with atomic adds (32-bit: the i386 has no 64-bit atomic
	 * add without a library; 60 s on 8 CPUs stays far below 2^32).
	 * Every arming ends exactly one way. */
	volatile uint32_t arms, fired, cancelled, replaced;
	volatile uint32_t early, wrong_cpu, unchecked, unowed, too_late;
	/* Steps taken from timer callbacks and from interrupt handlers. */
	volatile uint32_t from_callbacks, from_irqs;
	/* The worst lateness of a checked callback (hrtimers in ns, wheel
	 * timers in jiffies); written under the timer's lock, maxed racily
	 * across timers (a lost maximum is one of two nearly equal values). */
	volatile uint64_t worst_late_ns;
	volatile uint32_t worst_late_jiffies;
	/* Each CPU's longest gap between two clock reads of its arming loop:
	 * interrupts it ran, locks it waited for, and its host stopping it. */
	uint64_t stall_ns[NR_CPUS];
	/* Each CPU's looks at its own device (tickless mode only), the
	 * longest it found a due hrtimer with the device armed for later,
	 * and how many looks found that for longer than the bound. */
	uint32_t device_checks[NR_CPUS];
	uint64_t unarmed_ns[NR_CPUS];
	uint32_t unarmed_over[NR_CPUS];
	volatile unsigned running;      /* CPUs still arming */
} stress;

static void stress_step(uint32_t *rnd);
static uint32_t next_random(uint32_t *x);

/* Steps from callbacks and interrupts draw from one sequence per CPU. */
static uint32_t stress_rnd[NR_CPUS];

static bool stress_queued(const struct stress_timer *s)
{
	return s->hr ? hrtimer_is_queued(&s->hrt) : timer_pending(&s->wheel);
}

static void stress_fired(struct stress_timer *s)
{
	unsigned long f = spin_lock_irqsave(&s->lock);
	if (s->owed == 0) {
		/* A callback no arming accounts for: a timer ran twice. */
		__atomic_add_fetch(&stress.unowed, 1, __ATOMIC_RELAXED);
	} else if (stress_queued(s)) {
		/* An older arming's callback (read once: its CPU may take the
		 * described arming off its queue at any moment). */
		__atomic_add_fetch(&stress.unchecked, 1, __ATOMIC_RELAXED);
		s->owed--;
		s->mixed = false;
	} else if (s->mixed) {
		/* The older arming's callback or the described one's. */
		__atomic_add_fetch(&stress.unchecked, 1, __ATOMIC_RELAXED);
		if (--s->owed == 0)
			s->mixed = false;
	} else {
		if (this_cpu()->index != s->cpu)
			__atomic_add_fetch(&stress.wrong_cpu, 1, __ATOMIC_RELAXED);
		uint64_t now = ktime_get_ns();
		bool early = s->hr ? now < s->expires_ns : time_before(jiffies, s->expires);
		if (early)
			__atomic_add_fetch(&stress.early, 1, __ATOMIC_RELAXED);
		uint64_t late_ns = 0;
		if (s->hr && !early) {
			late_ns = now - s->expires_ns;
			if (late_ns > stress.worst_late_ns)
				stress.worst_late_ns = late_ns;
		} else if (!early) {
			uint32_t lj = jiffies - s->expires;
			if (lj > stress.worst_late_jiffies)
				stress.worst_late_jiffies = lj;
			late_ns = (uint64_t)lj * (NSEC_PER_SEC / tick_hz);
		}
		if (late_ns > STRESS_LATE_BOUND_MS * NSEC_PER_MSEC)
			__atomic_add_fetch(&stress.too_late, 1, __ATOMIC_RELAXED);
		s->owed--;
	}
	__atomic_add_fetch(&stress.fired, 1, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&s->lock, f);
	/* Every other callback arms or cancels a timer itself, while the run
	 * lasts (its own lock released: two callbacks may pick each other). */
	uint32_t *rnd = &stress_rnd[this_cpu()->index];
	if (ktime_get_ns() < stress.end_ns && (next_random(rnd) & 1)) {
		__atomic_add_fetch(&stress.from_callbacks, 1, __ATOMIC_RELAXED);
		stress_step(rnd);
	}
}

/* In every tick device interrupt, on every CPU, while the run lasts, after
 * the tick's own handler: one step (the device followed through the
 * injection seam, inject_clockevent_follow). */
static void stress_tick_event(struct clock_event_device *dev)
{
	UNUSED(dev);
	if (ktime_get_ns() >= stress.end_ns)
		return;
	__atomic_add_fetch(&stress.from_irqs, 1, __ATOMIC_RELAXED);
	stress_step(&stress_rnd[this_cpu()->index]);
}

static void stress_wheel_fn(struct timer *t)
{
	stress_fired(container_of(t, struct stress_timer, wheel));
}

static enum hrtimer_restart stress_hr_fn(struct hrtimer *t)
{
	stress_fired(container_of(t, struct stress_timer, hrt));
	return HRTIMER_NORESTART;
}

/* xorshift32: a cheap, per-CPU random sequence (Marsaglia 2003). */
static uint32_t next_random(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* One random operation on one random timer: arm it (or move it) for a
 * random CPU, or cancel it. */
static void stress_step(uint32_t *rnd)
{
	/* Either kind as often, whatever their numbers. */
	uint32_t pick = next_random(rnd);
	struct stress_timer *s = pick & 1 ? &stress.t[(pick >> 1) % STRESS_HRTIMERS]
	                                  : &stress.t[STRESS_HRTIMERS + (pick >> 1) % STRESS_WHEEL_TIMERS];
	uint32_t r = next_random(rnd);
	unsigned long f = spin_lock_irqsave(&s->lock);
	if (s->owed > (stress_queued(s) ? 1u : 0u)) {
		/* A callback is on its way: leave it be. */
	} else if (r % 4 == 0) {
		int was = s->hr ? hrtimer_try_to_cancel(&s->hrt) : timer_try_to_del(&s->wheel);
		if (was > 0) {
			__atomic_add_fetch(&stress.cancelled, 1, __ATOMIC_RELAXED);
			s->owed--;
		}
	} else {
		unsigned cpu = (r >> 8) % cpus_online;
		uint32_t ms = 1 + (r >> 16) % STRESS_MAX_MS;
		int was;
		s->cpu = cpu;
		if (s->hr) {
			s->expires_ns = ktime_get_ns() + (uint64_t)ms * NSEC_PER_MSEC;
			was = hrtimer_start_on(&s->hrt, s->expires_ns, cpu);
			if (was < 0)
				panic("stress: no hrtimer slot on CPU %u", cpu);
		} else {
			s->expires = jiffies + ms_to_jiffies(ms);
			was = timer_mod_on(&s->wheel, s->expires, cpu);
		}
		/* A timer whose callback runs now stays on that callback's CPU
		 * (timer_mod_on, hrtimer_start_on): check it where it went.
		 * Its base changes only by an arm, and arms of s hold s->lock. */
		s->cpu = s->hr ? READ_ONCE(s->hrt.base)->cpu : READ_ONCE(s->wheel.base)->cpu;
		if (!was && s->owed++)     /* a replaced arming owes no callback */
			s->mixed = true;   /* taken off its queue in between */
		__atomic_add_fetch(&stress.arms, 1, __ATOMIC_RELAXED);
		if (was)
			__atomic_add_fetch(&stress.replaced, 1, __ATOMIC_RELAXED);
	}
	spin_unlock_irqrestore(&s->lock, f);
}

/* On this CPU, in tickless mode: how far past the deadline of its
 * earliest hrtimer `now` is while its device is armed for later than that
 * deadline, no kick is on its way to arm it again, and no missed deadline
 * is being handled (0: armed in time, told, or nothing due).  Interrupts
 * off while it looks: the tick's own record of the device is rewritten by
 * interrupts.  A timer armed here from another CPU is flagged
 * (tick->recheck) before its heap is unlocked (hrtimer.h), and the heap is
 * looked at first, so a timer seen here whose kick has not come yet is
 * seen flagged.  softirq_pending outside an interrupt: a deadline passed
 * as the device was written, and it is armed for the soonest it can do. */
static uint64_t stress_device_behind(struct tick_cpu *tc, uint64_t now)
{
	uint64_t first, behind = 0;
	unsigned long f = arch_irq_save();
	if (tc->dev->state == CLOCK_EVT_STATE_ONESHOT && !tc->softirq_pending &&
	    hrtimer_next_expiry(&first) && first < now &&
	    !__atomic_load_n(&tc->recheck, __ATOMIC_ACQUIRE) &&
	    (tc->programmed_ns == 0 || tc->programmed_ns > first))
		behind = now - first;
	arch_irq_restore(f);
	return behind;
}

static void stress_check_device(unsigned cpu, uint64_t now)
{
	struct tick_cpu *tc = this_tick();
	if (!tc->dev || READ_ONCE(tc->mode) != TICK_MODE_TICKLESS)
		return;
	stress.device_checks[cpu]++;
	uint64_t behind = stress_device_behind(tc, now);
	if (behind > stress.unarmed_ns[cpu])
		stress.unarmed_ns[cpu] = behind;
	if (behind > STRESS_UNARMED_BOUND_US * NSEC_PER_USEC)
		stress.unarmed_over[cpu]++;
}

static void stress_worker(void *arg)
{
	uint32_t rnd = 0x9E3779B9u ^ ((uint32_t)(uintptr_t)arg * 2654435761u) ^
	               (uint32_t)ktime_get_ns();
	if (!rnd)
		rnd = 1;
	unsigned cpu = this_cpu()->index;
	uint64_t *stall = &stress.stall_ns[cpu];
	for (uint64_t last = ktime_get_ns(), now; (now = ktime_get_ns()) < stress.end_ns; last = now) {
		if (now - last > *stall)
			*stall = now - last;
		stress_check_device(cpu, now);
		stress_step(&rnd);
	}
	/* The boot CPU may be asleep waiting for the last one: wake it. */
	if (__atomic_sub_fetch(&stress.running, 1, __ATOMIC_RELEASE) == 0 && arg)
		smp_kick(0);
}

static unsigned stress_pending(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(stress.t); i++)
		n += stress_queued(&stress.t[i]);
	return n;
}

static unsigned stress_owed(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(stress.t); i++)
		n += stress.t[i].owed;
	return n;
}

/* Every stress timer set up afresh, every count zeroed. */
static void stress_reset(void)
{
	for (unsigned i = 0; i < ARRAY_SIZE(stress.t); i++) {
		struct stress_timer *st = &stress.t[i];
		st->lock = (spinlock_t)SPINLOCK_INIT;
		st->hr = i < STRESS_HRTIMERS;
		st->owed = 0;
		st->mixed = false;
		if (st->hr)
			hrtimer_init(&st->hrt, stress_hr_fn, "stress");
		else
			timer_init(&st->wheel, stress_wheel_fn, "stress");
	}
	stress.arms = stress.fired = stress.cancelled = stress.replaced = 0;
	stress.early = stress.wrong_cpu = stress.unchecked = stress.unowed = stress.too_late = 0;
	stress.from_callbacks = stress.from_irqs = 0;
	stress.worst_late_ns = 0;
	stress.worst_late_jiffies = 0;
	for (unsigned i = 0; i < NR_CPUS; i++) {
		stress_rnd[i] = 0x2545F491u * (i + 1);
		stress.stall_ns[i] = 0;
		stress.device_checks[i] = 0;
		stress.unarmed_ns[i] = 0;
		stress.unarmed_over[i] = 0;
	}
}

/* `secs` seconds of steps: every AP's arming loop in the background, this
 * CPU's in the foreground, and one in every tick interrupt; back once every
 * loop has ended. */
static void stress_run(uint32_t secs)
{
	stress.end_ns = ktime_get_ns() + (uint64_t)secs * NSEC_PER_SEC;
	for (unsigned i = 0; i < cpus_online; i++) {
		struct clock_event_device *dev = READ_ONCE(time_tick_of(i)->dev);
		if (dev && inject_clockevent_follow(dev, stress_tick_event) != 0)
			kprintf("stress: CPU %u's tick device %s is not followed: no steps from "
			        "its interrupts\n", i, dev->name);
	}
	stress.running = cpus_online;
	for (unsigned i = 1; i < cpus_online; i++)
		if (smp_call(i, stress_worker, (void *)(uintptr_t)i) != 0)
			__atomic_sub_fetch(&stress.running, 1, __ATOMIC_RELEASE);
	stress_worker((void *)0);
	wait_event(__atomic_load_n(&stress.running, __ATOMIC_ACQUIRE) == 0);
	inject_clockevent_unfollow_all();
}

/* Let every timer still armed come due (each is at most STRESS_MAX_MS
 * ahead, plus a tick). */
static void stress_drain(void)
{
	for (unsigned ms = 0; ms < STRESS_DRAIN_MS && stress_pending(); ms += STRESS_DRAIN_STEP_MS)
		wait_ns(STRESS_DRAIN_STEP_MS * NSEC_PER_MSEC);
}

/* The first line: how the armings ended, and what the checks found. */
static void stress_print_counts(unsigned pending)
{
	kprintf("stress: %u CPUs, %u arms, %u fired, %u cancelled, %u re-armed while pending, "
	        "%u still pending; %u early, %u on the wrong CPU (%u not checked: re-armed as it fired); "
	        "%u ran with no arming owing it\n",
	        cpus_online, stress.arms, stress.fired, stress.cancelled, stress.replaced, pending,
	        stress.early, stress.wrong_cpu, stress.unchecked, stress.unowed);
}

/* The second line: where the steps came from, the latest checked callback
 * and the longest stall.  Sets *latest (ns); true if that callback ran
 * more than STRESS_LATE_BOUND_MS beyond the longest stall. */
static bool stress_print_lateness(uint64_t *latest)
{
	uint64_t stall = 0;
	for (unsigned i = 0; i < cpus_online; i++)
		if (stress.stall_ns[i] > stall)
			stall = stress.stall_ns[i];
	*latest = (uint64_t)stress.worst_late_jiffies * (NSEC_PER_SEC / tick_hz);
	if (stress.worst_late_ns > *latest)
		*latest = stress.worst_late_ns;
	bool too_late = *latest > stall + STRESS_LATE_BOUND_MS * NSEC_PER_MSEC;
	char late[FMT_FIXED_SIZE], stalled[FMT_FIXED_SIZE];
	kprintf("stress: %u steps from timer callbacks, %u from interrupt handlers; latest: hrtimer "
	        "%s ms, wheel timer %u jiffies after its deadline; %u later than %u ms; "
	        "longest stall %s ms\n",
	        stress.from_callbacks, stress.from_irqs,
	        fmt_fixed(late, sizeof(late), stress.worst_late_ns / 1000, 3), stress.worst_late_jiffies,
	        stress.too_late, STRESS_LATE_BOUND_MS,
	        fmt_fixed(stalled, sizeof(stalled), stall / 1000, 3));
	return too_late;
}

/* The third line: the CPUs' looks at their own devices.  Sets *unarmed
 * to the longest a due hrtimer waited on a device armed for later (ns);
 * returns how many looks found that for longer than the bound. */
static uint32_t stress_print_devices(uint64_t *unarmed)
{
	uint32_t checks = 0, unarmed_over = 0;
	*unarmed = 0;
	for (unsigned i = 0; i < cpus_online; i++) {
		checks += stress.device_checks[i];
		unarmed_over += stress.unarmed_over[i];
		if (stress.unarmed_ns[i] > *unarmed)
			*unarmed = stress.unarmed_ns[i];
	}
	char late[FMT_FIXED_SIZE];
	kprintf("stress: %u looks at a CPU's own device (tickless only): a due hrtimer with the "
	        "device armed for later for at most %s ms; %u such looks past %u us\n",
	        checks, fmt_fixed(late, sizeof(late), *unarmed / 1000, 3), unarmed_over,
	        STRESS_UNARMED_BOUND_US);
	return unarmed_over;
}

static void stress_cancel_all(void)
{
	for (unsigned i = 0; i < ARRAY_SIZE(stress.t); i++) {
		if (stress.t[i].hr)
			hrtimer_cancel(&stress.t[i].hrt);
		else
			timer_del_sync(&stress.t[i].wheel);
	}
}

/* stress SECONDS: every CPU arms and cancels the same timers at once. */
int cmd_stress(int argc, char **argv)
{
	uint32_t s;
	if (argc != 2 || parse_u32(argv[1], 1, STRESS_MAX_S, &s) != 0)
		return SHELL_USAGE;
	for (unsigned i = 1; i < cpus_online; i++)
		if (cpus[i].call_fn) {
			kprintf("error: CPU %u is busy already\n", i);
			return -EBUSY;
		}
	stress_reset();
	stress_run(s);
	stress_drain();
	unsigned pending = stress_pending(), owed = stress_owed();
	/* Every arming ends one way: it fired, a cancel disarmed it, a later
	 * arm replaced it while pending, or it is still pending. */
	uint32_t ended = stress.fired + stress.cancelled + stress.replaced + pending;
	stress_print_counts(pending);
	uint64_t latest, unarmed;
	bool too_late = stress_print_lateness(&latest);
	uint32_t unarmed_over = stress_print_devices(&unarmed);
	char late[FMT_FIXED_SIZE];
	if (too_late)
		kprintf("error: stress: a callback ran %llu ms after its deadline, more than %u ms "
		        "beyond the longest stall\n",
		        (unsigned long long)(latest / NSEC_PER_MSEC), STRESS_LATE_BOUND_MS);
	if (unarmed_over)
		kprintf("error: stress: a CPU ran %s ms past a due hrtimer of its own with its "
		        "device armed for later\n",
		        fmt_fixed(late, sizeof(late), unarmed / 1000, 3));
	stress_cancel_all();
	if (ended != stress.arms || pending || owed || stress.early || stress.wrong_cpu ||
	    stress.unowed) {
		kprintf("error: stress: %d armings unaccounted for, %u pending and %u callbacks "
		        "owed after %u ms\n",
		        (int)(stress.arms - ended), pending, owed, STRESS_DRAIN_MS);
		return -EIO;
	}
	if (too_late || unarmed_over)
		return -EIO;
	kprintf("stress: ok\n");
	return 0;
}
