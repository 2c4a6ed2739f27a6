/* kernel/power.c — reboot and power off, trying the proper way first and
 * falling back to cruder ones, so neither command can leave the machine in
 * an odd half-state.
 *
 * reboot:   the FADT's reset register (ACPI 6.5, 4.8.3.6), then the 8042 reset line (drivers/platform/i8042.c), then a deliberate triple
 *           fault (an empty IDT and an interrupt: the CPU can't deliver it,
 *           can't deliver the #DF either, and resets).
 * poweroff: ACPI S5 (drivers/platform/acpi.c, when there is ACPI), then QEMU's
 *           isa-debug-exit, then a message and halt.
 */
#include "power.h"
#include "drivers/acpi.h"
#include "drivers/platform.h"
#include "kprintf.h"
#include "panic.h"
#include "arch/x86.h"

/* Give the 8042 this long to pull RESET before trying something else. */
#define RESET_WAIT_SPINS 10000000

/* Each attempt is announced before it is made, so the last line in the
 * serial log names the one that reset the machine: from outside they look
 * alike (under QEMU's -no-reboot every reset, a triple fault too, is an
 * exit with status 0). */
__noreturn void machine_reboot(void)
{
	kprintf("reboot: resetting (ACPI reset register, else the 8042, else a triple fault)\n");
	cli();
	acpi_reset();                           /* announces itself; returns only if it failed */
	kprintf("reboot: 8042 pulse (the keyboard controller's reset line)\n");
	i8042_pulse_reset();
	for (volatile unsigned i = 0; i < RESET_WAIT_SPINS; i++)
		;
	kprintf("reboot: triple fault (the 8042 did not reset the machine)\n");
	static const struct __packed { uint16_t limit; uint32_t base; } no_idt = { 0, 0 };
	__asm__ __volatile__("lidt %0; int3" :: "m"(no_idt));
	halt_forever();
}

__noreturn void machine_poweroff(void)
{
	kprintf("poweroff: bye\n");
	cli();
	acpi_poweroff();                        /* returns only if S5 failed */
	qemu_debug_exit(QEMU_EXIT_POWEROFF);
	kprintf("poweroff: no ACPI S5 and no isa-debug-exit device; halting instead\n");
	halt_forever();
}
