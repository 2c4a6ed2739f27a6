/* kernel/selftest_internal.h — shared by kernel/selftest.c and
 * kernel/selftest_agree.c; nothing else includes it. */
#ifndef LULL_SELFTEST_INTERNAL_H
#define LULL_SELFTEST_INTERNAL_H

#include "compiler.h"
#include "time/clocksource.h"

#define AGREE_MAX_SOURCES    8      /* continuous clocksources checked */

/* Every continuous clocksource against PIT channel 2, the RTC and each
 * other: 2 lines per counter plus one per pair (count them so). */
void selftest_check_agreement(void);

/* The name of the crystal a rate comes from: follow rate_ref (a counter
 * called `name` measured against `ref`) until a counter whose rate is its
 * own.  "pit" and "rtc" are their own. */
const char *selftest_root_of(const char *name, const char *ref);
const char *selftest_cs_root(struct clocksource *cs);
/* cs passed a check against a counter of another root. */
bool selftest_is_verified(struct clocksource *cs);

static inline bool continuous(struct clocksource *cs)
{
	return (cs->flags & CLOCK_SOURCE_CONTINUOUS) && !(cs->flags & CLOCK_SOURCE_UNSTABLE);
}

static inline uint64_t cs_ns(struct clocksource *cs, uint64_t from, uint64_t to)
{
	return clocksource_cyc2ns((to - from) & cs->mask, cs->mult, cs->shift);
}

#endif
