// SOURCES: kernel/lib/format.c
/* Host tests for the printf engine (kernel/lib/format.c): every conversion
 * lull uses is checked against the C library's snprintf, which defines the
 * expected output; %p is lull's own (always 0x + 8 digits). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
#include <cmocka.h>
#include "kprintf.h"

#define CHECK_LIKE_LIBC(fmt, ...) do {                                  \
		char ours[256], libc[256];                              \
		int n1 = ksnprintf(ours, sizeof(ours), fmt, __VA_ARGS__);\
		int n2 = snprintf(libc, sizeof(libc), fmt, __VA_ARGS__); \
		assert_string_equal(ours, libc);                        \
		assert_int_equal(n1, n2);                               \
	} while (0)

static void test_integers(void **state)
{
	(void)state;
	CHECK_LIKE_LIBC("%d %i %u", 0, -1, 4294967295u);
	CHECK_LIKE_LIBC("%d", (int)0x80000000);         /* INT_MIN */
	CHECK_LIKE_LIBC("%x %X", 0xdeadbeefu, 0xdeadbeefu);
	CHECK_LIKE_LIBC("[%5d] [%-5d] [%05d]", 42, 42, 42);
	CHECK_LIKE_LIBC("[%05d] [%-6d]", -42, -42);
	CHECK_LIKE_LIBC("[%08x] [%-8x|]", 0xabcu, 0xabcu);
	CHECK_LIKE_LIBC("[%*d] [%-*d]", 6, 7, 6, 7);
	CHECK_LIKE_LIBC("[%*d]", -6, 7);                /* negative * = left */
	CHECK_LIKE_LIBC("%+d %+d %+d [%+5d] [%-+5d] [%+05d]", 3, -3, 0, 42, -42, 7);
	CHECK_LIKE_LIBC("%+lld", -9000000000ll);
}

static void test_64bit(void **state)
{
	(void)state;
	CHECK_LIKE_LIBC("%llu", 18446744073709551615ull);
	CHECK_LIKE_LIBC("%lld", (long long)-9223372036854775807ll - 1);
	CHECK_LIKE_LIBC("%llx %llX", 0x123456789abcdefull, 0xfedcba9876543210ull);
	CHECK_LIKE_LIBC("[%020llu] [%-20llu]", 12345678901234ull, 12345678901234ull);
	CHECK_LIKE_LIBC("%zu", (size_t)123456);
	CHECK_LIKE_LIBC("%lu %ld", 4000000000ul, -5l);
	/* A random sweep: digits of 64-bit values in both bases. */
	uint64_t v = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 2000; i++) {
		v ^= v << 13; v ^= v >> 7; v ^= v << 17;
		uint64_t x = v >> (i % 64);
		CHECK_LIKE_LIBC("%llu %llx %lld", (unsigned long long)x, (unsigned long long)x, (long long)x);
	}
}

static void test_strings_chars(void **state)
{
	(void)state;
	CHECK_LIKE_LIBC("%s|%c|%%", "hello", 'x');
	CHECK_LIKE_LIBC("[%8s] [%-8s] [%.3s] [%-6.2s]", "ab", "ab", "abcdef", "abcdef");
	CHECK_LIKE_LIBC("[%.*s]", 2, "abcdef");
	CHECK_LIKE_LIBC("[%3c] [%-3c]", 'a', 'b');
	char buf[32];
	const char *volatile null = NULL;       /* hide it from -Wformat */
	ksnprintf(buf, sizeof(buf), "%s", null);
	assert_string_equal(buf, "(null)");
}

static void test_pointer(void **state)
{
	(void)state;
	char buf[32];
	ksnprintf(buf, sizeof(buf), "%p", (void *)(uintptr_t)0x1234);
	assert_string_equal(buf, "0x00001234");
	ksnprintf(buf, sizeof(buf), "%p", (void *)(uintptr_t)0xdeadbeef);
	assert_string_equal(buf, "0xdeadbeef");
}

static void test_truncation(void **state)
{
	(void)state;
	char buf[8];
	memset(buf, 'Z', sizeof(buf));
	int n = ksnprintf(buf, 5, "%s", "abcdefgh");
	assert_int_equal(n, 8);                 /* the length it wanted */
	assert_string_equal(buf, "abcd");       /* cut and terminated */
	assert_int_equal(buf[5], 'Z');          /* nothing written past size */
	n = ksnprintf(buf, 0, "%d", 12345);
	assert_int_equal(n, 5);
	assert_int_equal(buf[0], 'a');          /* size 0: untouched */
}

static void test_odd_formats(void **state)
{
	(void)state;
	char buf[32];
	const char *volatile lone = "100%", *volatile unknown = "%q";
	ksnprintf(buf, sizeof(buf), lone, 0);
	assert_string_equal(buf, "100%");       /* lone % at the end */
	ksnprintf(buf, sizeof(buf), unknown, 0);
	assert_string_equal(buf, "%q");         /* unknown conversion shown */
}

/* fmt_fixed must print exactly what the hand-written "%llu.%03llu"-style
 * pairs it replaced printed: integer part, then the fraction zero-padded to
 * the number of decimals, truncated. */
static void test_fixed_point(void **state)
{
	(void)state;
	static const uint64_t values[] = {
		0, 1, 9, 10, 999, 1000, 1001, 12345, 1193182, 3579545, 14318180,
		2596141000ULL, 999999999ULL, 1000000000ULL, 123456789012ULL, UINT64_MAX,
	};
	char ours[FMT_FIXED_SIZE], libc[64];
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		unsigned long long v = values[i];
		for (unsigned d = 1; d <= FMT_FIXED_MAX_DECIMALS; d++) {
			unsigned long long scale = 1;
			for (unsigned k = 0; k < d; k++)
				scale *= 10;
			snprintf(libc, sizeof(libc), "%llu.%0*llu", v / scale, (int)d, v % scale);
			assert_ptr_equal(fmt_fixed(ours, sizeof(ours), v, d), ours);
			assert_string_equal(ours, libc);
		}
		snprintf(libc, sizeof(libc), "%llu", v);
		assert_string_equal(fmt_fixed(ours, sizeof(ours), v, 0), libc);
		/* MHz as the drivers printed it before: hz / 10^6 "." hz / 1000 % 1000. */
		snprintf(libc, sizeof(libc), "%llu.%03llu", v / 1000000, v / 1000 % 1000);
		assert_string_equal(fmt_mhz(ours, sizeof(ours), v), libc);
	}
	assert_string_equal(fmt_fixed(ours, sizeof(ours), 5, 2), "0.05");
	assert_string_equal(fmt_mhz(ours, sizeof(ours), 1193182), "1.193");
	assert_string_equal(fmt_mhz(ours, sizeof(ours), 2596141999ULL), "2596.141");  /* truncated */
	/* The widest value fits the advertised size; more decimals are capped. */
	assert_string_equal(fmt_fixed(ours, sizeof(ours), UINT64_MAX, FMT_FIXED_MAX_DECIMALS),
	                    "1.8446744073709551615");
	assert_string_equal(fmt_fixed(ours, sizeof(ours), UINT64_MAX, 40), "1.8446744073709551615");
	assert_true(strlen(fmt_fixed(ours, sizeof(ours), UINT64_MAX, 1)) < FMT_FIXED_SIZE);
	/* A short buffer is cut and still terminated, like ksnprintf. */
	char tiny[4];
	assert_string_equal(fmt_fixed(tiny, sizeof(tiny), 12345, 3), "12.");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_64bit),
		cmocka_unit_test(test_strings_chars),
		cmocka_unit_test(test_pointer),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_odd_formats),
		cmocka_unit_test(test_fixed_point),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
