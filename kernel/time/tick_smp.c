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

bool tick_others_busy(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);     /* our own write first (tick_sched.c) */
	unsigned me = arch_this_cpu_id();
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		const struct tick_cpu *tc = time_tick_of(cpu);
		if (cpu != me && READ_ONCE(tc->dev) && !READ_ONCE(tc->idle))
			return true;
	}
	return false;
}

bool tick_others_stopped(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);     /* our own write first (tick_sched.c) */
	unsigned me = arch_this_cpu_id();
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++)
		if (cpu != me && READ_ONCE(time_tick_of(cpu)->stopped))
			return true;
	return false;
}

void tick_wake_stopped_others(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);     /* our own write first (tick_sched.c) */
	unsigned me = arch_this_cpu_id();
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++)
		if (cpu != me && READ_ONCE(time_tick_of(cpu)->stopped))
			arch_kick_cpu(cpu);
}

void tick_work_starts(void)
{
	struct tick_cpu *tc = this_tick();
	if (tc->dev && tc->mode == TICK_MODE_DYNTICK)
		tick_wake_stopped_others();
}
