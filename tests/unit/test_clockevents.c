// SOURCES: kernel/time/clockevents.c kernel/time/clocksource.c kernel/time/watchdog.c kernel/time/timekeeping.c tests/unit/host_arch.c tests/unit/time_test.c kernel/time/mult_shift.c kernel/lib/format.c
/* tests/unit/test_clockevents.c — limits, conversion, programming, retries.
 *
 * On the fake device of tests/unit/time_test.h, which records every count
 * it is programmed with and can be told to answer -ETIME the first N times.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "time/clockevent.h"
#include "time/clocksource.h"
#include "errno.h"
#include "time/timekeeping.h"
#include "time_test.h"

extern _Thread_local bool host_irqs_disabled;

typedef unsigned __int128 u128;

#define BOTH (CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT)

/* Limits: min rounded up (converts back to >= min ticks, and 1 ns less
 * would not), max rounded down (converts back to <= max ticks), both within
 * 1e-6 + 1 ns of the exact value, and no overflow at max. */
static void check_limits(const struct clock_event_device *d)
{
	assert_true(d->mult > 0);
	assert_true(clockevent_ns2ticks(d, d->max_delta_ns) <= d->max_delta_ticks);
	assert_true((u128)d->max_delta_ns * d->mult <= UINT64_MAX);
	assert_true(d->min_delta_ns <= d->max_delta_ns);
	/* Up to 1 GHz a tick is at least 1 ns, and min rounds to exactly the
	 * smallest ns that reaches min_delta_ticks. */
	if (d->freq_hz <= NSEC_PER_SEC) {
		assert_true(clockevent_ns2ticks(d, d->min_delta_ns) >= d->min_delta_ticks);
		assert_true(clockevent_ns2ticks(d, d->min_delta_ns - 1) < d->min_delta_ticks);
	}
	long double exact_min = (long double)d->min_delta_ticks * 1e9L / (long double)d->freq_hz;
	long double exact_max = (long double)d->max_delta_ticks * 1e9L / (long double)d->freq_hz;
	assert_true((long double)d->min_delta_ns >= exact_min * (1 - 1e-6L) - 1);
	assert_true((long double)d->min_delta_ns <= exact_min * (1 + 1e-6L) + 1);
	if (exact_max < 600e9L) {
		assert_true((long double)d->max_delta_ns <= exact_max * (1 + 1e-6L) + 1);
		assert_true((long double)d->max_delta_ns >= exact_max * (1 - 1e-6L) - 1);
	} else {
		assert_true(d->max_delta_ns >= 600 * NSEC_PER_SEC);   /* at least the cap */
	}
}

static void test_register_derives_limits(void **state)
{
	(void)state;
	static struct fake_clockevent pit, lapic, hpet, fast, wide;
	fake_clockevent_init(&pit, "pit", 110, BOTH, 1193182, 2, 0xFFFF);
	fake_clockevent_init(&lapic, "lapic", 100, BOTH, 1000000000, 1, 0xFFFFFFFF);
	fake_clockevent_init(&hpet, "hpet", 150, CLOCK_EVT_FEAT_ONESHOT, 14318180, 3, 0xFFFFFFFF);
	fake_clockevent_init(&fast, "fast", 50, CLOCK_EVT_FEAT_ONESHOT, 10000000000ull, 5,
	                     0xFFFFFFFFFFull);
	fake_clockevent_init(&wide, "wide", 50, CLOCK_EVT_FEAT_ONESHOT, 100000000, 1, UINT64_MAX);
	struct fake_clockevent *all[] = { &pit, &lapic, &hpet, &fast, &wide };
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(clockevents_register(&all[i]->dev), 0);
		check_limits(&all[i]->dev);
		assert_int_equal(all[i]->dev.state, CLOCK_EVT_STATE_SHUTDOWN);
		assert_non_null(all[i]->dev.event_handler);
		all[i]->dev.event_handler(&all[i]->dev);    /* a no-op, safe */
	}
	/* The PIT: 2 ticks of 838.1 ns round up to 1677 ns; 65535 ticks are
	 * 54924563.06 ns, and with mult rounded up (5124678 for 5124677.67)
	 * the conversion gives 54924559.5, rounded down. */
	assert_true(pit.dev.min_delta_ns == 1677);
	assert_true(pit.dev.max_delta_ns == 54924559);
	assert_true(lapic.dev.min_delta_ns == 1);
	/* 10 GHz: 5 ticks are 0.5 ns, rounded up to 1 ns (10 ticks). */
	assert_true(fast.dev.min_delta_ns == 1);
	/* A 64-bit count is capped where ns * mult would overflow. */
	assert_true(wide.dev.max_delta_ns == UINT64_MAX / wide.dev.mult);
}

static void test_conversions(void **state)
{
	(void)state;
	static struct fake_clockevent d;
	fake_clockevent_init(&d, "pm", 100, CLOCK_EVT_FEAT_ONESHOT, 3579545, 1, 0xFFFFFF);
	assert_int_equal(clockevents_register(&d.dev), 0);
	/* 1 ms is 3579.545 ticks: rounds down to 3579. */
	assert_true(clockevent_ns2ticks(&d.dev, NSEC_PER_MSEC) == 3579);
	/* 3579 ticks are 999847.7 ns: rounds down. */
	assert_true(clockevent_ticks2ns(&d.dev, 3579) == 999847);
	assert_true(clockevent_ns2ticks(&d.dev, 0) == 0);
	/* Saturation instead of overflow. */
	assert_true(clockevent_ns2ticks(&d.dev, UINT64_MAX) == UINT64_MAX);
	assert_true(clockevent_ticks2ns(&d.dev, UINT64_MAX) == UINT64_MAX);
	/* A round trip loses at most one tick. */
	for (uint64_t t = 1; t < 0xFFFFFF; t = t * 3 + 1) {
		uint64_t back = clockevent_ns2ticks(&d.dev, clockevent_ticks2ns(&d.dev, t));
		assert_true(back == t || back + 1 == t);
	}
}

static void test_register_rejects_bad_fields(void **state)
{
	(void)state;
	static struct fake_clockevent d;
	fake_clockevent_init(&d, NULL, 100, BOTH, 1000000, 1, 100);
	assert_int_equal(clockevents_register(&d.dev), -EINVAL);
	fake_clockevent_init(&d, "d", 100, BOTH, 0, 1, 100);
	assert_int_equal(clockevents_register(&d.dev), -EINVAL);
	fake_clockevent_init(&d, "d", 100, 0, 1000000, 1, 100);
	assert_int_equal(clockevents_register(&d.dev), -EINVAL);
	fake_clockevent_init(&d, "d", 100, BOTH, 1000000, 0, 100);
	assert_int_equal(clockevents_register(&d.dev), -EINVAL);
	fake_clockevent_init(&d, "d", 100, BOTH, 1000000, 200, 100);
	assert_int_equal(clockevents_register(&d.dev), -EINVAL);
	fake_clockevent_init(&d, "d", 100, BOTH, 1000000, 1, 100);
	d.dev.set_next_event = NULL;
	assert_int_equal(clockevents_register(&d.dev), -EINVAL);
	fake_clockevent_init(&d, "d", 100, BOTH, 1000000, 1, 100);
	d.dev.set_periodic = NULL;
	assert_int_equal(clockevents_register(&d.dev), -EINVAL);
	fake_clockevent_init(&d, "a_name_that_is_far_too_long_to_be_kept", 100, BOTH, 1000000, 1, 100);
	assert_int_equal(clockevents_register(&d.dev), -EINVAL);
	assert_null(clockevents_first());

	static struct fake_clockevent a, b;
	fake_clockevent_init(&a, "same", 100, BOTH, 1000000, 1, 100);
	fake_clockevent_init(&b, "same", 200, BOTH, 1000000, 1, 100);
	assert_int_equal(clockevents_register(&a.dev), 0);
	assert_int_equal(clockevents_register(&b.dev), -EINVAL);
	assert_int_equal(clockevents_register(&a.dev), -EINVAL);
	assert_ptr_equal(clockevents_first(), &a.dev);          /* listed once */
	assert_null(a.dev.next);
}

static void test_best_and_find(void **state)
{
	(void)state;
	static struct fake_clockevent pit, lapic, hpet, tie;
	fake_clockevent_init(&pit, "pit", 110, BOTH, 1193182, 2, 0xFFFF);
	fake_clockevent_init(&lapic, "lapic", 100, CLOCK_EVT_FEAT_ONESHOT, 1000000000, 1, 0xFFFFFFFF);
	fake_clockevent_init(&hpet, "hpet", 150, CLOCK_EVT_FEAT_ONESHOT, 14318180, 3, 0xFFFFFFFF);
	fake_clockevent_init(&tie, "tie", 150, BOTH, 14318180, 3, 0xFFFFFFFF);
	assert_null(clockevents_best(0));
	assert_int_equal(clockevents_register(&pit.dev), 0);
	assert_int_equal(clockevents_register(&lapic.dev), 0);
	assert_int_equal(clockevents_register(&hpet.dev), 0);
	assert_int_equal(clockevents_register(&tie.dev), 0);

	assert_ptr_equal(clockevents_best(CLOCK_EVT_FEAT_ONESHOT), &hpet.dev);  /* tie: earlier */
	assert_ptr_equal(clockevents_best(CLOCK_EVT_FEAT_PERIODIC), &tie.dev);
	assert_ptr_equal(clockevents_best(BOTH), &tie.dev);
	assert_ptr_equal(clockevents_best(0), &hpet.dev);
	assert_ptr_equal(clockevents_find("lapic"), &lapic.dev);
	assert_null(clockevents_find("nosuch"));
	assert_ptr_equal(clockevents_first(), &pit.dev);
	assert_ptr_equal(pit.dev.next, &lapic.dev);
}

static void test_state_changes(void **state)
{
	(void)state;
	static struct fake_clockevent d, oneshot_only;
	fake_clockevent_init(&d, "d", 100, BOTH, 1193182, 2, 0xFFFF);
	fake_clockevent_init(&oneshot_only, "o", 100, CLOCK_EVT_FEAT_ONESHOT, 1193182, 2, 0xFFFF);
	assert_int_equal(clockevents_register(&d.dev), 0);
	assert_int_equal(clockevents_register(&oneshot_only.dev), 0);

	assert_int_equal(clockevents_set_periodic(&d.dev, 250), 0);
	assert_int_equal(d.dev.state, CLOCK_EVT_STATE_PERIODIC);
	assert_int_equal(d.periodic_hz, 250);
	/* Programming a deadline needs one-shot mode. */
	assert_int_equal(clockevents_program_event(&d.dev, 5000000, 0), -EINVAL);
	assert_int_equal(d.calls, 0);

	assert_int_equal(clockevents_set_oneshot(&d.dev), 0);
	assert_int_equal(d.dev.state, CLOCK_EVT_STATE_ONESHOT);
	assert_int_equal(clockevents_program_event(&d.dev, 5000000, 0), 0);
	assert_true(d.dev.next_event_ns == 5000000);
	assert_int_equal(clockevents_shutdown(&d.dev), 0);
	assert_int_equal(d.dev.state, CLOCK_EVT_STATE_SHUTDOWN);
	assert_true(d.dev.next_event_ns == 0);
	assert_int_equal(d.shutdowns, 1);

	/* A driver error leaves the recorded state alone. */
	d.fail_with = -EINVAL;
	assert_int_equal(clockevents_set_periodic(&d.dev, 250), -EINVAL);
	assert_int_equal(d.dev.state, CLOCK_EVT_STATE_SHUTDOWN);
	d.fail_with = 0;
	/* Features the device lacks. */
	assert_int_equal(clockevents_set_periodic(&oneshot_only.dev, 250), -EINVAL);
	assert_int_equal(clockevents_set_periodic(&d.dev, 0), -EINVAL);
}

static void test_program_event_clamps(void **state)
{
	(void)state;
	static struct fake_clockevent d;
	fake_clockevent_init(&d, "pit", 110, BOTH, 1193182, 2, 0xFFFF);
	assert_int_equal(clockevents_register(&d.dev), 0);
	assert_int_equal(clockevents_set_oneshot(&d.dev), 0);
	const uint64_t now = 123456789000ull;

	/* In range: the delta converted. */
	assert_int_equal(clockevents_program_event(&d.dev, now + 1000000, now), 0);
	assert_true(d.ticks[0] == clockevent_ns2ticks(&d.dev, 1000000));
	assert_true(d.ticks[0] == 1193);
	/* Too soon: min_delta. */
	assert_int_equal(clockevents_program_event(&d.dev, now + 10, now), 0);
	assert_true(d.ticks[1] == 2);
	/* Already past: min_delta too, and the deadline recorded. */
	assert_int_equal(clockevents_program_event(&d.dev, now - 5000, now), 0);
	assert_true(d.ticks[2] == 2);
	assert_true(d.dev.next_event_ns == now - 5000);
	/* Too far: max_delta_ns, which converts to the device's largest count
	 * or one less (it was rounded down); the device fires early and is
	 * reprogrammed. */
	assert_int_equal(clockevents_program_event(&d.dev, now + 10 * NSEC_PER_SEC, now), 0);
	assert_true(d.ticks[3] == clockevent_ns2ticks(&d.dev, d.dev.max_delta_ns));
	assert_true(d.ticks[3] >= 0xFFFF - 1);
	assert_true(d.dev.next_event_ns == now + 10 * NSEC_PER_SEC);
	assert_true(d.dev.retries == 0);

	/* Above 1 GHz, min_delta_ns converts to more than min ticks... */
	static struct fake_clockevent fast;
	fake_clockevent_init(&fast, "fast", 50, CLOCK_EVT_FEAT_ONESHOT, 10000000000ull, 5, 1000000);
	assert_int_equal(clockevents_register(&fast.dev), 0);
	assert_int_equal(clockevents_set_oneshot(&fast.dev), 0);
	assert_int_equal(clockevents_program_event(&fast.dev, now, now), 0);
	assert_true(fast.ticks[0] >= 5 && fast.ticks[0] <= 10);
	/* ...and the count never exceeds the hardware's maximum. */
	assert_int_equal(clockevents_program_event(&fast.dev, now + NSEC_PER_SEC, now), 0);
	assert_true(fast.ticks[1] == 1000000);
}

static void test_etime_retries_then_succeeds(void **state)
{
	(void)state;
	static struct fake_clockevent d;
	fake_clockevent_init(&d, "lapic", 100, CLOCK_EVT_FEAT_ONESHOT, 100000000, 10, 0xFFFFFFFF);
	assert_int_equal(clockevents_register(&d.dev), 0);
	assert_int_equal(clockevents_set_oneshot(&d.dev), 0);
	assert_true(d.dev.min_delta_ns == 100);

	d.etime_left = 2;
	assert_int_equal(clockevents_program_event(&d.dev, 5000000, 1000000), 0);
	assert_int_equal(d.calls, 3);
	assert_true(d.dev.retries == 2);
	assert_true(d.ticks[0] == 400000);      /* the asked-for 4 ms */
	assert_true(d.ticks[1] == 10);          /* min_delta */
	assert_true(d.ticks[2] == 20);          /* doubled */
	assert_true(d.dev.next_event_ns == 5000000);

	/* Retries add up over calls. */
	d.etime_left = 1;
	assert_int_equal(clockevents_program_event(&d.dev, 5000000, 1000000), 0);
	assert_true(d.dev.retries == 3);
}

static void test_etime_gives_up(void **state)
{
	(void)state;
	static struct fake_clockevent d;
	fake_clockevent_init(&d, "lapic", 100, CLOCK_EVT_FEAT_ONESHOT, 100000000, 10, 0xFFFFFFFF);
	assert_int_equal(clockevents_register(&d.dev), 0);
	assert_int_equal(clockevents_set_oneshot(&d.dev), 0);

	d.etime_left = 1000;
	assert_int_equal(clockevents_program_event(&d.dev, 5000000, 1000000), -ETIME);
	/* The first try and a bounded number of retries, each backing off. */
	assert_true(d.dev.retries >= 3 && d.dev.retries <= 8);
	assert_int_equal(d.calls, d.dev.retries + 1);
	for (unsigned i = 2; i < d.calls; i++)
		assert_true(d.ticks[i] == 2 * d.ticks[i - 1]);
	assert_true(d.dev.next_event_ns == 0);      /* nothing armed */

	/* Other errors are passed on at once, without retrying. */
	d.etime_left = 0;
	d.fail_with = -EINVAL;
	uint64_t retries = d.dev.retries;
	d.calls = 0;
	assert_int_equal(clockevents_program_event(&d.dev, 5000000, 1000000), -EINVAL);
	assert_int_equal(d.calls, 1);
	assert_true(d.dev.retries == retries);
}

/* The backoff stops growing at max_delta. */
static void test_etime_backoff_capped(void **state)
{
	(void)state;
	static struct fake_clockevent d;
	fake_clockevent_init(&d, "tiny", 100, CLOCK_EVT_FEAT_ONESHOT, 1000000, 10, 25);
	assert_int_equal(clockevents_register(&d.dev), 0);
	assert_int_equal(clockevents_set_oneshot(&d.dev), 0);
	d.etime_left = 1000;
	assert_int_equal(clockevents_program_event(&d.dev, 0, 0), -ETIME);
	for (unsigned i = 0; i < d.calls && i < FAKE_CLOCKEVENT_LOG; i++)
		assert_true(d.ticks[i] >= 10 && d.ticks[i] <= 25);
	assert_true(d.ticks[d.calls - 1] == clockevent_ns2ticks(&d.dev, d.dev.max_delta_ns));
	assert_true(d.ticks[d.calls - 1] >= 24);
}

static unsigned handled;
static void count_handler(struct clock_event_device *dev)
{
	assert_true(dev->events == handled + 1);    /* counted before the call */
	handled++;
}

static void test_handle_event_counts(void **state)
{
	(void)state;
	static struct fake_clockevent d;
	fake_clockevent_init(&d, "pit", 110, BOTH, 1193182, 2, 0xFFFF);
	assert_int_equal(clockevents_register(&d.dev), 0);
	clockevents_handle_event(&d.dev);           /* before the tick layer: no-op */
	assert_true(d.dev.events == 1);
	handled = 1;
	d.dev.event_handler = count_handler;
	for (int i = 0; i < 5; i++)
		clockevents_handle_event(&d.dev);
	assert_int_equal(handled, 6);
	assert_true(d.dev.events == 6);
}

static void test_preferred_name(void **state)
{
	(void)state;
	assert_null(clockevents_preferred());
	char name[16];
	strcpy(name, "hpet");
	clockevents_set_preferred(name);
	strcpy(name, "xxxx");
	assert_string_equal(clockevents_preferred(), "hpet");
	clockevents_set_preferred("a_name_that_is_far_too_long_to_be_kept");
	assert_string_equal(clockevents_preferred(), "hpet");
	clockevents_set_preferred("");
	assert_null(clockevents_preferred());
	clockevents_set_preferred("lapic");
	clockevents_set_preferred(NULL);
	assert_null(clockevents_preferred());
}

/* A one-shot interrupt judged stale (it came in the first half of its
 * delay by the clocksource) is not passed on, but its deadline is armed
 * again for what is left: a clocksource that stood still (stalled, until
 * the watchdog replaces it) makes every real event look stale, and a
 * dropped one would leave the device unarmed and the CPU asleep for good. */
/* A 1 GHz counter (one count per ns) at 5 s, timekeeping on it, and a
 * 1 GHz one-shot device, both registered. */
static void one_ghz_clock_and_device(struct fake_counter *gi, struct fake_clockevent *d)
{
	fake_counter_init(gi, "gi", 300, 1000000000, 64);
	gi->value = 5 * NSEC_PER_SEC;
	assert_int_equal(clocksource_register(&gi->cs), 0);
	fake_clockevent_init(d, "dev", 100, CLOCK_EVT_FEAT_ONESHOT, 1000000000, 1, 0xFFFFFFFF);
	assert_int_equal(clockevents_register(&d->dev), 0);
}

static unsigned stale_handled;
static void stale_count_handler(struct clock_event_device *dev) { (void)dev; stale_handled++; }

static void test_stale_event_is_armed_again(void **state)
{
	(void)state;
	static struct fake_counter gi;
	static struct fake_clockevent d;
	one_ghz_clock_and_device(&gi, &d);
	d.dev.event_handler = stale_count_handler;
	stale_handled = 0;
	host_irqs_disabled = true;
	assert_int_equal(clockevents_set_oneshot(&d.dev), 0);
	uint64_t now = ktime_get_ns();
	assert_int_equal(clockevents_program_event(&d.dev, now + 10 * NSEC_PER_MSEC, now), 0);
	unsigned calls = d.calls;

	clockevents_handle_event(&d.dev);           /* the counter stood still */
	assert_int_equal(stale_handled, 0);
	assert_true(d.dev.stale_events == 1);
	assert_int_equal(d.calls, calls + 1);       /* armed again ... */
	assert_true(d.ticks[calls] == 10 * NSEC_PER_MSEC);  /* ... for all that is left */

	gi.value += 10 * NSEC_PER_MSEC;             /* time moves: the next one counts */
	clockevents_handle_event(&d.dev);
	assert_int_equal(stale_handled, 1);
	host_irqs_disabled = false;
}

/* A caller that read the time, then waited (for a lock, or stopped by the
 * host) before programming: the device counts from when it is written, so
 * the delta must count from the clock read there, not from the caller's
 * stale `now`, or the event comes late by the wait.  (Found by `stress`
 * on four CPUs under icount: 2.4 ms between a caller's read and the write,
 * an hrtimer run 2 ms late while its CPU ran.) */
static void test_program_counts_from_the_clock_not_a_stale_now(void **state)
{
	(void)state;
	static struct fake_counter gi;
	static struct fake_clockevent d;
	one_ghz_clock_and_device(&gi, &d);
	host_irqs_disabled = true;
	assert_int_equal(clockevents_set_oneshot(&d.dev), 0);
	uint64_t stale = ktime_get_ns();
	gi.value += 3 * NSEC_PER_MSEC;              /* the caller waited 3 ms */
	assert_int_equal(clockevents_program_event(&d.dev, stale + 10 * NSEC_PER_MSEC, stale), 0);
	assert_true(d.ticks[0] == 7 * NSEC_PER_MSEC);   /* what is left, not 10 ms */
	assert_true(d.dev.next_event_ns == stale + 10 * NSEC_PER_MSEC);
	/* A now_ns ahead of the clock (no clock behind ktime_get_ns, as in
	 * the tests that give the time by hand) still counts from now_ns. */
	uint64_t ahead = ktime_get_ns() + NSEC_PER_SEC;
	assert_int_equal(clockevents_program_event(&d.dev, ahead + NSEC_PER_MSEC, ahead), 0);
	assert_true(d.ticks[1] == NSEC_PER_MSEC);
	host_irqs_disabled = false;
}

/* What clockevents_update_freq derives for `d` at freq_hz, from a fresh
 * device with the same limits registered at that rate. */
static void check_derived_at(const struct clock_event_device *d, uint64_t freq_hz)
{
	static struct fake_clockevent twins[8];
	static char names[8][16];
	static unsigned n;
	assert_true(n < 8);
	struct fake_clockevent *twin = &twins[n];
	snprintf(names[n], sizeof(names[n]), "twin%u", n);
	fake_clockevent_init(twin, names[n], 1, d->features, freq_hz, d->min_delta_ticks,
	                     d->max_delta_ticks);
	n++;
	assert_int_equal(clockevents_register(&twin->dev), 0);
	assert_true(d->freq_hz == freq_hz);
	assert_int_equal(d->mult, twin->dev.mult);
	assert_int_equal(d->shift, twin->dev.shift);
	assert_true(d->min_delta_ns == twin->dev.min_delta_ns);
	assert_true(d->max_delta_ns == twin->dev.max_delta_ns);
	check_limits(d);
}

/* Nothing the core derives from the rate moved. */
static void check_rate_kept(const struct clock_event_device *d,
                            const struct clock_event_device *before)
{
	assert_true(d->freq_hz == before->freq_hz);
	assert_int_equal(d->mult, before->mult);
	assert_int_equal(d->shift, before->shift);
	assert_true(d->min_delta_ns == before->min_delta_ns);
	assert_true(d->max_delta_ns == before->max_delta_ns);
}

/* The TSC's rate is measured again a second after boot.  The TSC-deadline
 * timer counts TSC cycles and the LAPIC timer was calibrated against the
 * TSC: both follow the new rate by the same ratio, with mult/shift and the
 * ns limits derived anew, and a one-shot already programmed keeps its
 * count.  Devices with a rate of their own, or derived from another
 * counter, do not move. */
static void test_rate_source_follows(void **state)
{
	(void)state;
	/* Counters that stand still, which is all timekeeping needs here. */
	static struct fake_counter tsc, hpet_cs;
	static struct fake_clockevent deadline, bus, own, other;
	fake_counter_init(&tsc, "tsc", 300, 2000000000, 64);
	fake_counter_init(&hpet_cs, "hpet", 300, 100000000, 64);
	assert_int_equal(clocksource_register(&tsc.cs), 0);
	assert_int_equal(clocksource_register(&hpet_cs.cs), 0);

	fake_clockevent_init(&deadline, "tsc-deadline", 270, CLOCK_EVT_FEAT_ONESHOT, 2000000000,
	                     1000, 1ull << 62);
	deadline.dev.rate_source = &tsc.cs;
	fake_clockevent_init(&bus, "lapic", 260, BOTH, 62500000, 16, 0xFFFFFFFF);
	bus.dev.rate_source = &tsc.cs;
	fake_clockevent_init(&own, "hpet", 200, BOTH, 14318180, 3, 0x7FFFFFFF);
	fake_clockevent_init(&other, "other", 100, BOTH, 100000000, 3, 0x7FFFFFFF);
	other.dev.rate_source = &hpet_cs.cs;
	struct fake_clockevent *all[] = { &deadline, &bus, &own, &other };
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(clockevents_register(&all[i]->dev), 0);
	struct clock_event_device own_before = own.dev, other_before = other.dev;

	/* A one-shot pending on the bus timer. */
	assert_int_equal(clockevents_set_oneshot(&bus.dev), 0);
	assert_int_equal(clockevents_program_event(&bus.dev, 4000000, 0), 0);
	uint64_t pending_ticks = bus.ticks[0];
	assert_int_equal(bus.calls, 1);

	/* +100 ppm: 2000000000 -> 2000200000 Hz. */
	assert_int_equal(clocksource_change_rate(&tsc.cs, 2000200000), 0);
	check_derived_at(&deadline.dev, 2000200000);        /* exactly the new rate */
	check_derived_at(&bus.dev, 62506250);               /* 62.5 MHz + 100 ppm */

	/* The pending one-shot: not reprogrammed, still armed for its deadline. */
	assert_int_equal(bus.calls, 1);
	assert_true(bus.ticks[0] == pending_ticks);
	assert_int_equal(bus.dev.state, CLOCK_EVT_STATE_ONESHOT);
	assert_true(bus.dev.next_event_ns == 4000000);

	/* Not derived from the TSC: untouched. */
	check_rate_kept(&own.dev, &own_before);
	check_rate_kept(&other.dev, &other_before);

	/* A refused rate moves nothing; neither does the same rate again. */
	assert_int_equal(clocksource_change_rate(&tsc.cs, 0), -EINVAL);
	assert_int_equal(clocksource_change_rate(&tsc.cs, 2000200000), 0);
	assert_true(deadline.dev.freq_hz == 2000200000);
	assert_true(bus.dev.freq_hz == 62506250);

	/* -50 ppm of the new rate: 2000200000 -> 2000100010 Hz; the bus timer
	 * moves by the same ratio, truncated toward zero. */
	assert_int_equal(clocksource_change_rate(&tsc.cs, 2000100010), 0);
	check_derived_at(&deadline.dev, 2000100010);
	check_derived_at(&bus.dev, 62503126);
	check_rate_kept(&own.dev, &own_before);

	/* The other counter's change moves only its own follower. */
	assert_int_equal(clocksource_change_rate(&hpet_cs.cs, 100001000), 0);
	check_derived_at(&other.dev, 100001000);
	assert_true(bus.dev.freq_hz == 62503126);
	check_rate_kept(&own.dev, &own_before);
	/* A step whose product would overflow 64 bits (2 GHz times a 18 GHz
	 * step) is not applied: that device keeps its rate. */
	struct clock_event_device deadline_before = deadline.dev;
	assert_int_equal(clocksource_change_rate(&tsc.cs, 20000000000ull), 0);
	check_rate_kept(&deadline.dev, &deadline_before);
}

/* Issue 31, defect 5: an AP's local APIC timer is a copy of the boot CPU's,
 * kept out of the registry.  The TSC's refinement must reach it too, taken
 * on its own CPU at its next program: a one-shot after the refinement
 * counts at the refined rate.  (Failed before clockevents_add_cpu_device:
 * the copy kept the boot-time rate, 100 ppm off.) */
static void test_a_cpu_device_follows_its_rate_source(void **state)
{
	(void)state;
	static struct fake_counter tsc;
	static struct fake_clockevent bus, ap;
	fake_counter_init(&tsc, "tsc", 300, 2000000000, 64);
	assert_int_equal(clocksource_register(&tsc.cs), 0);
	fake_clockevent_init(&bus, "lapic", 260, BOTH, 62500000, 16, 0xFFFFFFFF);
	bus.dev.rate_source = &tsc.cs;
	assert_int_equal(clockevents_register(&bus.dev), 0);
	/* The AP's copy, as lapic_timer_this_ap makes it. */
	ap = bus;
	ap.dev.name = "lapic-ap";
	ap.calls = 0;
	clockevents_add_cpu_device(&ap.dev);
	assert_null(clockevents_find("lapic-ap"));      /* not chosen by name */
	assert_int_equal(clockevents_set_oneshot(&ap.dev), 0);

	/* +100 ppm, from "another CPU": the AP's rate waits for its CPU. */
	assert_int_equal(clocksource_change_rate(&tsc.cs, 2000200000), 0);
	assert_true(bus.dev.freq_hz == 62506250);
	assert_true(ap.dev.freq_hz == 62500000);
	/* Its next program takes it: 100 ms is 6250625 counts, not 6250000. */
	assert_int_equal(clockevents_program_event(&ap.dev, 100000000, 0), 0);
	assert_true(ap.dev.freq_hz == 62506250);
	assert_true(ap.ticks[0] >= 6250624 && ap.ticks[0] <= 6250626);
	/* Two refinements before a program: scaled from the first one. */
	assert_int_equal(clocksource_change_rate(&tsc.cs, 2000100010), 0);
	assert_int_equal(clocksource_change_rate(&tsc.cs, 2000200000), 0);
	assert_int_equal(clockevents_program_event(&ap.dev, 100000000, 0), 0);
	assert_true(ap.dev.freq_hz == bus.dev.freq_hz);
}

/* Periodic mode's count is the rounded quotient, the same in every driver. */
static void test_periodic_count(void **state)
{
	(void)state;
	assert_true(clockevent_periodic_count(1193182, 250) == 4773);   /* 4772.73 */
	assert_true(clockevent_periodic_count(1193182, 1000) == 1193);  /* 1193.18 */
	assert_true(clockevent_periodic_count(1193182, 100) == 11932);  /* 11931.82 */
	assert_true(clockevent_periodic_count(14318180, 250) == 57273); /* 57272.72 */
	assert_true(clockevent_periodic_count(1000, 400) == 3);         /* 2.5 rounds up */
	assert_true(clockevent_periodic_count(62500000, 0) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_register_derives_limits, fresh_clock_registry),
		cmocka_unit_test_setup(test_conversions, fresh_clock_registry),
		cmocka_unit_test_setup(test_register_rejects_bad_fields, fresh_clock_registry),
		cmocka_unit_test_setup(test_best_and_find, fresh_clock_registry),
		cmocka_unit_test_setup(test_state_changes, fresh_clock_registry),
		cmocka_unit_test_setup(test_program_event_clamps, fresh_clock_registry),
		cmocka_unit_test_setup(test_etime_retries_then_succeeds, fresh_clock_registry),
		cmocka_unit_test_setup(test_etime_gives_up, fresh_clock_registry),
		cmocka_unit_test_setup(test_etime_backoff_capped, fresh_clock_registry),
		cmocka_unit_test_setup(test_handle_event_counts, fresh_clock_registry),
		cmocka_unit_test_setup(test_preferred_name, fresh_clock_registry),
		cmocka_unit_test_setup(test_rate_source_follows, fresh_clock_registry),
		cmocka_unit_test_setup(test_a_cpu_device_follows_its_rate_source, fresh_clock_registry),
		cmocka_unit_test_setup(test_periodic_count, fresh_clock_registry),
		cmocka_unit_test_setup(test_stale_event_is_armed_again, fresh_clock_registry),
		cmocka_unit_test_setup(test_program_counts_from_the_clock_not_a_stale_now,
		                       fresh_clock_registry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
