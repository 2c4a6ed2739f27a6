/* kernel/selftest.c — the boot option `selftest`: check the timer hardware
 * against itself, print the results in KTAP, and end QEMU with a verdict.
 *
 * KTAP is the kernel's test-output format (Linux Documentation/dev-tools/
 * ktap.rst): a version line, a plan "1..N", then one "ok N name" or
 * "not ok N name" per test, with "# " diagnostic lines.  tests/system
 * parses it; a person can read it.
 *
 * What is checked, for the hardware this machine has:
 *   - every clocksource counts forward over many back-to-back reads;
 *   - every pair of continuous clocksources agrees on the length of the
 *     same interval within 1% (so each calibration is right), and each
 *     agrees with the PIT's channel 2, the oldest reference;
 *   - every clock event device fires a one-shot event on time (never early,
 *     not much late) and a periodic one at its rate.
 * It runs before the tick starts, so it may use every device freely.
 */
#include "cmdline.h"
#include "drivers/platform.h"
#include "errno.h"
#include "kprintf.h"
#include "power.h"
#include "selftest.h"
#include "drivers/timer/pit.h"
#include "time/clockevent.h"
#include "time/clocksource.h"
#include "time/timekeeping.h"
#include "arch/x86.h"

#define MONOTONIC_READS      100000
#define AGREE_WINDOW_US      PIT_CH2_MAX_US      /* one PIT channel-2 wait */
#define AGREE_TOLERANCE_PPM  10000               /* 1% */
#define ONESHOT_DELTA_NS     (10 * NSEC_PER_MSEC)
#define ONESHOT_LATE_NS      (2 * NSEC_PER_MSEC) /* generous: TCG jitter */
#define PERIODIC_HZ          250
#define PERIODIC_WINDOW_NS   (200 * NSEC_PER_MSEC)
#define EVENT_TIMEOUT_NS     (500 * NSEC_PER_MSEC)

static bool selftest_requested;
static unsigned test_no, failures;

static int selftest_option(const char *value)
{
	if (value)
		return -EINVAL;
	selftest_requested = true;
	return 0;
}
BOOT_OPTION("selftest", selftest_option, "check the timer hardware, print KTAP, exit QEMU");

static void result(bool ok, const char *fmt, ...) __printf(2, 3);
static void result(bool ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kprintf("%sok %u ", ok ? "" : "not ", ++test_no);
	kvprintf(fmt, ap);
	kprintf("\n");
	va_end(ap);
	if (!ok)
		failures++;
}

static unsigned count_tests(void)
{
	unsigned n = 0, continuous = 0;
	for (struct clocksource *cs = clocksource_first(); cs; cs = cs->next) {
		n++;                                    /* monotonic */
		if (cs->flags & CLOCK_SOURCE_CONTINUOUS) {
			n++;                            /* against PIT ch2 */
			n += continuous++;              /* against each earlier one */
		}
	}
	for (struct clock_event_device *d = clockevents_first(); d; d = d->next)
		n += !!(d->features & CLOCK_EVT_FEAT_ONESHOT) + !!(d->features & CLOCK_EVT_FEAT_PERIODIC);
	return n;
}

static uint64_t cs_ns(struct clocksource *cs, uint64_t from, uint64_t to)
{
	return clocksource_cyc2ns((to - from) & cs->mask, cs->mult, cs->shift);
}

static void check_monotonic(struct clocksource *cs)
{
	if (!(cs->flags & CLOCK_SOURCE_CONTINUOUS)) {
		/* KTAP's SKIP directive: reported, neither passed nor failed. */
		kprintf("ok %u clocksource %s counts forward # SKIP counts only while it "
		        "drives the tick\n", ++test_no, cs->name);
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
	result(!backwards && !stuck, "clocksource %s counts forward over %u reads", cs->name,
	       MONOTONIC_READS);
	if (backwards || stuck)
		kprintf("# %llu steps backwards%s\n", (unsigned long long)backwards,
		        stuck ? ", never moved" : "");
}

/* Measure the same interval on every continuous clocksource at once,
 * AGREE_ROUNDS times, and keep each source's median: one round can be
 * stretched by the host (under emulation a vCPU is a host thread that the
 * host may preempt mid-measurement), the median of several is not. */
#define AGREE_ROUNDS 5

static uint64_t median(uint64_t *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j]; v[j] = v[j - 1]; v[j - 1] = t;
		}
	return v[n / 2];
}

static void check_agreement(void)
{
	struct clocksource *list[8];
	uint64_t start[8], len[8], rounds[8][AGREE_ROUNDS];
	unsigned n = 0;
	int rc = 0;
	for (struct clocksource *cs = clocksource_first(); cs && n < 8; cs = cs->next)
		if (cs->flags & CLOCK_SOURCE_CONTINUOUS)
			list[n++] = cs;
	for (unsigned r = 0; r < AGREE_ROUNDS; r++) {
		uint32_t f = irq_save();
		for (unsigned i = 0; i < n; i++)
			start[i] = list[i]->read(list[i]);
		rc |= pit_ch2_wait_us(AGREE_WINDOW_US);
		for (unsigned i = 0; i < n; i++)
			rounds[i][r] = cs_ns(list[i], start[i], list[i]->read(list[i]));
		irq_restore(f);
	}
	for (unsigned i = 0; i < n; i++)
		len[i] = median(rounds[i], AGREE_ROUNDS);

	uint64_t pit_ns = (uint64_t)AGREE_WINDOW_US * NSEC_PER_USEC;
	for (unsigned i = 0; i < n; i++) {
		int64_t d = ppm_diff(len[i], pit_ns);
		bool ok = rc == 0 && d > -AGREE_TOLERANCE_PPM && d < AGREE_TOLERANCE_PPM;
		result(ok, "%s agrees with PIT channel 2 within 1%%", list[i]->name);
		kprintf("# %s measured %llu ns for %llu ns of PIT (%lld ppm)%s\n", list[i]->name,
		        (unsigned long long)len[i], (unsigned long long)pit_ns, (long long)d,
		        rc ? "; PIT channel 2 did not answer" : "");
	}
	for (unsigned i = 0; i < n; i++) {
		for (unsigned j = 0; j < i; j++) {
			int64_t d = ppm_diff(len[i], len[j]);
			result(d > -AGREE_TOLERANCE_PPM && d < AGREE_TOLERANCE_PPM,
			       "%s agrees with %s within 1%%", list[i]->name, list[j]->name);
			kprintf("# %s %llu ns vs %s %llu ns (%lld ppm)\n", list[i]->name,
			        (unsigned long long)len[i], list[j]->name,
			        (unsigned long long)len[j], (long long)d);
		}
	}
}

static volatile uint64_t events_seen, last_event_ns;
/* When set, each event's time goes here too (check_periodic's intervals). */
#define PERIODIC_EVENTS      (PERIODIC_WINDOW_NS * PERIODIC_HZ / NSEC_PER_SEC)
static uint64_t event_times[PERIODIC_EVENTS];
static bool record_times;

/* The clock the event checks measure with.  Normally timekeeping; but a
 * machine whose only clocksource is built on the PIT's own tick (the 486)
 * has no time while the PIT is being tested, so there the test counts time
 * in CH2_STEP_US waits on PIT channel 2: coarser, but independent. */
#define CH2_STEP_US 250
static bool use_ch2;
static volatile uint64_t ch2_ns;

static uint64_t test_now(void)
{
	if (use_ch2)
		return ch2_ns;
	timekeeping_update();
	return ktime_get_ns();
}

static void test_spin(void)
{
	if (use_ch2 && pit_ch2_wait_us(CH2_STEP_US) == 0)
		ch2_ns += CH2_STEP_US * NSEC_PER_USEC;
	else if (use_ch2)
		ch2_ns += NSEC_PER_SEC;             /* no PIT: end the wait */
}

/* Without a continuous clocksource the core cannot drop a stale early
 * event (see the QUIRK in kernel/time/clockevents.c); the test's own clock
 * can: a one-shot event more than a step before its time is stale. */
static uint64_t stale_before_ns, stale_margin_ns;

static void count_event(struct clock_event_device *dev)
{
	(void)dev;
	/* The channel-2 clock falls behind real time (each step's polling
	 * overhead is not counted), so only an event in the first half of the
	 * wait is called stale. */
	if (use_ch2 && stale_before_ns && test_now() < stale_before_ns - stale_margin_ns)
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
		test_spin();
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
	void (*saved)(struct clock_event_device *) = d->event_handler;
	d->event_handler = count_event;
	uint64_t delta = MIN(ONESHOT_DELTA_NS, d->max_delta_ns);
	/* The channel-2 clock counts in steps and loses the time spent between
	 * them (a few % under emulation), so with it "early" means early by
	 * more than a tenth of the delta. */
	int64_t early_limit = -(int64_t)clockevent_ticks2ns(d, 2) - 1000 -
	                      (use_ch2 ? (int64_t)delta / 10 : 0);
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
	bool ok = fired == ONESHOT_TRIES && worst >= early_limit && best >= early_limit &&
	          best <= (int64_t)ONESHOT_LATE_NS;
	result(ok, "clockevent %s one-shot fires on time", d->name);
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

	uint64_t n = MIN(events_seen, (uint64_t)PERIODIC_EVENTS);
	uint64_t iv[PERIODIC_EVENTS];
	for (uint64_t i = 1; i < n; i++) {
		uint64_t v = event_times[i] - event_times[i - 1];
		unsigned j = (unsigned)i - 1;
		for (; j > 0 && iv[j - 1] > v; j--)     /* insertion sort */
			iv[j] = iv[j - 1];
		iv[j] = v;
	}
	uint64_t median = n > 1 ? iv[(n - 1) / 2] : 0, shortest = n > 1 ? iv[0] : 0;
	/* Periods the device kept but we saw no event for: the span in whole
	 * periods, less the intervals seen. */
	uint64_t span_periods = n > 1 ? (event_times[n - 1] - event_times[0] + period / 2) / period : 0;
	uint64_t dropped = span_periods > n - 1 ? span_periods - (n - 1) : 0;
	bool ok = n == PERIODIC_EVENTS && median > period * 90 / 100 && median < period * 110 / 100;
	result(ok, "clockevent %s periodic at %u Hz", d->name, PERIODIC_HZ);
	kprintf("# %s: %llu events in %llu us, median interval %llu us (shortest %llu us; "
	        "%llu periods missed)\n", d->name, (unsigned long long)events_seen,
	        (unsigned long long)(took / 1000), (unsigned long long)(median / 1000),
	        (unsigned long long)(shortest / 1000), (unsigned long long)dropped);
}

void selftest_run_if_requested(void)
{
	if (!selftest_requested)
		return;
	struct clocksource *cs = clocksource_current();
	use_ch2 = !cs || !(cs->flags & CLOCK_SOURCE_CONTINUOUS);
	kprintf("KTAP version 1\n1..%u\n", count_tests());
	if (use_ch2)
		kprintf("# no continuous clocksource: event timing measured in %u us steps of PIT channel 2\n",
		        CH2_STEP_US);
	uint32_t f = irq_save();
	for (struct clocksource *cs = clocksource_first(); cs; cs = cs->next)
		check_monotonic(cs);
	check_agreement();
	for (struct clock_event_device *d = clockevents_first(); d; d = d->next) {
		if (d->features & CLOCK_EVT_FEAT_ONESHOT)
			check_oneshot(d);
		if (d->features & CLOCK_EVT_FEAT_PERIODIC)
			check_periodic(d);
	}
	irq_restore(f);
	kprintf("# selftest: %u tests, %u failed\n", test_no, failures);
	qemu_debug_exit(failures ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
	kprintf("# selftest: not running under QEMU with isa-debug-exit; continuing\n");
}
