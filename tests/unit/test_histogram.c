// SOURCES: kernel/lib/histogram.c
/* Host tests for `latency`'s percentile and log2-bin arithmetic
 * (kernel/lib/histogram.c): percentiles against a sort of the raw samples,
 * the clipped flag exactly when the answer is "top or more", and log2 bins
 * that tile the whole 32-bit range with only the last one open. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "histogram.h"

#include "host_test.h"

#define TOP 200                 /* a small "20 ms": buckets 0..TOP */

static uint32_t hist[TOP + 1];

static void fill(const uint32_t *samples, unsigned n)
{
	memset(hist, 0, sizeof(hist));
	for (unsigned i = 0; i < n; i++)
		hist[samples[i] < TOP ? samples[i] : TOP]++;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void test_percentile_small_cases(void **state)
{
	(void)state;
	bool clipped;
	uint32_t one_each[100];
	for (unsigned i = 0; i < 100; i++)
		one_each[i] = i;
	fill(one_each, 100);
	assert_int_equal(hist_percentile(hist, TOP, 100, 50, &clipped), 49);
	assert_false(clipped);
	assert_int_equal(hist_percentile(hist, TOP, 100, 99, &clipped), 98);
	assert_int_equal(hist_percentile(hist, TOP, 100, 100, &clipped), 99);
	assert_false(clipped);

	uint32_t single = 7;
	fill(&single, 1);
	assert_int_equal(hist_percentile(hist, TOP, 1, 1, &clipped), 7);
	assert_int_equal(hist_percentile(hist, TOP, 1, 99, &clipped), 7);
	assert_false(clipped);
}

/* 99 samples under top and one above: p99 is exact, p100 is clipped.
 * One more above top and p99 is clipped too; p50 never is. */
static void test_percentile_clipping_edge(void **state)
{
	(void)state;
	bool clipped;
	uint32_t s[101];
	for (unsigned i = 0; i < 99; i++)
		s[i] = 10;
	s[99] = 5000;
	fill(s, 100);
	assert_int_equal(hist_percentile(hist, TOP, 100, 99, &clipped), 10);
	assert_false(clipped);
	assert_int_equal(hist_percentile(hist, TOP, 100, 100, &clipped), TOP);
	assert_true(clipped);

	s[98] = TOP;                    /* exactly top is "top or more" too */
	fill(s, 100);
	assert_int_equal(hist_percentile(hist, TOP, 100, 99, &clipped), TOP);
	assert_true(clipped);
	assert_int_equal(hist_percentile(hist, TOP, 100, 50, &clipped), 10);
	assert_false(clipped);

	s[98] = TOP - 1;                /* just under: exact */
	fill(s, 100);
	assert_int_equal(hist_percentile(hist, TOP, 100, 99, &clipped), TOP - 1);
	assert_false(clipped);
}

/* Random samples, many above top: every percentile equals the nearest-rank
 * sample of the sorted list, clipped to top exactly when that sample is. */
static void test_percentile_against_sort(void **state)
{
	(void)state;
	static uint32_t s[5000];
	rng_state = 0x5eed1234;
	for (unsigned round = 0; round < 200; round++) {
		unsigned n = 1 + rnd32() % 5000;
		uint32_t spread = 1 + rnd32() % (3 * TOP);
		for (unsigned i = 0; i < n; i++)
			s[i] = rnd32() % spread;
		fill(s, n);
		qsort(s, n, sizeof(s[0]), cmp_u32);
		for (unsigned pct = 1; pct <= 100; pct++) {
			uint32_t want = s[(n * pct + 99) / 100 - 1];
			bool clipped;
			uint32_t got = hist_percentile(hist, TOP, n, pct, &clipped);
			assert_int_equal(got, want < TOP ? want : TOP);
			assert_int_equal(clipped, want >= TOP);
		}
	}
}

static void test_log2_bins(void **state)
{
	(void)state;
	assert_int_equal(hist_log2_bin(0, 16), 0);
	assert_int_equal(hist_log2_bin(1, 16), 1);
	assert_int_equal(hist_log2_bin(2, 16), 2);
	assert_int_equal(hist_log2_bin(3, 16), 2);
	assert_int_equal(hist_log2_bin(4, 16), 3);
	assert_int_equal(hist_log2_bin(16383, 16), 14);
	assert_int_equal(hist_log2_bin(16384, 16), 15);        /* the open bin */
	assert_int_equal(hist_log2_bin(20000, 16), 15);
	assert_int_equal(hist_log2_bin(UINT32_MAX, 16), 15);
	assert_int_equal(hist_log2_bin(UINT32_MAX, 32), 31);
	assert_int_equal(hist_log2_bin(1u << 30, 32), 31);
	assert_int_equal(hist_log2_bin((1u << 30) - 1, 32), 30);
	assert_int_equal(hist_log2_bin(5, 2), 1);
}

/* Every closed bin's bounds hold exactly the values hist_log2_bin puts in
 * it, and the bins meet with no gap; only the last is open. */
static void test_log2_bounds_tile(void **state)
{
	(void)state;
	for (unsigned nbins = 2; nbins <= 32; nbins++) {
		uint32_t expect_lo = 0;
		for (unsigned b = 0; b < nbins; b++) {
			uint32_t lo, hi = 0xdeadbeef;
			bool closed = hist_log2_bounds(b, nbins, &lo, &hi);
			assert_int_equal(lo, expect_lo);
			assert_int_equal(hist_log2_bin(lo, nbins), b);
			if (!closed) {
				assert_int_equal(b, nbins - 1);
				assert_int_equal(hi, 0xdeadbeef);
				assert_int_equal(hist_log2_bin(UINT32_MAX, nbins), b);
				break;
			}
			assert_true(hi > lo);
			assert_int_equal(hist_log2_bin(hi - 1, nbins), b);
			assert_int_equal(hist_log2_bin(hi, nbins), b + 1);
			expect_lo = hi;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_small_cases),
		cmocka_unit_test(test_percentile_clipping_edge),
		cmocka_unit_test(test_percentile_against_sort),
		cmocka_unit_test(test_log2_bins),
		cmocka_unit_test(test_log2_bounds_tile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
