// SOURCES: kernel/time/wakeups.c kernel/time/trace.c tests/unit/host_arch.c
/* Host tests for the wakeup rate arithmetic (kernel/time/wakeups.c):
 * wakeups_rate_centi() against an exact 128-bit reference, at the extremes
 * of both inputs (count near 2^64, spans of 1 ns and 2^64-1 ns) and at
 * random, including where the naive count * 100 * NSEC_PER_SEC overflows
 * (from about 1.8e8 wakeups on). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "time/wakeups.h"

#include "host_test.h"

typedef unsigned __int128 u128;

/* What the rate is: floor(count * 100 * 10^9 / span), or UINT64_MAX when
 * that does not fit (0 for an empty span). */
static uint64_t reference(uint64_t count, uint64_t span)
{
	if (!span)
		return 0;
	u128 q = (u128)count * 100 * NSEC_PER_SEC / span;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

static void check(uint64_t count, uint64_t span)
{
	uint64_t got = wakeups_rate_centi(count, span), want = reference(count, span);
	if (got != want)
		fail_msg("rate(%llu, %llu) = %llu, want %llu", (unsigned long long)count,
		         (unsigned long long)span, (unsigned long long)got, (unsigned long long)want);
}

static void test_everyday_rates(void **state)
{
	(void)state;
	assert_int_equal(wakeups_rate_centi(0, NSEC_PER_SEC), 0);
	assert_int_equal(wakeups_rate_centi(5, 0), 0);
	assert_int_equal(wakeups_rate_centi(1, NSEC_PER_SEC), 100);            /* 1.00/s */
	assert_int_equal(wakeups_rate_centi(1250, 5 * NSEC_PER_SEC), 25000);   /* 250.00/s */
	assert_int_equal(wakeups_rate_centi(11, 4 * NSEC_PER_SEC), 275);       /* 2.75/s */
	assert_int_equal(wakeups_rate_centi(2, 3 * NSEC_PER_SEC), 66);         /* 0.666: down */
}

/* Where the old arithmetic wrapped: 2e8 wakeups at 250/s is 9.3 days. */
static void test_past_the_old_overflow(void **state)
{
	(void)state;
	uint64_t span = 800000ull * NSEC_PER_SEC;
	assert_int_equal(wakeups_rate_centi(200000000ull, span), 25000);
	assert_int_equal(wakeups_rate_centi(UINT64_MAX / 100, 1000 * NSEC_PER_SEC),
	                 reference(UINT64_MAX / 100, 1000 * NSEC_PER_SEC));
	for (uint64_t c = 184000000ull; c < 186000000ull; c += 99991)
		check(c, 3600 * NSEC_PER_SEC);
}

static void test_extremes(void **state)
{
	(void)state;
	const uint64_t counts[] = { 0, 1, 2, 184467440ull, 184467441ull, 1ull << 32,
	                            (1ull << 32) + 1, 1ull << 63, UINT64_MAX - 1, UINT64_MAX };
	const uint64_t spans[] = { 1, 2, 3, 999999999, NSEC_PER_SEC, 100 * NSEC_PER_SEC - 1,
	                           100 * NSEC_PER_SEC, 1ull << 32, (1ull << 63) - 1, 1ull << 63,
	                           (1ull << 63) + 1, UINT64_MAX - 1, UINT64_MAX };
	for (unsigned i = 0; i < ARRAY_SIZE(counts); i++)
		for (unsigned j = 0; j < ARRAY_SIZE(spans); j++)
			check(counts[i], spans[j]);
	/* The largest rate that fits, exactly, and one past it. */
	assert_true(wakeups_rate_centi(UINT64_MAX, 100 * NSEC_PER_SEC) == UINT64_MAX);
	assert_true(wakeups_rate_centi(UINT64_MAX - 1, 100 * NSEC_PER_SEC) == UINT64_MAX - 1);
	assert_true(wakeups_rate_centi(UINT64_MAX, 1) == UINT64_MAX);              /* saturated */
	assert_true(wakeups_rate_centi(UINT64_MAX, UINT64_MAX) == 100 * NSEC_PER_SEC);
	assert_true(wakeups_rate_centi(UINT64_MAX - 1, UINT64_MAX) == 100 * NSEC_PER_SEC - 1);
}

/* Random inputs of random widths, so every bit length of both meets. */
static void test_random_against_reference(void **state)
{
	(void)state;
	rng_state = 0x7a7e5eedull;
	for (unsigned i = 0; i < 200000; i++) {
		uint64_t count = rnd64() >> (rnd32() % 64);
		uint64_t span = rnd64() >> (rnd32() % 64);
		check(count, span);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_everyday_rates),
		cmocka_unit_test(test_past_the_old_overflow),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_random_against_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
