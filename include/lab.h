/* include/lab.h — what a lab's stub calls (docs/labs/README.md).
 *
 * In a student copy (`make lab`), each region of the reference solution is
 * replaced by a stub that compiles, says
 *     lab NAME: not implemented
 * and returns something harmless, so the kernel still boots and the lab's
 * tests fail cleanly instead of hanging.  In the solved tree nothing calls
 * this. */
#ifndef LULL_LAB_H
#define LULL_LAB_H

#include "compiler.h"

#define LAB_REPORT_MS     1000u         /* at most one line a second per lab */
#define LAB_REPORT_CALLS  1000u         /* without a clock: one line per this many calls */

/* Print "lab NAME: not implemented" the first time NAME asks, and again
 * every time after, but at most once a second (by the clock handed to
 * lab_set_clock), with how many calls came since the last line:
 *     lab NAME: not implemented (12 more calls)
 * A stub may sit on a hot path (the tick, the timer wheel): a line per
 * call would drown the console.  With no clock (the host tests, or the
 * kernel before its tick runs), at most once every LAB_REPORT_CALLS calls. */
void lab_not_implemented(const char *lab);

/* The clock the limit counts in: milliseconds from any origin, wrapping,
 * and read without a lock, since a stub may run anywhere (inside the
 * tick, under the timekeeping lock).  NULL: count calls instead.
 * kernel/main.c hands one over once the tick runs. */
void lab_set_clock(uint32_t (*now_ms)(void));

#endif
