/* kernel/shell/cmd_inject.c — `inject`: make the timer hardware lie on
 * purpose, then check that lull recovered (docs/robustness.md).
 *
 * Every injection runs between witnesses (kernel/shell/inject_witness.c):
 * timers armed on every CPU before the fault (witness_arm), and afterwards
 * one "recovered:" line, or an `error:` line per broken promise
 * (witness_report).  Most faults are made by the injection seam
 * (kernel/time/inject.c, inject_idle.c: docs/architecture.md) and only
 * asked for here; lost-tick and spurious-tick are made here.  A fault that bends a
 * counter also waits for the clocksource watchdog to notice
 * (await_watchdog).  The test that runs the command (under icount)
 * measures uptime against the CMOS clock around it.
 */
#include "arch/irq.h"
#include "arch/smp.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include "drivers/platform.h"
#include "drivers/timer/acpi_pm.h"
#include "drivers/timer/hpet.h"
#include "errno.h"
#include "kprintf.h"
#include "kstring.h"
#include "shell/args.h"
#include "shell/commands.h"
#include "shell/inject_witness.h"
#include "shell/shell.h"
#include "time/percpu.h"
#include "time/clocksource.h"
#include "time/inject.h"
#include "time/jiffies.h"
#include "time/wakeups.h"
#include "time/timekeeping.h"
#include "time/watchdog.h"

#define WATCHDOG_WAIT_CHECKS 3          /* tsc-step/-skew, stall: checks waited for */
#define INJECT_HPET_PAST_TICKS 1000u    /* hpet-past: 10 us behind at 100 MHz */

/* ---------------------------------------------------------- the faults */

/* hpet-past: the next comparator write lands behind the counter. */
static int inject_hpet_past(void)
{
	struct clock_event_device *dev = this_tick()->dev;
	if (!dev || strcmp(dev->name, "hpet") != 0 || this_tick()->mode == TICK_MODE_PERIODIC) {
		kprintf("error: needs the tick on the hpet in one-shot (clockevent hpet; "
		        "tick tickless or dyntick)\n");
		return -EINVAL;
	}
	uint64_t retries = dev->retries;
	if (inject_clockevent_next_ticks(dev, (1ULL << HPET_T0_CMP_WIDTH_BITS) - INJECT_HPET_PAST_TICKS)) {
		kprintf("error: an HPET write is overridden already\n");
		return -EBUSY;
	}
	kprintf("inject: the next HPET comparator write goes %u ticks behind the counter\n",
	        INJECT_HPET_PAST_TICKS);
	if (witness_arm(20, 20 + WITNESS_MARGIN_MS))
		return -ENOSPC;
	int rc = witness_report();
	if (dev->retries == retries) {
		kprintf("error: the write in the past was not caught (no -ETIME retry)\n");
		return -EIO;
	}
	kprintf("hpet: the write in the past was caught: -ETIME, and %llu retr%s\n",
	        (unsigned long long)(dev->retries - retries), dev->retries - retries == 1 ? "y" : "ies");
	return rc;
}

/* lost-tick N: interrupts off for N tick periods. */
static int inject_lost_tick(int64_t arg)
{
	uint32_t n = (uint32_t)arg;      /* from 1 to its max in faults[] */
	uint64_t period = NSEC_PER_SEC / tick_hz, span = n * period;
	if (witness_arm((uint32_t)(span / NSEC_PER_MSEC / 2),
	                (uint32_t)(span / NSEC_PER_MSEC) + WITNESS_MARGIN_MS))
		return -ENOSPC;
	uint32_t f = irq_save();
	uint64_t until = ktime_get_ns() + span;
	while (ktime_get_ns() < until)
		;
	irq_restore(f);
	kprintf("inject: interrupts off on CPU %u for %u ticks (%llu ms): whatever the timer "
	        "raised meanwhile waited as one pending interrupt\n", this_cpu()->index, n,
	        (unsigned long long)(span / NSEC_PER_MSEC));
	return witness_report();
}

/* spurious-tick N: the tick device's vector, raised N times by software. */
static int inject_spurious_tick(int64_t arg)
{
	uint32_t n = (uint32_t)arg;      /* from 1 to its max in faults[] */
	struct clock_event_device *dev = this_tick()->dev;
	if (!dev) {
		kprintf("error: no tick device\n");
		return -ENODEV;
	}
	unsigned vector = dev->irq >= 0 ? VEC_IRQ_BASE + (unsigned)dev->irq : VEC_LAPIC_TIMER;
	if (witness_arm(50, 50 + WITNESS_MARGIN_MS))
		return -ENOSPC;
	uint64_t events = dev->events, stale = dev->stale_events;
	uint64_t t0 = ktime_get_ns();
	for (uint32_t i = 0; i < n; i++)
		irq_raise_soft(vector);
	uint64_t span_us = (ktime_get_ns() - t0) / NSEC_PER_USEC;
	/* The device's own interrupts in that span count among the handled:
	 * the span says how many there could have been. */
	kprintf("inject: %u extra interrupts on vector 0x%02x (%s): %llu judged stale, %llu "
	        "handled as ticks, in %llu us\n", n, vector, dev->name,
	        (unsigned long long)(dev->stale_events - stale),
	        (unsigned long long)(dev->events - events), (unsigned long long)span_us);
	return witness_report();
}

/* pm-glitch: the PM timer's checked raw read comes back with its top bit
 * flipped, half a wrap away (2.3 s on a 24-bit timer): the size of error
 * a torn read on a PIIX4 makes. */
static int inject_pm_glitch(void)
{
	struct clocksource *cs = clocksource_lookup("acpi_pm");
	uint64_t bad64, good64;
	unsigned raw_reads;
	if (!cs || inject_clocksource_glitch(cs, ACPI_PM_CHECKED_READ, (cs->mask >> 1) + 1,
	                                     &bad64, &good64, &raw_reads) != 0) {
		kprintf("error: no ACPI PM timer\n");
		return -ENODEV;
	}
	uint32_t bad = (uint32_t)bad64, good = (uint32_t)good64;
	unsigned retries = raw_reads / ACPI_PM_READS_PER_TRY - 1;
	if (bad == good || retries == 0) {
		kprintf("error: the glitched read 0x%x was accepted\n", bad);
		return -EIO;
	}
	kprintf("inject: a PM-timer read returned 0x%06x; the triple read rejected it and read "
	        "again (%u retr%s): 0x%06x\n", bad, retries, retries == 1 ? "y" : "ies", good);
	if (witness_arm(10, 10 + WITNESS_MARGIN_MS))
		return -ENOSPC;
	return witness_report();
}

static bool cs_unstable(const struct clocksource *cs)
{
	return READ_ONCE(cs->flags) & CLOCK_SOURCE_UNSTABLE;
}

/* After a fault the watchdog must catch: how many checks it took. */
static struct clocksource *watched;
static bool watched_caught(void) { return cs_unstable(watched); }
static int await_watchdog(struct clocksource *cs, uint64_t checks0)
{
	watched = cs;
	inject_pause_ms(WATCHDOG_WAIT_CHECKS * MSEC_PER_SEC + WITNESS_MARGIN_MS, watched_caught);
	struct watchdog_status st;
	watchdog_get_status(&st);
	if (!cs_unstable(cs)) {
		kprintf("error: the watchdog did not notice in %llu checks\n",
		        (unsigned long long)(st.checks - checks0));
		return -EIO;
	}
	kprintf("watchdog: caught %s after %llu check%s; timekeeping on %s\n", cs->name,
	        (unsigned long long)(st.checks - checks0), st.checks - checks0 == 1 ? "" : "s",
	        clocksource_current()->name);
	return 0;
}

static struct clocksource *usable_tsc(void)
{
	struct clocksource *cs = clocksource_lookup("tsc");
	if (!cs || cs_unstable(cs)) {
		kprintf("error: no usable tsc clocksource\n");
		return NULL;
	}
	return cs;
}

static uint64_t watchdog_checks(void)
{
	struct watchdog_status st;
	watchdog_get_status(&st);
	if (!st.ref)
		kprintf("note: the watchdog is off; nothing will notice\n");
	return st.checks;
}

/* tsc-step ±MS / tsc-skew ±PPM: the TSC jumps, or drifts. */
static int inject_tsc(bool step, int64_t amount)
{
	struct clocksource *tsc = usable_tsc();
	if (!tsc)
		return -ENODEV;
	uint64_t checks = watchdog_checks();
	if (witness_arm(10, WATCHDOG_WAIT_CHECKS * MSEC_PER_SEC))
		return -ENOSPC;
	int rc = step ? inject_clocksource_step(tsc, amount * (int64_t)NSEC_PER_MSEC)
	              : inject_clocksource_skew(tsc, (int32_t)amount);
	if (rc) {
		witness_cancel();
		return shell_error("could not bend the tsc", rc);
	}
	if (step)
		kprintf("inject: tsc stepped %+lld ms\n", (long long)amount);
	else
		kprintf("inject: tsc runs %+lld ppm from now\n", (long long)amount);
	int caught = await_watchdog(tsc, checks);
	rc = witness_report();
	return caught ? caught : rc;
}

/* clocksource-stall: the counter timekeeping reads stops. */
static int inject_clocksource_stall_cmd(void)
{
	struct clocksource *cs = clocksource_current();
	uint64_t checks = watchdog_checks();
	if (witness_arm(10, WATCHDOG_WAIT_CHECKS * MSEC_PER_SEC))
		return -ENOSPC;
	if (inject_clocksource_stall(cs)) {
		witness_cancel();
		kprintf("error: could not stall %s\n", cs->name);
		return -ENOSPC;
	}
	kprintf("inject: %s stopped counting\n", cs->name);
	int caught = await_watchdog(cs, checks);
	int rc = witness_report();
	return caught ? caught : rc;
}

/* irq-storm MS: keyboard interrupts back to back while the CPU sleeps.
 * The keyboard's interrupt source is wrapped (irq_replace): each
 * interrupt runs the driver's own handler, which reads and drops the
 * no-key byte, then asks the controller for the next at once
 * (i8042_fake_key_byte), until MS have passed; then the driver has its
 * handler back.  The driver holds no storm code. */
static struct {
	volatile uint64_t until_ns;     /* 0: no storm */
	volatile uint64_t count;
	irq_handler_t handler;          /* the driver's */
	void *ctx;
} storm;

static void storm_end(void)
{
	irq_handler_t fn;
	void *ctx;
	storm.until_ns = 0;
	(void)irq_replace(PS2_KEYBOARD_IRQ, storm.handler, storm.ctx, &fn, &ctx);
}

static void storm_irq(void *ctx)
{
	UNUSED(ctx);
	storm.handler(storm.ctx);
	storm.count++;
	if (ktime_get_ns() >= storm.until_ns || !i8042_fake_key_byte(PS2_NO_KEY_BYTE))
		storm_end();
}

static bool storm_over(void) { return storm.until_ns == 0; }

static int inject_irq_storm(int64_t arg)
{
	uint32_t ms = (uint32_t)arg;      /* from 1 to its max in faults[] */
	if (witness_arm(ms / 2 + 1, ms + WITNESS_MARGIN_MS))
		return -ENOSPC;
	storm.count = 0;
	storm.until_ns = ktime_get_ns() + (uint64_t)ms * NSEC_PER_MSEC;
	bool started = irq_replace(PS2_KEYBOARD_IRQ, storm_irq, NULL, &storm.handler, &storm.ctx) == 0;
	if (started && !i8042_fake_key_byte(PS2_NO_KEY_BYTE)) {
		storm_end();
		started = false;
	}
	if (!started) {
		storm.until_ns = 0;
		witness_cancel();
		kprintf("error: no keyboard controller to storm with\n");
		return -ENODEV;
	}
	inject_pause_ms(ms + WITNESS_MARGIN_MS, storm_over);
	kprintf("inject: %llu keyboard interrupts in %u ms\n", (unsigned long long)storm.count, ms);
	return witness_report();
}

/* late-wakeup MS: the next sleep's interrupt is taken MS late. */
static int inject_late_wakeup(int64_t arg)
{
	uint32_t ms = (uint32_t)arg;      /* from 1 to its max in faults[] */
	const uint32_t first = 50, gap = WITNESS_MARGIN_MS;
	if (witness_arm(first, first + ms + gap))
		return -ENOSPC;
	if (inject_idle_late(this_cpu()->index, (uint64_t)ms * NSEC_PER_MSEC) != 0) {
		kprintf("error: CPU %u has no tick device\n", this_cpu()->index);
		return -ENODEV;
	}
	int rc = witness_report();
	struct inject_idle_late_report r;
	inject_idle_late_report(&r);                    /* disarms, if it never came */
	char a[FMT_FIXED_SIZE], b[FMT_FIXED_SIZE], c[FMT_FIXED_SIZE];
	if (!r.woke_ns) {
		kprintf("error: the late wakeup did not happen\n");
		return -EIO;
	}
	kprintf("inject: CPU %u's wakeup was taken %s ms late\n", this_cpu()->index,
	        fmt_fixed(a, sizeof(a), (r.woke_ns - r.deadline_ns) / 10000, 2));
	if (this_tick()->mode == TICK_MODE_PERIODIC)
		return rc;                              /* no skips to look at */
	if (!r.done) {
		kprintf("error: no skip followed the late wakeup\n");
		return -EIO;
	}
	uint64_t next_due = witness_last_due_ns(0);      /* the shell's CPU, the boot CPU */
	kprintf("inject: the next skip ends %s ms after the late wakeup (it began after %u tick%s), "
	        "the next timer is due %s ms after it\n",
	        fmt_fixed(b, sizeof(b), (r.next_wake_ns > r.woke_ns ? r.next_wake_ns - r.woke_ns : 0) / 10000, 2),
	        r.ticks_between, r.ticks_between == 1 ? "" : "s",
	        fmt_fixed(c, sizeof(c), (next_due > r.woke_ns ? next_due - r.woke_ns : 0) / 10000, 2));
	return rc;
}

/* idle-race: the next idle entry loses the race with the tick device's
 * deadline (include/idle.h). */
static int fault_idle_race(void)
{
	if (witness_arm(50, 50 + WITNESS_MARGIN_MS))
		return -ENOSPC;
	unsigned cpu = this_cpu()->index;
	struct wakeup_stats before, after;
	wakeups_snapshot(cpu, ktime_get_ns(), &before);
	if (inject_idle_race(cpu) != 0) {
		kprintf("error: CPU %u has no tick device\n", cpu);
		return -ENODEV;
	}
	int rc = witness_report();
	bool done = inject_idle_race_report();
	wakeups_snapshot(cpu, ktime_get_ns(), &after);
	if (!done) {
		kprintf("error: CPU %u did not go idle\n", this_cpu()->index);
		return -EIO;
	}
	if (after.abandoned == before.abandoned) {
		kprintf("error: CPU %u halted with its old deadline's interrupt pending\n",
		        this_cpu()->index);
		return -EIO;
	}
	kprintf("inject: CPU %u's idle entry let its deadline pass, then programmed its sleep: the "
	        "pending interrupt came before the halt, and the sleep was given up\n",
	        this_cpu()->index);
	return rc;
}

static int inject_tsc_step(int64_t ms)
{
	return inject_tsc(true, ms);
}

static int inject_tsc_skew(int64_t ppm)
{
	return inject_tsc(false, ppm);
}

/* The shell's faults: none takes an argument (run), or one (run_arg): a
 * count from 1 to max, or a signed nonzero amount of at most max. */
static const struct fault {
	const char *name;
	enum { FAULT_NO_ARG, FAULT_COUNT, FAULT_SIGNED } arg;
	uint32_t max;
	int (*run)(void);
	int (*run_arg)(int64_t arg);
} faults[] = {
	{ "hpet-past", FAULT_NO_ARG, 0, inject_hpet_past, NULL },
	{ "pm-glitch", FAULT_NO_ARG, 0, inject_pm_glitch, NULL },
	{ "idle-race", FAULT_NO_ARG, 0, fault_idle_race, NULL },
	{ "clocksource-stall", FAULT_NO_ARG, 0, inject_clocksource_stall_cmd, NULL },
	{ "lost-tick", FAULT_COUNT, INJECT_MAX_TICKS, NULL, inject_lost_tick },
	{ "spurious-tick", FAULT_COUNT, INJECT_MAX_SPURIOUS, NULL, inject_spurious_tick },
	{ "irq-storm", FAULT_COUNT, INJECT_MAX_MS, NULL, inject_irq_storm },
	{ "late-wakeup", FAULT_COUNT, INJECT_MAX_MS, NULL, inject_late_wakeup },
	{ "tsc-step", FAULT_SIGNED, INJECT_MAX_MS, NULL, inject_tsc_step },
	{ "tsc-skew", FAULT_SIGNED, INJECT_MAX_PPM, NULL, inject_tsc_skew },
};

int cmd_inject(int argc, char **argv)
{
	if (argc < 2)
		return SHELL_USAGE;
	for (unsigned i = 0; i < ARRAY_SIZE(faults); i++) {
		const struct fault *f = &faults[i];
		if (strcmp(argv[1], f->name) != 0)
			continue;
		if (argc != (f->arg == FAULT_NO_ARG ? 2 : 3))
			return SHELL_USAGE;
		uint64_t n = 0;
		int64_t v = 0;
		if (f->arg == FAULT_COUNT && parse_u64(argv[2], 1, f->max, &n) != 0)
			return SHELL_USAGE;
		if (f->arg == FAULT_SIGNED && parse_signed_nonzero(argv[2], f->max, &v) != 0)
			return SHELL_USAGE;
		return f->run ? f->run() : f->run_arg(f->arg == FAULT_COUNT ? (int64_t)n : v);
	}
	return SHELL_USAGE;
}
