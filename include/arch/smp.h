/* include/arch/smp.h — the CPUs (kernel/arch/smp.c).
 *
 * Each CPU has one struct cpu, everything that belongs to it alone.  A CPU
 * finds its own through FS: kernel/arch/gdt.c gives every CPU a data
 * segment whose base is its struct, and struct cpu starts with a pointer
 * to itself, so this_cpu() is one load from %fs:0.
 */
#ifndef LULL_ARCH_SMP_H
#define LULL_ARCH_SMP_H

#include "compiler.h"

#define NR_CPUS         8           /* -smp 1..8; more in the MADT are not started */
#define CPU_STACK_SIZE  16384       /* an AP's stack (the boot CPU has boot/entry.asm's) */
#define CPU_VECTORS     256         /* interrupt vectors on x86 (SDM Vol. 3A, 6.2) */

enum cpu_state {
	CPU_OFFLINE,                    /* in the MADT, not started (or would not start) */
	CPU_IDLE,                       /* halted, waiting for an interrupt */
	CPU_BUSY,                       /* running something */
};

struct cpu {
	struct cpu *self;               /* first: this_cpu() reads %fs:0 */
	unsigned index;                 /* 0 is the boot CPU */
	unsigned apic_id;
	volatile enum cpu_state state;
	/* A function another CPU asked it to run (smp_call), NULL if none. */
	void (*volatile call_fn)(void *arg);
	void *call_arg;
	uint64_t irqs[CPU_VECTORS];     /* interrupts it took, per vector (`irqs`) */
	uint32_t *stack_guard;          /* the guard at the bottom of the stack it runs on (trap.h) */
	uint32_t stack_top;             /* ... and that stack's top (a task's, once tasks run) */
	/* Its last halt by the TSC (0: not known): read right before `sti;
	 * hlt` (kernel/idle.c) and at the entry of the first interrupt that
	 * ended it (irq_dispatch); arch_halt_cycles() hands it to the time
	 * core's `halted` share. */
	uint64_t halt_begin, halt_end;
	/* Did the trap running now (the latest to arrive) come from ring 3?
	 * Set by trap_dispatch; the tick reads it to bill user or system. */
	bool trap_from_user;
	uint8_t stack[CPU_STACK_SIZE] __attribute__((aligned(16)));
};

extern struct cpu cpus[NR_CPUS];
extern unsigned cpus_online;        /* the boot CPU and every AP that started */

/* Ask CPU `index` (an AP) to run fn(arg), with interrupts on, and return at
 * once: an inter-processor interrupt wakes it, it runs fn and halts again;
 * its state is busy meanwhile.  0, -EINVAL (no such AP), -EBUSY (it is
 * running one already), or -ETIME (its APIC did not take the IPI). */
int smp_call(unsigned index, void (*fn)(void *arg), void *arg);

/* On CPU c itself: the call published for it, if any (true: *fn and *arg
 * are it), and, when it has run, the slot freed for the next. */
bool smp_call_take(struct cpu *c, void (**fn)(void *arg), void **arg);
void smp_call_done(struct cpu *c);

/* Wake CPU `index` (not this one) with an IPI: its halt ends and its idle
 * loop looks at its timers again (arch_kick_cpu).  Nothing for a CPU that
 * is not online. */
void smp_kick(unsigned index);

/* How inter-processor interrupts are sent: the local APIC driver's
 * function, handed over by kernel/smp_boot.c (the CPU's floor is below
 * the drivers').  Then smp_send_call_ipi sends VEC_IPI_CALL to CPU
 * `index`: 0, or -EINVAL (no such CPU, or no sender yet). */
void smp_set_ipi(int (*send)(unsigned apic_id, unsigned vector));
int smp_send_call_ipi(unsigned index);

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ __volatile__("mov %%fs:0, %0" : "=r"(c));
	return c;
}

#endif
