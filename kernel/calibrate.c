/* kernel/calibrate.c — how fast does this counter count?
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
 *   2. PIT channel 2 as a stopwatch (pit_ch2_wait_us), on machines without
 *      either (isapc); see run_against_pit for how its overheads cancel.
 *
 * Why a 50 ms window: each end of the window is uncertain by about one
 * read of the reference (up to ~1 us for a port or MMIO read on real
 * hardware) plus one of its ticks (0.28 us for the PM timer, 0.84 us for
 * the PIT); over 50 ms that is ~40 ppm, below a PC crystal's own tolerance
 * (50-100 ppm).  A longer window gains little and delays boot (two counters
 * x five runs = 500 ms already), and 50 ms is about the most PIT channel 2
 * can time (65535 ticks = 54.9 ms), so all references share one window.
 *
 * Why five runs and the median: a run disturbed once or twice (an SMI on
 * real hardware, the host preempting QEMU — common on a busy host) is
 * outvoted, and the spread of the middle three shows how far the
 * undisturbed runs disagree.  (Three runs with the full spread failed
 * calibration outright on a loaded 2-core test machine.)
 */
#include "timer_hw.h"
#include "errno.h"
#include "time/clocksource.h"

#define CALIBRATE_RUNS      5
#define PARTS_PER_MILLION   1000000ULL

/* The short wait subtracted from each PIT window (see run_against_pit). */
#define CALIBRATE_PIT_SHORT_US  (CALIBRATE_WINDOW_US / 10)

/* A wait for the reference gives up after this many polls.  At 5 ns per
 * poll (a TSC read) 2^26 polls are 0.3 s, several windows; at 1 us (a port
 * read) about a minute, the price of a reference that stopped dead. */
#define CALIBRATE_MAX_POLLS (1u << 26)

typedef uint64_t (*counter_read_fn)(void);

/* The best continuous clocksource other than `self`, or NULL. */
static struct clocksource *best_reference(const struct clocksource *self)
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
 * those two is off by at most half their difference. */
static void sample(struct clocksource *ref, counter_read_fn read, uint64_t mask,
                   uint64_t *ref_now, uint64_t *count_now)
{
	uint64_t before = read();
	*ref_now = ref->read(ref);
	uint64_t after = read();
	*count_now = before + ((after - before) & mask) / 2;
}

/* One window against a clocksource: wait until it has advanced by
 * CALIBRATE_WINDOW_US worth of its ticks; report counts and elapsed ns. */
static int run_against_clocksource(struct clocksource *ref, counter_read_fn read,
                                   uint64_t mask, uint64_t *counts, uint64_t *ns)
{
	uint64_t window = ref->freq_hz * CALIBRATE_WINDOW_US / USEC_PER_SEC;
	uint64_t ref0, count0, ref1, count1;

	sample(ref, read, mask, &ref0, &count0);
	for (uint32_t polls = 0; ; polls++) {
		sample(ref, read, mask, &ref1, &count1);
		if (((ref1 - ref0) & ref->mask) >= window)
			break;
		if (polls == CALIBRATE_MAX_POLLS)
			return -ETIME;
	}
	uint64_t ref_ticks = (ref1 - ref0) & ref->mask;
	if (ref_ticks > UINT64_MAX / NSEC_PER_SEC)
		return -EINVAL;         /* the reference ran for minutes: bogus */
	*ns = ref_ticks * NSEC_PER_SEC / ref->freq_hz;
	*counts = (count1 - count0) & mask;
	return 0;
}

/* One window on PIT channel 2.  Every wait costs a little more than the
 * time asked for: programming the channel first (five port accesses, ~5 us
 * on an ISA bus), and noticing OUT2 rise at the end (one port read on
 * hardware, 3-16 us under QEMU TCG, where a port read can wait for the
 * emulator's lock).  That cost is the same for a long and a short wait, so
 * we time one of each and take the difference: 45 ms of PIT time alone. */
static int run_against_pit(counter_read_fn read, uint64_t mask,
                           uint64_t *counts, uint64_t *ns)
{
	uint64_t start = read();
	int rc_long = pit_ch2_wait_us(CALIBRATE_WINDOW_US);
	uint64_t middle = read();
	int rc_short = pit_ch2_wait_us(CALIBRATE_PIT_SHORT_US);
	uint64_t end = read();
	if (rc_long || rc_short)
		return -ETIME;
	uint64_t long_counts = (middle - start) & mask;
	uint64_t short_counts = (end - middle) & mask;
	if (short_counts >= long_counts)
		return -EINVAL;
	*counts = long_counts - short_counts;
	*ns = (CALIBRATE_WINDOW_US - CALIBRATE_PIT_SHORT_US) * NSEC_PER_USEC;
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

int calibrate_counter(uint64_t (*read)(void), uint64_t mask,
                      const struct clocksource *self,
                      uint64_t min_hz, uint64_t max_hz, struct calibration *cal)
{
	struct clocksource *ref = best_reference(self);
	uint64_t hz[CALIBRATE_RUNS];

	*cal = (struct calibration){ .ref = ref ? ref->name : "pit" };
	/* The first wait on the PIT runs code for the first time (QEMU
	 * translates it, real CPUs miss in their caches): do it untimed. */
	if (!ref)
		pit_ch2_wait_us(CALIBRATE_PIT_SHORT_US);
	for (unsigned i = 0; i < CALIBRATE_RUNS; i++) {
		uint64_t counts, ns;
		int rc = ref ? run_against_clocksource(ref, read, mask, &counts, &ns)
		             : run_against_pit(read, mask, &counts, &ns);
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
	sort_runs(hz);
	cal->freq_hz = hz[CALIBRATE_RUNS / 2];
	if (cal->freq_hz < min_hz || cal->freq_hz > max_hz) {
		cal->error = "rate outside the plausible range";
		return -EINVAL;
	}
	/* The middle three: the fastest and slowest run may be disturbed. */
	cal->spread_ppm = (uint32_t)((hz[CALIBRATE_RUNS / 2 + 1] - hz[CALIBRATE_RUNS / 2 - 1]) *
	                             PARTS_PER_MILLION / cal->freq_hz);
	if (cal->spread_ppm > CALIBRATE_MAX_SPREAD_PPM) {
		cal->error = "the runs disagree";
		return -EINVAL;
	}
	return 0;
}
