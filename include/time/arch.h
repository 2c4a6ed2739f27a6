/* include/time/arch.h — the only things the portable time core needs from
 * the machine.  The kernel implements them in kernel/arch/time.c; the host
 * unit tests implement them in tests/unit/host_arch.c.  Nothing else in
 * kernel/time/ may touch hardware: the core sees devices only through their
 * ops structs, which is what lets the host tests compile it unchanged. */
#ifndef LULL_TIME_ARCH_H
#define LULL_TIME_ARCH_H

#include "../compiler.h"
/* Interrupts off around every change to a structure an interrupt handler
 * shares (arch_irq_save and the rest), and spinlocks between CPUs. */
#include "../arch/irqflags.h"

/* A free-running cycle counter for measuring short stretches of code
 * (the TSC on x86; 0 where the CPU has none).  include/time/path.h. */
uint64_t arch_cycles(void);

/* How long this CPU's last halt lasted in arch_cycles() (from just before
 * the halt to the entry of the interrupt that ended it), then forgotten;
 * 0 if not known (no cycle counter, or it did not halt).  The wakeup
 * accounting's `halted` share (kernel/time/wakeups.c). */
uint64_t arch_halt_cycles(void);

/* This CPU's index: 0 is the boot CPU (the kernel's struct cpu index; in
 * the host tests, what the thread set in host_cpu_id). */
unsigned arch_this_cpu_id(void);

/* The CPUs the time core may use: 0 .. arch_nr_cpus() - 1, all online. */
unsigned arch_nr_cpus(void);

/* Make CPU `cpu` (not this one) take an interrupt soon, so an idle CPU
 * wakes and looks at its timers again (the kernel: an IPI). */
void arch_kick_cpu(unsigned cpu);
/* Is `vector` the one arch_kick_cpu's interrupt arrives on? */
bool arch_vector_is_kick(unsigned vector);

/* Print through the kernel console (the host tests print or swallow). */
int kprintf(const char *fmt, ...) __printf(1, 2);

/* A broken invariant: print and stop. */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

#endif
