// SOURCES: kernel/time/jiffies.c
/* Host tests for kernel/time/jiffies.c and include/time/jiffies.h: the
 * wrap-safe comparisons, and ms_to_jiffies() at every tick rate lull allows.  The ticks must cover at least the milliseconds asked for
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

/* One comparison's answer against the true order. */
static void check_answer(const char *f, uint32_t x, uint32_t y, bool got, bool want, int64_t gap)
{
	if (got != want)
		fail_msg("%s(%u, %u) is %s, want %s: %u is %lld tick(s) %s %u%s", f, x, y,
		         got ? "true" : "false", want ? "true" : "false", x, (long long)(gap < 0 ? -gap : gap),
		         gap > 0 ? "after" : gap < 0 ? "before" : "- the same as", y,
		         (x < y) == (gap > 0) && gap ? " (the 32-bit count wrapped between them)" : "");
}

/* time_after and friends agree with the order of the true 64-bit counts
 * whenever the two are less than 2^31 apart, wherever the 32-bit view
 * wraps between them. */
static void test_comparisons_across_the_wrap(void **state)
{
	(void)state;
	static const uint64_t bases[] = { 0, 1, 0x7fffffffu, 0x80000000u, 0xfffffff0u, 0xffffffffu,
	                                  0x100000000ull - 500, 0x1234567890ull };
	static const int64_t gaps[] = { 0, 1, 2, 255, 256, 65536, 0x7ffffffe, 0x7fffffff };
	for (unsigned i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		for (unsigned g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
			uint64_t early = bases[i], late = bases[i] + (uint64_t)gaps[g];
			uint32_t a = (uint32_t)late, b = (uint32_t)early;
			int64_t gap = gaps[g];          /* a is gap ticks after b */
			check_answer("time_after", a, b, time_after(a, b), gap > 0, gap);
			check_answer("time_after", b, a, time_after(b, a), false, -gap);
			check_answer("time_after_eq", a, b, time_after_eq(a, b), true, gap);
			check_answer("time_after_eq", b, a, time_after_eq(b, a), gap == 0, -gap);
			check_answer("time_before", b, a, time_before(b, a), gap > 0, -gap);
			check_answer("time_before", a, b, time_before(a, b), false, gap);
			check_answer("time_before_eq", b, a, time_before_eq(b, a), true, -gap);
		}
	}
	/* The boot's own crossing: INITIAL_JIFFIES then JIFFIES_WRAP_AFTER_S later. */
	uint32_t boot = INITIAL_JIFFIES(250), two_s_later = boot + 2 * 250 + 1;
	assert_true(two_s_later < boot);
	assert_true(time_after(two_s_later, boot));
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
		cmocka_unit_test(test_comparisons_across_the_wrap),
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_largest),
		cmocka_unit_test(test_rounds_up_never_down),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
