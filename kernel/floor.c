/* kernel/floor.c — the boot option `floor`: the cheapest a guest can be.
 *
 * Every timer device is stopped (not merely masked), every interrupt line is
 * masked at the PIC, interrupts are disabled, and the CPU halts for good.
 * Nothing can wake it.  `make bench` boots this to measure what QEMU itself
 * costs the host for a guest that never wakes — the floor under every other
 * row of the benchmark table.
 */
#include "cmdline.h"
#include "drivers/platform.h"
#include "errno.h"
#include "floor.h"
#include "kprintf.h"
#include "panic.h"
#include "drivers/timer/hpet.h"
#include "drivers/timer/lapic.h"
#include "drivers/timer/pit.h"

static bool floor_requested;

BOOT_FLAG("floor", floor_requested, "stop every timer, mask every IRQ, halt for good (benchmark floor)");

void floor_if_requested(void)
{
	if (!floor_requested)
		return;
	pit_stop();             /* channel 0 one last terminal count, then silent */
	hpet_stop();            /* main counter halted, comparators off */
	lapic_timer_stop();     /* masked, initial count 0 */
	pic_mask_all();         /* no line can interrupt */
	kprintf("floor: all timers stopped, halting\n");
	halt_forever();         /* cli; hlt — for good */
}
