/* kernel/shell/cmd_tick.c — the tick's mode and rate: `tick` shows or
 * switches the mode (periodic, dyntick, tickless), `dyntick` prints the
 * 2005 dyntick patch's status lines and skip counters (on = dyntick, off =
 * periodic), and `hz` shows or changes the rate at runtime.  The switching
 * itself is kernel/time/tick.c's (tick_set_mode, tick_set_hz). */
#include "shell/args.h"
#include "kprintf.h"
#include "kstring.h"
#include "shell/shell.h"
#include "time/percpu.h"
#include "time/jiffies.h"
#include "time/tick.h"
#include "shell/commands.h"

/* ---------------------------------------------------------- tick */

int cmd_tick(int argc, char **argv)
{
	enum tick_mode mode;
	struct tick_cpu *tc = this_tick();
	if (argc == 1) {
		kprintf("tick: %s on %s, HZ=%u\n", tick_mode_name(tc->mode), tc->dev->name, tc->hz);
		return 0;
	}
	if (argc != 2 || tick_parse_mode(argv[1], &mode) != 0)
		return SHELL_USAGE;
	return tick_set_mode(mode);
}

/* ---------------------------------------------------------- dyntick */

int cmd_dyntick(int argc, char **argv)
{
	struct tick_cpu *tc = this_tick();
	if (argc == 2 && strcmp(argv[1], "on") == 0)
		return tick_set_mode(TICK_MODE_DYNTICK);
	if (argc == 2 && strcmp(argv[1], "off") == 0)
		return tick_set_mode(TICK_MODE_PERIODIC);
	if (argc != 1)
		return SHELL_USAGE;
	/* The 2005 dyntick patch's sysfs file, line for line. */
	kprintf("suitable:\t%d\n", tick_skipping_suitable());
	kprintf("enabled:\t%d\n", tc->mode != TICK_MODE_PERIODIC);
	kprintf("using APIC:\t%d\n", strcmp(tc->dev->name, "lapic") == 0);
	kprintf("mode: %s, device: %s, max skip: %llu ticks at HZ=%u\n", tick_mode_name(tc->mode),
	        tc->dev->name, (unsigned long long)tick_max_skip(), tc->hz);
	kprintf("skips: %llu, ticks skipped: %llu, catch-ups: %llu, longest skip: %llu ticks\n",
	        (unsigned long long)tc->skips, (unsigned long long)tc->ticks_skipped,
	        (unsigned long long)tc->catchups, (unsigned long long)tc->longest_skip);
	return 0;
}

/* ---------------------------------------------------------- hz */

int cmd_hz(int argc, char **argv)
{
	uint32_t hz;
	if (argc == 1) {
		kprintf("HZ=%u (tick every %u us)\n", tick_hz, 1000000u / tick_hz);
		return 0;
	}
	if (argc != 2 || parse_u32(argv[1], 1, 100000, &hz) != 0 || !hz_is_valid(hz))
		return SHELL_USAGE;
	return tick_set_hz(hz);
}
