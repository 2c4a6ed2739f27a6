/* include/time/optimum.h — the fewest wakeups that serve a set of windows.
 *
 * A timer with a window [soft, hard] (include/time/slack.h) is served by a
 * wakeup at any instant x with soft <= x <= hard.  Given the windows of
 * every timer, what is the fewest wakeups that serve them all?  This is
 * "interval stabbing", and a greedy answers it exactly:
 *
 *   sort the windows by hard end; walk them in that order; when a window
 *   is not served by the last wakeup placed, place a new one at its hard
 *   end.
 *
 * The idle path does the same thing online: it sleeps to the earliest hard
 * end still pending (timer_next_expiry) and runs every timer whose soft end
 * has passed (timer_run_expired).  This file computes the optimum offline,
 * so a test can check the wheel reaches it.
 *
 * Why the greedy is optimal (an exchange argument).  Take any set O of
 * wakeups that serves every window, and let g be the greedy's first
 * wakeup: the earliest hard end of all.  Some wakeup o in O serves that
 * window, so o <= g.  Exchange o for g: a window o served has soft <= o <= g
 * and, like every window, hard >= g, so g serves it too; O is still valid
 * and no larger.  Now drop the windows g serves (soft <= g).  Those left
 * start after g, so the wakeups of O at or before g serve none of them,
 * and the rest of O, at least one wakeup fewer, serves them all.  On those
 * windows the greedy goes on exactly as it would have (same order, same
 * rule), so repeat.  Each round costs the greedy one wakeup and O at least
 * one, so the greedy never needs more wakeups than O.
 *
 * Works on ns (or any unit) as plain 64-bit numbers: no wrap.
 */
#ifndef LULL_TIME_OPTIMUM_H
#define LULL_TIME_OPTIMUM_H

#include "../compiler.h"

struct window {
	uint64_t soft, hard;    /* served by any instant in [soft, hard] */
};

/* The greedy's wakeups: sorts w by hard end, in place (a hard end before
 * the soft one is first set to the soft one), writes the instants in
 * increasing order to at[] (room for n; at may be NULL), and returns how
 * many there are: the fewest that serve every window.  O(n log n), no
 * allocation. */
unsigned optimum_schedule(struct window *w, unsigned n, uint64_t *at);

/* Just the count. */
static inline unsigned optimum_wakeups(struct window *w, unsigned n)
{
	return optimum_schedule(w, n, NULL);
}

/* How many of the n windows at least one of the m wakeups (increasing)
 * serves: n when the schedule is valid.  O(n log m). */
unsigned optimum_served(const struct window *w, unsigned n, const uint64_t *at, unsigned m);

#endif
