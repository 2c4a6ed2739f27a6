/* kernel/arch/time.c — the machine services the portable time core asks for
 * (include/time/arch.h), on x86. */
#include "time/arch.h"
#include "arch/trap.h"
#include "arch/smp.h"
#include "arch/x86.h"

unsigned long arch_irq_save(void) { return irq_save(); }
void arch_irq_restore(unsigned long flags) { irq_restore((uint32_t)flags); }
void arch_irq_enable(void) { sti(); }
void arch_irq_disable(void) { cli(); }
uint64_t arch_cycles(void) { return cpu.has_cpuid && (cpu.feat_edx & CPUID_1_EDX_TSC) ? rdtsc() : 0; }
struct tick_cpu *arch_this_tick(void) { return &this_cpu()->tick; }
unsigned arch_this_cpu_id(void) { return this_cpu()->index; }
unsigned arch_nr_cpus(void) { return cpus_online; }
struct tick_cpu *arch_tick_of(unsigned cpu) { return &cpus[cpu].tick; }
struct timer_base *arch_timer_base(unsigned cpu) { return &cpus[cpu].timers; }
struct hrtimer_base *arch_hrtimer_base(unsigned cpu) { return &cpus[cpu].hrtimers; }
struct wakeup_cpu *arch_wakeups_of(unsigned cpu) { return &cpus[cpu].wakeups; }

/* The IPI that kicks another CPU is kernel/arch/smp.c's, handed over when
 * the CPUs start (smp_init): a hook, not a call, as smp.c sits above the
 * time core (it starts the APs' ticks).  With one CPU nobody is kicked. */
static void (*kick_fn)(unsigned cpu);
void arch_set_kick(void (*fn)(unsigned cpu)) { kick_fn = fn; }
void arch_kick_cpu(unsigned cpu)
{
	if (kick_fn)
		kick_fn(cpu);
}
bool arch_vector_is_kick(unsigned vector) { return vector == VEC_IPI_CALL; }
