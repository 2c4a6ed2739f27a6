// SOURCES: kernel/time/calibrate.c kernel/time/calibrate_shared.c kernel/time/clocksource.c kernel/time/watchdog.c kernel/time/clockevents.c kernel/time/timekeeping.c tests/unit/host_arch.c tests/unit/time_test.c kernel/time/mult_shift.c kernel/lib/format.c
/* tests/unit/test_calibrate.c — calibrate_counter and calibrate_refine
 * (kernel/time/calibrate.c), and the jobs calibrate_offered runs together
 * (kernel/time/calibrate_shared.c), against a fake counter and fake
 * references.
 *
 * The fake world, against a clocksource: time stands still until the
 * reference is read.  Each read returns the reference's count and then
 * lets one of its ticks pass, in which the counter under test counts
 * `per_tick`; reads of the counter take no time.  So a counter counting k
 * per tick of a 1 MHz reference counts at exactly k MHz, and each expected
 * value below follows from the rates alone, not from re-running the code's
 * arithmetic.  Disturbances go where a busy host puts them: a stall in the
 * middle of a read, or counts gained while a run polls the reference.
 * (The reference is not tests/unit/time_test.h's fake_counter, whose count
 * the test sets: reading this one moves time.)
 *
 * The fake stopwatch: each wait lets the time asked for pass plus a fixed
 * overhead, while the counter counts at a rate the test sets run by run.
 *
 * calibrate_refine is checked in a frozen world (no read moves anything):
 * the test sets both counts and the calibration's marks by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "time/calibrate.h"
#include "time/clocksource.h"
#include "errno.h"
#include "host_test.h"
#include "time_test.h"

typedef unsigned __int128 u128;

#define MHZ             1000000ULL
#define GHZ             1000000000ULL
#define MASK_24         0xFFFFFFULL
#define MASK_32         0xFFFFFFFFULL
#define MASK_64         UINT64_MAX
#define HPET_HZ         14318180ULL     /* the usual HPET: the PC's 14.31818 MHz crystal */
#define PM_TIMER_HZ     3579545ULL      /* ACPI PM timer, by spec */

/* Windows against a clocksource, as include/time/calibrate.h promises. */
#define WINDOW_1MS      1000u
#define WINDOW_5MS      5000u
#define WINDOW_25MS     25000u
#define WINDOW_50MS     50000u

/* A run closes a few reads of the reference after its window: the samples
 * that bracket each end.  Bounds on a disturbed run's error allow this. */
#define SAMPLE_SLACK_TICKS  10

/* Any rate is plausible unless a test says otherwise. */
#define ANY_MIN_HZ      1
#define ANY_MAX_HZ      UINT64_MAX
#define EXACT_PPM       0               /* want the runs to agree exactly */

/* ---------------------------------------------------------------- the world */

static struct {
	uint64_t ref;               /* the reference's count, before its mask */
	uint64_t count;             /* the counter's count, before its mask */
	uint64_t count_mask;        /* the counter's width */
	uint64_t per_tick;          /* counter counts per tick of the reference */
	uint64_t count2, per_tick2; /* a second counter (64 bits), for shared windows */
	bool frozen;                /* reading the reference lets no time pass */

	/* Disturbances.  A run polls the reference between its two samples;
	 * stretch i of polling is disturbed if bit (i mod CALIBRATE_RUNS) of
	 * `disturbed` is set, so the same runs of every batch are hit. */
	unsigned disturbed;
	uint64_t gain;              /* the counter gains this many counts */
	uint64_t ref_leap;          /* the reference leaps this many ticks */
	uint64_t stall_ticks;       /* the first read of each closing sample stalls */

	/* What the fakes saw, to find the disturbances' places. */
	unsigned stretches;         /* polling stretches begun */
	bool counter_last;          /* the last read was the counter's */
	bool polling;               /* the reference was read twice in a row */
	bool closing;               /* the counter was read just after polling */
} w;

static void world_pass(uint64_t ticks)
{
	w.ref += ticks;
	w.count += ticks * w.per_tick;
	w.count2 += ticks * w.per_tick2;
}

/* A fresh world: both counts at the given starts, nothing disturbed. */
static void world_start(uint64_t per_tick, uint64_t ref_start, uint64_t count_start,
                        uint64_t count_mask)
{
	memset(&w, 0, sizeof(w));
	w.per_tick = per_tick;
	w.ref = ref_start;
	w.count = count_start;
	w.count_mask = count_mask;
	w.counter_last = true;
}

/* A read of either counter: polling the reference ends. */
static void counter_was_read(void)
{
	if (w.polling)
		w.closing = true;
	w.polling = false;
	w.counter_last = true;
}

static uint64_t fake_counter_read(void)
{
	counter_was_read();
	return w.count & w.count_mask;
}

static uint64_t fake_counter2_read(void)
{
	counter_was_read();
	return w.count2;
}

static uint64_t fake_ref_read(struct clocksource *cs)
{
	uint64_t value = w.ref & cs->mask;
	uint64_t stall = 0;
	if (w.closing) {
		stall = w.stall_ticks;
		w.closing = false;
	}
	if (!w.counter_last && !w.polling) {
		w.polling = true;
		if (w.disturbed & (1u << (w.stretches % CALIBRATE_RUNS))) {
			w.count += w.gain;
			w.ref += w.ref_leap;
		}
		w.stretches++;
	}
	w.counter_last = false;
	if (!w.frozen)
		world_pass(1 + stall);
	return value;
}

/* A reference clocksource reading the fake world, not yet registered. */
static void ref_init(struct clocksource *cs, const char *name, int rating, uint64_t hz,
                     uint64_t mask, uint32_t flags)
{
	fake_clocksource_init(cs, name, rating, hz, mask, fake_ref_read);
	cs->flags = flags;
}

static struct clocksource ref_cs;

/* The one reference most tests calibrate against, registered. */
static void register_ref(uint64_t hz, uint64_t mask)
{
	ref_init(&ref_cs, "fakeref", 250, hz, mask, CLOCK_SOURCE_CONTINUOUS);
	assert_int_equal(clocksource_register(&ref_cs), 0);
}

/* ------------------------------------------------------------ the stopwatch */

#define WATCH_MAX_US    20000u      /* not the PIT's 50 ms: taken from the ops */
#define WATCH_SHORT_US  (WATCH_MAX_US / CALIBRATE_STOPWATCH_SHORT_DIV)
#define WATCH_WAITS     (1 + 2 * CALIBRATE_RUNS)    /* one untimed, a pair per run */

static struct {
	uint64_t per_us[CALIBRATE_RUNS];    /* counter counts per us, run by run */
	uint32_t overhead_us;       /* every wait overruns by this */
	int answer;                 /* what every wait returns */
	unsigned runs;              /* long waits so far */
	unsigned waits;
	uint32_t asked[WATCH_WAITS];
} sw;

static int fake_wait_us(uint32_t us)
{
	if (sw.waits < WATCH_WAITS)
		sw.asked[sw.waits] = us;
	sw.waits++;
	if (us == WATCH_MAX_US)
		sw.runs++;
	uint64_t per_us = sw.per_us[sw.runs ? (sw.runs - 1) % CALIBRATE_RUNS : 0];
	w.count += per_us * (us + sw.overhead_us);
	return sw.answer;
}

static const struct calibration_stopwatch fake_stopwatch = {
	.name = "fakewatch",
	.max_us = WATCH_MAX_US,
	.wait_us = fake_wait_us,
};

/* Rates in MHz, run by run. */
static void watch_start(const uint64_t mhz[CALIBRATE_RUNS], uint32_t overhead_us)
{
	memset(&sw, 0, sizeof(sw));
	for (unsigned i = 0; i < CALIBRATE_RUNS; i++)
		sw.per_us[i] = mhz[i];
	sw.overhead_us = overhead_us;
	calibrate_set_stopwatch(&fake_stopwatch);
}

static int reset(void **state)
{
	(void)state;
	clock_registry_reset();
	calibrate_set_stopwatch(NULL);
	world_start(0, 0, 0, MASK_64);
	return 0;
}

/* ------------------------------------------------- against a clocksource */

/* A steady counter comes out exact, at the first window, whatever the two
 * rates: k counts per tick of an f Hz reference is k * f Hz.  The five
 * windows of 1 ms took 1 ms of the reference each, plus their samples. */
static void test_steady_counter_is_exact(void **state)
{
	(void)state;
	static const struct { uint64_t ref_hz, per_tick; } cases[] = {
		{ 1 * MHZ, 2400 },      /* a 2.4 GHz TSC against a 1 MHz reference */
		{ 25 * MHZ, 3 },        /* 75 MHz against 25 MHz */
		{ 100 * MHZ, 1 },       /* as fast as its reference */
		{ 1 * MHZ, 20000 },     /* 20 GHz, the TSC's upper bound */
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		reset(NULL);
		register_ref(cases[i].ref_hz, MASK_64);
		world_start(cases[i].per_tick, 0, 0, MASK_64);
		struct calibration cal;
		assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, ANY_MIN_HZ,
		                                   ANY_MAX_HZ, EXACT_PPM, &cal), 0);
		assert_int_equal(cal.freq_hz, cases[i].per_tick * cases[i].ref_hz);
		uint64_t window_ticks = cases[i].ref_hz * WINDOW_1MS / USEC_PER_SEC;
		assert_in_range(w.ref, CALIBRATE_RUNS * window_ticks,
		                CALIBRATE_RUNS * (window_ticks + SAMPLE_SLACK_TICKS));
		assert_int_equal(cal.spread_ppm, 0);
		assert_int_equal(cal.window_us, WINDOW_1MS);
		assert_int_equal(cal.spent_us, CALIBRATE_RUNS * WINDOW_1MS);
		assert_string_equal(cal.ref, "fakeref");
		assert_ptr_equal(cal.ref_cs, &ref_cs);
		assert_null(cal.error);
	}
}

/* A 32-bit counter (the LAPIC timer's width) and a 24-bit reference (the
 * PM timer's) both wrap during the runs: differences taken modulo each
 * width still give the exact rate. */
static void test_counter_and_reference_wrap(void **state)
{
	(void)state;
	register_ref(1 * MHZ, MASK_24);
	const uint64_t per_tick = 100;      /* 100 MHz: the 32-bit counter wraps in 43 s */
	world_start(per_tick, MASK_24 - 2000, MASK_32 - 150000, MASK_32);
	struct calibration cal;
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_32, NULL, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, EXACT_PPM, &cal), 0);
	assert_true(w.ref > MASK_24 && w.count > MASK_32);     /* both did wrap */
	assert_int_equal(cal.freq_hz, per_tick * MHZ);
	assert_int_equal(cal.spread_ppm, 0);
}

/* The host stalls the CPU for 50 ticks inside the first bracket of every
 * closing sample.  The narrowest bracket is kept, so nothing changes; the
 * stalled one would put the counter's value 25 ticks late at each close. */
static void test_stall_inside_a_bracket_is_ignored(void **state)
{
	(void)state;
	register_ref(1 * MHZ, MASK_64);
	world_start(1000, 0, 0, MASK_64);
	w.stall_ticks = 50;
	struct calibration cal;
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, EXACT_PPM, &cal), 0);
	assert_int_equal(cal.freq_hz, 1 * GHZ);
	assert_int_equal(cal.spread_ppm, 0);
}

/* Runs 2 and 4 of every five gain `gain` counts (an SMI that the counter
 * counts through).  Those two are the fastest, so the median is an
 * undisturbed run, exact; the spread of the middle three is one disturbed
 * run against the median: gain / (per_tick * ticks in its window), with
 * the window's ticks between window_us and window_us + SAMPLE_SLACK_TICKS
 * at 1 MHz.  The calibration's want_ppm decides where the window stops. */
static void calibrate_disturbed(uint64_t gain, uint32_t want_ppm, int want_rc,
                                uint32_t want_window_us, uint32_t want_spent_us)
{
	const uint64_t per_tick = 1000;     /* 1 GHz against 1 MHz */
	register_ref(1 * MHZ, MASK_64);
	world_start(per_tick, 0, 0, MASK_64);
	w.disturbed = (1u << 1) | (1u << 3);
	w.gain = gain;
	struct calibration cal;
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, want_ppm, &cal), want_rc);
	assert_int_equal(cal.freq_hz, 1 * GHZ);
	assert_int_equal(cal.window_us, want_window_us);
	assert_int_equal(cal.spent_us, want_spent_us);
	uint64_t most = gain * MHZ / (per_tick * want_window_us);
	uint64_t least = gain * MHZ / (per_tick * (want_window_us + SAMPLE_SLACK_TICKS));
	assert_in_range(cal.spread_ppm, least, most);
}

/* 300 counts: 300 ppm over 1 ms, more than the 100 wanted; 60 over 5 ms. */
static void test_window_grows_while_runs_disagree(void **state)
{
	(void)state;
	calibrate_disturbed(300, 100, 0, WINDOW_5MS, CALIBRATE_RUNS * (WINDOW_1MS + WINDOW_5MS));
}

/* 10000 counts: 200 ppm even over 50 ms, still over the 100 wanted; but
 * 50 ms is the last window, and 200 ppm is within the 1% allowed. */
static void test_window_stops_at_50ms(void **state)
{
	(void)state;
	calibrate_disturbed(10000, 100, 0, WINDOW_50MS,
	                    CALIBRATE_RUNS * (WINDOW_1MS + WINDOW_5MS + WINDOW_25MS + WINDOW_50MS));
}

/* 10^6 counts: 2% over 50 ms, beyond CALIBRATE_MAX_SPREAD_PPM: refused,
 * though the median is right. */
static void test_runs_that_disagree_are_refused(void **state)
{
	(void)state;
	calibrate_disturbed(1000000, 100, -EINVAL, WINDOW_50MS,
	                    CALIBRATE_RUNS * (WINDOW_1MS + WINDOW_5MS + WINDOW_25MS + WINDOW_50MS));
}

/* The plausible range is inclusive at both ends; outside it the rate is
 * still reported, for the driver's message. */
static void test_rate_outside_plausible_range(void **state)
{
	(void)state;
	static const struct { uint64_t min_hz, max_hz; int rc; } cases[] = {
		{ 1 * MHZ, 2 * GHZ, -EINVAL },                  /* faster than max */
		{ 3 * GHZ, 20 * GHZ, -EINVAL },                 /* slower than min */
		{ 2400 * MHZ, 2400 * MHZ, 0 },                  /* exactly both */
		{ 2400 * MHZ - 1, 2400 * MHZ + 1, 0 },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		reset(NULL);
		register_ref(1 * MHZ, MASK_64);
		world_start(2400, 0, 0, MASK_64);
		struct calibration cal;
		assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, cases[i].min_hz,
		                                   cases[i].max_hz, EXACT_PPM, &cal), cases[i].rc);
		assert_int_equal(cal.freq_hz, 2400 * MHZ);
		if (cases[i].rc)
			assert_string_equal(cal.error, "rate outside the plausible range");
		else
			assert_null(cal.error);
	}
}

/* The reference is the best-rated continuous clocksource that is neither
 * the counter itself nor flagged unstable. */
static void test_reference_choice(void **state)
{
	(void)state;
	static struct clocksource self, unstable, coarse, good, worse;
	ref_init(&self, "self", 300, 1 * MHZ, MASK_64, CLOCK_SOURCE_CONTINUOUS);
	ref_init(&unstable, "unstable", 280, 1 * MHZ, MASK_64, CLOCK_SOURCE_CONTINUOUS);
	ref_init(&coarse, "coarse", 260, 1 * MHZ, MASK_64, 0);
	ref_init(&worse, "worse", 150, 1 * MHZ, MASK_64, CLOCK_SOURCE_CONTINUOUS);
	ref_init(&good, "good", 200, 1 * MHZ, MASK_64, CLOCK_SOURCE_CONTINUOUS);
	struct clocksource *all[] = { &self, &unstable, &coarse, &worse, &good };
	for (unsigned i = 0; i < ARRAY_SIZE(all); i++)
		assert_int_equal(clocksource_register(all[i]), 0);
	clocksource_mark_unstable(&unstable, "test");
	world_start(1000, 0, 0, MASK_64);
	calibrate_set_stopwatch(&fake_stopwatch);       /* a clocksource beats it */
	struct calibration cal;
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, &self, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, EXACT_PPM, &cal), 0);
	assert_string_equal(cal.ref, "good");
	assert_ptr_equal(cal.ref_cs, &good);
	assert_int_equal(cal.freq_hz, 1 * GHZ);
}

/* A reference that never moves: the wait for it gives up. */
static void test_reference_stopped(void **state)
{
	(void)state;
	register_ref(1 * MHZ, MASK_64);
	world_start(1000, 0, 0, MASK_64);
	w.frozen = true;
	struct calibration cal;
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, EXACT_PPM, &cal), -ETIME);
	assert_string_equal(cal.error, "the reference stopped counting");
	assert_string_equal(cal.ref, "fakeref");
}

/* A reference that leaps 2^62 ticks, or a counter that leaps 2^62 counts,
 * in the first run: either window is impossible (its product with 10^9
 * cannot even be formed). */
static void test_impossible_window(void **state)
{
	(void)state;
	for (unsigned leap_ref = 0; leap_ref < 2; leap_ref++) {
		reset(NULL);
		register_ref(1 * MHZ, MASK_64);
		world_start(1000, 0, 0, MASK_64);
		w.disturbed = 1u << 0;
		if (leap_ref)
			w.ref_leap = 1ULL << 62;
		else
			w.gain = 1ULL << 62;
		struct calibration cal;
		assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, ANY_MIN_HZ,
		                                   ANY_MAX_HZ, EXACT_PPM, &cal), -EINVAL);
		assert_string_equal(cal.error, "the reference gave an impossible window");
	}
}

/* No continuous clocksource and no stopwatch: nothing to measure against. */
static void test_no_reference(void **state)
{
	(void)state;
	static struct clocksource coarse;
	ref_init(&coarse, "coarse", 110, 1 * MHZ, MASK_64, 0);
	assert_int_equal(clocksource_register(&coarse), 0);
	struct calibration cal;
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, EXACT_PPM, &cal), -ENODEV);
	assert_string_equal(cal.ref, "none");
	assert_string_equal(cal.error, "no reference to measure against");
	assert_null(cal.ref_cs);
}

/* ------------------------------------------------------ against a stopwatch */

/* With only a non-continuous clocksource (the PIT's) the stopwatch is the
 * reference: one untimed short wait, then per run a wait of max_us and one
 * of a tenth of it.  Every wait overruns by 7 us, which cancels.  The runs,
 * in MHz, arrive out of order; sorted they are 1990 1999 2000 2001 2004:
 * the median is 2000 MHz, the middle three span 2 MHz, 1000 ppm of it. */
static void test_stopwatch_median_and_spread(void **state)
{
	(void)state;
	static struct clocksource coarse;
	ref_init(&coarse, "coarse", 110, 1 * MHZ, MASK_64, 0);
	assert_int_equal(clocksource_register(&coarse), 0);
	static const uint64_t mhz[CALIBRATE_RUNS] = { 2004, 1990, 2000, 2001, 1999 };
	watch_start(mhz, 7);
	struct calibration cal;
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, EXACT_PPM, &cal), 0);
	assert_int_equal(cal.freq_hz, 2000 * MHZ);
	assert_int_equal(cal.spread_ppm, 1000);
	assert_int_equal(cal.window_us, WATCH_MAX_US);
	assert_int_equal(cal.spent_us, CALIBRATE_RUNS * WATCH_MAX_US);
	assert_string_equal(cal.ref, "fakewatch");
	assert_null(cal.ref_cs);
	assert_int_equal(sw.waits, WATCH_WAITS);
	assert_int_equal(sw.asked[0], WATCH_SHORT_US);
	for (unsigned i = 1; i < WATCH_WAITS; i++)
		assert_int_equal(sw.asked[i], i % 2 ? WATCH_MAX_US : WATCH_SHORT_US);
}

/* Sorted 1990 1995 2000 2030 2040: the middle three span 35 MHz, 17500
 * ppm of the median, beyond the 1% allowed. */
static void test_stopwatch_runs_disagree(void **state)
{
	(void)state;
	static const uint64_t mhz[CALIBRATE_RUNS] = { 2040, 1990, 2030, 1995, 2000 };
	watch_start(mhz, 0);
	struct calibration cal;
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, EXACT_PPM, &cal), -EINVAL);
	assert_int_equal(cal.freq_hz, 2000 * MHZ);
	assert_int_equal(cal.spread_ppm, 17500);
	assert_string_equal(cal.error, "the runs disagree");
}

/* A 32-bit counter wrapping during the runs. */
static void test_stopwatch_counter_wraps(void **state)
{
	(void)state;
	static const uint64_t mhz[CALIBRATE_RUNS] = { 100, 100, 100, 100, 100 };
	watch_start(mhz, 3);
	world_start(0, 0, MASK_32 - 1000000, MASK_32);
	struct calibration cal;
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_32, NULL, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, EXACT_PPM, &cal), 0);
	assert_true(w.count > MASK_32);
	assert_int_equal(cal.freq_hz, 100 * MHZ);
}

/* A stopwatch whose waits never end, and a counter that does not count
 * (its short wait is no shorter than its long one). */
static void test_stopwatch_errors(void **state)
{
	(void)state;
	static const uint64_t mhz[CALIBRATE_RUNS] = { 100, 100, 100, 100, 100 };
	watch_start(mhz, 0);
	sw.answer = -ETIME;
	struct calibration cal;
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, EXACT_PPM, &cal), -ETIME);
	assert_string_equal(cal.error, "the reference stopped counting");

	static const uint64_t stopped[CALIBRATE_RUNS] = { 0 };
	watch_start(stopped, 0);
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, EXACT_PPM, &cal), -EINVAL);
	assert_string_equal(cal.error, "the reference gave an impossible window");
}

/* A stopwatch that cannot time a run is refused when offered. */
static void test_stopwatch_refused(void **state)
{
	(void)state;
	static const struct calibration_stopwatch too_short = {
		.name = "short", .max_us = CALIBRATE_STOPWATCH_SHORT_DIV - 1, .wait_us = fake_wait_us,
	};
	static const struct calibration_stopwatch no_wait = { .name = "none", .max_us = WATCH_MAX_US };
	expect_panic(calibrate_set_stopwatch(&too_short), "calibrate_set_stopwatch:");
	expect_panic(calibrate_set_stopwatch(&no_wait), "calibrate_set_stopwatch:");
}

/* ------------------------------------------------------------ calibrate_refine */

/* The calibration of a counter at boot_hz against ref, ending at the marks;
 * the world frozen with `ticks` and `counts` more on them. */
static struct calibration refine_setup(struct clocksource *ref, uint64_t boot_hz,
                                       uint64_t ref_mark, uint64_t count_mark,
                                       uint64_t ticks, uint64_t counts, uint64_t count_mask)
{
	world_start(0, ref_mark + ticks, count_mark + counts, count_mask);
	w.frozen = true;
	return (struct calibration){ .freq_hz = boot_hz, .ref = ref ? ref->name : "fakewatch",
	                             .ref_cs = ref, .ref_mark = ref_mark & (ref ? ref->mask : 0),
	                             .count_mark = count_mark & count_mask };
}

/* One second of a 32-bit HPET (14318180 ticks), both it and a 64-bit
 * counter wrapping in between; the counter made 2400012345 counts in it,
 * 12345 Hz or 5.14 ppm above its boot rate (truncated: 5); the other way
 * -5. */
static void test_refine_exact(void **state)
{
	(void)state;
	static struct clocksource hpet;
	ref_init(&hpet, "hpet", 250, HPET_HZ, MASK_32, CLOCK_SOURCE_CONTINUOUS);
	static const struct { uint64_t counts; int32_t ppm; } cases[] = {
		{ 2400012345ULL, 5 },
		{ 2399987655ULL, -5 },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		struct calibration cal = refine_setup(&hpet, 2400 * MHZ, MASK_32 - 1000, MASK_64 - 1000,
		                                      HPET_HZ, cases[i].counts, MASK_64);
		struct refinement r;
		assert_int_equal(calibrate_refine(fake_counter_read, MASK_64, &cal, &r), 0);
		assert_int_equal(r.freq_hz, cases[i].counts);
		assert_int_equal(r.span_ns, NSEC_PER_SEC);
		assert_int_equal(r.change_ppm, cases[i].ppm);
	}
}

/* A 20 GHz counter over 7.777777 s: counts * 10^9 is beyond 2^64, yet the
 * rate is exact (checked against 128-bit arithmetic). */
static void test_refine_without_overflow(void **state)
{
	(void)state;
	static struct clocksource ref;
	ref_init(&ref, "fakeref", 250, 1 * MHZ, MASK_64, CLOCK_SOURCE_CONTINUOUS);
	const uint64_t ticks = 7777777, counts = 155555555555ULL;
	const uint64_t span_ns = ticks * (NSEC_PER_SEC / MHZ);
	assert_true((u128)counts * NSEC_PER_SEC > UINT64_MAX);
	struct calibration cal = refine_setup(&ref, 20 * GHZ, 0, 0, ticks, counts, MASK_64);
	struct refinement r;
	assert_int_equal(calibrate_refine(fake_counter_read, MASK_64, &cal, &r), 0);
	assert_int_equal(r.span_ns, span_ns);
	assert_int_equal(r.freq_hz, (uint64_t)((u128)counts * NSEC_PER_SEC / span_ns));
	assert_int_equal(r.change_ppm, 0);
}

/* The span must be 0.1 to 10 s (1 MHz reference, 1 GHz counter).  The
 * last case lasts 5.1 hours, so its ticks times 10^9 pass 2^64; what is
 * left, 1.0000003 * 10^15, would pass for one second if not refused. */
#define TICKS_PAST_2_64_NS  (18446744074ULL + 1000000)   /* 2^64 / 10^9, rounded up, + 1 s */
static void test_refine_span_limits(void **state)
{
	(void)state;
	static struct clocksource ref;
	ref_init(&ref, "fakeref", 250, 1 * MHZ, MASK_64, CLOCK_SOURCE_CONTINUOUS);
	static const struct { uint64_t ticks; int rc; } cases[] = {
		{ 99999, -ERANGE },         /* 99.999 ms */
		{ 100000, 0 },              /* 100 ms */
		{ 10000000, 0 },            /* 10 s */
		{ 10000001, -ERANGE },
		{ TICKS_PAST_2_64_NS, -ERANGE },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		/* The last: counts for the one second it would pass for. */
		uint64_t counts = cases[i].ticks < TICKS_PAST_2_64_NS ? cases[i].ticks * 1000 : 1 * GHZ;
		struct calibration cal = refine_setup(&ref, 1 * GHZ, 0, 0, cases[i].ticks, counts,
		                                      MASK_64);
		struct refinement r;
		assert_int_equal(calibrate_refine(fake_counter_read, MASK_64, &cal, &r), cases[i].rc);
		if (cases[i].rc == 0)
			assert_int_equal(r.freq_hz, 1 * GHZ);
	}
}

/* A 24-bit PM timer wraps every 2^24 / 3579545 = 4.687 s.  Once the
 * counter says more than half of that went by, a wrap could hide in the
 * reference's count: 2.3 s is measured, 2.4 s and 5 s are refused (at 5 s
 * the masked count would claim 0.313 s, and a rate 16 times too high). */
static void test_refine_refuses_when_the_reference_may_wrap(void **state)
{
	(void)state;
	static struct clocksource pm;
	ref_init(&pm, "acpi_pm", 200, PM_TIMER_HZ, MASK_24, CLOCK_SOURCE_CONTINUOUS);
	static const struct { uint64_t ms; int rc; } cases[] = {
		{ 2300, 0 }, { 2400, -ERANGE }, { 5000, -ERANGE },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t ticks = PM_TIMER_HZ * cases[i].ms / MSEC_PER_SEC;
		struct calibration cal = refine_setup(&pm, 1 * GHZ, 0, 0, ticks,
		                                      cases[i].ms * (GHZ / MSEC_PER_SEC), MASK_64);
		struct refinement r;
		assert_int_equal(calibrate_refine(fake_counter_read, MASK_64, &cal, &r), cases[i].rc);
	}
}

/* The rate may move 1% (10000 ppm) either way, not more; beyond, out says
 * to what. */
static void test_refine_moved_too_far(void **state)
{
	(void)state;
	static struct clocksource ref;
	ref_init(&ref, "fakeref", 250, 1 * MHZ, MASK_64, CLOCK_SOURCE_CONTINUOUS);
	static const struct { uint64_t counts; int32_t ppm; int rc; } cases[] = {
		{ 1010000000, 10000, 0 },
		{ 1010001000, 10001, -EINVAL },
		{ 990000000, -10000, 0 },
		{ 989999000, -10001, -EINVAL },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		struct calibration cal = refine_setup(&ref, 1 * GHZ, 0, 0, 1 * MHZ, cases[i].counts,
		                                      MASK_64);
		struct refinement r;
		assert_int_equal(calibrate_refine(fake_counter_read, MASK_64, &cal, &r), cases[i].rc);
		assert_int_equal(r.freq_hz, cases[i].counts);
		assert_int_equal(r.change_ppm, cases[i].ppm);
	}
}

/* Nothing to refine against: a stopwatch, or no boot rate. */
static void test_refine_without_reference(void **state)
{
	(void)state;
	static struct clocksource ref;
	ref_init(&ref, "fakeref", 250, 1 * MHZ, MASK_64, CLOCK_SOURCE_CONTINUOUS);
	struct refinement r;
	struct calibration cal = refine_setup(NULL, 1 * GHZ, 0, 0, 1 * MHZ, 1 * GHZ, MASK_64);
	assert_int_equal(calibrate_refine(fake_counter_read, MASK_64, &cal, &r), -ENODEV);
	cal = refine_setup(&ref, 0, 0, 0, 1 * MHZ, 1 * GHZ, MASK_64);
	assert_int_equal(calibrate_refine(fake_counter_read, MASK_64, &cal, &r), -ENODEV);
}

/* Boot calibration, then a second later its refinement, as drivers/timer/
 * tsc.c does: the marks the first leaves are where the second starts. */
static void test_refine_after_calibration(void **state)
{
	(void)state;
	register_ref(1 * MHZ, MASK_64);
	world_start(1000, 0, 0, MASK_64);
	struct calibration cal;
	assert_int_equal(calibrate_counter(fake_counter_read, MASK_64, NULL, ANY_MIN_HZ,
	                                   ANY_MAX_HZ, EXACT_PPM, &cal), 0);
	world_pass(1 * MHZ);
	struct refinement r;
	assert_int_equal(calibrate_refine(fake_counter_read, MASK_64, &cal, &r), 0);
	assert_int_equal(r.freq_hz, 1 * GHZ);
	assert_int_equal(r.change_ppm, 0);
	assert_in_range(r.span_ns, NSEC_PER_SEC,
	                NSEC_PER_SEC + SAMPLE_SLACK_TICKS * (NSEC_PER_SEC / MHZ));
}

/* ------------------------------------------------- several counters at once */

/* The jobs' done() calls, in order. */
static const char *done_order[4];
static unsigned done_calls;

static void record_done(struct calibration_job *job)
{
	if (done_calls < ARRAY_SIZE(done_order))
		done_order[done_calls] = job->name;
	done_calls++;
}

static void job_init(struct calibration_job *j, const char *name, uint64_t (*read)(void),
                     uint64_t mask, const char *against)
{
	memset(j, 0, sizeof(*j));
	j->name = name;
	j->read = read;
	j->mask = mask;
	j->against = against;
	j->min_hz = ANY_MIN_HZ;
	j->max_hz = ANY_MAX_HZ;
	j->want_ppm = EXACT_PPM;
	j->done = record_done;
	done_calls = 0;
}

/* Two counters in the same five windows: each exact, one window's worth
 * of the reference in all (not two), done() in the order offered. */
static void test_shared_windows_measure_each_counter(void **state)
{
	(void)state;
	register_ref(1 * MHZ, MASK_64);
	world_start(3, 0, 0, MASK_32);
	w.per_tick2 = 7;
	struct calibration_job a, b;
	job_init(&a, "a", fake_counter_read, MASK_32, NULL);
	job_init(&b, "b", fake_counter2_read, MASK_64, NULL);
	calibrate_offer(&a);
	calibrate_offer(&b);
	assert_int_equal(calibrate_offered(), 2);
	assert_int_equal(done_calls, 2);
	assert_string_equal(done_order[0], "a");
	assert_string_equal(done_order[1], "b");
	assert_int_equal(a.rc, 0);
	assert_int_equal(b.rc, 0);
	assert_int_equal(a.cal.freq_hz, 3 * MHZ);
	assert_int_equal(b.cal.freq_hz, 7 * MHZ);
	assert_int_equal(a.cal.spread_ppm, 0);
	assert_int_equal(b.cal.spread_ppm, 0);
	assert_string_equal(b.cal.ref, "fakeref");
	assert_ptr_equal(b.cal.ref_cs, &ref_cs);
	assert_int_equal(b.cal.spent_us, CALIBRATE_RUNS * WINDOW_1MS);
	uint64_t window_ticks = 1 * MHZ * WINDOW_1MS / USEC_PER_SEC;
	assert_in_range(w.ref, CALIBRATE_RUNS * window_ticks,
	                CALIBRATE_RUNS * (window_ticks + 2 * SAMPLE_SLACK_TICKS));
	/* Nothing left offered. */
	assert_int_equal(calibrate_offered(), 0);
}

/* The leader's counter as a clocksource (no time passes reading it). */
static uint64_t lead_read(struct clocksource *cs)
{
	(void)cs;
	return fake_counter_read();
}

/* A follower is measured against its leader's counter: its rate is the
 * ratio of the two times the leader's rate, exact, and its reference is
 * the leader's clocksource (what it follows when that is refined). */
static void test_a_follower_is_measured_against_its_leader(void **state)
{
	(void)state;
	register_ref(1 * MHZ, MASK_64);
	world_start(3, 0, 0, MASK_64);
	w.per_tick2 = 7;
	struct clocksource lead_cs = { .name = "lead", .read = lead_read, .mask = MASK_64 };
	struct calibration_job lead, follower;
	job_init(&follower, "follower", fake_counter2_read, MASK_64, "lead");
	job_init(&lead, "lead", fake_counter_read, MASK_64, NULL);
	lead.self = &lead_cs;
	calibrate_offer(&follower);     /* offered first, still computed second */
	calibrate_offer(&lead);
	assert_int_equal(calibrate_offered(), 2);
	assert_int_equal(lead.rc, 0);
	assert_int_equal(follower.rc, 0);
	assert_int_equal(lead.cal.freq_hz, 3 * MHZ);
	assert_int_equal(follower.cal.freq_hz, 7 * MHZ);
	assert_string_equal(follower.cal.ref, "lead");
	assert_ptr_equal(follower.cal.ref_cs, &lead_cs);
	assert_string_equal(lead.cal.ref, "fakeref");
	assert_string_equal(done_order[0], "follower");
}

/* One job's runs disagree (counter 1 gains 300 counts in runs 2 and 4:
 * 300 ppm over 1 ms, the 100 it wants): the windows grow for every job,
 * and the steady one stays exact. */
static void test_windows_grow_for_the_job_that_wants_it(void **state)
{
	(void)state;
	register_ref(1 * MHZ, MASK_64);
	world_start(1000, 0, 0, MASK_64);
	w.per_tick2 = 5;
	w.disturbed = (1u << 1) | (1u << 3);
	w.gain = 300;
	struct calibration_job a, b;
	job_init(&a, "a", fake_counter_read, MASK_64, NULL);
	a.want_ppm = 100;
	job_init(&b, "b", fake_counter2_read, MASK_64, NULL);
	calibrate_offer(&a);
	calibrate_offer(&b);
	calibrate_offered();
	assert_int_equal(a.rc, 0);
	assert_int_equal(b.rc, 0);
	assert_int_equal(a.cal.freq_hz, 1 * GHZ);
	assert_in_range(a.cal.spread_ppm, 1, 100);
	assert_int_equal(a.cal.window_us, WINDOW_5MS);
	assert_int_equal(b.cal.window_us, WINDOW_5MS);
	assert_int_equal(b.cal.freq_hz, 5 * MHZ);
	assert_int_equal(b.cal.spent_us, CALIBRATE_RUNS * (WINDOW_1MS + WINDOW_5MS));
}

/* The leader fails (its rate outside its range): the follower is measured
 * again alone, against the best reference, and still comes out right. */
static void test_a_follower_of_a_failed_leader_is_measured_alone(void **state)
{
	(void)state;
	register_ref(1 * MHZ, MASK_64);
	world_start(3, 0, 0, MASK_64);
	w.per_tick2 = 7;
	struct clocksource lead_cs = { .name = "lead", .read = lead_read, .mask = MASK_64 };
	struct calibration_job lead, follower;
	job_init(&lead, "lead", fake_counter_read, MASK_64, NULL);
	lead.self = &lead_cs;
	lead.min_hz = 4 * MHZ;
	job_init(&follower, "follower", fake_counter2_read, MASK_64, "lead");
	calibrate_offer(&lead);
	calibrate_offer(&follower);
	calibrate_offered();
	assert_int_equal(lead.rc, -EINVAL);
	assert_string_equal(lead.cal.error, "rate outside the plausible range");
	assert_int_equal(follower.rc, 0);
	assert_int_equal(follower.cal.freq_hz, 7 * MHZ);
	assert_string_equal(follower.cal.ref, "fakeref");
}

/* No clocksource to share: each job alone on the stopwatch, in order. */
static void test_without_a_shared_reference_each_runs_alone(void **state)
{
	(void)state;
	static const uint64_t mhz[CALIBRATE_RUNS] = { 50, 50, 50, 50, 50 };
	watch_start(mhz, 0);
	struct calibration_job a, b;
	job_init(&a, "a", fake_counter_read, MASK_64, NULL);
	job_init(&b, "b", fake_counter_read, MASK_64, "a");
	w.count_mask = MASK_64;
	calibrate_offer(&a);
	calibrate_offer(&b);
	assert_int_equal(calibrate_offered(), 2);
	assert_string_equal(done_order[0], "a");
	assert_string_equal(done_order[1], "b");
	assert_int_equal(a.cal.freq_hz, 50 * MHZ);
	assert_int_equal(b.cal.freq_hz, 50 * MHZ);
	assert_string_equal(b.cal.ref, "fakewatch");
	assert_int_equal(sw.runs, 2 * CALIBRATE_RUNS);
}

static void test_a_job_offered_twice_panics(void **state)
{
	(void)state;
	struct calibration_job a;
	job_init(&a, "a", fake_counter_read, MASK_64, NULL);
	calibrate_offer(&a);
	expect_panic(calibrate_offer(&a), "calibrate_offer:");
	calibrate_offered();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_steady_counter_is_exact, reset),
		cmocka_unit_test_setup(test_counter_and_reference_wrap, reset),
		cmocka_unit_test_setup(test_stall_inside_a_bracket_is_ignored, reset),
		cmocka_unit_test_setup(test_window_grows_while_runs_disagree, reset),
		cmocka_unit_test_setup(test_window_stops_at_50ms, reset),
		cmocka_unit_test_setup(test_runs_that_disagree_are_refused, reset),
		cmocka_unit_test_setup(test_rate_outside_plausible_range, reset),
		cmocka_unit_test_setup(test_reference_choice, reset),
		cmocka_unit_test_setup(test_reference_stopped, reset),
		cmocka_unit_test_setup(test_impossible_window, reset),
		cmocka_unit_test_setup(test_no_reference, reset),
		cmocka_unit_test_setup(test_stopwatch_median_and_spread, reset),
		cmocka_unit_test_setup(test_stopwatch_runs_disagree, reset),
		cmocka_unit_test_setup(test_stopwatch_counter_wraps, reset),
		cmocka_unit_test_setup(test_stopwatch_errors, reset),
		cmocka_unit_test_setup(test_stopwatch_refused, reset),
		cmocka_unit_test_setup(test_refine_exact, reset),
		cmocka_unit_test_setup(test_refine_without_overflow, reset),
		cmocka_unit_test_setup(test_refine_span_limits, reset),
		cmocka_unit_test_setup(test_refine_refuses_when_the_reference_may_wrap, reset),
		cmocka_unit_test_setup(test_refine_moved_too_far, reset),
		cmocka_unit_test_setup(test_refine_without_reference, reset),
		cmocka_unit_test_setup(test_refine_after_calibration, reset),
		cmocka_unit_test_setup(test_shared_windows_measure_each_counter, reset),
		cmocka_unit_test_setup(test_a_follower_is_measured_against_its_leader, reset),
		cmocka_unit_test_setup(test_windows_grow_for_the_job_that_wants_it, reset),
		cmocka_unit_test_setup(test_a_follower_of_a_failed_leader_is_measured_alone, reset),
		cmocka_unit_test_setup(test_without_a_shared_reference_each_runs_alone, reset),
		cmocka_unit_test_setup(test_a_job_offered_twice_panics, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
