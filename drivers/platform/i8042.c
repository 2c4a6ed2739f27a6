/* drivers/platform/i8042.c — the 8042 keyboard controller's CPU reset line.
 *
 * Spec: IBM PC/AT Technical Reference, keyboard controller commands: command
 * FEh "pulse output port bit 0" pulls the CPU's RESET line low.  This is how
 * PCs have rebooted since the AT.  (Key input is drivers/platform/ps2_keyboard.c.)
 */
#include "drivers/platform.h"
#include "arch/x86.h"

#define I8042_STATUS        0x64
#define I8042_COMMAND       0x64
#define I8042_STATUS_IBF    0x02    /* input buffer full: not ready for a command */
#define I8042_CMD_PULSE_RESET 0xFE
#define I8042_READY_SPINS   100000

void i8042_pulse_reset(void)
{
	for (unsigned i = 0; i < I8042_READY_SPINS && (inb(I8042_STATUS) & I8042_STATUS_IBF); i++)
		;
	outb(I8042_COMMAND, I8042_CMD_PULSE_RESET);
}
