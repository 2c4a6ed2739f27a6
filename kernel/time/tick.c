/* kernel/time/tick.c — the tick: the device's interrupts turned into
 * jiffies and timer callbacks, in one of three modes.
 *
 * The tick device is a clock event device (PIT, local APIC timer, HPET…)
 * chosen by the rule above tick_choose_device().  Its interrupts do three
 * things: fold the clocksource's progress into timekeeping, advance
 * jiffies, and let expired timers run.
 *
 * Jiffies are counted in clocksource time, never by counting interrupts:
 * last_jiffy_ns is the clocksource time of the jiffy boundary jiffies_64
 * last reached, and on any interrupt
 *
 *     n = (now - last_jiffy_ns) / period_ns      (whole ticks only)
 *     jiffies_64 += n;  last_jiffy_ns += n * period_ns
 *
 * so a fraction of a tick is never lost and never counted twice, however
 * long the CPU slept and whichever interrupt woke it.
 *
 * Several CPUs.  Every CPU has its own tick device, wheel and hrtimer heap,
 * and runs its own due timers from its own tick; jiffies are one count for
 * all.  jiffies_64 and last_jiffy_ns change only under jiffies_lock, and
 * only by the rule above, so whichever CPU advances them, each period is
 * counted once.  One CPU at a time owns them (jiffies_owner): its tick
 * advances them, the others' ticks only read them.  The owner gives them up
 * when it stops its tick to sleep (tick_sched.c), and the next CPU whose
 * tick fires takes them; while every CPU sleeps nobody owns them, and the
 * first to wake catches them up (tick_restart) before anything reads them.
 * Each CPU keeps a copy of the boundary (tc->last_jiffy_ns) taken together
 * with jiffies, for its own skip arithmetic.
 *
 * Where the work happens for one interrupt (see kernel/arch/irq.c):
 *   tick_irq_enter()   before the handler (in tick_sched.c, beside the
 *                      stop it undoes): if the tick was stopped, catch
 *                      jiffies up and restore the tick (the 2005 dyntick
 *                      patch's rule: a keyboard or serial interrupt during
 *                      a skip sees the right jiffies);
 *   tick_handle_event  the tick device's handler: jiffies, then mark timers
 *                      as due;
 *   tick_irq_exit()    after the EOI: run due timers with interrupts on
 *                      (like Linux's softirq), then program the next event.
 *
 * How the idle CPU stops the tick is tick_sched.c; how the tick starts at
 * boot, tick_boot.c; jiffies and their rate, tick_jiffies.c; which device
 * runs the tick and switching it, tick_switch.c.
 */
#include "errno.h"
#include "lab.h"
#include "kstring.h"
#include "spinlock.h"
#include "time/percpu.h"
#include "time/arch.h"
#include "time/clocksource.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "time/path.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"
#include "time/trace.h"
#include "time/wakeups.h"
#include "time/watchdog.h"
#include "tick_internal.h"

static const char *const mode_names[] = {
	[TICK_MODE_PERIODIC] = "periodic",
	[TICK_MODE_DYNTICK] = "dyntick",
	[TICK_MODE_TICKLESS] = "tickless",
};

const char *tick_mode_name(enum tick_mode mode) { return mode_names[mode]; }

int tick_parse_mode(const char *name, enum tick_mode *mode)
{
	for (unsigned m = 0; m < sizeof(mode_names) / sizeof(mode_names[0]); m++) {
		if (strcmp(name, mode_names[m]) == 0) {
			*mode = (enum tick_mode)m;
			return 0;
		}
	}
	return -EINVAL;
}


/* How late the interrupt taken at `now` came for the deadline programmed
 * (tc->late_ns): timerload judges "past hard" by it. */
void tick_note_latency(struct tick_cpu *tc, uint64_t now)
{
	tc->late_ns = tc->programmed_ns && now > tc->programmed_ns ? now - tc->programmed_ns : 0;
}

/* ------------------------------------------------------ the device */

/* The core rounds the delta down to whole device ticks; one tick of slack
 * makes sure the interrupt never arrives before the boundary it was meant
 * for. */
void tick_program_oneshot(struct tick_cpu *tc, uint64_t expires, uint64_t now)
{
	uint64_t slack = clockevent_ticks2ns(tc->dev, 1) + 1;
	tc->programmed_ns = expires;
	if (clockevents_program_event(tc->dev, expires + slack, now) != -ETIME)
		return;
	/* -ETIME after the core's retries: the deadline passed while the
	 * device was written, again and again, and nothing is armed.  Left
	 * so, the CPU would wait for an unrelated interrupt, or on a real
	 * HPET for the comparator to match after the counter wraps (minutes).
	 * It is expired now: what was due runs at the next interrupt, and
	 * the device is armed for the nearest deadline it still meets,
	 * doubling from twice its minimum up to its maximum, so that
	 * interrupt comes within microseconds, not never. */
	tc->softirq_pending = true;
	uint64_t d = 2 * tc->dev->min_delta_ns;
	for (;;) {
		uint64_t t = ktime_get_ns();
		tc->programmed_ns = t + d;
		if (clockevents_program_event(tc->dev, t + d, t) != -ETIME ||
		    d >= tc->dev->max_delta_ns)
			return;
		d = d > tc->dev->max_delta_ns / 2 ? tc->dev->max_delta_ns : 2 * d;
	}
}

/* While busy in one-shot mode: the next tick, or an earlier hrtimer. */
static void program_busy_oneshot(struct tick_cpu *tc, uint64_t now)
{
	uint64_t next = tick_next_jiffy_ns(tc), hr;
	if (tc->mode == TICK_MODE_TICKLESS && hrtimer_next_expiry(&hr) && hr < next)
		next = hr;
	tick_program_oneshot(tc, next, now);
}

static void (*account_hook)(void);

void tick_set_account_hook(void (*fn)(void)) { account_hook = fn; }

/* Start the device ticking for the current mode. */
int tick_start_device(struct tick_cpu *tc)
{
	uint64_t now = ktime_get_ns();
	WRITE_ONCE(tc->stopped, false);
	tc->programmed_ns = 0;
	if (tc->mode == TICK_MODE_TICKLESS) {
		int ret = clockevents_set_oneshot(tc->dev);
		if (ret == 0)
			program_busy_oneshot(tc, now);
		return ret;
	}
	return clockevents_set_periodic(tc->dev, tc->hz);
}

/* The tick device's interrupt. */
void tick_handle_event(struct clock_event_device *dev)
{
	struct tick_cpu *tc = this_tick();
	/* The time clockevents_handle_event read (and folded) as the event
	 * came, taken once; a handler called by other means reads its own. */
	uint64_t now = dev->event_ns ? dev->event_ns : timekeeping_update();
	dev->event_ns = 0;
	tick_note_latency(tc, now);
	tick_do_jiffies(tc, now);
	if (account_hook)
		account_hook();
	tc->programmed_ns = 0;
	tc->softirq_pending = true;
	wakeups_note_tick_event();
	if (trace_on()) {
		struct trace_event e = { .t_ns = ktime_get_ns(), .kind = TRACE_TIMER_IRQ,
		                         .name = dev->name };
		trace_add(&e);
	}
}

/* ------------------------------------------------ interrupt hooks */

/* After the EOI: the waiters first, then the tick's own bookkeeping.
 * Hrtimers run before the wheel (an hrtimer is someone waiting for a
 * deadline to the microsecond; a wheel timer is due within a jiffy), and
 * the clocksource watchdog, which reads every counter, runs after both:
 * the tick's own work never delays an hrtimer due in the same interrupt,
 * as Linux's tick-sched orders it. */
void tick_irq_exit(void)
{
	struct tick_cpu *tc = this_tick();
	if (!tc->dev || tc->in_softirq)
		return;                 /* (nested: the outer exit programs the device) */
	bool recheck = __atomic_exchange_n(&tc->recheck, false, __ATOMIC_ACQ_REL);
	/* The tick ran, or was restarted by this interrupt, or another CPU
	 * armed an hrtimer here (tick_kick_remote_hr): the device needs its
	 * next program.  (Restarted with piggybacking off, no timers run now,
	 * but the busy tick must still start.) */
	if (tc->softirq_pending || tc->restarted || recheck) {
		tc->restarted = false;
		tc->in_softirq = true;
		while (tc->softirq_pending) {
			tc->softirq_pending = false;
			arch_irq_enable();
			hrtimer_run_expired(ktime_get_ns());
			path_stamp(PATH_CALLBACKS);
			timer_run_expired(jiffies);
			path_stamp(PATH_WHEEL);
			arch_irq_disable();
		}
		tc->in_softirq = false;
		/* One-shot and not skipping: keep ticking (or fire the next hrtimer). */
		if (!tc->stopped && tc->dev->state == CLOCK_EVT_STATE_ONESHOT &&
		    tc->mode == TICK_MODE_TICKLESS)
			program_busy_oneshot(tc, ktime_get_ns());
		path_stamp(PATH_REPROGRAM);
	}
	/* The clocksource watchdog runs on the boot CPU's interrupts: ones
	 * that come anyway, so it costs no wakeup of its own. */
	if (arch_this_cpu_id() == TICK_BOOT_CPU)
		watchdog_poll();
	path_stamp(PATH_WATCHDOG);
}

/* A new earliest hrtimer: in tickless mode it must not wait for the next
 * tick.  (Periodic and dyntick run hrtimers at tick resolution.) */
static void hrtimer_changed(uint64_t expires)
{
	struct tick_cpu *tc = this_tick();
	if (!tc->dev || tc->mode != TICK_MODE_TICKLESS || tc->in_softirq)
		return;
	if (tc->programmed_ns == 0 || expires < tc->programmed_ns)
		tick_program_oneshot(tc, expires, ktime_get_ns());
}

/* A timer was armed on another CPU's wheel or heap.  If that CPU is
 * asleep (its tick stopped or stretched, its device programmed for what it
 * knew), wake it so its idle loop looks again; a CPU that is awake finds
 * the timer by itself, at its next tick or idle entry. */
static void tick_kick_remote(unsigned cpu)
{
	struct tick_cpu *tc = time_tick_of(cpu);
	/* The timer is queued (written) before its CPU's idle flag is read;
	 * that CPU sets the flag before it reads its queue. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (READ_ONCE(tc->idle))
		arch_kick_cpu(cpu);
}

/* An hrtimer armed for another CPU became that CPU's earliest.  Idle: the
 * kick above.  Awake in tickless mode: its device holds the program its
 * last interrupt left (the next jiffy, or an hrtimer before it), which
 * the new deadline may precede, and an awake CPU looks at its heap only at
 * its next interrupt: up to a jiffy late, as it was with CPU 1 busy
 * before this kick (test_hrtimer_for_a_busy_tickless_cpu_runs_on_time).
 * So flag it and kick it anyway; the kick's irq exit programs the device
 * again (tick_irq_exit).  This is Linux's choice for a remote hrtimer
 * that becomes the first, an IPI, rather than not queueing it there: the
 * caller asked for that CPU.  Periodic and dyntick
 * run hrtimers at tick resolution, so an awake CPU there needs nothing,
 * nor does a wheel timer (a jiffy's resolution) on any awake CPU. */
static void tick_kick_remote_hr(unsigned cpu)
{
	struct tick_cpu *tc = time_tick_of(cpu);
	/* Flagged whether it looks idle or not: a CPU seen idle here may be
	 * on its way out, its device already programmed from a look at its
	 * heap that came before this timer; the kick then lands on an awake
	 * CPU, and only the flag makes its irq exit program again.  Set
	 * while the hrtimer core still holds that CPU's heap locked
	 * (hrtimer.h), so whoever finds the timer there finds the flag. */
	bool tickless = READ_ONCE(tc->mode) == TICK_MODE_TICKLESS;
	if (tickless)
		__atomic_store_n(&tc->recheck, true, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);        /* as in tick_kick_remote */
	if (READ_ONCE(tc->idle) || tickless)
		arch_kick_cpu(cpu);
}

/* ----------------------------------------------- the timer hooks */

/* Hand the timer wheel and the hrtimers what they need of the tick: the
 * clock slack counts from, and who to tell when a first deadline moves
 * (tick_start, before the first timer is armed). */
void tick_install_timer_hooks(void)
{
	static const struct hrtimer_tick_ops hr_ops = {
		.clock_ns = ktime_get_ns,       /* what class slack counts from */
		.first_changed = hrtimer_changed,
		.armed_remote = tick_kick_remote_hr,
	};
	static const struct timer_tick_ops wheel_ops = {
		.armed_remote = tick_kick_remote,
	};
	hrtimer_set_tick_ops(&hr_ops);
	timer_set_tick_ops(&wheel_ops);
}
