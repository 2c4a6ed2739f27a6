/* tests/unit/time_test.h — what the host tests of the time core share: the
 * core's reset hooks, fake counters and a fake clock event device.  Link
 * tests/unit/time_test.c for everything below the hooks.
 *
 * Why the hooks are declared here: the kernel never forgets a registered
 * device, only a test does, so kernel/time/ defines them under LULL_HOST
 * alone (the kernel image carries none) and no public header names them. */
#ifndef LULL_TIME_TEST_H
#define LULL_TIME_TEST_H

#include "time/clockevent.h"
#include "time/clocksource.h"

/* ------------------------------------------------ the core's reset hooks */

/* Each is defined in the kernel/time/ file named beside it; link that. */
void clocksource_reset_for_test(void);  /* clocksource.c: every counter, the preferred name */
void clockevents_reset_for_test(void);  /* clockevents.c: every device, the preferred name */
void watchdog_reset_for_test(void);     /* watchdog.c: stopped, no reference, counts at 0 */
void hrtimer_reset_for_test(void);      /* hrtimer.c: every heap empty, the hooks cleared */
void tick_reset_for_test(void);         /* tick_boot.c: no device, the default mode and options */

/* Both registries empty (counters and clock event devices), both preferred
 * names forgotten, and the watchdog stopped, since it holds pointers to
 * counters.  The second form is a cmocka setup. */
void clock_registry_reset(void);
int fresh_clock_registry(void **state);

/* ------------------------------------------------ counters */

/* A clocksource that reads with `read`: `mask` wide, at `freq` Hz, with
 * `rating`, CONTINUOUS, not yet registered.  The base of every fake
 * counter: a test's own `read` may move its world or cost time. */
void fake_clocksource_init(struct clocksource *cs, const char *name, int rating,
                           uint64_t freq, uint64_t mask,
                           uint64_t (*read)(struct clocksource *cs));

/* A counter whose count the test sets by hand. */
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

/* ------------------------------------------------ clock event devices */

#define FAKE_CLOCKEVENT_LOG 16

/* A device that does what it is told and records it; it can be told to
 * answer -ETIME the first N times, as hardware does when the deadline
 * slipped by while it was being written, or to fail every call. */
struct fake_clockevent {
	struct clock_event_device dev;
	unsigned etime_left;        /* set_next_event answers -ETIME this many more times */
	int fail_with;              /* or every op answers this (if non-zero) */
	unsigned calls;             /* set_next_event calls */
	uint64_t ticks[FAKE_CLOCKEVENT_LOG];    /* the counts of the first calls, in order */
	unsigned periodic_hz;       /* the rate it fires at: 0 in one-shot mode or stopped */
	unsigned shutdowns;
};

/* A device counting at `freq` Hz with `features` and all four ops, no IRQ
 * line, not yet registered.  Every set_next_event checks that the core
 * keeps the count within [min_ticks, max_ticks]. */
void fake_clockevent_init(struct fake_clockevent *f, const char *name, int rating,
                          uint32_t features, uint64_t freq, uint64_t min_ticks,
                          uint64_t max_ticks);

#endif
