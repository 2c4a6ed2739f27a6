/* tests/unit/fake_clock.h — the one fake counter of the host tests that
 * drive the clocksource registry and timekeeping: a struct clocksource whose
 * count the test sets by hand.  Link tests/unit/fake_clock.c. */
#ifndef LULL_FAKE_CLOCK_H
#define LULL_FAKE_CLOCK_H

#include "time/clocksource.h"

struct fake_counter {
	struct clocksource cs;
	uint64_t value;         /* the raw count; the test moves it (wraps at 2^64) */
	bool masked_read;       /* hand the core value & mask instead of the raw value */
	unsigned reads;         /* how often the core read it */
};

/* A counter `bits` wide (up to 64) at `freq` Hz with `rating`, CONTINUOUS,
 * counting from 0, not yet registered.  Every read checks that the core
 * reads with interrupts off, so no fold can come between read and use. */
void fake_counter_init(struct fake_counter *f, const char *name, int rating,
                       uint64_t freq, unsigned bits);

#endif
