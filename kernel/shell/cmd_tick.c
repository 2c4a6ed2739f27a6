/* kernel/shell/cmd_tick.c — the tick's mode and rate: `tick` shows or
 * switches the mode (periodic, dyntick, tickless), `dyntick` prints the
 * 2005 dyntick patch's status lines and skip counters (on = dyntick, off =
 * periodic), and `hz` shows or changes the rate at runtime.  The switching
 * itself is kernel/time/tick_switch.c's (tick_set_mode, tick_set_hz); a
 * switch here ends with one line read back from the tick afterwards: what
 * it is now, and what it was (or that nothing changed). */
#include "shell/args.h"
#include "kprintf.h"
#include "kstring.h"
#include "shell/shell.h"
#include "time/percpu.h"
#include "time/jiffies.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/wakeups.h"
#include "arch/smp.h"
#include "shell/commands.h"

/* ---------------------------------------------------------- tick */

static const char *device_name(const struct clock_event_device *d)
{
	return d ? d->name : "(none)";
}

/* "tick: MODE on DEVICE, HZ=N" and what it was before the switch:
 *   (unchanged)                the same mode on the same device
 *   (was MODE)                 another mode, the same device
 *   (was MODE on DEVICE; NEW: WHY)  the tick moved, and the rule's reason
 * (tick_choose_device: the switch went where it points). */
static void tick_say_switched(enum tick_mode was_mode, const struct clock_event_device *was_dev)
{
	struct tick_cpu *tc = this_tick();
	kprintf("tick: %s on %s, HZ=%u ", tick_mode_name(tc->mode), device_name(tc->dev), tc->hz);
	if (tc->dev == was_dev) {
		if (tc->mode == was_mode)
			kprintf("(unchanged)\n");
		else
			kprintf("(was %s)\n", tick_mode_name(was_mode));
		return;
	}
	const char *why;
	kprintf("(was %s on %s", tick_mode_name(was_mode), device_name(was_dev));
	if (tick_choose_device(tc->mode, &why) == tc->dev)
		kprintf("; %s: %s", device_name(tc->dev), why);
	kprintf(")\n");
}

/* Switch to `mode`; on success, say so in one line. */
static int tick_switch_and_say(enum tick_mode mode)
{
	struct tick_cpu *tc = this_tick();
	enum tick_mode was_mode = tc->mode;
	const struct clock_event_device *was_dev = tc->dev;
	int rc = tick_set_mode(mode);          /* says why when it refuses */
	if (rc == 0)
		tick_say_switched(was_mode, was_dev);
	return rc;
}

int cmd_tick(int argc, char **argv)
{
	enum tick_mode mode;
	struct tick_cpu *tc = this_tick();
	if (argc == 1) {
		kprintf("tick: %s on %s, HZ=%u\n", tick_mode_name(tc->mode), device_name(tc->dev), tc->hz);
		return 0;
	}
	if (argc != 2 || tick_parse_mode(argv[1], &mode) != 0)
		return SHELL_USAGE;
	return tick_switch_and_say(mode);
}

/* ---------------------------------------------------------- dyntick */

static void skip_row(const char *mode, int cpu, const struct skip_counts *k)
{
	if (cpu < 0)
		kprintf("%-8s  all", mode);
	else
		kprintf("%-8s  %3d", mode, cpu);
	kprintf("  %6llu  %13llu  %9llu  %6llu ticks\n", (unsigned long long)k->skips,
	        (unsigned long long)k->ticks_skipped, (unsigned long long)k->catchups,
	        (unsigned long long)k->longest_skip);
}

/* Each skipping mode's counters (include/time/wakeups.h), summed over
 * every CPU, then each CPU's on several; since the last reset, which
 * `wakeups reset` and `dyntick reset` both make, of everything. */
static void print_skips(void)
{
	static struct wakeup_stats sum, each[NR_CPUS];
	static const char *const names[SKIP_MODES] = { [SKIP_DYNTICK] = "dyntick", [SKIP_TICKLESS] = "tickless" };
	wakeups_snapshot_each(ktime_get_ns(), &sum, each);
	char at[FMT_FIXED_SIZE];
	kprintf("skips since %s s of uptime (dyntick reset starts them and the wakeups again):\n",
	        fmt_fixed(at, sizeof(at), sum.since_ns / NSEC_PER_MSEC, 3));
	kprintf("mode      cpu   skips  ticks skipped  catch-ups  longest skip\n");
	for (unsigned m = 0; m < SKIP_MODES; m++) {
		skip_row(names[m], -1, &sum.by_mode[m]);
		for (unsigned cpu = 0; cpus_online > 1 && cpu < cpus_online; cpu++)
			skip_row(names[m], (int)cpu, &each[cpu].by_mode[m]);
	}
}

int cmd_dyntick(int argc, char **argv)
{
	struct tick_cpu *tc = this_tick();
	if (argc == 2 && strcmp(argv[1], "on") == 0)
		return tick_switch_and_say(TICK_MODE_DYNTICK);
	if (argc == 2 && strcmp(argv[1], "off") == 0)
		return tick_switch_and_say(TICK_MODE_PERIODIC);
	if (argc == 2 && strcmp(argv[1], "reset") == 0)
		return wakeups_reset_and_say();
	if (argc != 1)
		return SHELL_USAGE;
	/* The 2005 dyntick patch's sysfs file, line for line. */
	kprintf("suitable:\t%d\n", tick_skipping_suitable());
	kprintf("enabled:\t%d\n", tc->mode != TICK_MODE_PERIODIC);
	kprintf("using APIC:\t%d\n", strcmp(tc->dev->name, "lapic") == 0);
	kprintf("mode: %s, device: %s, max skip: %llu ticks at HZ=%u\n", tick_mode_name(tc->mode),
	        tc->dev->name, (unsigned long long)tick_max_skip(), tc->hz);
	print_skips();
	return 0;
}

/* ---------------------------------------------------------- hz */

/* "HZ=N (tick every P us)", read back from the tick, and after a change
 * what it was: "; was HZ=M" or "; unchanged". */
static void hz_say(unsigned was_hz, bool changing)
{
	struct tick_cpu *tc = this_tick();
	kprintf("HZ=%u (tick every %llu us", tc->hz, (unsigned long long)(tc->period_ns / NSEC_PER_USEC));
	if (!changing)
		kprintf(")\n");
	else if (tc->hz == was_hz)
		kprintf("; unchanged)\n");
	else
		kprintf("; was HZ=%u)\n", was_hz);
}

int cmd_hz(int argc, char **argv)
{
	uint32_t hz;
	unsigned was_hz = this_tick()->hz;
	if (argc == 1) {
		hz_say(was_hz, false);
		return 0;
	}
	/* Any number is read; only the rates of hz_is_valid are taken. */
	if (argc != 2 || parse_u32(argv[1], 0, UINT32_MAX, &hz) != 0 || !hz_is_valid(hz))
		return SHELL_USAGE;
	int rc = tick_set_hz(hz);
	if (rc == 0)
		hz_say(was_hz, true);
	return shell_error("hz", rc);
}
