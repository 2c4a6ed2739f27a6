/* kernel/time/percpu.c — the time core's per-CPU state (include/time/percpu.h). */
#include "time/percpu.h"

static struct time_cpu time_cpus[TIME_MAX_CPUS];

struct time_cpu *time_cpu(unsigned cpu)
{
	if (cpu >= TIME_MAX_CPUS)
		panic("time_cpu: CPU %u, but the time core keeps %u", cpu, TIME_MAX_CPUS);
	return &time_cpus[cpu];
}

struct tick_cpu *this_tick(void)
{
	return time_tick_of(arch_this_cpu_id());
}
