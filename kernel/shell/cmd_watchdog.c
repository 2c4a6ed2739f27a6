/* kernel/shell/cmd_watchdog.c — `watchdog [check]`: what the clocksource
 * watchdog (kernel/time/watchdog.c) sees: the reference counter it checks
 * the others against, how often it has checked, and each other counter's
 * last and worst skew; `check` runs one check first.  `inject tsc-step`,
 * `tsc-skew` and `clocksource-stall` (cmd_inject.c) give it something to
 * catch (docs/robustness.md). */
#include "kprintf.h"
#include "kstring.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "time/clocksource.h"
#include "time/timekeeping.h"
#include "time/watchdog.h"

int cmd_watchdog(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "check") == 0)
		watchdog_check();
	else if (argc != 1)
		return SHELL_USAGE;
	struct watchdog_status st;
	watchdog_get_status(&st);
	if (!st.ref) {
		kprintf("watchdog: off (no reference counter)\n");
		return 0;
	}
	if (st.bound_ns == UINT64_MAX)
		kprintf("watchdog: against %s, on interrupts that come anyway (no wakeups of its own)\n",
		        st.ref->name);
	else
		kprintf("watchdog: against %s, on interrupts that come anyway, at least every %llu ms\n",
		        st.ref->name, (unsigned long long)(st.bound_ns / NSEC_PER_MSEC));
	kprintf("checks %llu, skipped for slow reads %llu, alarms %llu\n",
	        (unsigned long long)st.checks, (unsigned long long)st.slow_reads,
	        (unsigned long long)st.alarms);
	for (struct clocksource *cs = clocksource_first(); cs; cs = cs->next) {
		if (cs == st.ref)
			continue;
		kprintf("  %-8s ", cs->name);
		if (READ_ONCE(cs->flags) & CLOCK_SOURCE_UNSTABLE)
			kprintf("unstable\n");
		else if (!cs->wd_valid)
			kprintf("not watched%s\n", cs->driven_by ? " (counts ticks)" : " yet");
		else
			kprintf("last %+lld ns in %llu ms (%+d ppm), worst %llu ns\n",
			        (long long)cs->wd_skew_ns,
			        (unsigned long long)(cs->wd_interval_ns / NSEC_PER_MSEC), (int)cs->wd_ppm,
			        (unsigned long long)cs->wd_worst_ns);
	}
	return 0;
}
