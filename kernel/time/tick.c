/* kernel/time/tick.c — the tick, and how the idle CPU stops it.
 *
 * The tick device is a clock event device (PIT, local APIC timer, HPET…)
 * chosen by rating or by the boot option clockevent=NAME.  Its interrupts
 * do three things: fold the clocksource's progress into timekeeping, advance
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
 * Where the work happens for one interrupt (see kernel/arch/irq.c):
 *   tick_irq_enter()   before the handler: if the tick was stopped, catch
 *                      jiffies up and restore the tick (the seed's rule: a
 *                      keyboard or serial interrupt during a skip sees the
 *                      right jiffies);
 *   tick_handle_event  the tick device's handler: jiffies, then mark timers
 *                      as due;
 *   tick_irq_exit()    after the EOI: run due timers with interrupts on
 *                      (like Linux's softirq), then program the next event.
 *
 * The idle path is two functions, read top to bottom: tick_idle_enter()
 * (decide how long to sleep, apply each limit by name, program the device)
 * and tick_idle_exit() (account for the sleep).
 */
#include "cmdline.h"
#include "errno.h"
#include "kstring.h"
#include "time/arch.h"
#include "time/clocksource.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"
#include "time/trace.h"
#include "time/wakeups.h"

struct tick_cpu tick_cpu0;

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

/* Advance jiffies to the last whole tick boundary at or before now.
 * Returns how many ticks that was. */
static uint64_t update_jiffies(struct tick_cpu *tc, uint64_t now)
{
	if (now < tc->last_jiffy_ns + tc->period_ns)
		return 0;
	uint64_t delta = now - tc->last_jiffy_ns;
	/* The common case, one tick, without a 64-bit division. */
	uint64_t n = delta < 2 * tc->period_ns ? 1 : delta / tc->period_ns;
	jiffies_64 += n;
	tc->last_jiffy_ns += n * tc->period_ns;
	return n;
}

static uint64_t next_jiffy_ns(const struct tick_cpu *tc)
{
	return tc->last_jiffy_ns + tc->period_ns;
}

/* ------------------------------------------------------ next timer */

bool tick_next_timer_ns(uint64_t *ns, enum tick_limit *limit, const char **name)
{
	const struct tick_cpu *tc = this_tick();
	bool found = false;
	uint32_t expires;
	uint64_t hr;

	if (timer_next_expiry(&expires)) {
		/* A wheel timer is due at the boundary that starts jiffy
		 * `expires`; if that is already past, it is due now. */
		int32_t ahead = (int32_t)(expires - jiffies);
		*ns = tc->last_jiffy_ns + (ahead > 0 ? (uint64_t)ahead * tc->period_ns : 0);
		*limit = TICK_LIMIT_TIMER;
		*name = timer_next_name();
		found = true;
	}
	if (hrtimer_next_expiry(&hr) && (!found || hr < *ns)) {
		*ns = hr;
		*limit = TICK_LIMIT_HRTIMER;
		*name = hrtimer_next_name();
		found = true;
	}
	return found;
}

/* ------------------------------------------------------ the device */

/* Program the one-shot device for an absolute time.  The core rounds the
 * delta down to whole device ticks; one tick of slack makes sure the
 * interrupt never arrives before the boundary it was meant for. */
static void program_oneshot(struct tick_cpu *tc, uint64_t expires, uint64_t now)
{
	uint64_t slack = clockevent_ticks2ns(tc->dev, 1) + 1;
	tc->programmed_ns = expires;
	clockevents_program_event(tc->dev, expires + slack, now);
}

/* While busy in one-shot mode: the next tick, or an earlier hrtimer. */
static void program_busy_oneshot(struct tick_cpu *tc, uint64_t now)
{
	uint64_t next = next_jiffy_ns(tc), hr;
	if (tc->mode == TICK_MODE_TICKLESS && hrtimer_next_expiry(&hr) && hr < next)
		next = hr;
	program_oneshot(tc, next, now);
}

/* Start the device ticking for the current mode. */
static void start_device(struct tick_cpu *tc)
{
	uint64_t now = ktime_get_ns();
	tc->stopped = false;
	tc->programmed_ns = 0;
	if (tc->mode == TICK_MODE_TICKLESS) {
		clockevents_set_oneshot(tc->dev);
		program_busy_oneshot(tc, now);
	} else {
		clockevents_set_periodic(tc->dev, tc->hz);
	}
}

/* The tick device's interrupt. */
static void tick_handle_event(struct clock_event_device *dev)
{
	struct tick_cpu *tc = this_tick();
	timekeeping_update();
	update_jiffies(tc, ktime_get_ns());
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

/* The tick is stopped (or stretched) and an interrupt arrived: catch up,
 * then tick again at HZ until the idle loop decides otherwise. */
static void restart_tick(struct tick_cpu *tc)
{
	timekeeping_update();
	uint64_t now = ktime_get_ns();
	update_jiffies(tc, now);
	tc->catchups++;
	tc->stopped = false;
	/* Dyntick: the seed's rule, back to one tick per period at once.
	 * Tickless: tick_irq_exit() programs the next tick once the handler
	 * has run (not now: the device's interrupt being handled was armed by
	 * the old program, and clockevents_handle_event judges it by that). */
	if (tc->mode == TICK_MODE_DYNTICK) {
		clockevents_set_periodic(tc->dev, tc->hz);
		tc->programmed_ns = 0;
	}
	tc->softirq_pending = true;
}

void tick_irq_enter(unsigned vector)
{
	struct tick_cpu *tc = this_tick();
	if (!tc->dev)
		return;                 /* before tick_init */
	if (tc->idle)
		wakeups_note_irq(vector);
	if (tc->stopped)
		restart_tick(tc);
}

void tick_irq_exit(void)
{
	struct tick_cpu *tc = this_tick();
	if (!tc->dev || tc->in_softirq || !tc->softirq_pending)
		return;
	tc->in_softirq = true;
	while (tc->softirq_pending) {
		tc->softirq_pending = false;
		arch_irq_enable();
		timer_run_expired(jiffies);
		hrtimer_run_expired(ktime_get_ns());
		arch_irq_disable();
	}
	tc->in_softirq = false;
	/* One-shot and not skipping: keep ticking (or fire the next hrtimer). */
	if (!tc->stopped && tc->dev->state == CLOCK_EVT_STATE_ONESHOT &&
	    tc->mode == TICK_MODE_TICKLESS)
		program_busy_oneshot(tc, ktime_get_ns());
}

/* A new earliest hrtimer: in tickless mode it must not wait for the next
 * tick.  (Periodic and dyntick run hrtimers at tick resolution.) */
static void hrtimer_changed(uint64_t expires)
{
	struct tick_cpu *tc = this_tick();
	if (!tc->dev || tc->mode != TICK_MODE_TICKLESS || tc->in_softirq)
		return;
	if (tc->programmed_ns == 0 || expires < tc->programmed_ns)
		program_oneshot(tc, expires, ktime_get_ns());
}

/* ------------------------------------------------------ idle */

uint64_t tick_max_skip(void)
{
	struct tick_cpu *tc = this_tick();
	return tc->dev ? tc->dev->max_delta_ns / tc->period_ns : 0;
}

bool tick_skipping_suitable(void)
{
	struct clocksource *cs = clocksource_current();
	return cs && (cs->flags & CLOCK_SOURCE_CONTINUOUS);
}

/* Decide how long the CPU may sleep and program the tick device for it.
 * Returns the absolute time programmed, or 0 if the tick keeps running. */
static uint64_t stop_tick_if_worth_it(struct tick_cpu *tc, uint64_t now)
{
	uint64_t next, limit_ns;
	enum tick_limit limit = TICK_LIMIT_NONE;
	const char *name = NULL;

	if (tc->mode == TICK_MODE_PERIODIC || tc->softirq_pending || tc->stopped)
		return 0;               /* tick on; or work to do; or already asleep */

	/* 1. The next timer of either kind. */
	if (!tick_next_timer_ns(&next, &limit, &name)) {
		next = UINT64_MAX;
		limit = TICK_LIMIT_DEVICE;
	}
	/* 2. The device cannot wait longer than its maximum delta. */
	limit_ns = now + tc->dev->max_delta_ns;
	if (next > limit_ns) {
		next = limit_ns;
		limit = TICK_LIMIT_DEVICE;
		name = NULL;
	}
	/* 3. The clocksource must be read before it wraps twice over. */
	limit_ns = now + timekeeping_max_idle_ns();
	if (limit_ns > now && next > limit_ns) {
		next = limit_ns;
		limit = TICK_LIMIT_WRAP;
		name = NULL;
	}

	if (tc->mode == TICK_MODE_DYNTICK) {
		/* The seed's rule, in whole ticks from the last boundary. */
		uint64_t skip = next <= tc->last_jiffy_ns ? 1 :
		                (next - tc->last_jiffy_ns) / tc->period_ns;
		if (skip <= TICK_DYNTICK_MIN_SKIP)
			return 0;       /* not worth it: keep ticking */
		tc->skip = (unsigned)skip;
		next = tc->last_jiffy_ns + skip * tc->period_ns;
		clockevents_set_oneshot(tc->dev);
	} else if (next <= next_jiffy_ns(tc)) {
		return 0;               /* tickless, but something is due this tick */
	} else {
		tc->skip = (unsigned)((next - tc->last_jiffy_ns) / tc->period_ns);
	}
	program_oneshot(tc, next, now);
	tc->stopped = true;
	tc->skip_limit = limit;
	tc->skip_timer = name;
	tc->skips++;
	tc->ticks_skipped += tc->skip;
	if (tc->skip > tc->longest_skip)
		tc->longest_skip = tc->skip;
	wakeups_note_skip(limit, name, next - now);
	return next;
}

/* Called with interrupts off, right before the CPU halts. */
void tick_idle_enter(void)
{
	struct tick_cpu *tc = this_tick();
	if (!tc->dev)
		return;
	timekeeping_update();
	uint64_t now = ktime_get_ns();
	update_jiffies(tc, now);
	wakeups_idle_enter(now);
	tc->idle = true;
	tc->skip_limit = TICK_LIMIT_NONE;
	uint64_t until = stop_tick_if_worth_it(tc, now);
	if (trace_on()) {
		struct trace_event e = {
			.t_ns = now, .kind = TRACE_IDLE_ENTER,
			.cause = until ? tc->skip_limit : TICK_LIMIT_NONE,
			.skip = until ? tc->skip : 0, .sleep_ns = until ? until - now : 0,
			.name = until ? tc->skip_timer : NULL,
		};
		trace_add(&e);
	}
}

/* Back from the halt (interrupts off): the interrupt that woke us already
 * caught jiffies up and restored the tick (tick_irq_enter). */
void tick_idle_exit(void)
{
	struct tick_cpu *tc = this_tick();
	if (!tc->dev)
		return;
	tc->idle = false;
	wakeups_idle_exit(ktime_get_ns());
}

/* ----------------------------------------------- switching things */

static uint32_t features_for(enum tick_mode mode)
{
	return mode == TICK_MODE_PERIODIC ? CLOCK_EVT_FEAT_PERIODIC :
	       mode == TICK_MODE_DYNTICK ? (CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT) :
	       CLOCK_EVT_FEAT_ONESHOT;
}

/* The device called `name` if it is registered and can run `mode`. */
static struct clock_event_device *device_for(enum tick_mode mode, const char *name)
{
	uint32_t need = features_for(mode);
	struct clock_event_device *d = name ? clockevents_find(name) : NULL;
	return d && (d->features & need) == need ? d : NULL;
}

/* The 2005 patch's tick device, asked for by its dyntick= option: the PIT,
 * or the local APIC with forceapic.  It applies to the patch's own modes,
 * periodic and dyntick; tickless is not the patch's and takes the best
 * device.  NULL: dyntick= was not given. */
static const char *patch_device;

/* The device that runs `mode`, and in *why the reason, in words:
 *   1. the device the user named (clockevent=NAME, or `clockevent NAME`),
 *      if it can run the mode;
 *   2. in periodic and dyntick mode, the device dyntick= asked for;
 *   3. the best-rated device that can.
 * A mode switch goes through the same rule, so it comes back to the named
 * device (or the best one) after a mode that needed another. */
static struct clock_event_device *choose_device(enum tick_mode mode, const char **why)
{
	struct clock_event_device *d;
	if ((d = device_for(mode, clockevents_preferred())) != NULL) {
		*why = "the device chosen with clockevent";
		return d;
	}
	if (mode != TICK_MODE_TICKLESS && (d = device_for(mode, patch_device)) != NULL) {
		*why = "the device dyntick= asked for";
		return d;
	}
	*why = "the best-rated device that can run it";
	return clockevents_best(features_for(mode));
}

/* Stop the old device, start the new one, in `mode`.  Interrupts off. */
static void switch_to(struct tick_cpu *tc, struct clock_event_device *dev, enum tick_mode mode)
{
	timekeeping_update();
	uint64_t now = ktime_get_ns();
	if (tc->dev) {
		update_jiffies(tc, now);
		if (tc->dev != dev)
			clockevents_shutdown(tc->dev);
	}
	tc->dev = dev;
	tc->mode = mode;
	dev->event_handler = tick_handle_event;
	start_device(tc);
	tc->softirq_pending = true;
}

static bool mode_allowed(enum tick_mode mode, bool verbose)
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

/* Say in one line when a mode switch moves the tick to another device. */
static void announce_move(const struct tick_cpu *tc, const struct clock_event_device *dev,
                          enum tick_mode mode, const char *why)
{
	if (!tc->dev || tc->dev == dev)
		return;
	kprintf("tick: %s now on %s, not %s (%s)\n", mode_names[mode], dev->name,
	        tc->dev->name, why);
}

int tick_set_mode(enum tick_mode mode)
{
	struct tick_cpu *tc = this_tick();
	const char *why;
	if (!mode_allowed(mode, true))
		return -EINVAL;
	struct clock_event_device *dev = choose_device(mode, &why);
	if (!dev) {
		kprintf("error: no clock event device can run %s\n", mode_names[mode]);
		return -ENODEV;
	}
	announce_move(tc, dev, mode, why);
	unsigned long f = arch_irq_save();
	switch_to(tc, dev, mode);
	arch_irq_restore(f);
	return 0;
}

int tick_set_device(const char *name)
{
	struct tick_cpu *tc = this_tick();
	struct clock_event_device *dev = clockevents_find(name);
	if (!dev) {
		kprintf("error: no clock event device '%s'\n", name);
		return -ENOENT;
	}
	if (!device_for(tc->mode, name)) {
		kprintf("error: %s cannot run the %s tick (features)\n", name, mode_names[tc->mode]);
		return -EINVAL;
	}
	/* The user's choice sticks: later mode switches come back to it. */
	clockevents_set_preferred(dev->name);
	unsigned long f = arch_irq_save();
	switch_to(tc, dev, tc->mode);
	arch_irq_restore(f);
	return 0;
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
	return c->now + (uint32_t)((ns + c->new_period - 1) / c->new_period);
}

int tick_set_hz(unsigned hz)
{
	struct tick_cpu *tc = this_tick();
	if (!hz_is_valid(hz))
		return -EINVAL;
	unsigned long f = arch_irq_save();
	timekeeping_update();
	update_jiffies(tc, ktime_get_ns());
	struct remap_ctx c = { jiffies, tc->period_ns, period_for(hz) };
	timer_wheel_remap(jiffies, remap_expiry, &c);
	tick_hz = tc->hz = hz;
	tc->period_ns = c.new_period;
	/* jiffies keeps its value; its boundaries now come every new period,
	 * counted from the last old one, so it stays monotonic. */
	if (tc->dev)
		start_device(tc);
	tc->softirq_pending = true;
	arch_irq_restore(f);
	return 0;
}

/* ----------------------------------------------- boot */

static enum tick_mode boot_mode = TICK_MODE_TICKLESS;
static bool boot_mode_given;

void tick_boot_set_mode(enum tick_mode mode)
{
	boot_mode = mode;
	boot_mode_given = true;
}

void tick_clockevent_registered(struct clock_event_device *dev)
{
	(void)dev;              /* tick_init() chooses once every driver is in */
}

void tick_init(void)
{
	struct tick_cpu *tc = this_tick();
	enum tick_mode mode = boot_mode;
	const char *want = clockevents_preferred();
	const char *why;

	tc->hz = tick_hz;
	tc->period_ns = period_for(tick_hz);
	hrtimer_first_changed = hrtimer_changed;
	timer_wheel_init(jiffies);

	/* The 2005 patch's boot messages, in its words and in its order: the
	 * clocksource (i386 time_init's line), whether it can measure skipped
	 * ticks, then the dynamic tick's registration. */
	struct clocksource *cs = clocksource_current();
	bool suitable = tick_skipping_suitable();
	kprintf("Using %s for high-res timesource\n", cs ? cs->name : "(none)");
	if (suitable)
		kprintf("dyn-tick: Found suitable timer: %s\n", cs->name);
	else
		kprintf("dyn-tick: Cannot use timer %s\n", cs ? cs->name : "(none)");
	kprintf("dyn-tick: Registering dynamic tick timer v%s\n", TICK_DYNTICK_VERSION);

	if (!mode_allowed(mode, false)) {
		kprintf("tick: %s needs a continuous clocksource, %s is not; using periodic\n",
		        mode_names[mode], cs ? cs->name : "(none)");
		mode = TICK_MODE_PERIODIC;
	}
	if (want && !device_for(mode, want))
		kprintf("tick: clockevent=%s is not there or cannot run %s; choosing another\n",
		        want, mode_names[mode]);
	/* forceapic without a usable local APIC: the patch said so and stayed
	 * on the PIT. */
	if (patch_device && strcmp(patch_device, "lapic") == 0 && mode != TICK_MODE_TICKLESS &&
	    !device_for(mode, patch_device)) {
		kprintf("dyn-tick: Cannot use local APIC\n");
		patch_device = "pit";
	}
	struct clock_event_device *dev = choose_device(mode, &why);
	if (!dev && mode != TICK_MODE_PERIODIC) {
		kprintf(mode == TICK_MODE_DYNTICK ? "dyn-tick: Init failed\n"
		                                  : "tick: no device can run tickless; using periodic\n");
		mode = TICK_MODE_PERIODIC;
		dev = choose_device(mode, &why);
	}
	if (!dev)
		panic("tick_init: no clock event device at all");

	/* Start half a period into the first jiffy, so periodic interrupts
	 * land between boundaries rather than on them. */
	timekeeping_update();
	tc->last_jiffy_ns = ktime_get_ns() - tc->period_ns / 2;
	unsigned long f = arch_irq_save();
	switch_to(tc, dev, mode);
	arch_irq_restore(f);
	wakeups_reset(ktime_get_ns());

	/* The patch's last words: its skip limit and whether it is on.  Without
	 * a suitable clocksource it stopped at "No suitable timer found".
	 * Tickless is not the patch's mode: lull's own line below says it. */
	if (suitable) {
		kprintf("dyn-tick: Maximum ticks to skip limited to %llu\n",
		        (unsigned long long)tick_max_skip());
		if (mode == TICK_MODE_DYNTICK)
			kprintf("dyn-tick: Timer using dynamic tick\n");
		else if (mode == TICK_MODE_PERIODIC)
			kprintf("dyn-tick: Timer not enabled during boot\n");
	} else {
		kprintf("dyn-tick: No suitable timer found\n");
	}
	kprintf("tick: %s on %s (rating %d; %s) at HZ=%u%s\n", mode_names[mode], dev->name,
	        dev->rating, why, tc->hz, boot_mode_given ? "" : " (default)");
}

#ifdef LULL_HOST
void tick_reset_for_test(void)
{
	memset(&tick_cpu0, 0, sizeof(tick_cpu0));
	boot_mode = TICK_MODE_TICKLESS;
	boot_mode_given = false;
	patch_device = NULL;
}
#endif

/* ----------------------------------------------- boot options */

static int hz_option(const char *value)
{
	unsigned hz = 0;
	if (!value)
		return -EINVAL;
	for (const char *p = value; *p; p++) {
		if (*p < '0' || *p > '9' || hz > 100000)
			return -EINVAL;
		hz = hz * 10 + (unsigned)(*p - '0');
	}
	if (!hz_is_valid(hz))
		return -EINVAL;
	tick_hz = hz;
	jiffies_64 = INITIAL_JIFFIES(hz);
	return 0;
}
BOOT_OPTION("hz", hz_option, "tick rate: 100, 250 or 1000");

static int tick_option(const char *value)
{
	enum tick_mode mode;
	if (!value || tick_parse_mode(value, &mode) != 0)
		return -EINVAL;
	tick_boot_set_mode(mode);
	return 0;
}
BOOT_OPTION("tick", tick_option, "tick mode: periodic, dyntick or tickless");

/* The 2005 patch's own option, parsed as the patch parsed it: a value that
 * starts with "enable" turns the dynamic tick on at boot; "forceapic"
 * anywhere in it puts the patch's modes on the local APIC instead of the
 * PIT.  Anything else leaves the dynamic tick off: periodic, as the patch
 * booted ("disable" is the word its help text used).  The patch took a
 * value with none of these words silently; lull warns and ignores it. */
static int dyntick_option(const char *value)
{
	if (!value)
		return -EINVAL;
	bool enable = strncmp(value, "enable", 6) == 0;
	bool forceapic = strstr(value, "forceapic") != NULL;
	if (!enable && !forceapic && strncmp(value, "disable", 7) != 0)
		return -EINVAL;
	tick_boot_set_mode(enable ? TICK_MODE_DYNTICK : TICK_MODE_PERIODIC);
	patch_device = forceapic ? "lapic" : "pit";
	return 0;
}
BOOT_OPTION("dyntick", dyntick_option, "the 2005 patch's option: enable[,forceapic] or disable[,forceapic]");

static int clockevent_option(const char *value)
{
	if (!value)
		return -EINVAL;
	clockevents_set_preferred(value);
	return 0;
}
BOOT_OPTION("clockevent", clockevent_option, "tick device by name: pit, lapic, hpet, tsc-deadline");
