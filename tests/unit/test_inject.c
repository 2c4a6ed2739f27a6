// SOURCES: kernel/time/inject.c kernel/time/watchdog.c kernel/time/clocksource.c kernel/time/clockevents.c kernel/time/timekeeping.c tests/unit/host_arch.c tests/unit/time_test.c kernel/time/mult_shift.c kernel/lib/format.c
/* tests/unit/test_inject.c — the seam's clock event followers: a test's
 * extra work runs after each event a device passes on, and the device gets
 * its own handler back.  (The clocksource faults are test_watchdog.c's.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "errno.h"
#include "time/clockevent.h"
#include "time/clocksource.h"
#include "time/inject.h"
#include "time_test.h"

static unsigned handled, after_calls, handled_when_after;
static struct clock_event_device *after_dev;

static void tick_handler(struct clock_event_device *dev) { (void)dev; handled++; }
static void other_handler(struct clock_event_device *dev) { (void)dev; }

static void extra(struct clock_event_device *dev)
{
	handled_when_after = handled;   /* the handler has run for this event */
	after_calls++;
	after_dev = dev;
}

static void device(struct fake_clockevent *d, const char *name)
{
	fake_clockevent_init(d, name, 100, CLOCK_EVT_FEAT_ONESHOT, 1000000000, 1, 0xFFFFFFFF);
	assert_int_equal(clockevents_register(&d->dev), 0);
	d->dev.event_handler = tick_handler;
	handled = after_calls = 0;
	after_dev = NULL;
}

static void test_follow_then_unfollow(void **state)
{
	(void)state;
	static struct fake_clockevent d;
	device(&d, "lapic");
	assert_int_equal(inject_clockevent_follow(&d.dev, extra), 0);
	assert_int_equal(inject_clockevent_follow(&d.dev, extra), -EBUSY);
	clockevents_handle_event(&d.dev);
	clockevents_handle_event(&d.dev);
	assert_int_equal(handled, 2);
	assert_int_equal(after_calls, 2);
	assert_int_equal(handled_when_after, 2);
	assert_ptr_equal(after_dev, &d.dev);

	inject_clockevent_unfollow_all();
	assert_ptr_equal(d.dev.event_handler, tick_handler);
	clockevents_handle_event(&d.dev);
	assert_int_equal(handled, 3);
	assert_int_equal(after_calls, 2);

	/* Followed again later: the same slot, the same handler. */
	assert_int_equal(inject_clockevent_follow(&d.dev, extra), 0);
	clockevents_handle_event(&d.dev);
	assert_int_equal(after_calls, 3);
	assert_int_equal(handled_when_after, 4);
	inject_clockevent_unfollow_all();
}

/* A handler the tick installs while the device is followed (a switch)
 * replaces the wrapper, and stays when the followers go. */
static void test_a_new_handler_stays(void **state)
{
	(void)state;
	static struct fake_clockevent d;
	device(&d, "hpet");
	assert_int_equal(inject_clockevent_follow(&d.dev, extra), 0);
	d.dev.event_handler = other_handler;
	inject_clockevent_unfollow_all();
	assert_ptr_equal(d.dev.event_handler, other_handler);
}

static void test_refused(void **state)
{
	(void)state;
	static struct fake_clockevent d;
	device(&d, "pit");
	d.dev.event_handler = NULL;
	assert_int_equal(inject_clockevent_follow(&d.dev, extra), -EINVAL);
	d.dev.event_handler = tick_handler;
	assert_int_equal(inject_clockevent_follow(&d.dev, NULL), -EINVAL);
}

/* One write overridden: the driver gets the forced count once, then the
 * core's again, and its own op is back. */
static void test_next_ticks_once(void **state)
{
	(void)state;
	static struct fake_clockevent d;
	device(&d, "hpet");
	int (*own)(struct clock_event_device *, uint64_t) = d.dev.set_next_event;
	assert_int_equal(clockevents_set_oneshot(&d.dev), 0);
	assert_int_equal(inject_clockevent_next_ticks(&d.dev, 0xFFFFFC18), 0);
	assert_int_equal(inject_clockevent_next_ticks(&d.dev, 7), -EBUSY);
	assert_int_equal(clockevents_program_event(&d.dev, 5000000, 1000000), 0);
	assert_true(d.ticks[0] == 0xFFFFFC18);
	assert_ptr_equal(d.dev.set_next_event, own);
	assert_int_equal(clockevents_program_event(&d.dev, 5000000, 1000000), 0);
	assert_true(d.ticks[1] == 4000000);
}

/* A counter like acpi_pm: 24 bits, each raw read one count on, and a read
 * that keeps the middle of three only when it lies between the others. */
static uint64_t raw_count;

static uint64_t raw_read(struct clocksource *cs) { (void)cs; return raw_count++ & 0xFFFFFF; }

static uint64_t checked_read(struct clocksource *cs)
{
	uint64_t a, b, c;
	do {
		a = cs->read_raw(cs);
		b = cs->read_raw(cs);
		c = cs->read_raw(cs);
	} while (((b - a) & cs->mask) > ((c - a) & cs->mask));
	return b;
}

static void test_a_torn_raw_read_is_caught_beneath_the_check(void **state)
{
	(void)state;
	static struct clocksource cs;
	fake_clocksource_init(&cs, "pm", 200, 3579545, 0xFFFFFF, checked_read);
	cs.read_raw = raw_read;
	raw_count = 0x100;
	uint64_t bad, good;
	unsigned reads;
	assert_int_equal(inject_clocksource_glitch(&cs, 2, 0x800000, &bad, &good, &reads), 0);
	assert_true(bad == (0x101 ^ 0x800000));         /* the torn middle read */
	assert_true(good == 0x104);                     /* the next triple's middle */
	assert_int_equal(reads, 6);
	assert_ptr_equal(cs.read_raw, raw_read);        /* the driver's op is back */
	cs.read_raw = NULL;
	assert_int_equal(inject_clocksource_glitch(&cs, 2, 1, &bad, &good, &reads), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_follow_then_unfollow, fresh_clock_registry),
		cmocka_unit_test_setup(test_a_new_handler_stays, fresh_clock_registry),
		cmocka_unit_test_setup(test_refused, fresh_clock_registry),
		cmocka_unit_test_setup(test_next_ticks_once, fresh_clock_registry),
		cmocka_unit_test_setup(test_a_torn_raw_read_is_caught_beneath_the_check,
		                       fresh_clock_registry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
