// SOURCES: kernel/shell/args.c
/* Host tests for word splitting and strict number parsing (kernel/shell/args.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "shell/args.h"
#include "errno.h"

static void test_split(void **state)
{
	(void)state;
	char line[] = "  sleep \t 100   extra ";
	char *argv[ARGS_MAX];
	assert_int_equal(args_split(line, argv, ARGS_MAX), 3);
	assert_string_equal(argv[0], "sleep");
	assert_string_equal(argv[1], "100");
	assert_string_equal(argv[2], "extra");

	char empty[] = " \t ";
	assert_int_equal(args_split(empty, argv, ARGS_MAX), 0);

	char many[] = "a b c d";
	assert_int_equal(args_split(many, argv, 3), -1);
}

static void test_numbers_ok(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(parse_u64("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_u64("86400000", 0, 86400000, &v), 0);
	assert_int_equal(v, 86400000);
	assert_int_equal(parse_u64("0x1F", 0, 100, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_u64("007", 0, 10, &v), 0);
	assert_int_equal(v, 7);
	uint32_t w;
	assert_int_equal(parse_u32("4294967295", 0, UINT32_MAX, &w), 0);
	assert_true(w == UINT32_MAX);
}

static void test_numbers_rejected(void **state)
{
	(void)state;
	uint64_t v = 12345;
	static const char *const junk[] = {
		"", "-1", "+1", " 1", "1 ", "1.5", "abc", "12abc", "0x", "0xg", "1e3", "٣",
	};
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		assert_int_equal(parse_u64(junk[i], 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(parse_u64(NULL, 0, 10, &v), -EINVAL);
	assert_int_equal(parse_u64("11", 0, 10, &v), -ERANGE);
	assert_int_equal(parse_u64("4", 5, 10, &v), -ERANGE);
	/* Overflow is an error, never a wrap-around. */
	assert_int_equal(parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(parse_u64("99999999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(parse_u64("99999999999999999999999x", 0, UINT64_MAX, &v), -EINVAL);
	uint32_t w = 7;
	assert_int_equal(parse_u32("4294967296", 0, UINT32_MAX, &w), -ERANGE);
	assert_int_equal(w, 7);                 /* untouched on error */
	assert_int_equal(v, 12345);
}

static void test_signed_nonzero(void **state)
{
	(void)state;
	int64_t v;
	assert_int_equal(parse_signed_nonzero("+10", 100, &v), 0);
	assert_true(v == 10);
	assert_int_equal(parse_signed_nonzero("-10", 100, &v), 0);
	assert_true(v == -10);
	assert_int_equal(parse_signed_nonzero("7", 100, &v), 0);
	assert_true(v == 7);
	assert_int_equal(parse_signed_nonzero("0", 100, &v), -EINVAL);
	assert_int_equal(parse_signed_nonzero("-0", 100, &v), -EINVAL);
	assert_int_equal(parse_signed_nonzero("+101", 100, &v), -EINVAL);
	assert_int_equal(parse_signed_nonzero("--1", 100, &v), -EINVAL);
	assert_int_equal(parse_signed_nonzero("+", 100, &v), -EINVAL);
	assert_int_equal(parse_signed_nonzero("1x", 100, &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_numbers_ok),
		cmocka_unit_test(test_numbers_rejected),
		cmocka_unit_test(test_signed_nonzero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
