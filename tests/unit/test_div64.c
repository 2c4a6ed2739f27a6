// SOURCES: kernel/lib/div64.c
/* Host tests for lull's 64-bit division (kernel/lib/div64.c), the helpers
 * GCC calls for `/` and `%` on 64-bit values on i386: each one against the
 * host's native 64-bit division, on edge values (0, 1, powers of two and
 * their neighbours, divisors at the 32-bit boundary where the code changes
 * method, the signed extremes) and on many random pairs of every width
 * with a fixed seed.  Dividing by zero is a CPU divide error on purpose and
 * is not tried here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem);
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

#define RANDOM_PAIRS 200000

static const uint64_t edges[] = {
	0, 1, 2, 3, 7, 10, 1000, 1000000000,
	0x7fffffffull, 0x80000000ull, 0xfffffffeull, 0xffffffffull,
	0x100000000ull, 0x100000001ull, 0x1ffffffffull, 0x123456789abcdefull,
	0x7fffffffffffffffull, 0x8000000000000000ull, 0x8000000000000001ull,
	0xfffffffffffffffeull, 0xffffffffffffffffull,
};

static void check_unsigned(uint64_t n, uint64_t d)
{
	uint64_t r = ~0ull;
	uint64_t q = __udivmoddi4(n, d, &r);
	if (q != n / d || r != n % d)
		fprintf(stderr, "%llu / %llu: got q %llu r %llu\n", (unsigned long long)n,
		        (unsigned long long)d, (unsigned long long)q, (unsigned long long)r);
	assert_int_equal(q, n / d);
	assert_int_equal(r, n % d);
	assert_int_equal(__udivmoddi4(n, d, NULL), n / d);     /* no remainder wanted */
	assert_int_equal(__udivdi3(n, d), n / d);
	assert_int_equal(__umoddi3(n, d), n % d);
}

static void check_signed(int64_t n, int64_t d)
{
	if (d == 0)
		return;
	if (n == INT64_MIN && d == -1)
		return;                 /* overflows in C, and traps natively */
	if (__divdi3(n, d) != n / d || __moddi3(n, d) != n % d)
		fprintf(stderr, "%lld / %lld: got q %lld r %lld\n", (long long)n, (long long)d,
		        (long long)__divdi3(n, d), (long long)__moddi3(n, d));
	assert_int_equal(__divdi3(n, d), n / d);       /* truncates toward zero */
	assert_int_equal(__moddi3(n, d), n % d);       /* takes the dividend's sign */
}

static void test_edges(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		for (unsigned j = 0; j < sizeof(edges) / sizeof(edges[0]); j++) {
			if (edges[j] == 0)
				continue;
			check_unsigned(edges[i], edges[j]);
			check_signed((int64_t)edges[i], (int64_t)edges[j]);
			/* Negated in unsigned arithmetic: -INT64_MIN overflows. */
			check_signed((int64_t)(0 - edges[i]), (int64_t)edges[j]);
			check_signed((int64_t)edges[i], (int64_t)(0 - edges[j]));
		}
	}
}

/* Every power of two as divisor, and its neighbours, across the 32-bit
 * boundary between the two methods. */
static void test_powers_of_two(void **state)
{
	(void)state;
	for (unsigned s = 0; s < 64; s++) {
		uint64_t d = 1ull << s;
		for (int k = -1; k <= 1; k++) {
			uint64_t dd = d + (uint64_t)(int64_t)k;
			if (dd == 0)
				continue;
			check_unsigned(~0ull, dd);
			check_unsigned(0x8000000000000000ull, dd);
			check_unsigned(d, dd);
			check_unsigned(dd * 3 - 1, dd);
		}
	}
}

/* xorshift64: the same sequence on every host. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A random value of a random width, so that small and large operands,
 * quotients of every size and both of the code's methods all come up. */
static uint64_t random_width(void)
{
	uint64_t v = next_random();
	return v >> (next_random() % 64);
}

static void test_random(void **state)
{
	(void)state;
	unsigned wide = 0, narrow = 0;
	for (unsigned i = 0; i < RANDOM_PAIRS; i++) {
		uint64_t n = random_width(), d = random_width();
		if (d == 0)
			continue;
		if (d >> 32)
			wide++;
		else
			narrow++;
		check_unsigned(n, d);
		check_signed((int64_t)n, (int64_t)d);
		check_signed((int64_t)next_random(), (int64_t)next_random() >> (next_random() % 64));
	}
	/* Both methods were exercised many times. */
	assert_true(wide > RANDOM_PAIRS / 4);
	assert_true(narrow > RANDOM_PAIRS / 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_powers_of_two),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
