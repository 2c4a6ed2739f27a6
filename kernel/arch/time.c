/* kernel/arch/time.c — the machine services the portable time core asks for
 * (include/time/arch.h), on x86. */
#include "time/arch.h"
#include "arch/smp.h"
#include "arch/x86.h"

unsigned long arch_irq_save(void) { return irq_save(); }
void arch_irq_restore(unsigned long flags) { irq_restore((uint32_t)flags); }
void arch_irq_enable(void) { sti(); }
void arch_irq_disable(void) { cli(); }
struct tick_cpu *arch_this_tick(void) { return &this_cpu()->tick; }
unsigned arch_this_cpu_id(void) { return this_cpu()->index; }
