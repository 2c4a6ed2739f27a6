/* kernel/time/tick_smp.c — the tick and the other CPUs (docs/smp.md).
 *
 * Every CPU runs the same tick (tick.c, tick_sched.c) on its own device,
 * with its own timers; the boot CPU's mode and rate are everyone's: an AP
 * follows them with tick_secondary_start() (tick.c) when the `changed` hook that
 * kernel/smp_boot.c registers (tick_set_smp_hooks) tells it to, so this
 * core calls nothing above it.  The modes on several CPUs:
 *   periodic  every CPU ticks HZ times a second;
 *   dyntick   the 2005 patch's rule: no tick is skipped while any CPU is
 *             busy (tick_others_busy); once all are idle every CPU skips
 *             to the next event of any CPU; the first to wake catches
 *             jiffies up and wakes the others, whose ticks run again
 *             (tick_wake_stopped_others);
 *   tickless  each idle CPU stops its own tick, whatever the others do.
 */
#include "kstring.h"
#include "time/percpu.h"
#include "time/clockevent.h"
#include "time/tick.h"
#include "time/arch.h"
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

/* ------------------------------------------------------------ dyntick's rule */

static bool tick_busy(const struct tick_cpu *tc)
{
	return READ_ONCE(tc->dev) && !READ_ONCE(tc->idle);
}

static bool tick_stopped(const struct tick_cpu *tc)
{
	return READ_ONCE(tc->stopped);
}

/* Whether any other CPU matches; with kick, wake each one that does. */
static bool others(bool (*match)(const struct tick_cpu *tc), bool kick)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);     /* our own write first (tick_sched.c) */
	unsigned me = arch_this_cpu_id();
	bool any = false;
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		if (cpu == me || !match(time_tick_of(cpu)))
			continue;
		if (!kick)
			return true;
		any = true;
		arch_kick_cpu(cpu);
	}
	return any;
}

bool tick_others_busy(void)
{
	return others(tick_busy, false);
}

bool tick_others_stopped(void)
{
	return others(tick_stopped, false);
}

void tick_wake_stopped_others(void)
{
	others(tick_stopped, true);
}

void tick_work_starts(void)
{
	struct tick_cpu *tc = this_tick();
	if (tc->dev && tc->mode == TICK_MODE_DYNTICK)
		tick_wake_stopped_others();
}
