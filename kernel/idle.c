/* kernel/idle.c — the one idle path (include/idle.h).
 *
 * Everything lull does to save wakeups happens in the two tick calls around
 * the halt: tick_idle_enter() decides how long the CPU may sleep and programs
 * the timer for it; the interrupt that ends the sleep catches time up
 * (tick_irq_enter in kernel/arch/irq.c); tick_idle_exit() accounts for it.
 */
#include "idle.h"
#include "arch/smp.h"
#include "arch/trap.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "arch/x86.h"

/* `inject idle-race` waits this long past the old deadline, so the device
 * has surely fired (its counter and the clocksource are different clocks). */
#define IDLE_RACE_MARGIN_NS     (20 * NSEC_PER_USEC)

/* `inject late-wakeup`: which CPU, how late, and what happened. */
static struct {
	volatile int cpu;               /* -1: none armed */
	uint64_t late_ns;
	int stage;                      /* 0 armed, 1 late sleep done (then disarmed
	                                   when the next skip is recorded) */
	struct idle_late_report r;
} late = { .cpu = -1 };

void idle_inject_late(unsigned cpu, uint64_t late_ns)
{
	uint32_t f = irq_save();
	late.late_ns = late_ns;
	late.stage = 0;
	late.r = (struct idle_late_report){ 0 };
	late.cpu = late_ns ? (int)cpu : -1;     /* 0 disarms */
	irq_restore(f);
}

void idle_late_report(struct idle_late_report *out)
{
	uint32_t f = irq_save();
	*out = late.r;
	irq_restore(f);
}

/* Interrupts off, the sleep just programmed: play the descheduled vCPU for
 * the armed CPU's first sleep, and note the length of the sleep after. */
static void idle_late_hook(struct cpu *c)
{
	if (late.cpu != (int)c->index)
		return;
	bool skipping;
	uint64_t wake = tick_idle_wake_ns(&skipping);
	if (late.stage == 0) {
		late.r.deadline_ns = wake;
		while (ktime_get_ns() < wake + late.late_ns)
			;               /* away: the device fires, nobody answers */
		late.r.woke_ns = ktime_get_ns();
		late.stage = 1;
	} else if (skipping) {
		late.r.next_wake_ns = wake;
		late.r.done = true;
		late.cpu = -1;
	} else {
		late.r.ticks_between++;  /* a tick-long sleep first (dyntick's rule) */
	}
}

/* `inject idle-race`: which CPU, and what its next idle entry saw. */
static struct {
	volatile int cpu;               /* -1: none armed */
	struct idle_race_report r;
} race = { .cpu = -1 };

void idle_inject_race(unsigned cpu)
{
	uint32_t f = irq_save();
	race.r = (struct idle_race_report){ 0 };
	race.cpu = (int)cpu;
	irq_restore(f);
}

void idle_race_report(struct idle_race_report *out)
{
	uint32_t f = irq_save();
	*out = race.r;
	race.cpu = -1;                  /* disarm, if it never came */
	irq_restore(f);
}

/* Interrupts off, before the sleep is programmed: for the armed CPU, let
 * the device's current deadline pass first, as if tick_idle_enter had been
 * slow, so its interrupt is pending when the sleep replaces it. */
static bool idle_race_hook(struct cpu *c)
{
	if (race.cpu != (int)c->index)
		return false;
	bool skipping;
	uint64_t due = tick_idle_wake_ns(&skipping);
	while (ktime_get_ns() <= due + IDLE_RACE_MARGIN_NS)
		;               /* the device fires; nobody answers yet */
	return true;
}

/* Halt until an interrupt, with interrupts enabled by the halt itself.
 *
 * QUIRK: QEMU 7.2's TCG under `-icount sleep=off` counts a slice's
 * instructions into its virtual clock only after the slice ends, while the
 * `hlt` that ends it has already marked the CPU halted.  If QEMU's main
 * loop looks in that window (it can even on one host CPU, when the host
 * preempts the vCPU thread there: seen once in CI with a Linux build
 * beside the tests), it finds every CPU idle, reads the clock without
 * those instructions and warps it to the next deadline plus them: this
 * wakeup comes late by every instruction since the last clock read (1250,
 * 20 us, in that run; docs/robustness.md, "QEMU's icount race").  An RDTSC
 * is such a clock read (QEMU counts the slice up to it), so reading it
 * right before `sti; hlt` leaves two instructions, 32 ns, for the race to
 * add.  On hardware it costs a few dozen cycles per idle entry, and a CPU
 * without a TSC just halts. */
static inline void halt_until_interrupt(void)
{
	if (cpu.has_cpuid && (cpu.feat_edx & CPUID_1_EDX_TSC))
		__asm__ __volatile__("rdtsc; sti; hlt" ::: "eax", "edx", "memory");
	else
		sti_hlt();
}

void cpu_idle(void)
{
	struct cpu *c = this_cpu();
	bool raced = idle_race_hook(c);
	stack_guard_check();    /* the whole guard, off any waiter's path */
	tick_idle_enter();      /* interrupts are off: nothing can slip in */
	/* ... but something may be waiting already.  Programming the sleep
	 * replaced the device's old deadline, and if that deadline passed
	 * while tick_idle_enter ran, its interrupt is pending anyway (a local
	 * APIC keeps the IRR bit, the PIC its edge): halting now would wake at
	 * once, judge the event stale (clockevents_handle_event) and count a
	 * wakeup of ~0 ms.  So let anything pending in first; if something
	 * came, it restarted the tick: do not halt, go round again.  Seen
	 * under -icount as one stray "irq 0xf0 (lapic-timer)" wakeup when the
	 * command before `idle` ended a few hundred instructions before a
	 * jiffy. */
	irq_window();
	bool given_up = tick_idle_abandon();
	if (raced) {
		race.r.given_up = given_up;
		race.r.done = true;
		race.cpu = -1;
	}
	if (given_up) {
		sti();
		return;
	}
	idle_late_hook(c);
	c->state = CPU_IDLE;
	halt_until_interrupt(); /* sleep until an interrupt (handled inside) */
	cli();
	c->state = CPU_BUSY;
	tick_idle_exit();
	sti();
}
