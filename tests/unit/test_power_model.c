// SOURCES: kernel/lib/power_model.c
/* Host tests for the `power` model (kernel/lib/power_model.c): it goes
 * through the LWN article's two points, is a straight line between and
 * beyond them, and adds the stated busy term. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "errno.h"
#include "power_model.h"

static void test_the_articles_two_points(void **state)
{
	(void)state;
	assert_int_equal(power_estimate_uw(100000, 0), 7590000);        /* HZ=100: 7.59 W */
	assert_int_equal(power_estimate_uw(1000000, 0), 8150000);       /* HZ=1000: 8.15 W */
}

static void test_a_straight_line(void **state)
{
	(void)state;
	/* No wakeups at all: 7.59 W - 100 x 0.622 mW = 7.5278 W. */
	int64_t none = power_estimate_uw(0, 0);
	assert_true(none >= 7527700 && none <= 7527800);
	/* HZ=250 lies 150/900 of the way up. */
	assert_int_equal(power_estimate_uw(250000, 0), 7590000 + 560000 * 150 / 900);
	/* Monotonic, and linear beyond the points too. */
	assert_true(power_estimate_uw(200, 0) < power_estimate_uw(1000000, 0));
	assert_int_equal(power_estimate_uw(1900000, 0) - power_estimate_uw(1000000, 0), 560000);
}

static void test_busy_share(void **state)
{
	(void)state;
	assert_int_equal(power_estimate_uw(100000, 10000) - power_estimate_uw(100000, 0), POWER_BUSY_UW);
	assert_int_equal(power_estimate_uw(100000, 5000) - power_estimate_uw(100000, 0), POWER_BUSY_UW / 2);
	assert_int_equal(power_estimate_uw(100000, 10001), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_articles_two_points),
		cmocka_unit_test(test_a_straight_line),
		cmocka_unit_test(test_busy_share),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
