/* include/arch/irqflags.h — the CPU's interrupt flag, as functions.
 *
 * Below everything that shares data with an interrupt handler: spinlocks
 * (include/spinlock.h), the portable time core, the shell.  Functions,
 * not inline assembly, so that the host unit tests can give each thread
 * standing for a CPU its own simulated flag (tests/unit/host_arch.c); the
 * kernel's are kernel/arch/irqflags.c, one instruction each.
 */
#ifndef LULL_ARCH_IRQFLAGS_H
#define LULL_ARCH_IRQFLAGS_H

/* Disable interrupts and return a token that restores exactly the previous
 * state (EFLAGS.IF).  A structure an interrupt handler also touches is
 * changed between the two. */
unsigned long arch_irq_save(void);
void arch_irq_restore(unsigned long flags);

/* Turn interrupts on / off unconditionally: the tick code runs expired
 * timers with interrupts on, from inside an interrupt handler's exit path. */
void arch_irq_enable(void);
void arch_irq_disable(void);

#endif
