/* kernel/idle.c — the one idle path (include/idle.h).
 *
 * Everything lull does to save wakeups happens in the two tick calls around
 * the halt: tick_idle_enter() decides how long the CPU may sleep and programs
 * the timer for it; the interrupt that ends the sleep catches time up
 * (tick_irq_enter in kernel/arch/irq.c); tick_idle_exit() accounts for it.
 */
#include "idle.h"
#include "arch/smp.h"
#include "time/tick.h"

void cpu_idle(void)
{
	struct cpu *c = this_cpu();
	tick_idle_enter();      /* interrupts are off: nothing can slip in */
	c->state = CPU_IDLE;
	sti_hlt();              /* sleep until an interrupt (handled inside) */
	cli();
	c->state = CPU_BUSY;
	tick_idle_exit();
	sti();
}
