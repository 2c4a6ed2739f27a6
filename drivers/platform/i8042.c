/* drivers/platform/i8042.c — the 8042 keyboard controller's CPU reset line.
 *
 * Spec: IBM PC/AT Technical Reference, keyboard controller commands: command
 * FEh "pulse output port bit 0" pulls the CPU's RESET line low.  This is how
 * PCs have rebooted since the AT.  (Key input is drivers/platform/ps2_keyboard.c.)
 * Command D2h "write keyboard output buffer" puts the next byte written to
 * the data port in the output buffer as if the keyboard had sent it, and
 * raises IRQ1: `inject irq-storm` makes its interrupts that way.
 */
#include "drivers/platform.h"
#include "arch/x86.h"

#define I8042_STATUS        0x64
#define I8042_COMMAND       0x64
#define I8042_STATUS_IBF    0x02    /* input buffer full: not ready for a command */
#define I8042_CMD_PULSE_RESET 0xFE
#define I8042_CMD_WRITE_KBD_OUT 0xD2  /* next data byte: as if from the keyboard */
#define I8042_DATA          0x60
#define I8042_READY_SPINS   100000

/* Wait until the controller takes a byte; false if it never does. */
static bool i8042_ready(void)
{
	for (unsigned i = 0; i < I8042_READY_SPINS; i++)
		if (!(inb(I8042_STATUS) & I8042_STATUS_IBF))
			return true;
	return false;
}

void i8042_pulse_reset(void)
{
	(void)i8042_ready();
	outb(I8042_COMMAND, I8042_CMD_PULSE_RESET);
}

bool i8042_fake_key_byte(uint8_t byte)
{
	if (!i8042_ready())
		return false;
	outb(I8042_COMMAND, I8042_CMD_WRITE_KBD_OUT);
	if (!i8042_ready())
		return false;
	outb(I8042_DATA, byte);
	return true;
}
