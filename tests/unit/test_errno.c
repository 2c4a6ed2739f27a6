// SOURCES:
/* Host tests for the names of lull's error codes (kernel/lib/errno.c):
 * every code of include/errno.h has its own name, spelled as its macro,
 * and a few words; either sign finds it; any other number is EUNKNOWN. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "errno.h"

/* Every code of include/errno.h: a new one added there belongs here. */
#define EACH_CODE(X) X(EINTR) X(EIO) X(EAGAIN) X(EBUSY) X(ENODEV) X(EINVAL) X(ERANGE) \
                     X(ENOSPC) X(ENOENT) X(ETIME) X(ETIMEDOUT) X(ENOSYS) \
                     X(EPERM) X(ESRCH) X(E2BIG) X(EFAULT)

static void test_every_code_is_named_as_its_macro(void **state)
{
	(void)state;
#define CHECK(e)                                                        \
	assert_string_equal(errno_name(-e), #e);                        \
	assert_string_equal(errno_name(e), #e);                         \
	assert_true(strlen(errno_text(-e)) > 3);                        \
	assert_string_equal(errno_text(-e), errno_text(e));
	EACH_CODE(CHECK)
#undef CHECK
	assert_string_equal(errno_text(-ENOSYS), "not implemented");
}

static void test_other_numbers_are_unknown(void **state)
{
	(void)state;
	static const int others[] = { 0, 6, 8, 37, 39, 109, 111, 1000, -1000, 0x7fffffff,
	                              -0x7fffffff - 1 };
	for (unsigned i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		assert_string_equal(errno_name(others[i]), "EUNKNOWN");
		assert_non_null(errno_text(others[i]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code_is_named_as_its_macro),
		cmocka_unit_test(test_other_numbers_are_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
