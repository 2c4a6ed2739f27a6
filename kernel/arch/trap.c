/* kernel/arch/trap.c — where every interrupt and exception arrives in C.
 *
 * boot/vectors.asm saves the registers and calls trap_dispatch() with
 * interrupts off.  Vectors 0..31 are CPU exceptions: lull has no user mode
 * and no way to recover, so each one prints a report and halts
 * (kernel/panic.c).  Everything else is a device interrupt (kernel/arch/irq.c).
 */
#include "arch/irq.h"
#include "arch/trap.h"

void trap_dispatch(struct trapframe *tf)
{
	if (tf->vector < VEC_EXCEPTIONS)
		exception_report(tf);
	irq_dispatch(tf);
}
