/* include/time/slack.h — how late a timer may fire: its window and class.
 *
 * Every wheel timer and hrtimer has a window [soft, hard]: it never fires
 * before soft and never after hard (plus the interrupt latency).  Its
 * expiry is the soft end; the hard end is where the CPU must be awake for
 * it.  The idle path sleeps to the earliest hard end of all pending timers
 * and then runs every timer whose soft end has passed: one wakeup serves
 * them all (docs/timers.md has why that is the fewest wakeups).
 *
 * The window is given explicitly (timer_mod_range, hrtimer_start_range_ns)
 * or follows from the timer's class and Δ, how far ahead it was armed:
 *
 *   class        slack (hard - soft)     as in
 *   default      the global default      `slack` command, slack= option
 *   exact        0
 *   normal       min(Δ/8, 1 ms)          macOS's leeway for normal threads
 *   background   min(Δ/2, 100 ms)        (macOS allows background threads far more)
 *   deferrable   min(Δ, 1 s)             Linux's TIMER_DEFERRABLE, but bounded
 *   percent      Δ * P / 100             FreeBSD's callout precision
 *
 * A deferrable timer never wakes the CPU before its bound: it runs at the
 * first wakeup after its expiry, for whatever reason, and at the latest at
 * its bound (Linux's can wait forever on an idle CPU).
 *
 * The global default starts as exact (or what slack= said at boot), so a
 * timer nobody gave a class fires at its expiry, as before windows.
 */
#ifndef LULL_TIME_SLACK_H
#define LULL_TIME_SLACK_H

#include "../compiler.h"

enum timer_class {
	TIMER_CLASS_DEFAULT,     /* the global default slack */
	TIMER_CLASS_EXACT,
	TIMER_CLASS_NORMAL,
	TIMER_CLASS_BACKGROUND,
	TIMER_CLASS_DEFERRABLE,
	TIMER_CLASS_PERCENT,     /* the timer's own percentage */
	TIMER_CLASS_COUNT
};

/* The classes' caps, in ms (the table above). */
#define SLACK_NORMAL_CAP_MS       1u
#define SLACK_BACKGROUND_CAP_MS   100u
#define SLACK_DEFERRABLE_CAP_MS   1000u
#define SLACK_PERCENT_MAX         100     /* no suffix: the shell's usage lines spell it */

/* The global default, in percent of Δ (0: exact), and its boot value. */
extern unsigned timer_slack_percent;
extern unsigned timer_slack_boot_percent;

/* Slack for a timer of class c (pct: its own percentage, for
 * TIMER_CLASS_PERCENT) armed delta units ahead, in the same units, where
 * one second is units_per_s units (1e9 for hrtimers, HZ for the wheel).
 * Rounded down: never more than the class allows. */
uint64_t timer_slack(enum timer_class c, unsigned pct, uint64_t delta, uint64_t units_per_s);

/* "exact", "normal", ... ; "?" for a bad value. */
const char *timer_class_name(enum timer_class c);

/* Parse a class word: exact, normal, background, deferrable, default, or
 * a percentage 0..100 (TIMER_CLASS_PERCENT, *pct set).  0 or -EINVAL. */
int timer_class_parse(const char *s, enum timer_class *c, unsigned *pct);

/* Piggybacking: an interrupt that wakes a CPU from a skip runs every timer
 * whose soft end has passed, before the device is programmed again.  On by
 * default; `piggyback=off` (boot) or the `slack` command turn it off, for
 * comparison: then only the tick device's own interrupts run timers. */
extern bool timer_piggyback;

#endif
