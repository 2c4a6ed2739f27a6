/* kernel/time/tick_switch.c — which clock event device runs the tick, and
 * moving the tick to another device, mode or CPU.
 *
 * tick_choose_device() holds the rule for the device; tick_switch() stops
 * the old one and starts the new one on this CPU; tick_set_mode() and
 * tick_set_device() are the shell's way in, tick_set_hz() changes the
 * rate, tick_start() starts the tick the first time, and an AP starts its
 * own tick in the boot CPU's mode and rate with tick_secondary_start().
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
	int ret = tick_start_device(tc);
	if (ret != 0 && old) {
		if (old != dev)
			clockevents_shutdown(dev);
		WRITE_ONCE(tc->dev, old);
		WRITE_ONCE(tc->mode, old_mode);
		tick_start_device(tc);
	}
	/* Nothing is forced to run now: a timer already due keeps the tick
	 * running at the next idle entry (tick_sched.c), and the tick runs
	 * it.  (Forcing the run cost every switch one extra wakeup: the idle
	 * entry kept the tick for it though nothing was due.) */
	return ret;
}

/* The boot CPU's tick changes, interrupts off: switch; if that worked,
 * the other CPUs follow, and if the device refused, one line says so. */
int tick_switch_to(struct tick_cpu *tc, struct clock_event_device *dev, enum tick_mode mode)
{
	unsigned long f = arch_irq_save();
	int ret = tick_switch(tc, dev, mode);
	if (ret == 0)
		tick_changed();
	arch_irq_restore(f);
	if (ret != 0)
		kprintf("error: %s refused the %s tick (%s, %s): the tick stays %s on %s\n",
		        dev->name, tick_mode_name(mode), errno_name(ret), errno_text(ret),
		        tick_mode_name(tc->mode), tc->dev ? tc->dev->name : "(none)");
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
			        "%s does not\n", tick_mode_name(mode), cs ? cs->name : "(none)");
		return false;
	}
	return true;
}

int tick_set_mode(enum tick_mode mode)
{
	struct tick_cpu *tc = this_tick();
	const char *why;
	if (!tick_mode_allowed(mode, true))
		return -EINVAL;
	struct clock_event_device *dev = tick_choose_device(mode, &why);
	if (!dev) {
		kprintf("error: no clock event device can run %s\n", tick_mode_name(mode));
		return -ENODEV;
	}
	return tick_switch_to(tc, dev, mode);
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
		kprintf("error: %s cannot run the %s tick (features)\n", name, tick_mode_name(tc->mode));
		return -EINVAL;
	}
	const char *driver = clocksource_driver();
	if (driver && strcmp(driver, dev->name) != 0) {
		kprintf("error: the clocksource %s counts %s's interrupts: the tick stays on %s\n",
		        clocksource_current()->name, driver, driver);
		return -EINVAL;
	}
	int ret = tick_switch_to(tc, dev, tc->mode);
	/* The user's choice sticks: later mode switches come back to it. */
	if (ret == 0)
		clockevents_set_preferred(dev->name);
	return ret;
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


/* ------------------------------------------------------------ HZ */

int tick_set_hz(unsigned hz)
{
	struct tick_cpu *tc = this_tick();
	if (!hz_is_valid(hz))
		return -EINVAL;
	unsigned long f = arch_irq_save();
	tick_jiffies_change_rate(tc, timekeeping_update(), hz);
	if (tc->dev)
		tick_start_device(tc);
	tick_changed();                 /* the other CPUs' ticks follow */
	arch_irq_restore(f);
	return 0;
}

/* ----------------------------------------------- the first start */

void tick_start(struct clock_event_device *dev, enum tick_mode mode)
{
	struct tick_cpu *tc = this_tick();
	WRITE_ONCE(tc->hz, tick_hz);
	tc->period_ns = tick_period_for(tick_hz);
	tick_install_timer_hooks();
	timer_wheel_init(jiffies);          /* every CPU's wheel and heap */
	hrtimer_bases_init();

	/* Start half a period into the first jiffy, so periodic interrupts
	 * land between boundaries rather than on them. */
	tc->last_jiffy_ns = timekeeping_update() - tc->period_ns / 2;
	tick_jiffies_start(tc->last_jiffy_ns, tc->period_ns);
	unsigned long f = arch_irq_save();
	tick_switch_to(tc, dev, mode);
	arch_irq_restore(f);
	wakeups_reset(ktime_get_ns());
}
