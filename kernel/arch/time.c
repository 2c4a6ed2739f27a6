/* kernel/arch/time.c — the machine services the portable time core asks for
 * (include/time/arch.h), on x86. */
#include "time/arch.h"
#include "arch/trap.h"
#include "arch/smp.h"
#include "arch/x86.h"
#include "time/percpu.h"

_Static_assert(NR_CPUS <= TIME_MAX_CPUS, "the time core keeps state for every CPU");

uint64_t arch_cycles(void) { return tsc_or_zero(); }
unsigned arch_this_cpu_id(void) { return this_cpu()->index; }

uint64_t arch_halt_cycles(void)
{
	struct cpu *c = this_cpu();
	uint64_t n = c->halt_begin && c->halt_end > c->halt_begin ? c->halt_end - c->halt_begin : 0;
	c->halt_begin = c->halt_end = 0;
	return n;
}
unsigned arch_nr_cpus(void) { return cpus_online; }

/* The IPI that kicks another CPU: smp_kick (kernel/arch/smp.c), which
 * sends nothing while there is one CPU. */
void arch_kick_cpu(unsigned cpu) { smp_kick(cpu); }
bool arch_vector_is_kick(unsigned vector) { return vector == VEC_IPI_CALL; }
