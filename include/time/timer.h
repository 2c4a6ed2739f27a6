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
	uint16_t bucket;           /* owned by the wheel: which bucket holds it,
	                              so emptying one clears its occupancy bit */
};

/* The wheel starts at `now` (the current jiffies): its base, the next jiffy
 * it will process.  Timers still pending are forgotten. */
void timer_wheel_init(uint32_t now);

void timer_init(struct timer *t, void (*fn)(struct timer *), const char *name);
/* Arm (or re-arm) t for `expires`.  Returns 1 if it was pending before.
 * An expiry before the wheel's base is already due and fires with the next
 * jiffy the wheel processes; armed from a callback, that is later in the
 * same run if it has not reached its `now` yet, else the next run.  An
 * expiry 2^31 or more jiffies ahead reads as past (time_after's rule). */
int timer_mod(struct timer *t, uint32_t expires);
/* Disarm.  Returns 1 if it was pending. */
int timer_del(struct timer *t);
static inline bool timer_pending(const struct timer *t) { return t->pprev != NULL; }

/* Run every timer whose expiry is at or before `now`, jiffy by jiffy (timers
 * due on the same jiffy in no particular order), with interrupts enabled.
 * Advances the wheel to now + 1.  Cost: O(timers fired + cascades + levels)
 * per call, even after a skip of thousands of jiffies.  Safe to call again
 * from an interrupt during a callback: the outer call runs on to the later
 * `now`. */
void timer_run_expired(uint32_t now);

/* Earliest pending expiry (exact), false if none; before the base if a
 * timer is already due.  Cost: a scan of the per-level occupancy bitmaps
 * plus one cached earliest timer per level (a bucket's list is walked only
 * after its earliest timer was deleted or fired) — never every bucket. */
bool timer_next_expiry(uint32_t *expires);
/* The name of that earliest timer (of one of them, if several share the
 * expiry), NULL if none is pending: for wakeup accounting. */
const char *timer_next_name(void);

/* Number of pending timers, and a walk over them (for `timers`); fn runs
 * with interrupts off and must not arm or delete timers. */
unsigned timer_count(void);
void timer_for_each(void (*fn)(struct timer *t, void *ctx), void *ctx);

/* The wheel's notion of now: the next jiffy it will process. */
uint32_t timer_wheel_base(void);

/* Re-express every pending timer's expiry after a tick-rate change so that
 * it keeps its deadline in real time: map(t->expires) is called with
 * interrupts off and must return the new expiry.  The wheel restarts with
 * base new_now; a timer mapped to new_now or earlier fires on the next run.
 * Not from a timer callback (panics). */
void timer_wheel_remap(uint32_t new_now, uint32_t (*map)(uint32_t expires, void *ctx), void *ctx);

#endif
