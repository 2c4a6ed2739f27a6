/* kernel/arch/irqflags.c — include/arch/irqflags.h on x86: EFLAGS.IF through
 * PUSHF/POPF, CLI and STI (SDM Vol. 2, and Vol. 3A 6.8.1 on masking
 * maskable interrupts). */
#include "arch/irqflags.h"
#include "arch/x86.h"

unsigned long arch_irq_save(void) { return irq_save(); }
void arch_irq_restore(unsigned long flags) { irq_restore((uint32_t)flags); }
void arch_irq_enable(void) { sti(); }
void arch_irq_disable(void) { cli(); }
