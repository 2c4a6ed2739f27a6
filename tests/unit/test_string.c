// SOURCES: tests/unit/lull_string.c
/* Host tests for lull's memory and string functions (kernel/lib/string.c,
 * built as lull_memset, lull_memcpy, ... by tests/unit/lull_string.c):
 * each against the host libc's on edge cases (empty, zero lengths, bytes
 * above 0x7f, overlapping moves in both directions, needles at either end)
 * and on many random buffers and strings with a fixed seed.  Comparisons
 * are checked by sign only: the C standard fixes nothing more. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* The lull_ names, declared by include/kstring.h; then libc's names back. */
#include "lull_string.h"
#undef memset
#undef memcpy
#undef memmove
#undef memcmp
#undef strlen
#undef strcmp
#undef strncmp
#undef strchr
#undef strstr

#define BUF 256
#define ROUNDS 20000

static int sign(int v) { return (v > 0) - (v < 0); }

/* xorshift32: the same sequence on every host. */
static uint32_t rng = 2463534242u;
static uint32_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* A random string of up to max-1 characters from a small alphabet (so that
 * equal prefixes and matches are common), sometimes with bytes >= 0x80. */
static void random_string(char *s, unsigned max)
{
	static const char alphabet[] = "aab\x80\xff";
	unsigned n = next_random() % max;
	unsigned letters = next_random() % 2 ? 2 : sizeof(alphabet) - 1;
	for (unsigned i = 0; i < n; i++)
		s[i] = alphabet[next_random() % letters];
	s[n] = '\0';
}

static void test_memset_memcpy(void **state)
{
	(void)state;
	unsigned char a[BUF], b[BUF];
	for (unsigned r = 0; r < ROUNDS; r++) {
		unsigned off = next_random() % BUF, n = next_random() % (BUF - off + 1);
		int c = (int)(next_random() % 512) - 128;      /* only the low byte counts */
		for (unsigned i = 0; i < BUF; i++)
			a[i] = b[i] = (unsigned char)next_random();
		assert_ptr_equal(lull_memset(a + off, c, n), a + off);
		memset(b + off, c, n);
		assert_memory_equal(a, b, BUF);

		unsigned char src[BUF];
		for (unsigned i = 0; i < BUF; i++)
			src[i] = (unsigned char)next_random();
		assert_ptr_equal(lull_memcpy(a + off, src, n), a + off);
		memcpy(b + off, src, n);
		assert_memory_equal(a, b, BUF);
	}
}

/* Overlapping moves: the destination after the source (must copy from the
 * end) and before it (from the start), every distance and length. */
static void test_memmove_overlap(void **state)
{
	(void)state;
	unsigned char a[64], b[64];
	for (unsigned src = 0; src < 32; src++) {
		for (unsigned dst = 0; dst < 32; dst++) {
			for (unsigned n = 0; n <= 32; n++) {
				for (unsigned i = 0; i < sizeof(a); i++)
					a[i] = b[i] = (unsigned char)(i * 7 + 1);
				assert_ptr_equal(lull_memmove(a + dst, a + src, n), a + dst);
				memmove(b + dst, b + src, n);
				assert_memory_equal(a, b, sizeof(a));
			}
		}
	}
}

static void check_memcmp(const void *x, const void *y, size_t n)
{
	assert_int_equal(sign(lull_memcmp(x, y, n)), sign(memcmp(x, y, n)));
}

static void test_memcmp(void **state)
{
	(void)state;
	check_memcmp("", "", 0);
	check_memcmp("a", "b", 0);              /* nothing compared */
	check_memcmp("\x80", "\x7f", 1);        /* bytes compare unsigned */
	check_memcmp("\x7f", "\xff", 1);
	check_memcmp("abc\0x", "abc\0y", 6);    /* NULs are just bytes */
	unsigned char a[32], b[32];
	for (unsigned r = 0; r < ROUNDS; r++) {
		for (unsigned i = 0; i < sizeof(a); i++)
			a[i] = b[i] = (unsigned char)next_random();
		unsigned n = next_random() % (sizeof(a) + 1);
		if (next_random() % 2)
			b[next_random() % sizeof(b)] = (unsigned char)next_random();
		check_memcmp(a, b, n);
	}
}

static void check_strings(const char *a, const char *b)
{
	if (sign(lull_strcmp(a, b)) != sign(strcmp(a, b)))
		fprintf(stderr, "strcmp(\"%s\", \"%s\"): lull %d, libc %d\n", a, b,
		        lull_strcmp(a, b), strcmp(a, b));
	assert_int_equal(lull_strlen(a), strlen(a));
	assert_int_equal(sign(lull_strcmp(a, b)), sign(strcmp(a, b)));
	for (size_t n = 0; n <= strlen(a) + 2; n++)
		assert_int_equal(sign(lull_strncmp(a, b, n)), sign(strncmp(a, b, n)));
	assert_ptr_equal(lull_strstr(a, b), strstr(a, b));
	for (int c = -1; c <= 256; c += 1)      /* (char)c: -1 and 255 match 0xff */
		assert_ptr_equal(lull_strchr(a, c), strchr(a, c));
}

static void test_string_edges(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "", "" }, { "", "a" }, { "a", "" }, { "a", "a" }, { "ab", "a" }, { "a", "ab" },
		{ "abc", "abd" }, { "abd", "abc" }, { "\x80", "a" }, { "a", "\xff" },
		{ "hz=100 tick=periodic", "tick" }, { "tickless", "less" }, { "tickless", "tick" },
		{ "aaab", "aab" }, { "aab", "aaab" }, { "abc", "c" }, { "abc", "abcd" },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		check_strings(cases[i][0], cases[i][1]);
		check_strings(cases[i][1], cases[i][0]);
	}
	/* strncmp stops at n even where the strings go on to differ. */
	assert_int_equal(lull_strncmp("abcX", "abcY", 3), 0);
	/* strchr finds the terminator itself. */
	const char *s = "tick";
	assert_ptr_equal(lull_strchr(s, '\0'), s + 4);
}

static void test_random_strings(void **state)
{
	(void)state;
	char a[24], b[8];
	for (unsigned r = 0; r < ROUNDS; r++) {
		random_string(a, sizeof(a));
		random_string(b, next_random() % 3 ? 4 : sizeof(b));
		check_strings(a, b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memset_memcpy),
		cmocka_unit_test(test_memmove_overlap),
		cmocka_unit_test(test_memcmp),
		cmocka_unit_test(test_string_edges),
		cmocka_unit_test(test_random_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
