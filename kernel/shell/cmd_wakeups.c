/* kernel/shell/cmd_wakeups.c — why the CPUs woke, and what it costs:
 * `wakeups` (per cause since the last reset, like powertop), `idle` (idle a
 * while, then the wakeups, sleep lengths and halted share of all CPUs and
 * of each) and `power` (such a window turned into watts by a model of the
 * 2005 article's laptop, include/power_model.h).  The counting is
 * kernel/time/wakeups.c's; these commands read its snapshots. */
#include "shell/args.h"
#include "arch/irq.h"
#include "kprintf.h"
#include "arch/smp.h"
#include "kstring.h"
#include "shell/shell.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/wakeups.h"
#include "power_model.h"
#include "shell/commands.h"

#define WAKEUPS_ALL_CPUS  (~0u)          /* `wakeups` without a CPU */

static void print_ms_1(uint64_t ns)     /* "3333.3" */
{
	char num[FMT_FIXED_SIZE];
	kprintf("%s", fmt_fixed(num, sizeof(num), ns / (NSEC_PER_MSEC / 10), 1));
}

/* ---------------------------------------------------------- wakeups */

static void print_rate(uint64_t count, uint64_t ns)    /* "2.75" per second */
{
	char num[FMT_FIXED_SIZE];
	kprintf("%s", fmt_fixed(num, sizeof(num), wakeups_rate_centi(count, ns), 2));
}

/* "N (R/s), halted P%" for `count` wakeups and `halted_ns` halted over
 * `cpus` CPUs in span_ns. */
static void print_count_rate_halted(uint64_t count, uint64_t halted_ns, uint64_t span_ns,
                                    unsigned cpus)
{
	kprintf("%llu (", (unsigned long long)count);
	print_rate(count, span_ns);
	kprintf("/s), halted %llu%%", (unsigned long long)(span_ns ? halted_ns * 100 / span_ns / cpus : 0));
}

/* "irq 0x24 (uart)", "timer: every", "tick" */
static void print_cause(const struct wakeup_cause *c)
{
	kprintf("%s", wakeup_kind_name(c->kind));
	if (c->kind == WAKE_IRQ) {
		const char *n = irq_vector_name(c->vector);
		kprintf(" 0x%02x (%s)", c->vector, n ? n : "?");
	} else if (c->name) {
		kprintf(": %s", c->name);
	}
}

/* wakeups reset: every CPU counts afresh.  One line: the count read back
 * after the reset (0, unless a wakeup came meanwhile) and since when, and
 * what it was before. */
int wakeups_reset_and_say(void)
{
	static struct wakeup_stats before, after, each[NR_CPUS];
	uint64_t now = ktime_get_ns();
	wakeups_snapshot_each(now, &before, each);
	wakeups_reset(now);
	wakeups_snapshot_each(ktime_get_ns(), &after, each);
	char at[FMT_FIXED_SIZE], span[FMT_FIXED_SIZE];
	kprintf("wakeups: %llu since the reset at %s s of uptime (was %llu in %s s)\n",
	        (unsigned long long)after.wakeups, fmt_fixed(at, sizeof(at), after.since_ns / NSEC_PER_MSEC, 3),
	        (unsigned long long)before.wakeups,
	        fmt_fixed(span, sizeof(span), (now - before.since_ns) / NSEC_PER_MSEC, 3));
	return 0;
}

/* wakeups [reset | CPU]: every CPU's causes summed, then each CPU's count
 * (on several CPUs); or one CPU's causes. */
int cmd_wakeups(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "reset") == 0)
		return wakeups_reset_and_say();
	uint32_t one = WAKEUPS_ALL_CPUS;
	if (argc > 2 || (argc == 2 && parse_u32(argv[1], 0, NR_CPUS - 1, &one) != 0))
		return SHELL_USAGE;
	if (one != WAKEUPS_ALL_CPUS && one >= cpus_online) {
		kprintf("error: no CPU %u (%u online; see cpus)\n", one, cpus_online);
		return -EINVAL;
	}
	unsigned ncpus = one == WAKEUPS_ALL_CPUS ? cpus_online : 1;
	static struct wakeup_stats s, each[NR_CPUS];
	uint64_t now = ktime_get_ns();
	if (one == WAKEUPS_ALL_CPUS)
		wakeups_snapshot_each(now, &s, each);   /* the sum is exactly theirs */
	else
		wakeups_snapshot(one, now, &s);
	uint64_t span = now - s.since_ns;
	char secs[FMT_FIXED_SIZE];
	kprintf("wakeups in the last %s s: ", fmt_fixed(secs, sizeof(secs), span / NSEC_PER_MSEC, 3));
	print_count_rate_halted(s.wakeups, s.halted_ns, span, ncpus);
	if (one != WAKEUPS_ALL_CPUS)
		kprintf(" (CPU %u)", one);
	else if (ncpus > 1)
		kprintf(" (%u CPUs)", ncpus);
	kprintf("\n   count   rate/s  cause\n");
	for (unsigned i = 0; i < s.ncauses; i++) {
		struct wakeup_cause *c = &s.causes[i];
		kprintf("%8llu  ", (unsigned long long)c->count);
		print_rate(c->count, span);
		kprintf("\t");
		print_cause(c);
		kprintf("\n");
	}
	if (s.other)
		kprintf("%8llu  (causes that did not fit the table)\n", (unsigned long long)s.other);
	kprintf("skips by limit: timer %llu, hrtimer %llu, device max %llu, clocksource wrap %llu, "
	        "watchdog %llu; given up before the halt %llu\n",
	        (unsigned long long)s.skips_by_limit[TICK_LIMIT_TIMER],
	        (unsigned long long)s.skips_by_limit[TICK_LIMIT_HRTIMER],
	        (unsigned long long)s.skips_by_limit[TICK_LIMIT_DEVICE],
	        (unsigned long long)s.skips_by_limit[TICK_LIMIT_WRAP],
	        (unsigned long long)s.skips_by_limit[TICK_LIMIT_WATCHDOG],
	        (unsigned long long)s.abandoned);
	for (unsigned cpu = 0; ncpus > 1 && cpu < cpus_online; cpu++) {
		const struct wakeup_stats *per = &each[cpu];
		kprintf("cpu %u: ", cpu);
		print_count_rate_halted(per->wakeups, per->halted_ns, now - per->since_ns, 1);
		if (per->ncauses) {
			kprintf(", most often ");
			print_cause(&per->causes[0]);
		}
		kprintf("\n");
	}
	return 0;
}

/* ---------------------------------------------------------- idle */

/* Each CPU's wakeups, idle and halted time (include/time/wakeups.h) and
 * longest sleep in the window, and whether it is asleep (a sleep not yet
 * ended, counted so far). */
struct idle_mark { uint64_t wakeups, idle_ns, halted_ns, max_sleep_ns; unsigned asleep; };

static void idle_mark(struct idle_mark *m, uint64_t now)
{
	static struct wakeup_stats s;
	for (unsigned cpu = 0; cpu < cpus_online; cpu++) {
		wakeups_snapshot(cpu, now, &s);
		m[cpu] = (struct idle_mark){ s.wakeups, s.idle_ns, s.halted_ns, s.window_max_sleep_ns, s.asleep };
	}
}

/* What happened between two marks: the wakeups and times summed over
 * CPUs, the longest sleep and the CPUs asleep at the second. */
static void idle_delta(struct idle_mark *d, const struct idle_mark *a, const struct idle_mark *b)
{
	d->wakeups += b->wakeups - a->wakeups;
	d->idle_ns += b->idle_ns - a->idle_ns;
	d->halted_ns += b->halted_ns - a->halted_ns;
	d->max_sleep_ns = MAX(d->max_sleep_ns, b->max_sleep_ns);
	d->asleep += b->asleep;
}

/* "W wakeups (R/s), mean sleep M ms, max sleep X ms, halted H%".  The
 * sleeps are the W that ended and the `asleep` still going on; a sleep
 * is idle entry to idle exit, halted only the halts (wakeups.h). */
static void print_idle(const struct idle_mark *d, uint64_t span, unsigned cpus)
{
	char num[FMT_FIXED_SIZE];
	uint64_t sleeps = d->wakeups + d->asleep;
	kprintf("%llu wakeups (", (unsigned long long)d->wakeups);
	print_rate(d->wakeups, span);
	kprintf("/s), mean sleep ");
	print_ms_1(sleeps ? d->idle_ns / sleeps : 0);
	kprintf(" ms, max sleep ");
	print_ms_1(d->max_sleep_ns);
	uint64_t halted = span ? d->halted_ns * 10000 / span / cpus : 0;      /* basis points */
	kprintf(" ms, halted %s%%\n", fmt_fixed(num, sizeof(num), halted, 2));
}

/* idle SECONDS: the shell sleeps; then every CPU's wakeups over that
 * window, summed (one line), and each CPU's (on several CPUs). */
int cmd_idle(int argc, char **argv)
{
	uint32_t secs;
	if (argc != 2 || parse_u32(argv[1], 1, IDLE_MAX_S, &secs) != 0)
		return SHELL_USAGE;
	static struct idle_mark before[NR_CPUS], after[NR_CPUS];
	uint64_t t0 = ktime_get_ns();
	wakeups_window_start(t0);
	idle_mark(before, t0);

	int rc = wait_ns((uint64_t)secs * NSEC_PER_SEC);
	if (rc < 0 && rc != -EINTR)         /* Ctrl-C: the window so far */
		return shell_sleep_error("idle", rc);

	uint64_t t1 = ktime_get_ns(), span = t1 - t0;
	idle_mark(after, t1);
	struct idle_mark all = { 0 };
	for (unsigned cpu = 0; cpu < cpus_online; cpu++)
		idle_delta(&all, &before[cpu], &after[cpu]);
	char num[FMT_FIXED_SIZE];
	kprintf("idle %s s: ", fmt_fixed(num, sizeof(num), span / NSEC_PER_MSEC, 3));
	print_idle(&all, span, cpus_online);
	for (unsigned cpu = 0; cpus_online > 1 && cpu < cpus_online; cpu++) {
		struct idle_mark one = { 0 };
		idle_delta(&one, &before[cpu], &after[cpu]);
		kprintf("cpu %u: ", cpu);
		print_idle(&one, span, 1);
	}
	return rc;
}

/* ---------------------------------------------------------- power */

/* power [SECONDS]: idle like `idle`, then the 2005 laptop's estimated idle
 * power at that wakeup rate and halted share (include/power_model.h). */
int cmd_power(int argc, char **argv)
{
	uint32_t secs = POWER_DEFAULT_S;
	if (argc > 2 || (argc == 2 && parse_u32(argv[1], 1, IDLE_MAX_S, &secs) != 0))
		return SHELL_USAGE;
	static struct idle_mark before[NR_CPUS], after[NR_CPUS];
	uint64_t t0 = ktime_get_ns();
	idle_mark(before, t0);
	int rc = wait_ns((uint64_t)secs * NSEC_PER_SEC);
	if (rc < 0)
		return shell_sleep_error("power", rc);
	uint64_t t1 = ktime_get_ns(), span = t1 - t0;
	idle_mark(after, t1);
	struct idle_mark all = { 0 };
	for (unsigned cpu = 0; cpu < cpus_online; cpu++)
		idle_delta(&all, &before[cpu], &after[cpu]);
	uint64_t w = all.wakeups, halted = all.halted_ns;
	/* Per CPU: the laptop had one.  Wakeups a second in thousandths,
	 * the busy share in basis points. */
	uint64_t w_milli = w * NSEC_PER_SEC * 1000 / span / cpus_online;
	uint64_t halted_bp = MIN(halted * 10000 / span / cpus_online, 10000);
	char a[FMT_FIXED_SIZE], b[FMT_FIXED_SIZE], c[FMT_FIXED_SIZE];
	kprintf("power: a model of the laptop in LWN's \"How fast should HZ be?\" (2005), not a measurement\n");
	kprintf("power: calibrated on its idle power: %s W at HZ=%u, ", fmt_fixed(a, sizeof(a), POWER_AT_HZ100_UW / 10000, 2),
	        POWER_HZ_LOW);
	kprintf("%s W at HZ=%u; a busy CPU assumed to add %s W\n", fmt_fixed(a, sizeof(a), POWER_AT_HZ1000_UW / 10000, 2),
	        POWER_HZ_HIGH, fmt_fixed(b, sizeof(b), POWER_BUSY_UW / 10000, 2));
	kprintf("power: measured over %s s: %s wakeups/s per CPU, halted %s%%\n",
	        fmt_fixed(a, sizeof(a), span / NSEC_PER_MSEC, 3), fmt_fixed(b, sizeof(b), w_milli / 10, 2),
	        fmt_fixed(c, sizeof(c), halted_bp, 2));
	int64_t uw = power_estimate_uw(w_milli, (uint32_t)(10000 - halted_bp));
	if (uw < 0)
		return shell_error("power: no estimate", (int)uw);
	/* The two parts, so a student sees which one moved.  (Under QEMU a
	 * tick's own handling shows as busy time, far longer than on the
	 * 2005 laptop, whose measured points already paid for it.) */
	int64_t from_wakeups = power_estimate_uw(w_milli, 0);
	kprintf("power: estimate %s W (%s W from the wakeups, ", fmt_fixed(a, sizeof(a), (uint64_t)uw / 1000, 3),
	        fmt_fixed(b, sizeof(b), (uint64_t)from_wakeups / 1000, 3));
	kprintf("%s W from the busy share)\n", fmt_fixed(c, sizeof(c), (uint64_t)(uw - from_wakeups) / 1000, 3));
	return 0;
}
