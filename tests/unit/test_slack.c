// SOURCES: kernel/time/timer.c kernel/time/timer_bucket.c kernel/time/timer_cascade.c kernel/time/timer_expiry.c kernel/time/timer_base.c kernel/time/timer_level.c kernel/time/slack.c kernel/time/jiffies.c tests/unit/host_arch.c kernel/time/optimum.c kernel/time/percpu.c
/* tests/unit/test_slack.c — windows are never violated.
 *
 * First each class's slack (kernel/time/slack.c) against the formula in
 * include/time/slack.h, computed here again in 128-bit arithmetic, for
 * nanoseconds and for jiffies.  Then the wheel with windows, driven by a
 * simulated tickless idle loop: sleep to the earliest hard end
 * (timer_next_expiry), set jiffies there, run what is due
 * (timer_run_expired).  Every timer must fire once per arming, at a wakeup
 * inside its window, and none may be left behind.  With a fixed set of
 * windows armed up front and no other wakeups, the wheel must wake exactly
 * as often as the fewest wakeups that serve them all (include/time/optimum.h):
 * the idle loop is the greedy.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "time/jiffies.h"
#include "time/optimum.h"
#include "time/slack.h"
#include "time/timer.h"

#include "host_test.h"

typedef unsigned __int128 u128;

static uint64_t min128(u128 a, u128 b) { return (uint64_t)(a < b ? a : b); }

/* The table in include/time/slack.h, without any care for overflow. */
static uint64_t model_slack(enum timer_class c, unsigned pct, uint64_t delta, uint64_t units_per_s)
{
	u128 d = delta, ups = units_per_s;
	switch (c) {
	case TIMER_CLASS_DEFAULT:
		return model_slack(TIMER_CLASS_PERCENT, timer_slack_percent, delta, units_per_s);
	case TIMER_CLASS_EXACT:
		return 0;
	case TIMER_CLASS_NORMAL:
		return min128(d / 8, ups * SLACK_NORMAL_CAP_MS / 1000);
	case TIMER_CLASS_BACKGROUND:
		return min128(d / 2, ups * SLACK_BACKGROUND_CAP_MS / 1000);
	case TIMER_CLASS_DEFERRABLE:
		return min128(d, ups * SLACK_DEFERRABLE_CAP_MS / 1000);
	case TIMER_CLASS_PERCENT:
		return (uint64_t)(d * (pct > SLACK_PERCENT_MAX ? SLACK_PERCENT_MAX : pct) / 100);
	default:
		return 0;
	}
}

/* One check of timer_slack against the model.  The percent class (and the
 * default, which is one) may round a Δ of more than 2^64 / 100 units (58
 * centuries of ns) down by less than its percentage: slack.c divides first
 * there so as not to overflow. */
static void check_slack(enum timer_class c, unsigned pct, uint64_t delta, uint64_t ups)
{
	uint64_t got = timer_slack(c, pct, delta, ups);
	uint64_t want = model_slack(c, pct, delta, ups);
	bool percent = c == TIMER_CLASS_PERCENT || c == TIMER_CLASS_DEFAULT;
	uint64_t p = c == TIMER_CLASS_DEFAULT ? timer_slack_percent : pct;
	uint64_t loss = percent && delta > UINT64_MAX / SLACK_PERCENT_MAX ? MIN(p, 100) : 0;
	if (got > delta || got > want || want - got > loss)
		fail_msg("timer_slack(%s, %u, %llu, %llu) = %llu (global %u%%), formula %llu",
		         timer_class_name(c), pct, (unsigned long long)delta,
		         (unsigned long long)ups, (unsigned long long)got, timer_slack_percent,
		         (unsigned long long)want);
}

static void test_slack_formulas(void **state)
{
	(void)state;
	const uint64_t units[] = { NSEC_PER_SEC, CONFIG_HZ, 100, 250, 1000, 1 };
	const uint64_t edges[] = {
		0, 1, 2, 7, 8, 9, 15, 16, 99, 100, 101, 249, 250, 251, 999, 1000, 1001,
		7999999, 8000000, 8000001, 199999999, 200000000, 200000001,
		NSEC_PER_SEC - 1, NSEC_PER_SEC, NSEC_PER_SEC + 1,
		UINT64_MAX / 100 - 1, UINT64_MAX / 100, UINT64_MAX / 100 + 1,
		UINT64_MAX / 8, UINT64_MAX / 2, UINT64_MAX - 1, UINT64_MAX,
	};
	const unsigned pcts[] = { 0, 1, 12, 50, 99, 100, 101, 200, 255, 1000, ~0u };
	unsigned saved = timer_slack_percent;
	for (unsigned u = 0; u < ARRAY_SIZE(units); u++)
		for (unsigned e = 0; e < ARRAY_SIZE(edges); e++)
			for (unsigned p = 0; p < ARRAY_SIZE(pcts); p++)
				for (unsigned c = 0; c <= TIMER_CLASS_COUNT; c++) {
					timer_slack_percent = pcts[(p + c) % ARRAY_SIZE(pcts)];
					check_slack((enum timer_class)c, pcts[p], edges[e], units[u]);
				}
	rng_state = 0x51ac;
	for (unsigned i = 0; i < 200000; i++) {
		/* Δ of every size: a random number of random bits. */
		uint64_t delta = rnd64() >> (rnd32() % 64);
		uint64_t ups = i % 2 ? NSEC_PER_SEC : (uint64_t)tick_hz;
		timer_slack_percent = rnd32() % 130;
		check_slack((enum timer_class)(rnd32() % TIMER_CLASS_COUNT), rnd32() % 130, delta, ups);
	}
	timer_slack_percent = saved;

	/* The caps themselves, spelled out once. */
	assert_int_equal(timer_slack(TIMER_CLASS_NORMAL, 0, NSEC_PER_SEC, NSEC_PER_SEC), NSEC_PER_MSEC);
	assert_int_equal(timer_slack(TIMER_CLASS_NORMAL, 0, 800, NSEC_PER_SEC), 100);
	assert_int_equal(timer_slack(TIMER_CLASS_BACKGROUND, 0, 10 * NSEC_PER_SEC, NSEC_PER_SEC),
	                 100 * NSEC_PER_MSEC);
	assert_int_equal(timer_slack(TIMER_CLASS_DEFERRABLE, 0, 10 * NSEC_PER_SEC, NSEC_PER_SEC),
	                 NSEC_PER_SEC);
	assert_int_equal(timer_slack(TIMER_CLASS_DEFERRABLE, 0, 10000, 1000), 1000);
	assert_int_equal(timer_slack(TIMER_CLASS_PERCENT, 250, 1000, 1000), 1000);
	assert_int_equal(timer_slack(TIMER_CLASS_EXACT, 100, UINT64_MAX, NSEC_PER_SEC), 0);
	assert_string_equal(timer_class_name(TIMER_CLASS_DEFERRABLE), "deferrable");
	assert_string_equal(timer_class_name(TIMER_CLASS_COUNT), "?");
}

/* ------------------------------------------------ the wheel with windows */

#define NTIMERS   100000
#define MAX_DELTA 100000u       /* jiffies: reaches the wheel's level 2 */

struct wt {
	struct timer t;
	bool armed;                 /* the model's view */
	uint32_t soft, hard;        /* its window, as the model computes it */
	unsigned armings, fires;
};

static struct wt W[NTIMERS];
static uint64_t seed;           /* printed with every failure */
static uint32_t now;            /* the instant the CPU woke at */
static bool churn;              /* callbacks re-arm and delete */
static unsigned rearm_budget;   /* how many more re-arms callbacks may do */

#define fail_seed(fmt, ...) \
	fail_msg("seed %llu: " fmt, (unsigned long long)seed, ##__VA_ARGS__)

static int32_t sdiff(uint32_t a, uint32_t b) { return (int32_t)(a - b); }

/* Arm x for `soft` in a random way: a class (percent with a random
 * percentage, the default with the global one), or an explicit window,
 * sometimes backwards.  The model's window follows the rules in timer.h:
 * Δ counts from jiffies; a hard end before the soft one is the
 * soft one. */
static void arm(struct wt *x, uint32_t soft)
{
	unsigned kind = rnd32() % (TIMER_CLASS_COUNT + 1);
	int was = x->armed;
	if (kind == TIMER_CLASS_COUNT) {
		uint32_t hard = rnd32() % 8 == 0 ? soft - rnd32() % 100 : soft + rnd32() % 20000;
		assert_int_equal(timer_mod_range(&x->t, soft, hard), was);
		x->hard = sdiff(hard, soft) < 0 ? soft : hard;
	} else {
		unsigned pct = rnd32() % 120;
		timer_set_class(&x->t, (enum timer_class)kind, pct);
		int32_t ahead = sdiff(soft, jiffies);
		uint64_t slack = model_slack((enum timer_class)kind, MIN(pct, 100),
		                             ahead > 0 ? (uint64_t)ahead : 0, tick_hz);
		assert_int_equal(timer_mod(&x->t, soft), was);
		x->hard = soft + (uint32_t)slack;
	}
	x->soft = soft;
	x->armed = true;
	x->armings++;
}

static void disarm(struct wt *x)
{
	assert_int_equal(timer_del(&x->t), x->armed);
	x->armed = false;
}

static void fired(struct timer *t)
{
	struct wt *x = container_of(t, struct wt, t);
	unsigned i = (unsigned)(x - W);
	if (!x->armed)
		fail_seed("timer %u fired at %#x, not armed (fired %u times, armed %u)",
		          i, now, x->fires, x->armings);
	if (sdiff(now, x->soft) < 0 || sdiff(now, x->hard) > 0)
		fail_seed("timer %u fired at %#x, outside its window [%#x, %#x]",
		          i, now, x->soft, x->hard);
	x->armed = false;
	x->fires++;
	if (!churn || rearm_budget == 0)
		return;
	/* Arming from a callback counts from this wakeup, at least one jiffy
	 * on: a timer armed for an instant already run waits for the next
	 * wakeup (timer.h), after a hard end that could not be kept. */
	switch (rnd32() % 10) {
	case 0:
	case 1:
		rearm_budget--;
		arm(x, now + 1 + rnd32() % MAX_DELTA);
		break;
	case 2:
		rearm_budget--;
		arm(&W[rnd32() % NTIMERS], now + 1 + rnd32() % MAX_DELTA);
		break;
	case 3:
		disarm(&W[rnd32() % NTIMERS]);
		break;
	case 4: {
		/* Nudge a pending timer: usually the same bucket, a new window
		 * (wheel_rekey's path). */
		struct wt *y = &W[rnd32() % NTIMERS];
		uint32_t soft = y->soft + rnd32() % 5 - 2;
		if (y->armed && sdiff(soft, now) > 0) {
			rearm_budget--;
			arm(y, soft);
		}
		break;
	}
	}
}

/* The model's earliest hard end, false if nothing is armed. */
static bool model_next(uint32_t *hard)
{
	bool any = false;
	for (unsigned i = 0; i < NTIMERS; i++)
		if (W[i].armed && (!any || sdiff(W[i].hard, *hard) < 0)) {
			*hard = W[i].hard;
			any = true;
		}
	return any;
}

/* Start near the wrap, so the run crosses it: arm every timer up front. */
static uint32_t setup(uint64_t s)
{
	seed = s;
	rng_state = s * 0x9E3779B97F4A7C15ull;
	now = INITIAL_JIFFIES(tick_hz) - MAX_DELTA / 2 - rnd32() % 1000;
	jiffies_64 = now;
	timer_wheel_init(now);
	timer_slack_percent = rnd32() % 60;
	for (unsigned i = 0; i < NTIMERS; i++) {
		W[i] = (struct wt){ 0 };
		timer_init(&W[i].t, fired, "w");
		arm(&W[i], now + rnd32() % (MAX_DELTA + 1));
	}
	return now;
}

/* The idle loop until the wheel is empty.  piggyback: some wakeups come
 * early, at a random instant before the earliest hard end (a device
 * interrupt).  Returns the wakeups. */
static unsigned idle_loop(bool piggyback)
{
	unsigned wakeups = 0;
	uint32_t next;
	while (timer_next_expiry(&next)) {
		/* Nothing ran yet at the start; after that, everything due by
		 * the last wakeup has run. */
		if (sdiff(next, now) < (wakeups > 0))
			fail_seed("next expiry %#x, not after the last wakeup %#x", next, now);
		if (wakeups % 512 == 0) {
			uint32_t want = 0;
			if (!model_next(&want) || want != next)
				fail_seed("next expiry %#x (timer_next_expiry, from wheel_earliest), want %#x, the "
				          "earliest hard end of the pending windows (now %#x)", next, want, now);
		}
		uint32_t sleep = next - now;
		if (piggyback && sleep > 1 && rnd32() % 4 == 0)
			sleep = 1 + rnd32() % (sleep - 1);
		now += sleep;
		jiffies_64 = now;
		timer_run_expired(jiffies);
		wakeups++;
	}
	uint32_t dummy;
	if (model_next(&dummy))
		fail_seed("the wheel is empty but the model has timers armed");
	assert_int_equal(timer_count(), 0);
	return wakeups;
}

/* Every arming fired once, except the ones a callback disarmed first. */
static void check_all_fired(void)
{
	unsigned armings = 0, fires = 0;
	for (unsigned i = 0; i < NTIMERS; i++) {
		armings += W[i].armings;
		fires += W[i].fires;
		if (W[i].fires > W[i].armings)
			fail_seed("timer %u fired %u times for %u armings", i, W[i].fires, W[i].armings);
		if (!churn && W[i].fires != 1)
			fail_seed("timer %u fired %u times", i, W[i].fires);
	}
	assert_true(fires <= armings);
	assert_true(fires >= NTIMERS / 2);
}

/* A fixed set of windows and no early wakeups: the wheel wakes exactly as
 * often as the optimum. */
static void test_static_windows_optimum(void **state)
{
	(void)state;
	static struct window win[NTIMERS];
	for (uint64_t s = 1; s <= 3; s++) {
		churn = false;
		uint32_t start = setup(s);
		for (unsigned i = 0; i < NTIMERS; i++)
			win[i] = (struct window){ W[i].soft - start, W[i].hard - start };
		unsigned best = optimum_wakeups(win, NTIMERS);
		unsigned got = idle_loop(false);
		check_all_fired();
		if (got != best)
			fail_seed("%u wakeups, the optimum is %u", got, best);
	}
	timer_slack_percent = 0;
}

/* Callbacks re-arm and delete, and device interrupts wake the CPU early:
 * still every firing inside its window, once per arming. */
static void test_churn_and_piggyback(void **state)
{
	(void)state;
	for (uint64_t s = 100; s <= 102; s++) {
		churn = true;
		rearm_budget = NTIMERS;
		setup(s);
		idle_loop(true);
		check_all_fired();
	}
	churn = false;
	timer_slack_percent = 0;
}

/* Early wakeups alone, without callbacks arming: every window kept, and
 * never fewer wakeups than the optimum. */
static void test_piggyback_static(void **state)
{
	(void)state;
	static struct window win[NTIMERS];
	churn = false;
	uint32_t start = setup(200);
	for (unsigned i = 0; i < NTIMERS; i++)
		win[i] = (struct window){ W[i].soft - start, W[i].hard - start };
	unsigned best = optimum_wakeups(win, NTIMERS);
	unsigned got = idle_loop(true);
	check_all_fired();
	if (got < best)
		fail_seed("%u wakeups, fewer than the optimum %u", got, best);
	timer_slack_percent = 0;
}

/* A legal timeout (under 2^31 jiffies ahead) with a wide window: its hard
 * end must still read as ahead of the wheel, not wrap round into the past,
 * or the idle loop would find it overdue and never sleep. */
static void test_far_hard_end_is_not_in_the_past(void **state)
{
	(void)state;
	seed = 0;
	now = INITIAL_JIFFIES(tick_hz);
	timer_wheel_init(now);
	W[0] = (struct wt){ 0 };
	timer_init(&W[0].t, fired, "far");
	timer_set_class(&W[0].t, TIMER_CLASS_PERCENT, 100);
	timer_mod(&W[0].t, now + (1u << 30) + 5);
	uint32_t next;
	assert_true(timer_next_expiry(&next));
	if (sdiff(next, now) < 0)
		fail_msg("next expiry %#x reads as before now %#x", next, now);
	timer_mod_range(&W[0].t, now + 10, now + 10 + 0x7FFFFFF0u);
	assert_true(timer_next_expiry(&next));
	if (sdiff(next, now) < 0)
		fail_msg("next expiry %#x reads as before now %#x", next, now);
	timer_del(&W[0].t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slack_formulas),
		cmocka_unit_test(test_static_windows_optimum),
		cmocka_unit_test(test_piggyback_static),
		cmocka_unit_test(test_churn_and_piggyback),
		cmocka_unit_test(test_far_hard_end_is_not_in_the_past),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
