// SOURCES: kernel/time/jiffies.c
/* Host tests for kernel/time/jiffies.c: ms_to_jiffies() at every tick rate
 * lull allows.  The ticks must cover at least the milliseconds asked for
 * (rounded up, never down), and one tick fewer must not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "time/jiffies.h"

#include "host_test.h"

static const unsigned rates[] = { 100, 250, 1000 };

/* j ticks at hz cover ms milliseconds, and j - 1 ticks would not. */
static void check_covers_tightly(uint32_t ms, unsigned hz)
{
	tick_hz = hz;
	uint64_t j = ms_to_jiffies(ms);
	uint64_t want = (uint64_t)ms * hz;          /* ms, in units of 1/(1000 hz) s */
	if (j * 1000 < want)
		fail_msg("%u ms at HZ=%u: %llu ticks is too few", ms, hz, (unsigned long long)j);
	if (j > 0 && (j - 1) * 1000 >= want)
		fail_msg("%u ms at HZ=%u: %llu ticks is one too many", ms, hz, (unsigned long long)j);
}

static void test_known_values(void **state)
{
	(void)state;
	tick_hz = 250;                              /* 4 ms a tick */
	assert_int_equal(ms_to_jiffies(0), 0);
	assert_int_equal(ms_to_jiffies(1), 1);
	assert_int_equal(ms_to_jiffies(4), 1);
	assert_int_equal(ms_to_jiffies(5), 2);
	assert_int_equal(ms_to_jiffies(1000), 250);
	tick_hz = 100;                              /* 10 ms a tick */
	assert_int_equal(ms_to_jiffies(10), 1);
	assert_int_equal(ms_to_jiffies(11), 2);
	assert_int_equal(ms_to_jiffies(1000), 100);
	tick_hz = 1000;
	assert_int_equal(ms_to_jiffies(1), 1);
	assert_int_equal(ms_to_jiffies(1000), 1000);
	tick_hz = CONFIG_HZ;
}

/* The largest argument: the 64-bit intermediate does not overflow, and the
 * result fits 32 bits because HZ <= 1000. */
static void test_largest(void **state)
{
	(void)state;
	tick_hz = 1000;
	assert_int_equal(ms_to_jiffies(UINT32_MAX), UINT32_MAX);
	tick_hz = 250;
	assert_int_equal(ms_to_jiffies(UINT32_MAX), 1073741824u);  /* ceil((2^32 - 1) / 4) */
	tick_hz = 100;
	assert_int_equal(ms_to_jiffies(UINT32_MAX), 429496730u);
	tick_hz = CONFIG_HZ;
}

static void test_rounds_up_never_down(void **state)
{
	(void)state;
	for (unsigned r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (uint32_t ms = 0; ms <= 5000; ms++)
			check_covers_tightly(ms, rates[r]);
		rng_state = 1 + r;
		for (unsigned i = 0; i < 100000; i++)
			check_covers_tightly(rnd32(), rates[r]);
		check_covers_tightly(UINT32_MAX, rates[r]);
	}
	tick_hz = CONFIG_HZ;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_largest),
		cmocka_unit_test(test_rounds_up_never_down),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
