/* kernel/panic.c — when something is wrong: panic() prints why and halts
 * the CPU for good, never a silent reboot.  (A CPU exception's report is
 * the CPU's business: kernel/arch/trap.c.)
 */
#include "panic.h"
#include "kprintf.h"
#include "arch/x86.h"

__noreturn void halt_forever(void)
{
	for (;;) {
		cli();
		hlt();
	}
}

__noreturn void panic(const char *fmt, ...)
{
	cli();
	kprintf("\npanic: ");
	va_list ap;
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
	kprintf("\nsystem halted.\n");
	halt_forever();
}
