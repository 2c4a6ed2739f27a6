/* kernel/selftest.c — the boot option `selftest`: check the timer hardware
 * against itself, print the results in KTAP, and end QEMU with a verdict.
 *
 * KTAP is the kernel's test-output format (Linux Documentation/dev-tools/
 * ktap.rst): a version line, a plan "1..N", then one "ok N name" or
 * "not ok N name" per test, with "# " diagnostic lines.  A test that could
 * not be run says "ok N name # SKIP why": neither passed nor failed, and
 * tests/system does not count it as a pass.  tests/system parses it; a
 * person can read it.
 *
 * What is checked, for the hardware this machine has:
 *   - every clocksource counts forward over many back-to-back reads;
 *   - every continuous clocksource measures the same interval as PIT
 *     channel 2, as one second of the RTC, and as every other continuous
 *     clocksource, within AGREE_TOLERANCE_PPM;
 *   - every clock event device fires a one-shot event on time (never early,
 *     not much late) and a periodic one at its rate.
 *
 * Independence: see kernel/selftest_agree.c, which checks the counters
 * against each other; this file checks the event devices, timed with a
 * ruler of another root where there is one (ruler_begin).
 *
 * It runs before the tick starts, so it may use every device freely.
 */
#include "cmdline.h"
#include "drivers/platform.h"
#include "errno.h"
#include "kprintf.h"
#include "ktap.h"
#include "kstring.h"
#include "power.h"
#include "selftest.h"
#include "selftest_internal.h"
#include "drivers/timer/pit.h"
#include "time/clockevent.h"
#include "time/clocksource.h"
#include "time/timekeeping.h"
#include "arch/x86.h"

#define MONOTONIC_READS      100000
#define ONESHOT_DELTA_NS     (10 * NSEC_PER_MSEC)
#define ONESHOT_LATE_NS      (2 * NSEC_PER_MSEC) /* generous: TCG jitter */
#define PERIODIC_HZ          250
#define PERIODIC_WINDOW_NS   (200 * NSEC_PER_MSEC)
#define EVENT_TIMEOUT_NS     (500 * NSEC_PER_MSEC)

static bool selftest_requested;

BOOT_FLAG("selftest", selftest_requested, "check the timer hardware, print KTAP, exit QEMU");

static unsigned count_tests(void)
{
	unsigned n = 0, cont = 0;
	for (struct clocksource *cs = clocksource_first(); cs; cs = cs->next) {
		n++;                                    /* monotonic */
		if (continuous(cs)) {
			n += 2;                         /* PIT channel 2, the RTC */
			n += cont++;                    /* against each earlier one */
		}
	}
	for (struct clock_event_device *d = clockevents_first(); d; d = d->next)
		n += !!(d->features & CLOCK_EVT_FEAT_ONESHOT) + !!(d->features & CLOCK_EVT_FEAT_PERIODIC);
	return n;
}

static void check_monotonic(struct clocksource *cs)
{
	char what[64];
	ksnprintf(what, sizeof(what), "clocksource %s counts forward", cs->name);
	if (!(cs->flags & CLOCK_SOURCE_CONTINUOUS)) {
		ktap_skip(what, "counts only while it drives the tick");
		return;
	}
	uint64_t prev = cs->read(cs), backwards = 0, stuck = 1;
	for (unsigned i = 0; i < MONOTONIC_READS; i++) {
		uint64_t now = cs->read(cs);
		uint64_t d = (now - prev) & cs->mask;
		if (d > cs->mask / 2)
			backwards++;                    /* a step back, seen as a huge step */
		if (d)
			stuck = 0;
		prev = now;
	}
	ktap_result(!backwards && !stuck, "%s over %u reads", what, MONOTONIC_READS);
	if (backwards || stuck)
		kprintf("# %llu steps backwards%s\n", (unsigned long long)backwards,
		        stuck ? ", never moved" : "");
}

/* --- timing events: a ruler of another root --- */

/* A ruler is a continuous clocksource, or PIT channel 2 running free
 * (pit_ch2_run_ns: a 16-bit counter kept going by reading it).  The best
 * is a counter of another root than the device's; failing that (pc
 * without an HPET, where the TSC and the LAPIC timer were both measured
 * against the PM timer; the isapc machines, where every rate comes from
 * the PIT's crystal) a counter of the same root that passed a check
 * against the RTC, which makes the root's rate checked too, and the line
 * says so; then channel 2, if the PIT is another root; failing all (the
 * 486: the PIT only), channel 2 of the same chip, and the line says the
 * rate went unchecked. */
struct ruler {
	char name[96];              /* for the KTAP line */
	struct clocksource *cs;     /* or NULL: PIT channel 2 */
	uint64_t base;              /* cs: the reading at begin */
};
static struct ruler ruler;

static uint64_t test_now(void)
{
	if (ruler.cs)
		return cs_ns(ruler.cs, ruler.base, ruler.cs->read(ruler.cs));
	return pit_ch2_run_ns();
}

static void ruler_end(void)
{
	if (!ruler.cs)
		pit_ch2_stop();
}

static struct clocksource *best_ruler(const char *root, bool same_root)
{
	struct clocksource *best = NULL;
	for (struct clocksource *cs = clocksource_first(); cs; cs = cs->next) {
		bool same = strcmp(selftest_cs_root(cs), root) == 0;
		if (continuous(cs) && same == same_root && (!same || selftest_is_verified(cs)) &&
		    (!best || cs->rating > best->rating))
			best = cs;
	}
	return best;
}

/* Choose the ruler for device d, and start it.  false if there is none. */
static bool ruler_begin(struct clock_event_device *d)
{
	const char *root = selftest_root_of(d->name, d->rate_ref);
	bool ch2_independent = strcmp(root, "pit") != 0;
	struct clocksource *cs = best_ruler(root, false);
	ruler = (struct ruler){ .cs = cs };
	if (cs) {
		ksnprintf(ruler.name, sizeof(ruler.name), "%s", cs->name);
	} else if ((cs = best_ruler(root, true))) {
		ruler.cs = cs;
		ksnprintf(ruler.name, sizeof(ruler.name), "%s, whose rate also comes from %s: "
		          "checked against the RTC", cs->name, root);
	} else if (pit_ch2_run_start() == 0) {
		ksnprintf(ruler.name, sizeof(ruler.name), "PIT channel 2%s",
		          ch2_independent ? "" : ", the same crystal: rate not checked");
	} else {
		return false;
	}
	if (ruler.cs)
		ruler.base = ruler.cs->read(ruler.cs);
	return true;
}

static volatile uint64_t events_seen, last_event_ns;
/* When set, each event's time goes here too (check_periodic's intervals). */
#define PERIODIC_EVENTS      (PERIODIC_WINDOW_NS * PERIODIC_HZ / NSEC_PER_SEC)
static uint64_t event_times[PERIODIC_EVENTS];
static bool record_times;

/* QUIRK: without a continuous clocksource (the 486) the core cannot drop a
 * stale early event (kernel/time/clockevents.c); the test's ruler can: an
 * event more than half the delta before its time is stale. */
static bool core_cannot_drop_stale;
static uint64_t stale_before_ns, stale_margin_ns;

static void count_event(struct clock_event_device *dev)
{
	(void)dev;
	if (core_cannot_drop_stale && stale_before_ns && test_now() < stale_before_ns - stale_margin_ns)
		return;
	last_event_ns = test_now();
	if (record_times && events_seen < PERIODIC_EVENTS)
		event_times[events_seen] = last_event_ns;
	events_seen++;
}

/* Wait with interrupts on until `n` events arrived or the timeout. */
static bool wait_events(uint64_t n, uint64_t timeout_ns)
{
	uint64_t end = test_now() + timeout_ns;
	sti();
	while (events_seen < n && test_now() < end)
		;
	cli();
	return events_seen >= n;
}

/* One one-shot event; returns false if it never came, else its lateness. */
static bool oneshot_once(struct clock_event_device *d, uint64_t delta, int64_t *late)
{
	events_seen = 0;
	clockevents_set_oneshot(d);
	timekeeping_update();
	uint64_t now = test_now();
	stale_before_ns = now + delta;
	stale_margin_ns = delta / 2;
	int rc = clockevents_program_event(d, ktime_get_ns() + delta, ktime_get_ns());
	bool fired = rc == 0 && wait_events(1, EVENT_TIMEOUT_NS);
	clockevents_shutdown(d);
	stale_before_ns = 0;
	*late = fired ? (int64_t)(last_event_ns - (now + delta)) : 0;
	return fired;
}

/* Never early, ever; on time at least once in ONESHOT_TRIES (a single try
 * can be made late by the host preempting the emulator). */
#define ONESHOT_TRIES 3

static void check_oneshot(struct clock_event_device *d)
{
	char what[64];
	ksnprintf(what, sizeof(what), "clockevent %s one-shot fires on time", d->name);
	if (!ruler_begin(d)) {
		ktap_skip(what, "no clock to time it with");
		return;
	}
	void (*saved)(struct clock_event_device *) = d->event_handler;
	d->event_handler = count_event;
	uint64_t delta = MIN(ONESHOT_DELTA_NS, d->max_delta_ns);
	/* Early means earlier than the device's own rounding and a
	 * microsecond (a tick of the coarsest ruler, PIT channel 2, is 0.84). */
	int64_t early_limit = -(int64_t)clockevent_ticks2ns(d, 2) - 1000;
	int64_t best = INT64_MAX, worst = INT64_MIN, late;
	unsigned fired = 0;
	for (unsigned i = 0; i < ONESHOT_TRIES; i++) {
		if (!oneshot_once(d, delta, &late))
			continue;
		fired++;
		best = MIN(best, late);
		worst = MAX(worst, late);
	}
	d->event_handler = saved;
	ruler_end();
	bool ok = fired == ONESHOT_TRIES && worst >= early_limit && best >= early_limit &&
	          best <= (int64_t)ONESHOT_LATE_NS;
	ktap_result(ok, "%s (timed by %s)", what, ruler.name);
	kprintf("# %s: asked %llu ns, %u/%u fired, lateness best %lld ns, worst %lld ns\n", d->name,
	        (unsigned long long)delta, fired, ONESHOT_TRIES, (long long)best, (long long)worst);
}

/* The period is judged by the median interval between events, not by
 * events per window: a device that missed a period because the CPU could
 * not take its interrupt in time (QEMU's LAPIC timer drops a period the host
 * delayed past it; an SMI does the same on hardware) still runs at its rate,
 * and the intervals show it: whole multiples of the period, while a late
 * interrupt makes one interval long and the next short.  Only a device at
 * the wrong rate (or firing twice a period) moves the median. */
static void check_periodic(struct clock_event_device *d)
{
	char what[64];
	ksnprintf(what, sizeof(what), "clockevent %s periodic at %u Hz", d->name, PERIODIC_HZ);
	if (!ruler_begin(d)) {
		ktap_skip(what, "no clock to time it with");
		return;
	}
	void (*saved)(struct clock_event_device *) = d->event_handler;
	const uint64_t period = NSEC_PER_SEC / PERIODIC_HZ;
	d->event_handler = count_event;
	events_seen = 0;
	record_times = true;
	uint64_t start = test_now();
	clockevents_set_periodic(d, PERIODIC_HZ);
	wait_events(PERIODIC_EVENTS, PERIODIC_WINDOW_NS * 2);
	uint64_t took = test_now() - start;
	clockevents_shutdown(d);
	record_times = false;
	d->event_handler = saved;
	ruler_end();

	uint64_t n = MIN(events_seen, (uint64_t)PERIODIC_EVENTS);
	uint64_t iv[PERIODIC_EVENTS];
	for (uint64_t i = 1; i < n; i++) {
		uint64_t v = event_times[i] - event_times[i - 1];
		unsigned j = (unsigned)i - 1;
		for (; j > 0 && iv[j - 1] > v; j--)     /* insertion sort */
			iv[j] = iv[j - 1];
		iv[j] = v;
	}
	uint64_t span = n > 1 ? event_times[n - 1] - event_times[0] : 0;
	uint64_t judged = n > 1 ? iv[(n - 1) / 2] : 0;
	uint64_t shortest = n > 1 ? iv[0] : 0;
	/* Periods the device kept but we saw no event for: the span in whole
	 * periods, less the intervals seen. */
	uint64_t span_periods = (span + period / 2) / period;
	uint64_t dropped = n > 1 && span_periods > n - 1 ? span_periods - (n - 1) : 0;
	bool ok = n == PERIODIC_EVENTS && judged > period * 90 / 100 && judged < period * 110 / 100;
	ktap_result(ok, "%s (timed by %s)", what, ruler.name);
	kprintf("# %s: %llu events in %llu us, median interval %llu us (shortest %llu us; "
	        "%llu periods missed)\n", d->name, (unsigned long long)events_seen,
	        (unsigned long long)(took / 1000), (unsigned long long)(judged / 1000), (unsigned long long)(shortest / 1000),
	        (unsigned long long)dropped);
}

void selftest_run_if_requested(void)
{
	if (!selftest_requested)
		return;
	struct clocksource *cs = clocksource_current();
	core_cannot_drop_stale = !cs || !(cs->flags & CLOCK_SOURCE_CONTINUOUS);
	ktap_plan(count_tests());
	uint32_t f = irq_save();
	for (struct clocksource *cs = clocksource_first(); cs; cs = cs->next)
		check_monotonic(cs);
	selftest_check_agreement();
	for (struct clock_event_device *d = clockevents_first(); d; d = d->next) {
		if (d->features & CLOCK_EVT_FEAT_ONESHOT)
			check_oneshot(d);
		if (d->features & CLOCK_EVT_FEAT_PERIODIC)
			check_periodic(d);
	}
	irq_restore(f);
	kprintf("# selftest: %u tests, %u failed\n", ktap_tests(), ktap_failures());
	qemu_debug_exit(ktap_failures() ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
	kprintf("# selftest: not running under QEMU with isa-debug-exit; continuing\n");
}
