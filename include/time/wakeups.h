/* include/time/wakeups.h — "why did I wake?": every exit from idle is
 * charged to one cause, like powertop's list.
 *
 * Causes: the periodic tick; the timer (wheel or hrtimer, by name) whose
 * deadline ended a skip; a limit that ended a skip early (the device's
 * maximum delta, the clocksource's wrap bound); or another interrupt line
 * (by device name).  Also kept: how long each sleep lasted and how much of
 * the time the CPU spent halted.
 *
 * Every CPU keeps its own (struct wakeup_cpu, in the time core's struct
 * time_cpu: time_wakeups_of, percpu.h), written only by that CPU with its
 * interrupts off, under its own lock so that another CPU can copy or
 * reset it whole; the commands report each CPU and the sum.
 */
#ifndef LULL_TIME_WAKEUPS_H
#define LULL_TIME_WAKEUPS_H

#include "spinlock.h"
#include "tick.h"

enum wakeup_kind { WAKE_TICK, WAKE_TIMER, WAKE_HRTIMER, WAKE_LIMIT_DEVICE,
                   WAKE_LIMIT_WRAP, WAKE_LIMIT_WATCHDOG, WAKE_IRQ, WAKE_NONE };

#define WAKEUP_CAUSES_MAX 32

/* The skips of one skipping mode (the `dyntick` command): the idle entries
 * that stopped the tick; at each catch-up, the ticks actually slept
 * through (an interrupt may end a skip early) and the longest. */
enum skip_mode { SKIP_DYNTICK, SKIP_TICKLESS, SKIP_MODES };
struct skip_counts {
	uint64_t skips, ticks_skipped, catchups, longest_skip;
};

struct wakeup_cause {
	enum wakeup_kind kind;
	const char *name;       /* timer name, or NULL */
	unsigned vector;        /* WAKE_IRQ: the interrupt vector */
	uint64_t count;
};

struct wakeup_stats {
	uint64_t since_ns;                  /* last reset */
	/* idle_ns: from each idle entry's clock read (tick_idle_enter) to its
	 * exit's (tick_idle_exit): the sleep decision, the halt, and the
	 * interrupt that ended it.  halted_ns: the halts alone, from just
	 * before `hlt` to the first interrupt's entry (arch_halt_cycles),
	 * counted in cycles and filled in by the snapshot as that share of
	 * idle_ns; with no cycle counter, idle_ns itself. */
	uint64_t wakeups, idle_ns, halted_ns, max_sleep_ns;
	uint64_t idle_cycles, halted_cycles;
	uint64_t window_max_sleep_ns;       /* since wakeups_window_start(), of that time only */
	unsigned asleep;                    /* in a snapshot: CPUs asleep at its `now` */
	uint64_t skips_by_limit[TICK_LIMIT_COUNT];   /* what chose each skip's length */
	struct skip_counts by_mode[SKIP_MODES];     /* dyntick's and tickless' own */
	struct wakeup_cause causes[WAKEUP_CAUSES_MAX];
	unsigned ncauses;
	uint64_t other;                     /* causes that did not fit the table */
	uint64_t abandoned;                 /* sleeps given up before the halt */
};

/* One CPU's: its counts, and the sleep in progress (wakeups.c). */
struct wakeup_cpu {
	spinlock_t lock;
	struct wakeup_stats stats;
	uint64_t window_start_ns;           /* wakeups_window_start()'s `now` */
	struct {
		bool active;
		uint64_t enter_ns;
		uint64_t enter_cycles;          /* arch_cycles() at the entry; 0: none */
		bool tick_fired;
		bool have_irq;
		unsigned first_vector;
		bool skipping;
		enum tick_limit limit;
		const char *name;
	} cur;
};

/* Called by the tick code on the CPU that idles (interrupts off). */
void wakeups_idle_enter(uint64_t now);
void wakeups_note_irq(unsigned vector);         /* an interrupt while idle */
void wakeups_note_tick_event(void);             /* the tick device fired */
void wakeups_note_skip(enum skip_mode mode, enum tick_limit limit, const char *name);
void wakeups_note_catchup(enum skip_mode mode, uint32_t ticks_slept);
void wakeups_idle_exit(uint64_t now);
/* An interrupt came between wakeups_idle_enter and the halt, so the CPU
 * will not halt: forget the sleep without counting it, and count it as
 * abandoned instead.  False (nothing done) if no interrupt came. */
bool wakeups_idle_abandon(void);

/* Restart every CPU's longest-sleep measurement of a window (the `idle`
 * command) at `now`: a sleep already going on counts from `now`. */
void wakeups_window_start(uint64_t now);

/* Every CPU starts counting afresh at `now`. */
void wakeups_reset(uint64_t now);
/* A copy of CPU `cpu`'s counts at `now`, with the causes sorted, most
 * frequent first.  A sleep in progress counts as halted time, and as a
 * sleep, up to `now`. */
void wakeups_snapshot(unsigned cpu, uint64_t now, struct wakeup_stats *out);
/* Each CPU's copy in each[0 .. arch_nr_cpus() - 1], and their sum (causes
 * merged; the longest sleeps are the longest of any CPU) from the same
 * copies, so the sum is exactly theirs. */
void wakeups_snapshot_each(uint64_t now, struct wakeup_stats *sum, struct wakeup_stats *each);
const char *wakeup_kind_name(enum wakeup_kind kind);

/* `count` events in span_ns as a rate per second in hundredths, rounded
 * down (275 is 2.75/s).  Exact for every 64-bit count and span, with no
 * intermediate overflow; 0 for an empty span, and UINT64_MAX for a rate of
 * more than 1.8e17/s, which no count of real events can reach. */
uint64_t wakeups_rate_centi(uint64_t count, uint64_t span_ns);

#endif
