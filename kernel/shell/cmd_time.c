/* kernel/shell/cmd_time.c — the shell's window onto the time subsystem:
 * uptime, clocksource, clockevent, timers, wheel, irqs, sleep, busy.  The
 * rest of time has files of its own: the tick's mode and rate (cmd_tick.c),
 * wakeups, idle and power (cmd_wakeups.c), latency (cmd_latency.c), trace
 * (cmd_trace.c), and the timer exercisers every and keytimer
 * (cmd_exercise.c).  Each handler parses strictly (include/shell/args.h)
 * and answers errors with "error:" or a usage line. */
#include "shell/args.h"
#include "console.h"
#include "idle.h"
#include "arch/irq.h"
#include "kprintf.h"
#include "kstring.h"
#include "arch/x86.h"
#include "spinlock.h"
#include "arch/smp.h"
#include "errno.h"
#include "shell/shell.h"
#include "time/percpu.h"
#include "time/clocksource.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"
#include "time/wakeups.h"
#include "shell/commands.h"

/* "12.345 ms": three decimals in the largest unit that is at least 1. */
static void print_duration_ns(uint64_t ns)
{
	char num[FMT_FIXED_SIZE];
	if (ns >= NSEC_PER_SEC)
		kprintf("%s s", fmt_fixed(num, sizeof(num), ns / NSEC_PER_MSEC, 3));
	else if (ns >= NSEC_PER_MSEC)
		kprintf("%s ms", fmt_fixed(num, sizeof(num), ns / NSEC_PER_USEC, 3));
	else
		kprintf("%s us", fmt_fixed(num, sizeof(num), ns, 3));
}

/* ---------------------------------------------------------- uptime */

int cmd_uptime(int argc, char **argv)
{
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	uint64_t ns = ktime_get_ns();
	char s[FMT_FIXED_SIZE];
	kprintf("up %s s, jiffies %u  HZ=%u\n", fmt_fixed(s, sizeof(s), ns, 9), jiffies, tick_hz);
	return 0;
}

/* ---------------------------------------------------------- clocksource */

int cmd_clocksource(int argc, char **argv)
{
	if (argc > 2)
		return SHELL_USAGE;
	if (argc == 2) {
		struct clocksource *cs = clocksource_lookup(argv[1]);     /* "pmtmr" too */
		if (!cs) {
			kprintf("error: no clocksource '%s' (see 'clocksource')\n", argv[1]);
			return -ENOENT;
		}
		if (!(cs->flags & CLOCK_SOURCE_CONTINUOUS)) {
			kprintf("error: %s only counts its own tick interrupts; it cannot be "
			        "switched to at runtime\n", cs->name);
			return -EINVAL;
		}
		struct clocksource *was = clocksource_current();
		if (clocksource_select_by_name(cs->name) != 0) {
			kprintf("error: clocksource '%s' is unusable (marked unstable)\n", cs->name);
			return -EINVAL;
		}
		/* Read back: the pick is the time core's (clocksource.c). */
		struct clocksource *now = clocksource_current();
		if (now == was)
			kprintf("clocksource: timekeeping on %s (unchanged)\n", now->name);
		else
			kprintf("clocksource: timekeeping on %s (was %s)\n", now->name, was->name);
		return 0;
	}
	struct clocksource *cur = clocksource_current();
	for (struct clocksource *cs = clocksource_first(); cs; cs = cs->next) {
		/* A snapshot with interrupts off: a timer (the TSC's refinement)
		 * may change the rate and its story while we print, and a line
		 * with the old rate above the new story was seen. */
		char about[CLOCKSOURCE_ABOUT_MAX];
		uint32_t f = irq_save();
		struct clocksource snap = *cs;
		ksnprintf(about, sizeof(about), "%s", cs->about ? cs->about : "");
		irq_restore(f);
		unsigned bits = 0;
		for (uint64_t m = snap.mask; m; m >>= 1)
			bits++;
		kprintf("%c %-8s rating %3d  ", cs == cur ? '*' : ' ', snap.name, snap.rating);
		char mhz[FMT_FIXED_SIZE];
		kprintf("%s MHz  %2u bits  %s%s\n", fmt_mhz(mhz, sizeof(mhz), snap.freq_hz), bits,
		        snap.flags & CLOCK_SOURCE_CONTINUOUS ? "continuous" : "tick-based",
		        snap.flags & CLOCK_SOURCE_UNSTABLE ? "  UNSTABLE" : "");
		if (about[0])
		        kprintf("             %s\n", about);
	}
	return 0;
}

/* ---------------------------------------------------------- clockevent */

int cmd_clockevent(int argc, char **argv)
{
	if (argc > 2)
		return SHELL_USAGE;
	struct clock_event_device *tickdev = this_tick()->dev;
	if (argc == 2) {
		int rc = tick_set_device(argv[1]);     /* says why when it refuses */
		struct clock_event_device *now = this_tick()->dev;
		if (rc == 0 && now == tickdev)
			kprintf("clockevent: tick on %s (unchanged)\n", now->name);
		else if (rc == 0)
			kprintf("clockevent: tick on %s (was %s)\n", now->name, tickdev->name);
		return rc;
	}
	for (struct clock_event_device *d = clockevents_first(); d; d = d->next) {
		kprintf("%c %-12s rating %3d  %-16s min ", d == tickdev ? '*' : ' ', d->name, d->rating,
		        (d->features & CLOCK_EVT_FEAT_PERIODIC) && (d->features & CLOCK_EVT_FEAT_ONESHOT)
		                ? "periodic,oneshot"
		                : (d->features & CLOCK_EVT_FEAT_PERIODIC) ? "periodic" : "oneshot");
		print_duration_ns(d->min_delta_ns);
		kprintf("  max ");
		print_duration_ns(d->max_delta_ns);
		kprintf("  events %llu, stale %llu\n", (unsigned long long)d->events,
		        (unsigned long long)d->stale_events);
	}
	return 0;
}

/* ---------------------------------------------------------- timers */

/* "class C" or "class P%" (time/slack.h). */
static void show_class(unsigned cls, unsigned pct)
{
	if (cls == TIMER_CLASS_PERCENT)
		kprintf("class %u%%", pct);
	else
		kprintf("class %s", timer_class_name((enum timer_class)cls));
}

static void show_timer(struct timer *t, void *ctx)
{
	UNUSED(ctx);
	int32_t ahead = (int32_t)(t->expires - jiffies);
	kprintf("  wheel    expires jiffy %u (%s%d ticks)  window +%u ticks  ", t->expires,
	        ahead >= 0 ? "in " : "", ahead, t->hard - t->expires);
	show_class(t->class, t->slack_pct);
	kprintf("  %s\n", timer_name(t));
}

static void show_hrtimer(struct hrtimer *t, void *ctx)
{
	uint64_t now = *(uint64_t *)ctx;
	kprintf("  hrtimer  expires in ");
	if (t->expires_ns >= now)
		print_duration_ns(t->expires_ns - now);
	else
		kprintf("(due)");
	kprintf("  window +");
	print_duration_ns(t->hard_ns - t->expires_ns);
	kprintf("  ");
	show_class(t->class, t->slack_pct);
	kprintf("  %s\n", hrtimer_name(t));
}

int cmd_timers(int argc, char **argv)
{
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	uint64_t now = ktime_get_ns();
	kprintf("wheel: %s\n", timer_wheel_name(timer_wheel_current()));
	/* Each CPU's own wheel and heap: a timer fires on the CPU it is on. */
	for (unsigned cpu = 0; cpu < cpus_online; cpu++) {
		if (cpus_online > 1)
			kprintf("cpu %u: ", cpu);
		kprintf("%u wheel timers, %u hrtimers pending (jiffies %u)\n", timer_count_on(cpu),
		        hrtimer_count_on(cpu), jiffies);
		timer_for_each_on(cpu, show_timer, NULL);
		hrtimer_for_each_on(cpu, show_hrtimer, &now);
	}
	return 0;
}

/* ---------------------------------------------------------- wheel */

/* Which timer wheel files the timers (kernel/time/timer.c, timer_level.c),
 * or switch to the other: every pending timer on every CPU moves over. */
int cmd_wheel(int argc, char **argv)
{
	enum timer_wheel_kind kind, was = timer_wheel_current();
	if (argc == 2 && timer_wheel_parse(argv[1], &kind) == 0) {
		timer_wheel_switch(kind);
	} else if (argc != 1) {
		return SHELL_USAGE;
	}
	unsigned pending = 0;
	for (unsigned cpu = 0; cpu < cpus_online; cpu++)
		pending += timer_count_on(cpu);
	kprintf("wheel: %s, %u timers pending", timer_wheel_name(timer_wheel_current()), pending);
	if (argc == 1)
		kprintf("\n");
	else if (timer_wheel_current() == was)
		kprintf(" (unchanged)\n");
	else
		kprintf(" (was %s)\n", timer_wheel_name(was));
	return 0;
}

/* ---------------------------------------------------------- irqs */

int cmd_irqs(int argc, char **argv)
{
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	irq_print_counts();
	return 0;
}

/* ---------------------------------------------------------- sleeping */

int cmd_sleep(int argc, char **argv)
{
	uint32_t ms;
	if (argc != 2 || parse_u32(argv[1], 0, SLEEP_MAX_MS, &ms) != 0)
		return SHELL_USAGE;
	return shell_sleep_error("sleep", sleep_ns((uint64_t)ms * NSEC_PER_MSEC));
}

/* ---------------------------------------------------------- busy */

/* On an AP (busy SECONDS CPU): spin there, in the background. */
static void busy_on_this_cpu(void *seconds)
{
	uint64_t end = ktime_get_ns() + (uint64_t)(uintptr_t)seconds * NSEC_PER_SEC;
	while (ktime_get_ns() < end)
		cpu_relax();
}

int cmd_busy(int argc, char **argv)
{
	uint32_t s, cpu = 0;
	if (argc < 2 || argc > 3 || parse_u32(argv[1], 1, BUSY_MAX_S, &s) != 0 ||
	    (argc == 3 && parse_u32(argv[2], 0, UINT32_MAX, &cpu) != 0))
		return SHELL_USAGE;
	if (cpu >= cpus_online) {
		kprintf("error: no CPU %u (%u online; see cpus)\n", cpu, cpus_online);
		return -EINVAL;
	}
	if (cpu != 0) {
		int rc = smp_call(cpu, busy_on_this_cpu, (void *)(uintptr_t)s);
		if (rc == -EBUSY)
			kprintf("error: CPU %u is busy already\n", cpu);
		else if (rc)
			kprintf("error: CPU %u did not take the IPI\n", cpu);
		else
			kprintf("busy: CPU %u spins for %u s in the background (see cpus)\n", cpu, s);
		return rc;
	}
	uint64_t end = ktime_get_ns() + (uint64_t)s * NSEC_PER_SEC;
	uint32_t j0 = jiffies;
	/* Spin with interrupts on: the tick keeps coming, and no idle entry
	 * happens, so nothing is skipped. */
	while (ktime_get_ns() < end && !console_interrupted())
		;
	kprintf("busy %u s: jiffies advanced %u (HZ=%u)\n", s, jiffies - j0, tick_hz);
	return console_interrupted() ? -EINTR : 0;
}
