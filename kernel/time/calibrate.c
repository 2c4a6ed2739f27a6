/* kernel/time/calibrate.c — how fast does this counter count?
 *
 * The TSC counts at the CPU's clock and the local APIC timer at the bus
 * clock; no register says how fast either is (CPUID leaf 0x15 does on recent
 * CPUs, but not on anything a 486-era kernel must run on).  So we measure:
 * read the counter, let a known time pass on a reference whose rate is
 * known, read the counter again.
 *
 * The reference, best first:
 *   1. the highest-rated registered clocksource with CLOCK_SOURCE_CONTINUOUS
 *      that is not the counter being measured: the HPET (rate from its
 *      capabilities register), the ACPI PM timer (3.579545 MHz by spec), or
 *      a TSC that was itself calibrated this way;
 *   2. a stopwatch, which can only be asked to wait: PIT channel 2, offered
 *      by drivers/timer/pit.c, on machines without either (isapc); see
 *      run_against_stopwatch for how its overheads cancel.
 * This file reads neither directly: both come through their ops structs
 * (struct clocksource, struct calibration_stopwatch), so the host unit
 * tests (tests/unit/test_calibrate.c) run it unchanged against fakes.
 * This file measures one counter; calibrate_shared.c runs the counters
 * the drivers offer at boot through the same windows, on the sampling
 * and the median kept here (calibrate_internal.h).
 *
 * The window.  Each end of a window is uncertain by about one read of the
 * reference (~1 us for a port or MMIO read on real hardware, more under
 * QEMU TCG) plus one of its ticks (0.28 us for the PM timer, 0.84 us for
 * the PIT).  calibrate_sample() brackets each read of the reference
 * between two reads of the counter and keeps the narrowest of a few tries,
 * so an end is known to a fraction of one read.  A 1 ms window whose ends
 * are good to 0.1 us is good to 100 ppm, a PC crystal's own tolerance,
 * and costs 1 ms of boot, not 50; the boot's `tsc:` line prints the
 * spread of the runs, how well they really agreed.  When the runs
 * disagree by more than the caller needs (a loaded host, an SMI), the
 * window grows fivefold, to 5, 25 and then 50 ms, and the runs start over.
 * A stopwatch has no read to bracket (see run_against_stopwatch), so
 * against it every run takes the longest wait it can time (PIT channel 2:
 * 50 ms of the 54.9 ms its 16-bit count allows).
 *
 * Boot takes the short window; the TSC, the clocksource that keeps time,
 * is then measured again over a whole second by calibrate_refine() (the
 * timer in drivers/timer/tsc.c), to ~1 ppm of the reference, without any waiting:
 * the two ends are a sample kept at boot and one a second later.
 *
 * Why five runs and the median: a run disturbed once or twice (an SMI on
 * real hardware, the host preempting QEMU — common on a busy host) is
 * outvoted, and the spread of the middle three shows how far the
 * undisturbed runs disagree.  (Three runs with the full spread failed
 * calibration outright on a loaded 2-core test machine.)
 */
#include "errno.h"
#include "time/arch.h"
#include "calibrate_internal.h"

/* Reads of the reference per sample; the narrowest bracket is kept. */
#define CALIBRATE_SAMPLE_TRIES      4

/* calibrate_refine: the span must be long enough to beat the boot window
 * and short enough for the arithmetic below (counts * 10^9 < 2^64 needs
 * under ~18 s at 1 GHz), and the rate may move at most 1% (Linux's limit
 * for its own refinement): more means the reference wrapped, or it or the
 * counter is broken. */
#define CALIBRATE_REFINE_MIN_NS     (100 * NSEC_PER_MSEC)
#define CALIBRATE_REFINE_MAX_NS     (10 * NSEC_PER_SEC)
#define CALIBRATE_REFINE_MAX_PPM    10000

/* The fallback reference, if a driver offered one. */
static const struct calibration_stopwatch *stopwatch;

void calibrate_set_stopwatch(const struct calibration_stopwatch *sw)
{
	if (sw && (!sw->wait_us || sw->max_us < CALIBRATE_STOPWATCH_SHORT_DIV))
		panic("calibrate_set_stopwatch: no wait_us, or max_us under %u",
		      CALIBRATE_STOPWATCH_SHORT_DIV);
	stopwatch = sw;
}

/* The best continuous clocksource other than `self`, or NULL. */
struct clocksource *calibrate_best_reference(const struct clocksource *self)
{
	struct clocksource *best = NULL;
	for (struct clocksource *cs = clocksource_first(); cs; cs = cs->next) {
		if (cs == self || !(cs->flags & CLOCK_SOURCE_CONTINUOUS) ||
		    (cs->flags & CLOCK_SOURCE_UNSTABLE))
			continue;
		if (!best || cs->rating > best->rating)
			best = cs;
	}
	return best;
}

/* The counter's value at the instant the reference is read.  The
 * reference is read between two reads of the counter, so the midpoint of
 * those two is off by at most half their difference; of a few tries, the
 * narrowest bracket wins (an interrupt-free CPU can still be stalled: an
 * SMI, or the host descheduling QEMU between two reads). */
void calibrate_sample(struct clocksource *ref, counter_read_fn read, uint64_t mask,
                      uint64_t *ref_now, uint64_t *count_now)
{
	uint64_t best_width = UINT64_MAX;
	for (unsigned i = 0; i < CALIBRATE_SAMPLE_TRIES; i++) {
		uint64_t before = read();
		uint64_t r = ref->read(ref);
		uint64_t after = read();
		uint64_t width = (after - before) & mask;
		if (width < best_width) {
			best_width = width;
			*ref_now = r;
			*count_now = before + width / 2;
		}
	}
}

/* One window against a clocksource: wait until it has advanced by
 * window_us worth of its ticks; report counts and elapsed ns, and the
 * closing sample in *ref_end / *count_end. */
static int run_against_clocksource(struct clocksource *ref, counter_read_fn read,
                                   uint64_t mask, uint32_t window_us,
                                   uint64_t *counts, uint64_t *ns,
                                   uint64_t *ref_end, uint64_t *count_end)
{
	uint64_t window = ref->freq_hz * window_us / USEC_PER_SEC;
	uint64_t ref0, count0, ref1, count1;

	calibrate_sample(ref, read, mask, &ref0, &count0);
	for (uint32_t polls = 0; ; polls++) {
		ref1 = ref->read(ref);
		if (((ref1 - ref0) & ref->mask) >= window)
			break;
		if (polls == CALIBRATE_MAX_POLLS)
			return -ETIME;
	}
	calibrate_sample(ref, read, mask, &ref1, &count1);
	uint64_t ref_ticks = (ref1 - ref0) & ref->mask;
	if (ref_ticks > UINT64_MAX / NSEC_PER_SEC)
		return -EINVAL;         /* the reference ran for minutes: bogus */
	*ns = ref_ticks * NSEC_PER_SEC / ref->freq_hz;
	*counts = (count1 - count0) & mask;
	*ref_end = ref1;
	*count_end = count1;
	return 0;
}

/* One window on a stopwatch.  Every wait costs a little more than the
 * time asked for: on PIT channel 2, programming the channel first (five
 * port accesses, ~5 us on an ISA bus), and noticing OUT2 rise at the end
 * (one port read on hardware, longer and varying under QEMU TCG, where a
 * port read can wait for the emulator's lock).  That cost is the same for
 * a long and a short wait, so we time one of each and take the
 * difference: on the PIT, 45 ms of its time alone. */
static int run_against_stopwatch(const struct calibration_stopwatch *sw,
                                 counter_read_fn read, uint64_t mask,
                                 uint64_t *counts, uint64_t *ns)
{
	uint32_t short_us = sw->max_us / CALIBRATE_STOPWATCH_SHORT_DIV;
	uint64_t start = read();
	int rc_long = sw->wait_us(sw->max_us);
	uint64_t middle = read();
	int rc_short = sw->wait_us(short_us);
	uint64_t end = read();
	if (rc_long || rc_short)
		return -ETIME;
	uint64_t long_counts = (middle - start) & mask;
	uint64_t short_counts = (end - middle) & mask;
	if (short_counts >= long_counts)
		return -EINVAL;
	*counts = long_counts - short_counts;
	*ns = (uint64_t)(sw->max_us - short_us) * NSEC_PER_USEC;
	return 0;
}

static void sort_runs(uint64_t v[CALIBRATE_RUNS])
{
	for (unsigned i = 1; i < CALIBRATE_RUNS; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* The runs' median and the spread of the middle three into *cal. */
void calibrate_median_and_spread(uint64_t hz[CALIBRATE_RUNS], uint32_t window_us,
                                 struct calibration *cal)
{
	sort_runs(hz);
	cal->freq_hz = hz[CALIBRATE_RUNS / 2];
	cal->window_us = window_us;
	cal->spent_us += CALIBRATE_RUNS * window_us;
	/* The middle three: the fastest and slowest run may be disturbed. */
	uint64_t spread = hz[CALIBRATE_RUNS / 2 + 1] - hz[CALIBRATE_RUNS / 2 - 1];
	cal->spread_ppm = cal->freq_hz ? (uint32_t)MIN(spread * PARTS_PER_MILLION / cal->freq_hz,
	                                               (uint64_t)UINT32_MAX)
	                               : UINT32_MAX;
}

/* The last checks of a calibration that measured: a plausible rate, runs
 * that agree. */
int calibrate_check_result(uint64_t min_hz, uint64_t max_hz, struct calibration *cal)
{
	if (cal->freq_hz < min_hz || cal->freq_hz > max_hz) {
		cal->error = "rate outside the plausible range";
		return -EINVAL;
	}
	if (cal->spread_ppm > CALIBRATE_MAX_SPREAD_PPM) {
		cal->error = "the runs disagree";
		return -EINVAL;
	}
	return 0;
}

/* CALIBRATE_RUNS windows of window_us against ref, or if that is NULL
 * against sw; the median and spread into *cal. */
static int calibrate_runs(struct clocksource *ref, const struct calibration_stopwatch *sw,
                          counter_read_fn read, uint64_t mask,
                          uint32_t window_us, struct calibration *cal)
{
	uint64_t hz[CALIBRATE_RUNS];
	for (unsigned i = 0; i < CALIBRATE_RUNS; i++) {
		uint64_t counts, ns;
		int rc = ref ? run_against_clocksource(ref, read, mask, window_us, &counts, &ns,
		                                       &cal->ref_mark, &cal->count_mark)
		             : run_against_stopwatch(sw, read, mask, &counts, &ns);
		if (rc == -ETIME) {
			cal->error = "the reference stopped counting";
			return rc;
		}
		if (rc != 0 || ns == 0 || counts > UINT64_MAX / NSEC_PER_SEC) {
			cal->error = "the reference gave an impossible window";
			return -EINVAL;
		}
		hz[i] = counts * NSEC_PER_SEC / ns;
	}
	calibrate_median_and_spread(hz, window_us, cal);
	return 0;
}

int calibrate_counter(uint64_t (*read)(void), uint64_t mask,
                      const struct clocksource *self,
                      uint64_t min_hz, uint64_t max_hz, uint32_t want_ppm,
                      struct calibration *cal)
{
	struct clocksource *ref = calibrate_best_reference(self);
	const struct calibration_stopwatch *sw = stopwatch;
	*cal = (struct calibration){ .ref = ref ? ref->name : sw ? sw->name : "none",
	                             .ref_cs = ref };

	int rc;
	if (ref) {
		uint32_t window_us = CALIBRATE_WINDOW_MIN_US;
		for (;;) {
			rc = calibrate_runs(ref, NULL, read, mask, window_us, cal);
			if (rc || cal->spread_ppm <= want_ppm ||
			    window_us >= CALIBRATE_WINDOW_MAX_US)
				break;
			window_us = MIN(window_us * CALIBRATE_WINDOW_GROWTH, CALIBRATE_WINDOW_MAX_US);
		}
	} else if (sw) {
		/* The first wait runs the stopwatch's code for the first time
		 * (QEMU translates it, real CPUs miss in their caches): untimed. */
		sw->wait_us(sw->max_us / CALIBRATE_STOPWATCH_SHORT_DIV);
		rc = calibrate_runs(NULL, sw, read, mask, sw->max_us, cal);
	} else {
		cal->error = "no reference to measure against";
		return -ENODEV;
	}
	if (rc)
		return rc;
	return calibrate_check_result(min_hz, max_hz, cal);
}

int calibrate_refine(uint64_t (*read)(void), uint64_t mask,
                     const struct calibration *cal, struct refinement *out)
{
	struct clocksource *ref = cal->ref_cs;
	if (!ref || cal->freq_hz == 0)
		return -ENODEV;         /* a stopwatch: nothing to read passively */
	uint64_t ref_now, count_now;
	calibrate_sample(ref, read, mask, &ref_now, &count_now);
	uint64_t ref_ticks = (ref_now - cal->ref_mark) & ref->mask;
	uint64_t counts = (count_now - cal->count_mark) & mask;

	/* The span as the counter saw it, at its boot rate: if the reference
	 * could have wrapped in that time, its ticks cannot be trusted. */
	uint64_t span_ms = counts / (cal->freq_hz / MSEC_PER_SEC + 1);
	uint64_t ref_wrap_ms = ref->mask / (ref->freq_hz / MSEC_PER_SEC + 1);
	if (span_ms >= ref_wrap_ms / 2 || ref_ticks > UINT64_MAX / NSEC_PER_SEC)
		return -ERANGE;
	uint64_t span_ns = ref_ticks * NSEC_PER_SEC / ref->freq_hz;
	if (span_ns < CALIBRATE_REFINE_MIN_NS || span_ns > CALIBRATE_REFINE_MAX_NS)
		return -ERANGE;
	/* counts * 10^9 / span_ns, in two steps so nothing overflows: the
	 * remainder is below span_ns <= 10^10, and times 10^9 below 2^64. */
	uint64_t hz = counts / span_ns * NSEC_PER_SEC +
	              counts % span_ns * NSEC_PER_SEC / span_ns;
	int64_t ppm = ppm_diff(hz, cal->freq_hz);
	*out = (struct refinement){ .freq_hz = hz, .span_ns = span_ns, .change_ppm = (int32_t)ppm };
	if (ppm > CALIBRATE_REFINE_MAX_PPM || ppm < -CALIBRATE_REFINE_MAX_PPM)
		return -EINVAL;
	return 0;
}
