// SOURCES: kernel/time/timekeeping.c kernel/time/clocksource.c kernel/time/watchdog.c kernel/time/clockevents.c tests/unit/host_arch.c tests/unit/time_test.c kernel/time/mult_shift.c kernel/lib/format.c
/* tests/unit/test_timekeeping.c — ktime across counter wraps and switches.
 *
 * Fake counters of 16, 24, 32 and 64 bits start just below their wrap and
 * advance in random steps smaller than max_cycles, with timekeeping_update()
 * between steps, as the tick would.  ktime_get_ns() must equal the true
 * elapsed time within the conversion error of mult/shift, never go
 * backwards, and not jump when the clocksource or its rate changes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "time/clocksource.h"
#include "time/timekeeping.h"
#include "errno.h"
#include "time_test.h"


typedef unsigned __int128 u128;

#include "host_test.h"

static uint64_t rnd_below(uint64_t n) { return n ? rnd64() % n : 0; }

/* Before any counter exists time stands at 0 and nothing can wrap.  This
 * must run first: timekeeping has no reset, only a fresh init. */
static void test_before_any_clocksource(void **state)
{
	(void)state;
	assert_true(ktime_get_ns() == 0);
	timekeeping_update();
	assert_true(ktime_get_ns() == 0);
	assert_true(timekeeping_max_idle_ns() == UINT64_MAX);
	assert_false(host_irqs_disabled);
}

/* The conversion error per cycle of a counter's mult/shift, in ns. */
static long double ns_error_per_cycle(const struct clocksource *cs)
{
	long double exact = (long double)NSEC_PER_SEC / (long double)cs->freq_hz;
	long double approx = (long double)cs->mult / (long double)((u128)1 << cs->shift);
	long double d = approx - exact;
	return d < 0 ? -d : d;
}

static void check_wrap_accumulation(uint64_t freq, unsigned bits, bool masked_read, uint64_t seed)
{
	static struct fake_counter f;
	clock_registry_reset();
	rng_state = seed;
	fake_counter_init(&f, "fake", 100, freq, bits);
	f.masked_read = masked_read;
	f.value = f.cs.mask - rnd_below(1000);     /* start just before the wrap */
	assert_int_equal(clocksource_register(&f.cs), 0);
	assert_ptr_equal(clocksource_current(), &f.cs);
	assert_true(ktime_get_ns() == 0);

	const long double per_cycle = ns_error_per_cycle(&f.cs);
	uint64_t total = 0;             /* cycles since init, the truth */
	uint64_t wraps_seen = 0, last_ns = 0;
	for (int i = 0; i < 3000; i++) {
		/* Steps up to max_cycles - 1; now and then a whole small one. */
		uint64_t step = (i % 5 == 0) ? rnd_below(100) : rnd_below(f.cs.max_cycles);
		uint64_t before = f.value & f.cs.mask;
		f.value += step;
		total += step;
		if ((f.value & f.cs.mask) < before)
			wraps_seen++;

		/* Read before the fold too: the unfolded path with a large delta. */
		for (int pass = 0; pass < 2; pass++) {
			uint64_t ns = ktime_get_ns();
			long double exact = (long double)total * (long double)NSEC_PER_SEC / (long double)freq;
			long double diff = (long double)ns - exact;
			if (diff < 0)
				diff = -diff;
			/* Exact: floor(total * mult / 2^shift), so the error is
			 * the per-cycle error plus under 1 ns of truncation (the
			 * 0.001 absorbs long double rounding near a whole ns). */
			if (diff > (long double)total * per_cycle + 1.001L) {
				print_error("%u-bit %llu Hz step %d: ktime %llu, exact %.1Lf bound %.3Lf diff %.3Lf\n", bits,
				            (unsigned long long)freq, i, (unsigned long long)ns, exact, (long double)total * per_cycle + 1.001L, diff);
				fail();
			}
			assert_true(ns >= last_ns);
			last_ns = ns;
			if (pass == 0) {
				/* The fold returns the time it folded to: with the
				 * counter where it was, ktime_get_ns's time. */
				uint64_t folded = timekeeping_update();
				assert_true(folded == ns && ktime_get_ns() == ns);
			}
		}
		assert_false(host_irqs_disabled);
	}
	if (bits < 64)
		assert_true(wraps_seen > 10);   /* the test did cross wraps */
}

static void test_wrap_accumulation(void **state)
{
	(void)state;
	check_wrap_accumulation(1193182, 16, true, 1);      /* PIT-like */
	check_wrap_accumulation(1193182, 16, false, 2);
	check_wrap_accumulation(3579545, 24, true, 3);      /* ACPI PM timer */
	check_wrap_accumulation(3579545, 24, false, 4);
	check_wrap_accumulation(14318180, 32, false, 5);    /* 32-bit HPET */
	check_wrap_accumulation(100000000, 32, true, 6);
	check_wrap_accumulation(2399998000ull, 64, false, 7);    /* TSC */
	check_wrap_accumulation(10000000000ull, 64, false, 8);
}

/* Folding every few cycles must not lose the sub-nanosecond parts: without
 * the remainder a 3.58 MHz counter folded every 3 cycles (838.1 ns, floored
 * to 838) would run 0.1 ns slow per fold, 100 us over a million folds. */
static void test_frequent_updates_do_not_drift(void **state)
{
	(void)state;
	static struct fake_counter f;
	fake_counter_init(&f, "pm", 200, 3579545, 24);
	assert_int_equal(clocksource_register(&f.cs), 0);
	const uint64_t folds = 1000000;
	for (uint64_t i = 0; i < folds; i++) {
		f.value += 3;
		timekeeping_update();
	}
	long double exact = (long double)(3 * folds) * 1e9L / 3579545.0L;
	long double err = (long double)ktime_get_ns() - exact;
	if (err < 0)
		err = -err;
	assert_true(err <= (long double)(3 * folds) * ns_error_per_cycle(&f.cs) + 1.0L);
	assert_true(err < 2.0L);
}

/* Counters driven by one true time, as real ones are. */
static uint64_t true_ns;
struct timed_counter {
	struct fake_counter f;
	uint64_t offset;
};
static struct timed_counter timed[3];

static void timed_sync(void)
{
	for (int i = 0; i < 3; i++) {
		struct timed_counter *c = &timed[i];
		c->f.value = c->offset + (uint64_t)((u128)true_ns * c->f.cs.freq_hz / NSEC_PER_SEC);
	}
}

static void test_switch_no_jump_no_backwards(void **state)
{
	(void)state;
	static const char *names[3] = { "acpi_pm", "hpet", "tsc" };
	fake_counter_init(&timed[0].f, names[0], 200, 3579545, 24);
	fake_counter_init(&timed[1].f, names[1], 250, 14318180, 32);
	fake_counter_init(&timed[2].f, names[2], 300, 2399998000ull, 64);
	rng_state = 99;
	true_ns = 0;
	for (int i = 0; i < 3; i++)
		timed[i].offset = timed[i].f.cs.mask - rnd_below(1u << 20);
	timed_sync();
	for (int i = 0; i < 3; i++)
		assert_int_equal(clocksource_register(&timed[i].f.cs), 0);
	assert_ptr_equal(clocksource_current(), &timed[2].f.cs);

	/* Time starts when the first counter registers (true_ns 0 here). */
	uint64_t last = ktime_get_ns();
	unsigned switches = 0;
	for (int i = 0; i < 4000; i++) {
		/* A step the current counter may go unread for, as the tick
		 * promises; the switch and the update below both fold. */
		struct clocksource *cur = clocksource_current();
		true_ns += rnd_below(cur->max_idle_ns);
		timed_sync();
		if (rnd_below(8) == 0) {
			uint64_t before = ktime_get_ns();
			assert_int_equal(clocksource_select_by_name(names[rnd_below(3)]), 0);
			uint64_t after = ktime_get_ns();
			/* Same instant on the other counter: no jump either way. */
			assert_true(after >= before);
			assert_true(after - before <= 1);
			switches++;
		}
		uint64_t now = ktime_get_ns();
		assert_true(now >= last);
		last = now;
		timekeeping_update();

		/* Each switch may lose up to a cycle of the old and the new
		 * counter (the PM timer's is the longest, 280 ns), plus
		 * the conversion error. */
		long double diff = (long double)true_ns - (long double)now;
		if (diff < 0)
			diff = -diff;
		long double bound = (switches + 1) * 2 * 280.0L + (long double)true_ns * 1e-6L + 2;
		if (diff > bound) {
			print_error("step %d: true %llu ktime %llu after %u switches\n", i,
			            (unsigned long long)true_ns, (unsigned long long)now, switches);
			fail();
		}
	}
	assert_true(switches > 100);
}

/* The TSC's rate is measured again a second after boot (drivers/timer/tsc.c):
 * time must not jump when the new rate takes over, what was counted before
 * stays counted at the old rate, and from then on the new one applies. */
static void check_rate_change(uint64_t boot_hz, uint64_t true_hz, unsigned bits, uint64_t seed)
{
	static struct fake_counter f, other;
	clock_registry_reset();
	rng_state = seed;
	fake_counter_init(&f, "tsc", 300, boot_hz, bits);
	fake_counter_init(&other, "hpet", 250, 14318180, 32);
	f.value = f.cs.mask - rnd_below(1u << 16);     /* wraps along the way */
	assert_int_equal(clocksource_register(&other.cs), 0);
	assert_int_equal(clocksource_register(&f.cs), 0);
	assert_ptr_equal(clocksource_current(), &f.cs);

	/* One true second, in folded steps, counted at the boot rate. */
	uint64_t cycles = 0;
	while (cycles < true_hz) {
		uint64_t step = 1 + rnd_below(true_hz / 50);
		step = MIN(step, true_hz - cycles);
		f.value += step;
		cycles += step;
		timekeeping_update();
	}
	/* And a tenth more not yet folded: the change must count it at the old rate. */
	f.value += true_hz / 10;
	cycles += true_hz / 10;
	uint64_t t1 = ktime_get_ns();
	long double seen = (long double)cycles * 1e9L / (long double)boot_hz;
	if (fabsl((long double)t1 - seen) > seen * 1e-6L + 2) {
		print_error("%llu Hz: 1 s at %llu Hz read as %llu ns, want %.0Lf\n", (unsigned long long)boot_hz,
		            (unsigned long long)true_hz, (unsigned long long)t1, seen);
		fail();
	}

	/* A rate change of a counter timekeeping does not read changes no time. */
	assert_int_equal(clocksource_change_rate(&other.cs, 14318000), 0);
	assert_true(ktime_get_ns() == t1);
	assert_int_equal(clocksource_change_rate(&f.cs, 0), -EINVAL);
	assert_true(f.cs.freq_hz == boot_hz);

	unsigned reads = f.reads;
	assert_int_equal(clocksource_change_rate(&f.cs, true_hz), 0);
	assert_true(f.cs.freq_hz == true_hz);
	assert_true(f.reads - reads <= 1);      /* one fold, no second reading */
	uint64_t t2 = ktime_get_ns();
	assert_true(t2 >= t1 && t2 - t1 <= 1);  /* no jump */
	assert_false(host_irqs_disabled);

	/* Ten more true seconds, now at the right rate. */
	for (int i = 0; i < 1000; i++) {
		f.value += true_hz / 100;
		if (rnd_below(4))
			timekeeping_update();
	}
	uint64_t elapsed = ktime_get_ns() - t2;
	long double want = 10e9L;
	long double err = fabsl((long double)elapsed - want);
	if (err > want * ns_error_per_cycle(&f.cs) * (long double)true_hz / 1e9L + 2) {
		print_error("%llu -> %llu Hz: 10 s measured as %llu ns\n", (unsigned long long)boot_hz,
		            (unsigned long long)true_hz, (unsigned long long)elapsed);
		fail();
	}
}

static void test_rate_change_no_jump(void **state)
{
	(void)state;
	check_rate_change(2596150000ull, 2596141000ull, 64, 11);   /* -3.5 ppm, as measured */
	check_rate_change(2400000000ull, 2424000000ull, 64, 12);   /* +1% */
	check_rate_change(3579545, 3579000, 24, 13);               /* a narrow counter */
	check_rate_change(100000000, 99000000, 32, 14);            /* a shift change too */
}

/* A 64-bit counter that steps back (unsynced TSC): time holds, then goes on. */
static void test_counter_step_back_holds_time(void **state)
{
	(void)state;
	static struct fake_counter f;
	fake_counter_init(&f, "tsc", 300, 1000000000, 64);     /* 1 cycle = 1 ns exactly */
	f.value = 5000;
	assert_int_equal(clocksource_register(&f.cs), 0);
	f.value += 1000;
	assert_true(ktime_get_ns() == 1000);
	f.value -= 500;                 /* steps back below cycle_last + 1000 */
	assert_true(ktime_get_ns() == 1000);
	f.value -= 1000;                /* now below cycle_last itself */
	assert_true(ktime_get_ns() == 1000);
	timekeeping_update();           /* resynchronises to the new count */
	assert_true(ktime_get_ns() == 1000);
	f.value += 700;
	assert_true(ktime_get_ns() == 1000);    /* held until it catches up */
	f.value += 1300;
	assert_true(ktime_get_ns() == 2000);    /* and counts on from there */
}

/* The max_idle_ns contract: a delta up to max_cycles converts exactly. */
static void test_delta_at_max_cycles(void **state)
{
	(void)state;
	static struct fake_counter f;
	fake_counter_init(&f, "tsc", 300, 2399998000ull, 64);
	f.value = UINT64_MAX - 10;
	assert_int_equal(clocksource_register(&f.cs), 0);
	f.value += f.cs.max_cycles;
	uint64_t ns = ktime_get_ns();
	u128 wide = ((u128)f.cs.max_cycles * f.cs.mult) >> f.cs.shift;
	assert_true(ns == (uint64_t)wide);
	assert_true(ns / NSEC_PER_SEC >= 500);     /* minutes of slack on a TSC */
	assert_true(timekeeping_max_idle_ns() == ns / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_before_any_clocksource),
		cmocka_unit_test_setup(test_wrap_accumulation, fresh_clock_registry),
		cmocka_unit_test_setup(test_frequent_updates_do_not_drift, fresh_clock_registry),
		cmocka_unit_test_setup(test_switch_no_jump_no_backwards, fresh_clock_registry),
		cmocka_unit_test_setup(test_counter_step_back_holds_time, fresh_clock_registry),
		cmocka_unit_test_setup(test_delta_at_max_cycles, fresh_clock_registry),
		cmocka_unit_test_setup(test_rate_change_no_jump, fresh_clock_registry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
