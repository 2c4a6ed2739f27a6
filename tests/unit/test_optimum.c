// SOURCES: kernel/time/optimum.c
/* tests/unit/test_optimum.c — the fewest wakeups for a set of windows.
 *
 * Hand cases with known answers; random small sets against a brute force
 * (the optimum can always use hard ends only: move each wakeup later to the
 * nearest hard end at or after it, and it serves all it served, so trying
 * every subset of the distinct hard ends, smallest first, finds it); and a
 * large set, where the greedy's schedule must serve every window, the sort
 * must be a sort, and one disjoint window per wakeup proves no schedule
 * could do with fewer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "time/optimum.h"

#include "host_test.h"

/* The greedy's count for the n windows `given` (left as they are), and how
 * many of them its schedule serves: n, or the schedule is wrong. */
static unsigned wakeups_of(const struct window *given, unsigned n, unsigned *served)
{
	struct window w[16];
	uint64_t at[16];
	assert_true(n <= 16);
	memcpy(w, given, n * sizeof(w[0]));
	unsigned m = optimum_schedule(w, n, at);
	*served = optimum_served(w, n, at, m);
	assert_int_equal(optimum_wakeups(memcpy(w, given, n * sizeof(w[0])), n), m);
	return m;
}

/* The count for windows given as {soft, hard} pairs, checking that the
 * schedule serves them all. */
static unsigned hand_case(const struct window *given, unsigned n)
{
	unsigned served;
	unsigned m = wakeups_of(given, n, &served);
	assert_int_equal(served, n);
	return m;
}

#define WAKEUPS(...) \
	hand_case((const struct window[]){ __VA_ARGS__ }, \
	          sizeof((const struct window[]){ __VA_ARGS__ }) / sizeof(struct window))

static void test_hand_cases(void **state)
{
	(void)state;
	assert_int_equal(optimum_wakeups(NULL, 0), 0);
	assert_int_equal(WAKEUPS({ 5, 9 }), 1);
	assert_int_equal(WAKEUPS({ 0, 0 }), 1);                      /* an exact timer at 0 */
	assert_int_equal(WAKEUPS({ 0, 10 }, { 2, 3 }), 1);           /* nested */
	assert_int_equal(WAKEUPS({ 2, 3 }, { 0, 10 }, { 1, 9 }), 1);
	assert_int_equal(WAKEUPS({ 0, 1 }, { 2, 3 }, { 5, 8 }), 3);  /* disjoint */
	assert_int_equal(WAKEUPS({ 5, 8 }, { 0, 1 }, { 2, 3 }), 3);
	assert_int_equal(WAKEUPS({ 4, 7 }, { 4, 7 }, { 4, 7 }, { 4, 7 }), 1);   /* identical */
	assert_int_equal(WAKEUPS({ 0, 5 }, { 5, 9 }), 1);            /* touching: both end points count */
	assert_int_equal(WAKEUPS({ 0, 5 }, { 6, 9 }), 2);            /* one apart */
	assert_int_equal(WAKEUPS({ 0, 5 }, { 5, 9 }, { 9, 12 }), 2); /* a chain: 5 and 12 */
	/* A long window first by soft end: whoever sorts by soft puts the one
	 * wakeup at 100 and misses the two short ones. */
	assert_int_equal(WAKEUPS({ 0, 100 }, { 1, 2 }, { 3, 4 }), 2);
	/* Exact timers: one wakeup per distinct instant. */
	assert_int_equal(WAKEUPS({ 3, 3 }, { 1, 1 }, { 3, 3 }, { 2, 2 }), 3);
	/* Times near the top of the range. */
	assert_int_equal(WAKEUPS({ UINT64_MAX - 1, UINT64_MAX }, { UINT64_MAX, UINT64_MAX }), 1);
}

/* A hard end before the soft end is taken as the soft end, in place. */
static void test_hard_before_soft(void **state)
{
	(void)state;
	struct window w[] = { { 10, 3 }, { 0, 9 } };
	uint64_t at[2];
	assert_int_equal(optimum_schedule(w, 2, at), 2);
	assert_int_equal(at[0], 9);
	assert_int_equal(at[1], 10);
	assert_int_equal(w[1].soft, 10);
	assert_int_equal(w[1].hard, 10);
	assert_int_equal(WAKEUPS({ 10, 3 }, { 0, 10 }), 1);
	assert_int_equal(WAKEUPS({ 10, 3 }, { 11, 11 }), 2);
	/* optimum_served reads such a window the same way. */
	const struct window backwards = { 10, 3 };
	const uint64_t ten = 10, three = 3;
	assert_int_equal(optimum_served(&backwards, 1, &ten, 1), 1);
	assert_int_equal(optimum_served(&backwards, 1, &three, 1), 0);
}

static void test_served(void **state)
{
	(void)state;
	const struct window w[] = { { 0, 1 }, { 2, 3 }, { 5, 8 }, { 20, 30 } };
	const uint64_t at[] = { 1, 6, 9 };
	assert_int_equal(optimum_served(w, 4, at, 3), 2);
	assert_int_equal(optimum_served(w, 4, at, 0), 0);
	const uint64_t all[] = { 0, 3, 8, 25 };
	assert_int_equal(optimum_served(w, 4, all, 4), 4);
}

/* The fewest wakeups, by trying every subset of the distinct hard ends. */
static unsigned brute_force(const struct window *w, unsigned n)
{
	uint64_t ends[16];
	unsigned k = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t h = w[i].hard < w[i].soft ? w[i].soft : w[i].hard;
		bool seen = false;
		for (unsigned j = 0; j < k; j++)
			seen |= ends[j] == h;
		if (!seen)
			ends[k++] = h;
	}
	unsigned best = k;
	for (uint32_t set = 0; set < (1u << k); set++) {
		unsigned size = (unsigned)__builtin_popcount(set);
		if (size >= best)
			continue;
		unsigned served = 0;
		for (unsigned i = 0; i < n; i++) {
			uint64_t h = w[i].hard < w[i].soft ? w[i].soft : w[i].hard;
			for (unsigned j = 0; j < k; j++)
				if ((set >> j & 1) && w[i].soft <= ends[j] && ends[j] <= h) {
					served++;
					break;
				}
		}
		if (served == n)
			best = size;
	}
	return best;
}

static void test_random_small_against_brute_force(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20000; seed++) {
		rng_state = seed * 0x9E3779B97F4A7C15ull;
		unsigned n = (unsigned)(rnd32() % 11);
		uint64_t range = 4 + rnd32() % 40;     /* small: windows overlap */
		struct window w[10];
		for (unsigned i = 0; i < n; i++) {
			w[i].soft = rnd32() % range;
			/* Mostly short windows, some long, some exact, a few backwards. */
			unsigned kind = rnd32() % 8;
			w[i].hard = kind == 0 ? w[i].soft :
			            kind == 1 ? rnd32() % range :
			            w[i].soft + rnd32() % (kind < 6 ? 4 : range);
		}
		unsigned want = brute_force(w, n), served;
		unsigned got = wakeups_of(w, n, &served);
		if (got != want || served != n) {
			print_error("seed %llu: greedy %u wakeups serving %u of %u windows, "
			            "brute force %u; windows:",
			            (unsigned long long)seed, got, served, n, want);
			for (unsigned i = 0; i < n; i++)
				print_error(" [%llu,%llu]", (unsigned long long)w[i].soft,
				            (unsigned long long)w[i].hard);
			print_error("\n");
			fail();
		}
	}
}

static int cmp_window(const void *a, const void *b)
{
	const struct window *x = a, *y = b;
	if (x->hard != y->hard)
		return x->hard < y->hard ? -1 : 1;
	return x->soft < y->soft ? -1 : x->soft > y->soft;
}

/* n windows, then: sorted by hard end and the same multiset as before;
 * the schedule serves all; and each wakeup g_k is the hard end of a window
 * starting after g_(k-1) — m windows, each inside (g_(k-1), g_k], pairwise
 * disjoint, so any schedule needs at least m wakeups. */
static void check_large(struct window *w, unsigned n, uint64_t seed)
{
	struct window *copy = malloc(n * sizeof(*w));
	uint64_t *at = malloc(n * sizeof(*at));
	assert_non_null(copy);
	assert_non_null(at);
	memcpy(copy, w, n * sizeof(*w));
	unsigned m = optimum_schedule(w, n, at);

	for (unsigned i = 1; i < n; i++)
		if (w[i - 1].hard > w[i].hard)
			fail_msg("seed %llu: not sorted at %u", (unsigned long long)seed, i);
	qsort(copy, n, sizeof(*copy), cmp_window);
	struct window *mine = malloc(n * sizeof(*w));
	assert_non_null(mine);
	memcpy(mine, w, n * sizeof(*w));
	qsort(mine, n, sizeof(*mine), cmp_window);
	if (memcmp(copy, mine, n * sizeof(*w)) != 0)
		fail_msg("seed %llu: the sort lost or changed windows", (unsigned long long)seed);

	assert_true(m >= (n > 0));
	if (optimum_served(w, n, at, m) != n)
		fail_msg("seed %llu: %u of %u windows served", (unsigned long long)seed,
		         optimum_served(w, n, at, m), n);
	for (unsigned k = 0; k < m; k++) {
		if (k > 0 && at[k - 1] >= at[k])
			fail_msg("seed %llu: wakeups not increasing at %u", (unsigned long long)seed, k);
		bool witness = false;
		for (unsigned i = 0; i < n && !witness; i++)
			witness = w[i].hard == at[k] && (k == 0 || w[i].soft > at[k - 1]);
		if (!witness)
			fail_msg("seed %llu: wakeup %u at %llu has no window of its own",
			         (unsigned long long)seed, k, (unsigned long long)at[k]);
	}
	free(copy);
	free(mine);
	free(at);
}

static void test_large(void **state)
{
	(void)state;
	enum { N = 10000 };
	static struct window w[16384];
	for (uint64_t seed = 1; seed <= 5; seed++) {
		rng_state = seed * 0x2545F4914F6CDD1Dull;
		for (unsigned i = 0; i < N; i++) {
			w[i].soft = rnd64() % (1000u * (unsigned)seed);
			w[i].hard = w[i].soft + rnd64() % 50;
		}
		check_large(w, N, seed);
	}
	/* Shapes that trip simple sorts: sorted, reversed, all equal, 16k. */
	for (unsigned i = 0; i < 16384; i++)
		w[i] = (struct window){ i, i };
	check_large(w, 16384, 100);
	for (unsigned i = 0; i < 16384; i++)
		w[i] = (struct window){ 16384 - i, 16384 - i + 3 };
	check_large(w, 16384, 101);
	for (unsigned i = 0; i < 16384; i++)
		w[i] = (struct window){ 7, 7 };
	check_large(w, 16384, 102);
	assert_int_equal(optimum_wakeups(w, 16384), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_cases),
		cmocka_unit_test(test_hard_before_soft),
		cmocka_unit_test(test_served),
		cmocka_unit_test(test_random_small_against_brute_force),
		cmocka_unit_test(test_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
