// SOURCES: kernel/time/clocksource.c kernel/time/watchdog.c kernel/time/clockevents.c kernel/time/timekeeping.c tests/unit/host_arch.c tests/unit/time_test.c kernel/time/mult_shift.c kernel/lib/format.c
/* tests/unit/test_clocksource.c — mult/shift precision and the registry.
 *
 * The bound checked is the one derived above clocks_calc_mult_shift:
 *     relative error <= max(2^-32, in_max / 2^64, from / (to * 2^33)) + 1/out
 * and, as a fixed target, below 1e-6 over 600 s from 1 MHz to 10 GHz.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdio.h>
#include <cmocka.h>

#include "time/clocksource.h"
#include "time/mult_shift.h"
#include "time/timekeeping.h"
#include "errno.h"
#include "time_test.h"
#include "host_test.h"

extern char host_last_kprintf[256];

/* The frequencies the brief names, and the devices lull meets. */
static const uint64_t freqs[] = {
	1000000,            /* 1 MHz */
	1193182,            /* PIT */
	3579545,            /* ACPI PM timer */
	14318180,           /* HPET on most chipsets */
	100000000,          /* 100 MHz HPET / LAPIC bus */
	1000000000,         /* 1 GHz */
	2399998000,         /* a calibrated 2.4 GHz TSC */
	10000000000ull,     /* 10 GHz */
};

typedef unsigned __int128 u128;

#define TWO_POW_32  4294967296.0L
#define TWO_POW_64  18446744073709551616.0L

static long double ld_abs(long double x) { return x < 0 ? -x : x; }
static long double ld_max(long double a, long double b) { return a > b ? a : b; }

/* |out - in * to / from| / (in * to / from), exactly enough in long double. */
static long double rel_error(uint64_t in, uint64_t out, uint64_t from, uint64_t to)
{
	long double exact = (long double)in * (long double)to / (long double)from;
	return ld_abs((long double)out - exact) / exact;
}

static long double proved_bound(uint64_t in_max, uint64_t from, uint64_t to, uint64_t out)
{
	long double b = 1.0L / TWO_POW_32;
	b = ld_max(b, (long double)in_max / TWO_POW_64);
	b = ld_max(b, (long double)from / ((long double)to * 2.0L * TWO_POW_32));
	return b + 1.0L / (long double)out;
}

/* shift is the largest allowed: shift 32, or shift + 1 breaks a limit. */
static void assert_shift_is_largest(uint32_t shift, uint64_t from, uint64_t to, uint64_t in_max)
{
	if (shift == 32)
		return;
	u128 m = (((u128)to << (shift + 1)) + from / 2) / from;
	bool too_big = m > UINT32_MAX || (u128)in_max * m > UINT64_MAX;
	assert_true(too_big);
}

static void check_direction(uint64_t from, uint64_t to, uint64_t maxsec)
{
	uint32_t mult = 0, shift = 0;
	clocks_calc_mult_shift(&mult, &shift, from, to, maxsec);
	uint64_t in_max = maxsec * from;

	assert_true(mult > 0);
	assert_true(shift <= 32);
	/* No overflow anywhere up to maxsec seconds of input. */
	assert_true((u128)in_max * mult <= UINT64_MAX);
	assert_shift_is_largest(shift, from, to, in_max);

	/* Long intervals (600, 200 and 85 s) must be within 1e-6.  Over 1 s
	 * only the proved bound holds: its 1/out term is the last unit lost
	 * to truncation, 1e-6 by itself when out is a million 1 MHz ticks. */
	const uint64_t ins[] = { in_max, in_max / 3, in_max / 7 + 12345, from };
	for (size_t i = 0; i < sizeof(ins) / sizeof(ins[0]); i++) {
		uint64_t out = (ins[i] * mult) >> shift;
		long double err = rel_error(ins[i], out, from, to);
		bool is_long = ins[i] >= in_max / 10;
		if ((is_long && !(err < 1e-6L)) || !(err <= proved_bound(in_max, from, to, out))) {
			print_error("from %llu to %llu in %llu: mult %u shift %u error %Lg\n",
			            (unsigned long long)from, (unsigned long long)to,
			            (unsigned long long)ins[i], mult, shift, err);
			fail();
		}
	}
}

static void test_mult_shift_error_bounds(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++) {
		check_direction(freqs[i], NSEC_PER_SEC, 600);   /* clocksource */
		check_direction(NSEC_PER_SEC, freqs[i], 600);   /* clockevent */
	}
}

/* A small maxsec buys precision: the 24-bit PM timer's 4.7 s range. */
static void test_mult_shift_short_range_is_finer(void **state)
{
	(void)state;
	uint32_t m600, s600, m5, s5;
	clocks_calc_mult_shift(&m600, &s600, 3579545, NSEC_PER_SEC, 600);
	clocks_calc_mult_shift(&m5, &s5, 3579545, NSEC_PER_SEC, 5);
	assert_true(s5 >= s600);
	assert_true(m5 >= m600);
	assert_true((u128)5 * 3579545 * m5 <= UINT64_MAX);
}

static void test_register_derives_limits(void **state)
{
	(void)state;
	static const unsigned widths[] = { 16, 24, 32, 64 };
	static struct fake_counter f[sizeof(freqs) / sizeof(freqs[0])][4];
	static char names[sizeof(freqs) / sizeof(freqs[0])][4][16];
	for (size_t i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++) {
		for (size_t w = 0; w < 4; w++) {
			struct clocksource *cs = &f[i][w].cs;
			snprintf(names[i][w], sizeof(names[i][w]), "c%zu_%u", i, widths[w]);
			fake_counter_init(&f[i][w], names[i][w], 100, freqs[i], widths[w]);
			assert_int_equal(clocksource_register(cs), 0);

			assert_true(cs->max_cycles > 0);
			assert_true(cs->max_cycles <= cs->mask);
			/* The product at max_cycles leaves about 1/8 of 64 bits
			 * spare, and surely room for timekeeping's remainder. */
			u128 product = (u128)cs->max_cycles * cs->mult;
			assert_true(product <= UINT64_MAX - (UINT64_MAX >> 3) + cs->mult);
			assert_true(product + (1ull << cs->shift) <= UINT64_MAX);
			/* So the kernel's 64-bit conversion there is exact. */
			u128 wide = ((u128)cs->max_cycles * cs->mult) >> cs->shift;
			assert_true(clocksource_cyc2ns(cs->max_cycles, cs->mult, cs->shift) == (uint64_t)wide);
			assert_true(cs->max_idle_ns == (uint64_t)wide / 2);
			/* Converted over the counter's range, at most 600 s. */
			uint64_t maxsec = cs->mask / cs->freq_hz + 1;
			if (maxsec > 600)
				maxsec = 600;
			assert_true(rel_error(cs->max_cycles, (uint64_t)wide, cs->freq_hz, NSEC_PER_SEC) <=
			            proved_bound(maxsec * cs->freq_hz, cs->freq_hz, NSEC_PER_SEC, (uint64_t)wide));
			/* A narrow counter may be left unread for half its range. */
			if (widths[w] < 64 && cs->mask / cs->freq_hz < 600)
				assert_true(cs->max_cycles == cs->mask);
		}
	}
}

/* The header's example: a 24-bit PM timer allows about 2.3 s unread. */
static void test_pm_timer_max_idle(void **state)
{
	(void)state;
	static struct fake_counter pm;
	fake_counter_init(&pm, "acpi_pm", 200, 3579545, 24);
	assert_int_equal(clocksource_register(&pm.cs), 0);
	assert_true(pm.cs.max_idle_ns > 2300 * NSEC_PER_MSEC);
	assert_true(pm.cs.max_idle_ns < 2400 * NSEC_PER_MSEC);
	assert_true(timekeeping_max_idle_ns() == pm.cs.max_idle_ns);
}

static void test_register_rejects_bad_fields(void **state)
{
	(void)state;
	static struct fake_counter f;
	fake_counter_init(&f, NULL, 100, 1000000, 32);
	assert_int_equal(clocksource_register(&f.cs), -EINVAL);
	fake_counter_init(&f, "x", 100, 0, 32);
	assert_int_equal(clocksource_register(&f.cs), -EINVAL);
	fake_counter_init(&f, "x", 0, 1000000, 32);
	assert_int_equal(clocksource_register(&f.cs), -EINVAL);
	fake_counter_init(&f, "x", 500, 1000000, 32);
	assert_int_equal(clocksource_register(&f.cs), -EINVAL);
	fake_counter_init(&f, "x", 100, 1000000, 32);
	f.cs.mask = 0;
	assert_int_equal(clocksource_register(&f.cs), -EINVAL);
	f.cs.mask = 0xFFF0;
	assert_int_equal(clocksource_register(&f.cs), -EINVAL);
	fake_counter_init(&f, "x", 100, 1000000, 32);
	f.cs.read = NULL;
	assert_int_equal(clocksource_register(&f.cs), -EINVAL);
	fake_counter_init(&f, "a_name_that_is_far_too_long_to_be_kept", 100, 1000000, 32);
	assert_int_equal(clocksource_register(&f.cs), -EINVAL);
	assert_null(clocksource_first());
	assert_null(clocksource_current());

	static struct fake_counter a, b;
	fake_counter_init(&a, "same", 100, 1000000, 32);
	fake_counter_init(&b, "same", 200, 1000000, 32);
	assert_int_equal(clocksource_register(&a.cs), 0);
	assert_int_equal(clocksource_register(&b.cs), -EINVAL);
	assert_int_equal(clocksource_register(&a.cs), -EINVAL);
	assert_ptr_equal(clocksource_first(), &a.cs);
	assert_null(a.cs.next);
}

static void test_best_rating_wins(void **state)
{
	(void)state;
	static struct fake_counter pit, tsc, hpet, tie;
	fake_counter_init(&pit, "pit", 110, 1193182, 16);
	fake_counter_init(&tsc, "tsc", 300, 2399998000, 64);
	fake_counter_init(&hpet, "hpet", 250, 14318180, 32);
	fake_counter_init(&tie, "tie", 300, 1000000, 32);

	assert_int_equal(clocksource_register(&pit.cs), 0);
	assert_ptr_equal(clocksource_current(), &pit.cs);
	assert_string_equal(host_last_kprintf, "clocksource: switched to pit (rating 110)\n");
	assert_int_equal(clocksource_register(&tsc.cs), 0);
	assert_ptr_equal(clocksource_current(), &tsc.cs);
	assert_string_equal(host_last_kprintf, "clocksource: switched to tsc (rating 300)\n");
	host_last_kprintf[0] = '\0';
	assert_int_equal(clocksource_register(&hpet.cs), 0);
	assert_ptr_equal(clocksource_current(), &tsc.cs);
	assert_string_equal(host_last_kprintf, "");     /* no change, no line */
	/* A tie keeps the earlier one. */
	assert_int_equal(clocksource_register(&tie.cs), 0);
	assert_ptr_equal(clocksource_current(), &tsc.cs);

	/* The registry lists them in registration order. */
	assert_ptr_equal(clocksource_first(), &pit.cs);
	assert_ptr_equal(pit.cs.next, &tsc.cs);
	assert_ptr_equal(tsc.cs.next, &hpet.cs);
	assert_ptr_equal(hpet.cs.next, &tie.cs);
}

static void test_unstable_never_selected(void **state)
{
	(void)state;
	static struct fake_counter bad, ok;
	fake_counter_init(&bad, "bad", 400, 1000000, 32);
	bad.cs.flags |= CLOCK_SOURCE_UNSTABLE;
	fake_counter_init(&ok, "ok", 100, 1000000, 32);
	assert_int_equal(clocksource_register(&bad.cs), 0);
	assert_null(clocksource_current());
	assert_int_equal(clocksource_register(&ok.cs), 0);
	assert_ptr_equal(clocksource_current(), &ok.cs);
}

static void test_preferred_beats_rating(void **state)
{
	(void)state;
	static struct fake_counter tsc, pm, pit;
	char name[16];
	strcpy(name, "acpi_pm");
	clocksource_set_preferred(name);
	memset(name, 'x', sizeof(name) - 1);     /* the core kept a copy */
	name[15] = '\0';

	fake_counter_init(&tsc, "tsc", 300, 2399998000, 64);
	fake_counter_init(&pm, "acpi_pm", 200, 3579545, 24);
	fake_counter_init(&pit, "pit", 110, 1193182, 16);
	assert_int_equal(clocksource_register(&tsc.cs), 0);
	assert_ptr_equal(clocksource_current(), &tsc.cs);
	assert_int_equal(clocksource_register(&pm.cs), 0);
	assert_ptr_equal(clocksource_current(), &pm.cs);
	assert_string_equal(host_last_kprintf, "clocksource: switched to acpi_pm (rating 200)\n");
	assert_int_equal(clocksource_register(&pit.cs), 0);
	assert_ptr_equal(clocksource_current(), &pm.cs);

	/* Forgetting the preference goes back to the rating. */
	clocksource_set_preferred(NULL);
	assert_ptr_equal(clocksource_current(), &tsc.cs);
	/* Naming a registered one takes effect at once. */
	clocksource_set_preferred("pit");
	assert_ptr_equal(clocksource_current(), &pit.cs);
}

/* "pmtmr", the 2005 patch's name for the ACPI PM timer, finds acpi_pm
 * wherever a name is taken: lookup, preference, selection. */
static void test_pmtmr_is_acpi_pm(void **state)
{
	(void)state;
	static struct fake_counter tsc, pm;
	clocksource_set_preferred("pmtmr");             /* before it registers */
	fake_counter_init(&tsc, "tsc", 300, 2399998000, 64);
	fake_counter_init(&pm, "acpi_pm", 200, 3579545, 24);
	assert_int_equal(clocksource_register(&tsc.cs), 0);
	assert_int_equal(clocksource_register(&pm.cs), 0);
	assert_ptr_equal(clocksource_current(), &pm.cs);
	assert_ptr_equal(clocksource_lookup("pmtmr"), &pm.cs);
	assert_ptr_equal(clocksource_lookup("acpi_pm"), &pm.cs);
	assert_null(clocksource_lookup("pmtm"));
	assert_null(clocksource_lookup(NULL));
	host_kprintf_log[0] = '\0';
	assert_int_equal(clocksource_select_by_name("tsc"), 0);
	assert_ptr_equal(clocksource_current(), &tsc.cs);
	assert_int_equal(clocksource_select_by_name("pmtmr"), 0);
	assert_ptr_equal(clocksource_current(), &pm.cs);
	/* The shell's switch: it reads the counter back and says so itself. */
	assert_string_equal(host_kprintf_log, "");
}

static void test_preferred_unstable_falls_back(void **state)
{
	(void)state;
	static struct fake_counter tsc, pm;
	clocksource_set_preferred("tsc");
	fake_counter_init(&tsc, "tsc", 300, 2399998000, 64);
	tsc.cs.flags |= CLOCK_SOURCE_UNSTABLE;
	fake_counter_init(&pm, "acpi_pm", 200, 3579545, 24);
	assert_int_equal(clocksource_register(&tsc.cs), 0);
	assert_int_equal(clocksource_register(&pm.cs), 0);
	assert_ptr_equal(clocksource_current(), &pm.cs);
}

static void test_preferred_name_too_long_ignored(void **state)
{
	(void)state;
	static struct fake_counter a, b;
	clocksource_set_preferred("b");
	clocksource_set_preferred("a_name_that_is_far_too_long_to_be_kept");
	assert_true(strstr(host_last_kprintf, "too long") != NULL);
	fake_counter_init(&a, "a", 300, 1000000, 32);
	fake_counter_init(&b, "b", 100, 1000000, 32);
	assert_int_equal(clocksource_register(&a.cs), 0);
	assert_int_equal(clocksource_register(&b.cs), 0);
	assert_ptr_equal(clocksource_current(), &b.cs);     /* "b" still stands */
}

static void test_select_by_name(void **state)
{
	(void)state;
	static struct fake_counter pm, hpet, bad, tsc;
	fake_counter_init(&pm, "acpi_pm", 200, 3579545, 24);
	fake_counter_init(&hpet, "hpet", 250, 14318180, 32);
	fake_counter_init(&bad, "bad", 100, 1000000, 32);
	bad.cs.flags |= CLOCK_SOURCE_UNSTABLE;
	fake_counter_init(&tsc, "tsc", 300, 2399998000, 64);
	assert_int_equal(clocksource_register(&pm.cs), 0);
	assert_int_equal(clocksource_register(&hpet.cs), 0);
	assert_int_equal(clocksource_register(&bad.cs), 0);
	assert_ptr_equal(clocksource_current(), &hpet.cs);

	assert_int_equal(clocksource_select_by_name("nosuch"), -ENOENT);
	assert_int_equal(clocksource_select_by_name("bad"), -EINVAL);
	assert_ptr_equal(clocksource_current(), &hpet.cs);
	assert_int_equal(clocksource_select_by_name("acpi_pm"), 0);
	assert_ptr_equal(clocksource_current(), &pm.cs);
	/* The choice sticks when a better counter arrives. */
	assert_int_equal(clocksource_register(&tsc.cs), 0);
	assert_ptr_equal(clocksource_current(), &pm.cs);
}

static void test_mark_unstable_switches_away(void **state)
{
	(void)state;
	static struct fake_counter tsc, hpet;
	fake_counter_init(&tsc, "tsc", 300, 2399998000, 64);
	fake_counter_init(&hpet, "hpet", 250, 14318180, 32);
	assert_int_equal(clocksource_register(&tsc.cs), 0);
	assert_int_equal(clocksource_register(&hpet.cs), 0);
	assert_ptr_equal(clocksource_current(), &tsc.cs);

	clocksource_mark_unstable(&tsc.cs, "went backwards");
	assert_true(tsc.cs.flags & CLOCK_SOURCE_UNSTABLE);
	assert_ptr_equal(clocksource_current(), &hpet.cs);
	/* No alternative left: keep the doubtful one. */
	clocksource_mark_unstable(&hpet.cs, "test");
	assert_ptr_equal(clocksource_current(), &hpet.cs);
	assert_true(strstr(host_last_kprintf, "staying on hpet") != NULL);
	/* And an unstable one cannot be chosen by name. */
	assert_int_equal(clocksource_select_by_name("tsc"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mult_shift_error_bounds),
		cmocka_unit_test(test_mult_shift_short_range_is_finer),
		cmocka_unit_test_setup(test_register_derives_limits, fresh_clock_registry),
		cmocka_unit_test_setup(test_pm_timer_max_idle, fresh_clock_registry),
		cmocka_unit_test_setup(test_register_rejects_bad_fields, fresh_clock_registry),
		cmocka_unit_test_setup(test_best_rating_wins, fresh_clock_registry),
		cmocka_unit_test_setup(test_unstable_never_selected, fresh_clock_registry),
		cmocka_unit_test_setup(test_preferred_beats_rating, fresh_clock_registry),
		cmocka_unit_test_setup(test_preferred_unstable_falls_back, fresh_clock_registry),
		cmocka_unit_test_setup(test_preferred_name_too_long_ignored, fresh_clock_registry),
		cmocka_unit_test_setup(test_select_by_name, fresh_clock_registry),
		cmocka_unit_test_setup(test_pmtmr_is_acpi_pm, fresh_clock_registry),
		cmocka_unit_test_setup(test_mark_unstable_switches_away, fresh_clock_registry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
