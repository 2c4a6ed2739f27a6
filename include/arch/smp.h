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
#include "time/clockevent.h"
#include "time/hrtimer.h"
#include "time/tick.h"
#include "time/timer.h"
#include "time/wakeups.h"

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
	struct tick_cpu tick;           /* its tick */
	struct timer_base timers;       /* its timer wheel: timers that fire here */
	struct hrtimer_base hrtimers;   /* its hrtimer heap */
	struct wakeup_cpu wakeups;      /* why it woke (`wakeups`, `idle`, `cpus`) */
	unsigned tick_generation;       /* of the boot CPU's tick it follows (smp.c) */
	/* Its local APIC timer: the device that drove the timer interrupt
	 * last (drivers/timer/lapic.c), and an AP's own tick device. */
	struct clock_event_device *lapic_timer_owner;
	struct clock_event_device lapic_timer;
	uint32_t *stack_guard;          /* the guard at its stack's bottom (trap.h) */
	uint8_t stack[CPU_STACK_SIZE] __attribute__((aligned(16)));
};

extern struct cpu cpus[NR_CPUS];
extern unsigned cpus_online;        /* the boot CPU and every AP that started */

/* Ask CPU `index` (an AP) to run fn(arg), with interrupts on, and return at
 * once: an inter-processor interrupt wakes it, it runs fn and halts again;
 * its state is busy meanwhile.  0, -EINVAL (no such AP), -EBUSY (it is
 * running one already), or -ETIME (its APIC did not take the IPI). */
int smp_call(unsigned index, void (*fn)(void *arg), void *arg);

/* The boot CPU's tick changed (the tick's smp hooks): wake every AP so it
 * restarts its own to match. */
void smp_tick_changed(void);

/* Wake CPU `index` (not this one) with an IPI: its halt ends and its idle
 * loop looks at its timers again (arch_kick_cpu).  Nothing for a CPU that
 * is not online. */
void smp_kick(unsigned index);

/* kernel/arch/time.c: how arch_kick_cpu() sends its IPI (smp_init hands
 * smp_kick over). */
void arch_set_kick(void (*fn)(unsigned cpu));

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ __volatile__("mov %%fs:0, %0" : "=r"(c));
	return c;
}

/* The boot CPU's struct and segment: right after gdt_init, before anything
 * calls this_cpu(). */
void smp_boot_cpu_init(void);

/* Start every other CPU the ACPI MADT lists (INIT, start-up IPI, start-up
 * IPI) and wait for each; print one line saying how many run, or why only
 * one.  Needs the local APIC (lapic_init) and PIT channel 2 to time the
 * waits.  The APs halt with interrupts on; they have no tick yet. */
void smp_init(void);

#endif
