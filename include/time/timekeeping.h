/* include/time/timekeeping.h — monotonic time since boot, in nanoseconds.
 *
 * Built on the current clocksource: the core remembers the counter value and
 * the time at the last update, and adds ((now - last) & mask) converted to
 * ns.  That is wrap-safe as long as timekeeping_update() runs at least every
 * timekeeping_max_idle_ns(): the tick, the interrupt that ends a stopped tick,
 * and every idle entry call it.
 */
#ifndef LULL_TIME_TIMEKEEPING_H
#define LULL_TIME_TIMEKEEPING_H

#include "clocksource.h"

/* Start keeping time on cs at 0 ns.  Called by clocksource.c when the first
 * clocksource registers; nothing else calls it or the switch below. */
void timekeeping_init(struct clocksource *cs);

/* Monotonic ns since timekeeping_init (0 before it); never goes backwards,
 * even if the counter does. */
uint64_t ktime_get_ns(void);

/* Fold the counter's progress into the base: keeps ktime_get_ns wrap-safe.
 * Returns the time it folded up to, what ktime_get_ns would return at that
 * instant (the tick reads the counter once, not twice). */
uint64_t timekeeping_update(void);

/* How long the system may go without timekeeping_update() (the current
 * clocksource's max_idle_ns; UINT64_MAX before there is one). */
uint64_t timekeeping_max_idle_ns(void);

/* Switch to another counter at this instant, with no jump in time. */
void timekeeping_change_clocksource(struct clocksource *cs);

#endif
