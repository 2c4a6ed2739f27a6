// SOURCES: kernel/lib/power_model.c
/* Host tests for the `power` model (kernel/lib/power_model.c): it goes
 * through the LWN article's two points, is a straight line between and
 * beyond them, and adds the stated busy term.  Each failure says which
 * part of the model is off: the intercept, the slope, the units, the busy
 * share. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "errno.h"
#include "power_model.h"

/* The model at `milli` thousandths of a wakeup a second and `bp` basis
 * points busy is `want` uW; else a failure saying both and `why`. */
static void expect_uw(uint64_t milli, uint32_t bp, int64_t want, const char *why)
{
	int64_t got = power_estimate_uw(milli, bp);
	if (got != want)
		fail_msg("power_estimate_uw(%llu, %u) = %lld uW; expected %lld uW: %s",
		         (unsigned long long)milli, bp, (long long)got, (long long)want, why);
}

static void test_the_articles_two_points(void **state)
{
	(void)state;
	/* HZ=100: 7.59 W.  100000 thousandths are 100 wakeups a second. */
	expect_uw(100000, 0, 7590000, "the article's point at HZ=100 (7.59 W): the line passes "
	          "through (POWER_HZ_LOW, POWER_AT_HZ100_UW), so count the distance from 100 wakeups/s; "
	          "wakeups_milli is in thousandths");
	/* HZ=1000: 8.15 W. */
	expect_uw(1000000, 0, 8150000, "the article's point at HZ=1000 (8.15 W): the slope is 560000 uW "
	          "per 900 wakeups/s; multiply before you divide (622 uW per wakeup/s, rounded first, "
	          "misses by 200 uW)");
}

static void test_a_straight_line(void **state)
{
	(void)state;
	/* No wakeups at all: 7.59 W - 100 x 0.622 mW = 7.5278 W. */
	int64_t none = power_estimate_uw(0, 0);
	if (!(none >= 7527700 && none <= 7527800))
		fail_msg("power_estimate_uw(0, 0) = %lld uW; expected 7527700..7527800: the line continued "
		         "below 100 wakeups/s, where the distance from POWER_HZ_LOW is negative (signed "
		         "arithmetic: wakeups_milli is unsigned)", (long long)none);
	/* HZ=250 lies 150/900 of the way up. */
	expect_uw(250000, 0, 7590000 + 560000 * 150 / 900, "HZ=250 lies 150/900 of the way from "
	          "7.59 W to 8.15 W (divide last)");
	/* Monotonic, and linear beyond the points too. */
	if (!(power_estimate_uw(200, 0) < power_estimate_uw(1000000, 0)))
		fail_msg("power_estimate_uw: 0.2 wakeups/s gives %lld uW, not less than 1000 wakeups/s' "
		         "%lld uW: the line rises with the wakeups", (long long)power_estimate_uw(200, 0),
		         (long long)power_estimate_uw(1000000, 0));
	int64_t beyond = power_estimate_uw(1900000, 0) - power_estimate_uw(1000000, 0);
	if (beyond != 560000)
		fail_msg("from 1000 to 1900 wakeups/s the model rises %lld uW; expected 560000: the same "
		         "straight line beyond HZ=1000 (no cap, no other slope)", (long long)beyond);
}

static void test_busy_share(void **state)
{
	(void)state;
	int64_t idle = power_estimate_uw(100000, 0);
	int64_t busy = power_estimate_uw(100000, 10000);
	if (busy == -EINVAL)
		fail_msg("power_estimate_uw(100000, 10000) = -EINVAL: a busy share of exactly 100 %% "
		         "(10000 bp) is allowed; only over 100 %% is refused");
	if (busy - idle != POWER_BUSY_UW)
		fail_msg("never halted (10000 bp) adds %lld uW to the idle figure; expected POWER_BUSY_UW, "
		         "%d: plus POWER_BUSY_UW x busy_bp / 10000 (basis points: 10000 is 100 %%)",
		         (long long)(busy - idle), POWER_BUSY_UW);
	int64_t half = power_estimate_uw(100000, 5000) - idle;
	if (half != POWER_BUSY_UW / 2)
		fail_msg("half busy (5000 bp) adds %lld uW; expected %d, half of POWER_BUSY_UW",
		         (long long)half, POWER_BUSY_UW / 2);
	int64_t over = power_estimate_uw(100000, 10001);
	if (over != -EINVAL)
		fail_msg("power_estimate_uw(100000, 10001) = %lld; expected -EINVAL: a busy share over "
		         "100 %% (10000 bp) is refused", (long long)over);
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
