/* drivers/platform/qemu_debug_exit.c — QEMU's isa-debug-exit device.
 *
 * Not real hardware: QEMU provides it when started with
 *   -device isa-debug-exit,iobase=0xf4,iosize=0x04
 * and exits at once when the guest writes a byte there, with host exit
 * status (byte << 1) | 1 (QEMU hw/misc/debugexit.c).  The tests use it to
 * end a run with a verdict; `poweroff` uses it as a fallback.  On a machine
 * without it the write goes nowhere and the caller carries on.
 */
#include "drivers/platform.h"
#include "arch/x86.h"

#define QEMU_DEBUG_EXIT_PORT 0xf4

void qemu_debug_exit(uint8_t code)
{
	outb(QEMU_DEBUG_EXIT_PORT, code);
}
