/* kernel/selftest_agree.c — the self-test's clocksource checks: does
 * every continuous counter measure the same interval as the others?
 * (kernel/selftest.c runs them, between the monotonic and the event
 * checks, and prints the KTAP lines through include/ktap.h.)
 *
 * Independence.  A counter whose rate was measured against another (the
 * TSC against the HPET, the LAPIC timer against the TSC) agrees with it by
 * construction: comparing the two tests only that the ratio held still.
 * So every counter has a root, the crystal its rate really comes from
 * (follow rate_ref until a counter whose rate is its own: a spec value or
 * a register), and two counters with the same root are never checked
 * against each other: such a pair is reported as a SKIP naming the root.
 * Event devices are timed with a ruler of a different root where there is
 * one, named in the KTAP line (see ruler_begin).  The RTC (its own
 * 32.768 kHz crystal, never used to calibrate anything) gives every
 * machine with a continuous clocksource one independent reference.
 *
 * The references: PIT channel 2's longest wait (50 ms), one second of the
 * RTC, and every other continuous counter.  Both ends of each PIT and RTC
 * window are bracketed between reads of the counters, and the brackets'
 * widths say how far a host stall could have moved them.
 */
#include "errno.h"
#include "kprintf.h"
#include "ktap.h"
#include "kstring.h"
#include "selftest_internal.h"
#include "drivers/timer/pit.h"
#include "drivers/timer/rtc.h"
#include "time/clocksource.h"
#include "arch/x86.h"

#define AGREE_WINDOW_US      PIT_CH2_MAX_US      /* one PIT channel-2 wait */
/* The RTC is timed by the rise of its update-in-progress bit, seen between
 * two polls: an edge seen within RTC_EDGE_SHARP_NS of the poll before is good
 * to that (20 ppm of the second).  A host that stops the emulator at an
 * edge widens it: then the edges are tried again, and the best try's
 * widths are added to the tolerance, so the line stays true. */
#define RTC_EDGE_SHARP_NS    (20 * NSEC_PER_USEC)
#define RTC_EDGE_TRIES       3
#define RTC_EDGE_TIMEOUT_NS  (3 * NSEC_PER_SEC)  /* a second, plus the wait for the first */
/* Measured with the `selftest` boot option (its "#" lines give each
 * difference in ppm and each bracket's width) under QEMU TCG on the six
 * machine shapes of tests/system/test_selftest.py, on a busy 2-core host:
 * counter pairs within 140 ppm, counters against PIT channel 2 within
 * 150 ppm and against the RTC within 70 ppm (the TSC calibrated against
 * the PIT on isapc), with ends bracketed within 10 us.  0.2% is ten times
 * that, and a rate 0.5% wrong (a wrong crystal constant: tried with
 * PIT_INPUT_HZ) fails. */
#define AGREE_TOLERANCE_PPM  2000
#define ROOT_HOPS_MAX        8                   /* rate_ref chains are 2 long */

/* The crystal a rate comes from: follow rate_ref through the clocksources
 * until one whose rate is its own.  "pit" (channel 2 as a stopwatch) and
 * "rtc" are their own. */
const char *selftest_root_of(const char *name, const char *ref)
{
	for (unsigned hops = 0; ref && hops < ROOT_HOPS_MAX; hops++) {
		name = ref;
		struct clocksource *cs = clocksource_lookup(ref);
		ref = cs ? cs->rate_ref : NULL;
	}
	return name;
}

const char *selftest_cs_root(struct clocksource *cs)
{
	return selftest_root_of(cs->name, cs->rate_ref);
}

/* Counters that passed a check against a counter of another root. */
static struct clocksource *verified[AGREE_MAX_SOURCES];
static unsigned n_verified;

static void mark_verified(struct clocksource *cs)
{
	for (unsigned i = 0; i < n_verified; i++)
		if (verified[i] == cs)
			return;
	if (n_verified < AGREE_MAX_SOURCES)
		verified[n_verified++] = cs;
}

bool selftest_is_verified(struct clocksource *cs)
{
	for (unsigned i = 0; i < n_verified; i++)
		if (verified[i] == cs)
			return true;
	return false;
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

static bool within(int64_t ppm)
{
	return ppm > -AGREE_TOLERANCE_PPM && ppm < AGREE_TOLERANCE_PPM;
}

/* The line for one counter against a reference of another root; false
 * if it was a skip (same root). */
static bool agreement_line(struct clocksource *cs, const char *ref, const char *ref_root,
                           char *what, size_t size)
{
	ksnprintf(what, size, "%s agrees with %s within 0.2%%", cs->name, ref);
	if (strcmp(selftest_cs_root(cs), ref_root))
		return true;
	char why[64];
	ksnprintf(why, sizeof(why), "%s's rate was measured against it", cs->name);
	ktap_skip(what, why);
	return false;
}

/* Within the tolerance, plus the slack the measurement itself shows, plus
 * what the counter's own calibration claims (its spread, which the "#"
 * lines print: against PIT channel 2's waits on a busy host it can exceed
 * the 0.2% itself, and a check that left it out failed in CI on
 * isapc-pentium). */
static void judge(struct clocksource *cs, const char *what, int64_t d, int64_t slack_ppm)
{
	slack_ppm += cs->rate_spread_ppm;
	bool ok = d > -(AGREE_TOLERANCE_PPM + slack_ppm) && d < AGREE_TOLERANCE_PPM + slack_ppm;
	ktap_result(ok, "%s", what);
	if (ok)
		mark_verified(cs);
}

/* Every counter against PIT channel 2's longest wait, in AGREE_ROUNDS
 * windows.  Each end is bracketed, as the RTC's edges are (see rtc_edge):
 * the start between the reads before the count is written and one of
 * list[0] after; the end between the poll before OUT2 rose and the one
 * that saw it.  The round with the narrowest brackets is judged, and their
 * widths are added to the tolerance: a host that stalls the emulator
 * mid-write widens them instead of failing the check. */
static int pit_window(struct clocksource **list, unsigned n, uint64_t *len, uint64_t *width)
{
	uint64_t start[AGREE_MAX_SOURCES], end[AGREE_MAX_SOURCES];
	for (unsigned i = 0; i < n; i++)
		start[i] = list[i]->read(list[i]);
	int rc = pit_ch2_start_us(AGREE_WINDOW_US);
	if (rc == 0)
		rc = pit_ch2_started();
	uint64_t after = list[0]->read(list[0]), after_prev = after;
	uint64_t w = cs_ns(list[0], start[0], after);
	rc = rc ? rc : -ETIME;
	while (rc == -ETIME && cs_ns(list[0], start[0], after) < 2 * AGREE_WINDOW_US * NSEC_PER_USEC) {
		for (unsigned i = 0; i < n; i++)
			end[i] = list[i]->read(list[i]);
		bool ended = pit_ch2_ended();
		after = list[0]->read(list[0]);
		if (ended)
			rc = 0;
		else
			after_prev = after;
	}
	pit_ch2_stop();
	if (rc)
		return rc;
	*width = w + cs_ns(list[0], after_prev, after);
	for (unsigned i = 0; i < n; i++)
		len[i] = cs_ns(list[i], start[i], end[i]);
	return 0;
}

static void agree_with_pit(struct clocksource **list, unsigned n)
{
	uint64_t len[AGREE_MAX_SOURCES], best[AGREE_MAX_SOURCES], best_width = UINT64_MAX, width;
	const uint64_t window_ns = (uint64_t)AGREE_WINDOW_US * NSEC_PER_USEC;
	int rc = 0;
	for (unsigned r = 0; r < AGREE_ROUNDS && !rc; r++) {
		uint32_t f = irq_save();
		rc = pit_window(list, n, len, &width);
		irq_restore(f);
		if (!rc && width < best_width) {
			best_width = width;
			memcpy(best, len, n * sizeof(*best));
		}
	}
	for (unsigned i = 0; i < n; i++) {
		char what[64];
		if (!agreement_line(list[i], "PIT channel 2", "pit", what, sizeof(what)))
			continue;
		if (rc) {
			ktap_result(false, "%s", what);
			kprintf("# PIT channel 2 did not answer (error %d)\n", rc);
			continue;
		}
		int64_t d = ppm_diff(best[i], window_ns);
		judge(list[i], what, d, (int64_t)(best_width * 1000000 / window_ns));
		kprintf("# %s measured %llu ns for %llu ns of PIT channel 2 (%lld ppm; ends seen "
		        "within %llu us; calibration spread %u ppm)\n", list[i]->name,
		        (unsigned long long)best[i], (unsigned long long)window_ns, (long long)d,
		        (unsigned long long)(best_width / 1000), list[i]->rate_spread_ppm);
	}
}

/* Poll the RTC's update-in-progress bit until it rises (see
 * include/drivers/timer/rtc.h: 244 us before a second begins).  at[] gets
 * every counter as read just before the poll that saw it set; *width is
 * the time, by list[0] read just after each poll, from the poll before
 * (which saw it clear) to that one: the edge and the reads all lie in
 * between, so a host stall anywhere there shows as a wide edge.
 * 0, -ENODEV (no RTC) or -ETIME (no edge in 3 s). */
static int rtc_edge(struct clocksource **list, unsigned n, uint64_t *at, uint64_t *width)
{
	uint64_t first = list[0]->read(list[0]), after_prev = first;
	bool seen_clear = false;
	for (;;) {
		for (unsigned i = 0; i < n; i++)
			at[i] = list[i]->read(list[i]);
		int uip = rtc_update_in_progress();
		uint64_t after = list[0]->read(list[0]);
		if (uip < 0)
			return uip;
		if (uip && seen_clear) {
			*width = cs_ns(list[0], after_prev, after);
			return 0;
		}
		seen_clear = !uip;
		after_prev = after;
		if (cs_ns(list[0], first, after) > RTC_EDGE_TIMEOUT_NS)
			return -ETIME;
	}
}

/* Every counter against one second of the RTC: from one rise of its
 * update-in-progress bit to the next. */
static void agree_with_rtc(struct clocksource **list, unsigned n)
{
	uint64_t start[AGREE_MAX_SOURCES], end[AGREE_MAX_SOURCES], len[AGREE_MAX_SOURCES];
	uint64_t best_width = UINT64_MAX;
	int rc = 0;
	for (unsigned t = 0; t < RTC_EDGE_TRIES && best_width > 2 * RTC_EDGE_SHARP_NS; t++) {
		uint64_t w0, w1;
		uint32_t f = irq_save();
		rc = rtc_edge(list, n, start, &w0);
		rc = rc ? rc : rtc_edge(list, n, end, &w1);
		irq_restore(f);
		if (rc)
			break;
		if (w0 + w1 < best_width) {
			best_width = w0 + w1;
			for (unsigned i = 0; i < n; i++)
				len[i] = cs_ns(list[i], start[i], end[i]);
		}
	}
	for (unsigned i = 0; i < n; i++) {
		char what[64];
		if (!agreement_line(list[i], "the RTC", "rtc", what, sizeof(what)))
			continue;
		if (rc == -ENODEV) {
			ktap_skip(what, "no RTC");
			continue;
		}
		if (rc) {
			ktap_result(false, "%s", what);
			kprintf("# the RTC's update-in-progress bit never rose\n");
			continue;
		}
		/* An edge seen W ns late shortens or stretches 1 s by W ns: W/1000 ppm. */
		int64_t slack = (int64_t)(best_width / 1000);
		int64_t d = ppm_diff(len[i], NSEC_PER_SEC);
		judge(list[i], what, d, slack);
		kprintf("# %s measured %llu ns for 1 s of the RTC (%lld ppm; edges seen within %llu us; "
		        "calibration spread %u ppm)\n", list[i]->name, (unsigned long long)len[i],
		        (long long)d, (unsigned long long)(best_width / 1000), list[i]->rate_spread_ppm);
	}
}

void selftest_check_agreement(void)
{
	struct clocksource *list[AGREE_MAX_SOURCES];
	uint64_t start[AGREE_MAX_SOURCES], len[AGREE_MAX_SOURCES], rounds[AGREE_MAX_SOURCES][AGREE_ROUNDS];
	unsigned n = 0;
	for (struct clocksource *cs = clocksource_first(); cs && n < AGREE_MAX_SOURCES; cs = cs->next)
		if (continuous(cs))
			list[n++] = cs;
	if (n == 0)
		return;
	agree_with_pit(list, n);
	agree_with_rtc(list, n);

	/* Counter against counter: windows of one PIT channel-2 wait, whatever
	 * its own accuracy; what is compared is the counters' two lengths. */
	int rc = 0;
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
	for (unsigned i = 0; i < n; i++) {
		for (unsigned j = 0; j < i; j++) {
			char what[64], why[64];
			ksnprintf(what, sizeof(what), "%s agrees with %s within 0.2%%", list[i]->name,
			          list[j]->name);
			const char *root = selftest_cs_root(list[i]);
			if (strcmp(root, selftest_cs_root(list[j])) == 0) {
				ksnprintf(why, sizeof(why), "both rates come from %s", root);
				ktap_skip(what, why);
				continue;
			}
			int64_t d = ppm_diff(len[i], len[j]);
			judge(list[i], what, d, list[j]->rate_spread_ppm);
			if (within(d))
				mark_verified(list[j]);
			kprintf("# %s %llu ns vs %s %llu ns (%lld ppm)%s\n", list[i]->name,
			        (unsigned long long)len[i], list[j]->name, (unsigned long long)len[j],
			        (long long)d, rc ? "; PIT channel 2 did not end the windows" : "");
		}
	}
}

