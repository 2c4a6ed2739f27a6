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
 * boot, tick_boot.c.
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

static uint64_t period_for(unsigned hz) { return NSEC_PER_SEC / hz; }

/* ------------------------------------------------------------ jiffies */

static spinlock_t jiffies_lock = SPINLOCK_INIT;
static uint64_t jiffies_last_ns;        /* the boundary jiffies_64 last reached */
static uint64_t jiffies_period_ns;      /* NSEC_PER_SEC / tick_hz */
static int jiffies_owner = TICK_OWNER_NONE;

/* jiffies_lock is held: count the periods ended by `now`; how many. */
static uint64_t jiffies_advance_locked(uint64_t now)
{
	uint64_t n = 0;
	/* LAB jiffies: BEGIN
	 * Advance jiffies_64 by every whole period (jiffies_period_ns) that
	 * has ended between the last boundary (jiffies_last_ns) and `now`,
	 * and move the boundary by as many periods, not to `now`: jiffies
	 * count the clock's periods, whenever the interrupt came.  After a
	 * skip that is many periods at once.  n: how many.
	 */
	if (now >= jiffies_last_ns + jiffies_period_ns) {
		uint64_t delta = now - jiffies_last_ns;
		/* The common case, one tick, without a 64-bit division. */
		n = delta < 2 * jiffies_period_ns ? 1 : delta / jiffies_period_ns;
		jiffies_64 += n;
		jiffies_last_ns += n * jiffies_period_ns;
	}
	/* LAB jiffies: STUB
	lab_not_implemented("jiffies");
	n = 1;
	jiffies_64 += n;
	jiffies_last_ns = now;
	   LAB jiffies: END */
	return n;
}

uint64_t tick_update_jiffies(struct tick_cpu *tc, uint64_t now)
{
	unsigned long f = spin_lock_irqsave(&jiffies_lock);
	uint64_t n = jiffies_advance_locked(now);
	tc->last_jiffy_ns = jiffies_last_ns;
	spin_unlock_irqrestore(&jiffies_lock, f);
	return n;
}

void tick_sync_jiffies(struct tick_cpu *tc)
{
	unsigned long f = spin_lock_irqsave(&jiffies_lock);
	tc->last_jiffy_ns = jiffies_last_ns;
	spin_unlock_irqrestore(&jiffies_lock, f);
}

void tick_jiffies_snapshot(uint32_t *j, uint64_t *boundary_ns)
{
	unsigned long f = spin_lock_irqsave(&jiffies_lock);
	*j = jiffies;
	*boundary_ns = jiffies_last_ns;
	spin_unlock_irqrestore(&jiffies_lock, f);
}

int tick_jiffies_owner(void)
{
	return __atomic_load_n(&jiffies_owner, __ATOMIC_RELAXED);
}

void tick_release_jiffies(void)
{
	int me = (int)arch_this_cpu_id();
	__atomic_compare_exchange_n(&jiffies_owner, &me, TICK_OWNER_NONE, false,
	                            __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* On this CPU's tick: take jiffies if nobody owns them; advance them if
 * this CPU owns them, else only refresh the copy of the boundary. */
static void tick_do_jiffies(struct tick_cpu *tc, uint64_t now)
{
	int none = TICK_OWNER_NONE, me = (int)arch_this_cpu_id();
	__atomic_compare_exchange_n(&jiffies_owner, &none, me, false,
	                            __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	if (tick_jiffies_owner() == me)
		tick_update_jiffies(tc, now);
	else
		tick_sync_jiffies(tc);
}

/* Start jiffies' boundaries at `first`, every period_ns (tick_start; a
 * change of HZ keeps the boundary and changes the period in tick_set_hz,
 * in the same critical section as its catch-up). */
static void jiffies_set_clock(uint64_t first, uint64_t period_ns)
{
	unsigned long f = spin_lock_irqsave(&jiffies_lock);
	jiffies_last_ns = first;
	jiffies_period_ns = period_ns;
	spin_unlock_irqrestore(&jiffies_lock, f);
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

/* Start the device ticking for the current mode. */
static int start_device(struct tick_cpu *tc)
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
static void tick_handle_event(struct clock_event_device *dev)
{
	struct tick_cpu *tc = this_tick();
	/* The time clockevents_handle_event read (and folded) as the event
	 * came, taken once; a handler called by other means reads its own. */
	uint64_t now = dev->event_ns ? dev->event_ns : timekeeping_update();
	dev->event_ns = 0;
	tick_note_latency(tc, now);
	tick_do_jiffies(tc, now);
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
 * its next interrupt: up to a jiffy late (0.7-2.8 ms under icount with
 * CPU 1 busy before this kick: test_hrtimer_for_a_busy_tickless_cpu_runs_on_time).  So flag it and kick it anyway; the kick's irq exit
 * programs the device again (tick_irq_exit).  This is Linux's choice for
 * a remote hrtimer that becomes the first, an IPI, rather than not
 * queueing it there: the caller asked for that CPU.  Periodic and dyntick
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

/* ----------------------------------------------- which device */

static uint32_t features_for(enum tick_mode mode)
{
	return mode == TICK_MODE_PERIODIC ? CLOCK_EVT_FEAT_PERIODIC :
	       mode == TICK_MODE_DYNTICK ? (CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT) :
	       CLOCK_EVT_FEAT_ONESHOT;
}

struct clock_event_device *tick_device_for(enum tick_mode mode, const char *name)
{
	uint32_t need = features_for(mode);
	struct clock_event_device *d = name ? clockevents_find(name) : NULL;
	return d && (d->features & need) == need ? d : NULL;
}

/* The 2005 patch's tick device, asked for by its dyntick= option: the PIT,
 * or the local APIC with forceapic.  It applies to the patch's own modes,
 * periodic and dyntick; tickless is not the patch's and takes the best
 * device.  NULL: dyntick= was not given. */
const char *tick_patch_device;

/* The device the current clocksource counts the interrupts of, if any. */
static const char *clocksource_driver(void)
{
	struct clocksource *cs = clocksource_current();
	return cs ? cs->driven_by : NULL;
}

/* The device that runs `mode`:
 *   0. the device whose interrupts the clocksource counts (the "pit"
 *      clocksource, on a machine with no continuous one): on any other
 *      device time would stand still;
 *   1. the device the user named (clockevent=NAME, or `clockevent NAME`),
 *      if it can run the mode;
 *   2. in periodic and dyntick mode, the device dyntick= asked for;
 *   3. the best-rated device that can.
 * A mode switch goes through the same rule, so it comes back to the named
 * device (or the best one) after a mode that needed another. */
struct clock_event_device *tick_choose_device(enum tick_mode mode, const char **why)
{
	struct clock_event_device *d;
	if ((d = tick_device_for(mode, clocksource_driver())) != NULL) {
		*why = "the clocksource counts its interrupts";
		return d;
	}
	if ((d = tick_device_for(mode, clockevents_preferred())) != NULL) {
		*why = "the device chosen with clockevent";
		return d;
	}
	if (mode != TICK_MODE_TICKLESS && (d = tick_device_for(mode, tick_patch_device)) != NULL) {
		*why = "the device dyntick= asked for";
		return d;
	}
	*why = "the best-rated device that can run it";
	return clockevents_best(features_for(mode));
}

/* ----------------------------------------------- switching things */

/* Stop the old device, start the new one, in `mode`, on this CPU.
 * Interrupts off.  A device that refuses the mode (its driver's
 * set_periodic or set_oneshot fails) is not kept: a tick device that
 * never interrupts would leave the CPU halted for good.  The old device
 * and mode come back, and the driver's error is returned. */
int tick_switch(struct tick_cpu *tc, struct clock_event_device *dev, enum tick_mode mode)
{
	uint64_t now = timekeeping_update();
	struct clock_event_device *old = tc->dev;
	enum tick_mode old_mode = tc->mode;
	if (old) {
		tick_update_jiffies(tc, now);
		if (old != dev)
			clockevents_shutdown(old);
	}
	WRITE_ONCE(tc->dev, dev);
	WRITE_ONCE(tc->mode, mode);
	dev->event_handler = tick_handle_event;
	int ret = start_device(tc);
	if (ret != 0 && old) {
		if (old != dev)
			clockevents_shutdown(dev);
		WRITE_ONCE(tc->dev, old);
		WRITE_ONCE(tc->mode, old_mode);
		start_device(tc);
	}
	/* Nothing is forced to run now: a timer already due keeps the tick
	 * running at the next idle entry (tick_sched.c), and the tick runs
	 * it.  (Forcing the run cost every switch one extra wakeup: the idle
	 * entry kept the tick for it though nothing was due.) */
	return ret;
}

/* The boot CPU's tick changes, interrupts off: switch; if that worked,
 * the other CPUs follow, and if the device refused, one line says so. */
static int switch_to(struct tick_cpu *tc, struct clock_event_device *dev, enum tick_mode mode)
{
	unsigned long f = arch_irq_save();
	int ret = tick_switch(tc, dev, mode);
	if (ret == 0)
		tick_changed();
	arch_irq_restore(f);
	if (ret != 0)
		kprintf("error: %s refused the %s tick (error %d): the tick stays %s on %s\n",
		        dev->name, mode_names[mode], ret, mode_names[tc->mode],
		        tc->dev ? tc->dev->name : "(none)");
	return ret;
}

bool tick_skipping_suitable(void)
{
	struct clocksource *cs = clocksource_current();
	return cs && (cs->flags & CLOCK_SOURCE_CONTINUOUS);
}

bool tick_mode_allowed(enum tick_mode mode, bool verbose)
{
	if (mode != TICK_MODE_PERIODIC && !tick_skipping_suitable()) {
		struct clocksource *cs = clocksource_current();
		if (verbose)
			kprintf("error: %s needs a clocksource that counts across skipped ticks; "
			        "%s does not\n", mode_names[mode], cs ? cs->name : "(none)");
		return false;
	}
	return true;
}

/* Say in one line when a mode switch has moved the tick to another device. */
static void announce_move(const struct clock_event_device *old, const struct clock_event_device *dev,
                          enum tick_mode mode, const char *why)
{
	if (!old || old == dev)
		return;
	kprintf("tick: %s now on %s, not %s (%s)\n", mode_names[mode], dev->name,
	        old->name, why);
}

int tick_set_mode(enum tick_mode mode)
{
	struct tick_cpu *tc = this_tick();
	const char *why;
	if (!tick_mode_allowed(mode, true))
		return -EINVAL;
	struct clock_event_device *dev = tick_choose_device(mode, &why);
	if (!dev) {
		kprintf("error: no clock event device can run %s\n", mode_names[mode]);
		return -ENODEV;
	}
	struct clock_event_device *old = tc->dev;
	int ret = switch_to(tc, dev, mode);
	if (ret == 0)
		announce_move(old, dev, mode, why);
	return ret;
}

int tick_set_device(const char *name)
{
	struct tick_cpu *tc = this_tick();
	struct clock_event_device *dev = clockevents_find(name);
	if (!dev) {
		kprintf("error: no clock event device '%s'\n", name);
		return -ENOENT;
	}
	if (!tick_device_for(tc->mode, name)) {
		kprintf("error: %s cannot run the %s tick (features)\n", name, mode_names[tc->mode]);
		return -EINVAL;
	}
	const char *driver = clocksource_driver();
	if (driver && strcmp(driver, dev->name) != 0) {
		kprintf("error: the clocksource %s counts %s's interrupts: the tick stays on %s\n",
		        clocksource_current()->name, driver, driver);
		return -EINVAL;
	}
	int ret = switch_to(tc, dev, tc->mode);
	/* The user's choice sticks: later mode switches come back to it. */
	if (ret == 0)
		clockevents_set_preferred(dev->name);
	return ret;
}

/* Re-express a wheel timer's expiry at the new rate: the same deadline in
 * real time, rounded up to a whole new tick so it never fires early. */
struct remap_ctx { uint32_t now; uint64_t old_period, new_period; };

static uint32_t remap_expiry(uint32_t expires, void *p)
{
	struct remap_ctx *c = p;
	int32_t ahead = (int32_t)(expires - c->now);
	if (ahead <= 0)
		return expires;         /* due already: stays due */
	uint64_t ns = (uint64_t)ahead * c->old_period;
	uint64_t j = (ns + c->new_period - 1) / c->new_period;
	/* At a higher HZ a far timer may be more jiffies ahead than a wheel
	 * can say (2^31: 24.8 days at HZ=1000); wrapped, it would read as due
	 * and run at once.  It waits as long as a wheel can say instead (as
	 * Linux caps a timeout at MAX_JIFFY_OFFSET): early by the difference,
	 * never by the whole. */
	if (j > (uint64_t)INT32_MAX - 1)
		j = (uint64_t)INT32_MAX - 1;
	return c->now + (uint32_t)j;
}

int tick_set_hz(unsigned hz)
{
	struct tick_cpu *tc = this_tick();
	if (!hz_is_valid(hz))
		return -EINVAL;
	unsigned long f = arch_irq_save();
	uint64_t now = timekeeping_update();
	/* One step, under jiffies_lock: catch jiffies up at the old rate,
	 * remap every wheel to the new one, and from the last old boundary
	 * count new periods.  jiffies keeps its value and stays monotonic.
	 * Another CPU catching jiffies up in between would be counted twice
	 * (once at the old rate, then again from the boundary restored here:
	 * jiffies ahead of the clocksource for good, and wheel timers early),
	 * so none can: it waits for the lock.  The wheel locks are taken
	 * inside this one; nothing takes jiffies_lock under a wheel lock.
	 * (The other CPUs' ticks follow through tick_changed(), below.) */
	spin_lock(&jiffies_lock);
	jiffies_advance_locked(now);
	struct remap_ctx c = { jiffies, tc->period_ns, period_for(hz) };
	timer_wheel_remap(jiffies, remap_expiry, &c);
	jiffies_period_ns = c.new_period;
	tc->last_jiffy_ns = jiffies_last_ns;
	WRITE_ONCE(tc->hz, hz);
	tick_hz = hz;
	tc->period_ns = c.new_period;
	spin_unlock(&jiffies_lock);
	if (tc->dev)
		start_device(tc);
	tick_changed();
	arch_irq_restore(f);
	return 0;
}

/* ------------------------------------------------------------ an AP's tick */

void tick_secondary_start(struct clock_event_device *dev, enum tick_mode mode, unsigned hz)
{
	struct tick_cpu *tc = this_tick();
	unsigned long f = arch_irq_save();
	/* Afresh, but the device kept (tick_switch stops it if it changes)
	 * and never seen missing: other CPUs read dev, mode and idle without
	 * a lock (tick_smp.c), and a transient NULL would read as a CPU with
	 * no tick.  The whole struct is written from a copy, each of those
	 * fields with the value it had or its new one.  A `recheck` another
	 * CPU set meanwhile is cleared: tick_switch programs the device from
	 * the heap as it is now. */
	struct tick_cpu fresh = { .dev = tc->dev, .mode = tc->mode, .hz = hz,
	                          .period_ns = NSEC_PER_SEC / hz };
	*tc = fresh;
	tick_sync_jiffies(tc);
	tick_switch(tc, dev, mode);
	arch_irq_restore(f);
}

void tick_secondary_follow(struct clock_event_device *dev)
{
	const struct tick_cpu *boot = time_tick_of(TICK_BOOT_CPU);
	tick_secondary_start(dev, READ_ONCE(boot->mode), READ_ONCE(boot->hz));
}

/* ----------------------------------------------- the first start */

void tick_start(struct clock_event_device *dev, enum tick_mode mode)
{
	struct tick_cpu *tc = this_tick();
	WRITE_ONCE(tc->hz, tick_hz);
	tc->period_ns = period_for(tick_hz);
	hrtimer_first_changed = hrtimer_changed;
	hrtimer_clock_ns = ktime_get_ns;    /* what class slack counts from */
	timer_armed_remote = tick_kick_remote;
	hrtimer_armed_remote = tick_kick_remote_hr;
	timer_wheel_init(jiffies);          /* every CPU's wheel and heap */
	hrtimer_bases_init();

	/* Start half a period into the first jiffy, so periodic interrupts
	 * land between boundaries rather than on them. */
	tc->last_jiffy_ns = timekeeping_update() - tc->period_ns / 2;
	jiffies_set_clock(tc->last_jiffy_ns, tc->period_ns);
	jiffies_owner = (int)arch_this_cpu_id();
	unsigned long f = arch_irq_save();
	switch_to(tc, dev, mode);
	arch_irq_restore(f);
	wakeups_reset(ktime_get_ns());
}
