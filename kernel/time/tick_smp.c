/* kernel/time/tick_smp.c — the tick and the other CPUs (docs/smp.md).
 *
 * The boot CPU keeps jiffies and runs every timer; the other CPUs' ticks
 * only have to be there or not, by the mode's rule:
 *   periodic  every CPU ticks HZ times a second;
 *   dyntick   the 2005 patch's rule: no tick is skipped while any CPU is
 *             busy; once all are idle every CPU skips;
 *   tickless  each idle CPU stops its own tick, whatever the others do.
 * What the boot CPU's tick needs from the others comes through hooks that
 * kernel/arch/smp.c registers (tick_set_smp_hooks), so this core calls
 * nothing above it.
 */
#include "kstring.h"
#include "time/clockevent.h"
#include "time/tick.h"
#include "tick_internal.h"

const struct tick_smp_hooks *tick_smp;

void tick_set_smp_hooks(const struct tick_smp_hooks *hooks)
{
	tick_smp = hooks;
}

void tick_changed(void)
{
	if (tick_smp && tick_smp->changed)
		tick_smp->changed();
}

/* ------------------------------------------------------------ an AP's tick */

static void tick_secondary_event(struct clock_event_device *dev)
{
	UNUSED(dev);                    /* counted by the device and the CPU */
}

void tick_secondary_start(struct clock_event_device *dev, enum tick_mode mode, unsigned hz)
{
	struct tick_cpu *tc = this_tick();
	unsigned long f = arch_irq_save();
	if (tc->dev)
		clockevents_shutdown(tc->dev);
	memset(tc, 0, sizeof(*tc));
	tc->secondary = true;
	tc->dev = dev;
	tc->mode = mode;
	tc->hz = hz;
	tc->period_ns = NSEC_PER_SEC / hz;
	dev->event_handler = tick_secondary_event;
	if (mode == TICK_MODE_TICKLESS || clockevents_set_periodic(dev, hz) != 0) {
		clockevents_shutdown(dev);
		tc->stopped = true;
	}
	arch_irq_restore(f);
}

void tick_secondary_dyntick(bool others_idle)
{
	struct tick_cpu *tc = this_tick();
	if (!tc->secondary || tc->mode != TICK_MODE_DYNTICK)
		return;
	if (others_idle && !tc->stopped) {
		clockevents_shutdown(tc->dev);
		tc->stopped = true;
		tc->skips++;
	} else if (!others_idle && tc->stopped) {
		tc->stopped = clockevents_set_periodic(tc->dev, tc->hz) != 0;
	}
}
