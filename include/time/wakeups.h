/* include/time/wakeups.h — "why did I wake?": every exit from idle is
 * charged to one cause, like powertop's list.
 *
 * Causes: the periodic tick; the timer (wheel or hrtimer, by name) whose
 * deadline ended a skip; a limit that ended a skip early (the device's
 * maximum delta, the clocksource's wrap bound); or another interrupt line
 * (by device name).  Also kept: how long each sleep lasted and how much of
 * the time the CPU spent halted.
 */
#ifndef LULL_TIME_WAKEUPS_H
#define LULL_TIME_WAKEUPS_H

#include "tick.h"

enum wakeup_kind { WAKE_TICK, WAKE_TIMER, WAKE_HRTIMER, WAKE_LIMIT_DEVICE,
                   WAKE_LIMIT_WRAP, WAKE_IRQ, WAKE_NONE };

#define WAKEUP_CAUSES_MAX 32

struct wakeup_cause {
	enum wakeup_kind kind;
	const char *name;       /* timer name, or NULL */
	unsigned vector;        /* WAKE_IRQ: the interrupt vector */
	uint64_t count;
};

struct wakeup_stats {
	uint64_t since_ns;                  /* last reset */
	uint64_t wakeups, idle_ns, max_sleep_ns;
	uint64_t window_max_sleep_ns;       /* since wakeups_window_start() */
	uint64_t skips_by_limit[TICK_LIMIT_COUNT];   /* what chose each skip's length */
	struct wakeup_cause causes[WAKEUP_CAUSES_MAX];
	unsigned ncauses;
	uint64_t other;                     /* causes that did not fit the table */
};

extern struct wakeup_stats wakeup_stats;

/* Called by the tick code (interrupts off). */
void wakeups_idle_enter(uint64_t now);
void wakeups_note_irq(unsigned vector);         /* an interrupt while idle */
void wakeups_note_tick_event(void);             /* the tick device fired */
void wakeups_note_skip(enum tick_limit limit, const char *name, uint64_t len_ns);
void wakeups_idle_exit(uint64_t now);

/* Restart the longest-sleep measurement of a window (the `idle` command). */
void wakeups_window_start(void);

/* Start counting afresh at `now`. */
void wakeups_reset(uint64_t now);
/* A copy with the causes sorted, most frequent first. */
void wakeups_snapshot(struct wakeup_stats *out);
const char *wakeup_kind_name(enum wakeup_kind kind);

/* `count` events in span_ns as a rate per second in hundredths, rounded
 * down (275 is 2.75/s).  Exact for every 64-bit count and span, with no
 * intermediate overflow; 0 for an empty span, and UINT64_MAX for a rate of
 * more than 1.8e17/s, which no count of real events can reach. */
uint64_t wakeups_rate_centi(uint64_t count, uint64_t span_ns);

#endif
