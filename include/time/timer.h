/* include/time/timer.h — jiffy-granular timers on a hierarchical wheel.
 *
 * The caller owns struct timer (no allocation anywhere on the timer path).
 * A timer fires from the tick, with interrupts enabled, on the first tick at
 * or after `expires` — never earlier.  Callbacks may re-arm or delete any
 * timer, including their own.  See kernel/time/timer.c for the wheel's
 * levels and their granularity/range per HZ.
 */
#ifndef LULL_TIME_TIMER_H
#define LULL_TIME_TIMER_H

#include "../compiler.h"

struct timer {
	struct timer *next;        /* bucket list; pprev == NULL: not pending */
	struct timer **pprev;
	uint32_t expires;          /* in jiffies */
	void (*function)(struct timer *t);
	const char *name;          /* shown by `timers` and wakeup accounting */
};

/* The wheel starts at `now` (the current jiffies). */
void timer_wheel_init(uint32_t now);

void timer_init(struct timer *t, void (*fn)(struct timer *), const char *name);
/* Arm (or re-arm) t for `expires`.  Returns 1 if it was pending before.
 * An expiry at or before the wheel's current jiffy fires on the next run. */
int timer_mod(struct timer *t, uint32_t expires);
/* Disarm.  Returns 1 if it was pending. */
int timer_del(struct timer *t);
static inline bool timer_pending(const struct timer *t) { return t->pprev != NULL; }

/* Run every timer whose expiry is at or before `now`, in expiry order.
 * Advances the wheel to now + 1.  Cost: O(timers fired + cascades + levels)
 * per call, even after a skip of thousands of jiffies. */
void timer_run_expired(uint32_t now);

/* Earliest pending expiry (exact), false if none.  Cost: a scan of the
 * per-level occupancy bitmaps plus one bucket's list per level — never every
 * bucket. */
bool timer_next_expiry(uint32_t *expires);

/* Number of pending timers, and a walk over them (for `timers`). */
unsigned timer_count(void);
void timer_for_each(void (*fn)(struct timer *t, void *ctx), void *ctx);

/* The wheel's notion of now: the next jiffy it will process. */
uint32_t timer_wheel_base(void);

/* Re-express every pending timer's expiry after a tick-rate change so that
 * it keeps its deadline in real time: map(t->expires) is called with
 * interrupts off and must return the new expiry. */
void timer_wheel_remap(uint32_t new_now, uint32_t (*map)(uint32_t expires, void *ctx), void *ctx);

#endif
