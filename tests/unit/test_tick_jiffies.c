// SOURCES: kernel/time/tick.c kernel/time/tick_sched.c kernel/time/tick_boot.c kernel/time/tick_smp.c kernel/time/wakeups.c kernel/time/trace.c kernel/time/timer.c kernel/time/timer_bucket.c kernel/time/timer_cascade.c kernel/time/timer_expiry.c kernel/time/timer_base.c kernel/time/timer_level.c kernel/time/slack.c kernel/time/hrtimer.c kernel/time/hrtimer_base.c kernel/time/hrtimer_heap.c kernel/time/path.c kernel/time/clocksource.c kernel/time/watchdog.c kernel/time/timekeeping.c kernel/time/clockevents.c kernel/time/jiffies.c tests/unit/host_arch.c tests/unit/time_test.c kernel/time/mult_shift.c kernel/lib/format.c kernel/time/tick_jiffies.c kernel/time/tick_switch.c kernel/time/percpu.c
/* tests/unit/test_tick_jiffies.c — host tests for the jiffies count of
 * kernel/time/tick_jiffies.c: given the clock's `now` at an interrupt,
 * tick_update_jiffies (jiffies_advance_locked under the lock) adds every
 * whole period that has ended since the last boundary, and moves the
 * boundary by that many periods.  Each case starts afresh from a known
 * boundary, so a failure names the one rule it breaks; test_tick.c then
 * runs the whole tick on a fake clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "time/jiffies.h"
#include "time/tick.h"
#include "../../kernel/time/tick_internal.h"

#define FIRST_NS  123456789012ull       /* the boundary each case starts from */

/* One interrupt at boundary + `after` ns: n, jiffies and the boundary as
 * the rule says, or a failure that names the rule (`why`). */
struct jiffies_case {
	uint64_t after_ns;              /* now - boundary (may wrap: now before it) */
	uint64_t periods;               /* whole periods ended by then */
	const char *why;
};

static void check_case(uint64_t period, uint64_t start_jiffies, const struct jiffies_case *c)
{
	struct tick_cpu tc = { 0 };
	jiffies_64 = start_jiffies;
	tick_jiffies_start(FIRST_NS, period);
	uint64_t now = FIRST_NS + c->after_ns;
	uint64_t n = tick_update_jiffies(&tc, now);
	uint32_t j;
	uint64_t boundary;
	tick_jiffies_snapshot(&j, &boundary);
	uint64_t want_boundary = FIRST_NS + c->periods * period;
	const char *wrong = n > c->periods ? "it counts a period that has not ended" :
	                    n < c->periods ? "it misses a period that has ended" :
	                    jiffies_64 != start_jiffies + n ? "jiffies_64 did not advance by n" :
	                    boundary != want_boundary ? "the boundary must move by n whole periods" :
	                    tc.last_jiffy_ns != boundary ? "tick_update_jiffies did not copy the boundary" : NULL;
	if (wrong)
		fail_msg("jiffies_advance_locked, period %llu ns, now = boundary %s %llu ns: n = %llu, jiffies "
		         "+%lld, boundary moved %lld ns; want n = %llu, jiffies +%llu, boundary moved %llu ns: "
		         "%s (%s)", (unsigned long long)period, (int64_t)c->after_ns < 0 ? "-" : "+",
		         (unsigned long long)((int64_t)c->after_ns < 0 ? -c->after_ns : c->after_ns),
		         (unsigned long long)n, (long long)(jiffies_64 - start_jiffies),
		         (long long)(boundary - FIRST_NS), (unsigned long long)c->periods,
		         (unsigned long long)c->periods, (unsigned long long)(want_boundary - FIRST_NS), wrong,
		         c->why);
}

/* Each rule at every tick rate lull allows, and with the 64-bit count
 * crossing the 32-bit wrap. */
static void test_whole_periods_since_the_boundary(void **state)
{
	(void)state;
	static const unsigned rates[] = { 100, 250, 1000 };
	static const uint64_t starts[] = { 1000, 0xfffffffeull, 0x1fffffe0cull };
	for (unsigned r = 0; r < 3; r++) {
		uint64_t p = 1000000000ull / rates[r];
		const struct jiffies_case cases[] = {
			{ 0, 0, "no period has ended yet" },
			{ p - 1, 0, "a period not yet ended does not count" },
			{ p, 1, "a period that ends exactly at now has ended" },
			{ p + 5000, 1, "one period ended 5 us ago: the boundary moves by whole periods, not to now" },
			{ 2 * p - 1, 1, "one period and almost another: whole periods, rounding down" },
			{ 2 * p, 2, "exactly two periods, a tick skipped: two at once" },
			{ 2 * p + 1, 2, "two periods and 1 ns: two, rounding down" },
			{ 3 * p - 1, 2, "two periods and almost a third: two, rounding down" },
			{ 400 * p + 123, 400, "after a 400-tick skip, 400 at once" },
			{ 5000000000ull + 7, 5000000000ull / p, "a skip longer than 2^32 ns: divide in 64 bits" },
			{ 0ull - 2000, 0, "now before the boundary (a clock read just before another CPU moved "
			  "it): nothing has ended" },
		};
		for (unsigned s = 0; s < 3; s++)
			for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
				check_case(p, starts[s], &cases[k]);
	}
}

/* An interrupt 5 us after each boundary, 10000 times: jiffies and the
 * boundary follow the clock exactly, with no drift. */
static void test_no_drift_over_many_late_interrupts(void **state)
{
	(void)state;
	uint64_t p = 4000000, start = jiffies_64 = 0xfffff000ull;
	struct tick_cpu tc = { 0 };
	tick_jiffies_start(FIRST_NS, p);
	for (uint64_t k = 1; k <= 10000; k++) {
		uint64_t n = tick_update_jiffies(&tc, FIRST_NS + k * p + 5000);
		if (n != 1 || jiffies_64 != start + k || tc.last_jiffy_ns != FIRST_NS + k * p)
			fail_msg("jiffies_advance_locked, interrupt %llu, 5 us after its boundary: n = %llu, jiffies "
			         "+%llu, boundary at %llu periods + %llu ns; want 1, +%llu, %llu periods + 0 ns "
			         "(the boundary moves by whole periods, not to now: else jiffies drift behind)",
			         (unsigned long long)k, (unsigned long long)n, (unsigned long long)(jiffies_64 - start),
			         (unsigned long long)((tc.last_jiffy_ns - FIRST_NS) / p),
			         (unsigned long long)((tc.last_jiffy_ns - FIRST_NS) % p), (unsigned long long)k,
			         (unsigned long long)k);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_periods_since_the_boundary),
		cmocka_unit_test(test_no_drift_over_many_late_interrupts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
