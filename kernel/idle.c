/* kernel/idle.c — the one idle path (include/idle.h).
 *
 * Everything lull does to save wakeups happens in the two tick calls around
 * the halt: tick_idle_enter() decides how long the CPU may sleep and programs
 * the timer for it; the interrupt that ends the sleep catches time up
 * (tick_irq_enter in kernel/arch/irq.c); tick_idle_exit() accounts for it.
 * Faults in the sleep (`inject late-wakeup`, `idle-race`) come through the
 * tick device's ops (kernel/time/inject_idle.c), not through this path.
 */
#include "idle.h"
#include "arch/smp.h"
#include "arch/trap.h"
#include "time/tick.h"
#include "arch/x86.h"

/* Halt until an interrupt, with interrupts enabled by the halt itself.
 *
 * QUIRK: QEMU 7.2's TCG under `-icount sleep=off` counts a slice's
 * instructions into its virtual clock only after the slice ends, while the
 * `hlt` that ends it has already marked the CPU halted.  If QEMU's main
 * loop looks in that window (it can even on one host CPU, when the host
 * preempts the vCPU thread there, as it did in CI with a Linux build
 * beside the tests), it finds every CPU idle, reads the clock without
 * those instructions and warps it to the next deadline plus them: this
 * wakeup comes late by every instruction since the last clock read
 * (docs/robustness.md, "QEMU's icount race").  An RDTSC is such a clock
 * read (QEMU counts the slice up to it), so reading it right before
 * `sti; hlt` leaves two instructions, 32 ns at shift=4, for the race to
 * add.  On hardware it costs a few dozen cycles per idle entry, and a CPU
 * without a TSC just halts. */
static inline void halt_until_interrupt(struct cpu *c)
{
	c->halt_end = 0;
	if (cpu_has_tsc()) {
		uint64_t t;
		__asm__ __volatile__("rdtsc; sti; hlt" : "=A"(t) :: "memory");
		c->halt_begin = t;      /* (stored after the handlers ran: read only at idle exit) */
	} else {
		c->halt_begin = 0;
		sti_hlt();
	}
}

void cpu_idle(void)
{
	struct cpu *c = this_cpu();
	stack_guard_check();    /* the whole guard, off any waiter's path */
	tick_idle_enter();      /* interrupts are off: nothing can slip in */
	/* ... but something may be waiting already.  Programming the sleep
	 * replaced the device's old deadline, and if that deadline passed
	 * while tick_idle_enter ran, its interrupt is pending anyway (a local
	 * APIC keeps the IRR bit, the PIC its edge): halting now would wake at
	 * once, judge the event stale (clockevents_handle_event) and count a
	 * wakeup of ~0 ms.  So let anything pending in first; if something
	 * came, it restarted the tick: do not halt, go round again.  Seen
	 * under -icount as a stray "irq 0xf0 (lapic-timer)" wakeup when the
	 * command before `idle` ended just before a jiffy. */
	irq_window();
	if (tick_idle_abandon()) {
		sti();
		return;
	}
	c->state = CPU_IDLE;
	halt_until_interrupt(c);        /* sleep until an interrupt (handled inside) */
	cli();
	c->state = CPU_BUSY;
	tick_idle_exit();
	sti();
}
