/* tests/unit/fake_clock.c — the fake counter of tests/unit/fake_clock.h. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "fake_clock.h"
#include "host_test.h"

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
	f->cs.name = name;
	f->cs.rating = rating;
	f->cs.read = fake_counter_read;
	f->cs.mask = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
	f->cs.freq_hz = freq;
	f->cs.flags = CLOCK_SOURCE_CONTINUOUS;
}
