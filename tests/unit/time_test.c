/* tests/unit/time_test.c — the fakes and resets of tests/unit/time_test.h. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "errno.h"
#include "host_test.h"
#include "time_test.h"

/* ------------------------------------------------ resets */

void clock_registry_reset(void)
{
	clocksource_reset_for_test();
	clockevents_reset_for_test();
	watchdog_reset_for_test();
}

int fresh_clock_registry(void **state)
{
	(void)state;
	clock_registry_reset();
	return 0;
}

/* ------------------------------------------------ counters */

void fake_clocksource_init(struct clocksource *cs, const char *name, int rating,
                           uint64_t freq, uint64_t mask,
                           uint64_t (*read)(struct clocksource *cs))
{
	memset(cs, 0, sizeof(*cs));
	cs->name = name;
	cs->rating = rating;
	cs->read = read;
	cs->mask = mask;
	cs->freq_hz = freq;
	cs->flags = CLOCK_SOURCE_CONTINUOUS;
}

static uint64_t fake_counter_read(struct clocksource *cs)
{
	struct fake_counter *f = container_of(cs, struct fake_counter, cs);
	assert_true(host_irqs_disabled);
	f->reads++;
	return f->masked_read ? f->value & cs->mask : f->value;
}

void fake_counter_init(struct fake_counter *f, const char *name, int rating,
                       uint64_t freq, unsigned bits)
{
	memset(f, 0, sizeof(*f));
	fake_clocksource_init(&f->cs, name, rating, freq,
	                      bits == 64 ? UINT64_MAX : (1ull << bits) - 1, fake_counter_read);
}

/* ------------------------------------------------ clock event devices */

static struct fake_clockevent *fake_of(struct clock_event_device *dev)
{
	return container_of(dev, struct fake_clockevent, dev);
}

static int fake_set_next_event(struct clock_event_device *dev, uint64_t ticks)
{
	struct fake_clockevent *f = fake_of(dev);
	/* The core never hands the hardware a count outside its range. */
	assert_true(ticks >= dev->min_delta_ticks);
	assert_true(ticks <= dev->max_delta_ticks);
	if (f->calls < FAKE_CLOCKEVENT_LOG)
		f->ticks[f->calls] = ticks;
	f->calls++;
	if (f->fail_with)
		return f->fail_with;
	if (f->etime_left) {
		f->etime_left--;
		return -ETIME;
	}
	return 0;
}

static int fake_set_periodic(struct clock_event_device *dev, unsigned hz)
{
	struct fake_clockevent *f = fake_of(dev);
	if (f->fail_with)
		return f->fail_with;
	f->periodic_hz = hz;
	return 0;
}

static int fake_set_oneshot(struct clock_event_device *dev)
{
	struct fake_clockevent *f = fake_of(dev);
	if (f->fail_with)
		return f->fail_with;
	f->periodic_hz = 0;
	return 0;
}

/* Stopped, it fires no more: as in one-shot mode with nothing armed. */
static int fake_shutdown(struct clock_event_device *dev)
{
	fake_of(dev)->shutdowns++;
	return fake_set_oneshot(dev);
}

void fake_clockevent_init(struct fake_clockevent *f, const char *name, int rating,
                          uint32_t features, uint64_t freq, uint64_t min_ticks,
                          uint64_t max_ticks)
{
	memset(f, 0, sizeof(*f));
	f->dev.name = name;
	f->dev.rating = rating;
	f->dev.features = features;
	f->dev.freq_hz = freq;
	f->dev.min_delta_ticks = min_ticks;
	f->dev.max_delta_ticks = max_ticks;
	f->dev.irq = -1;
	f->dev.set_periodic = fake_set_periodic;
	f->dev.set_oneshot = fake_set_oneshot;
	f->dev.set_next_event = fake_set_next_event;
	f->dev.shutdown = fake_shutdown;
}
