/* include/time/timer.h — jiffy-granular timers on a hierarchical wheel.
 *
 * The caller owns struct timer (no allocation anywhere on the timer path).
 * A timer fires from the tick, with interrupts enabled, at or after
 * `expires` (its window's soft end) — never earlier — and by its hard end
 * (below).  Callbacks may re-arm or delete any timer, including their own.
 * Two wheels sit behind this one API: the cascading wheel (the default;
 * kernel/time/timer.c has its levels per HZ), which runs a timer on the
 * first tick at or after its expiry, and Linux 4.8's level wheel
 * (kernel/time/timer_level.c), which rounds the expiry up to its level's
 * granularity and so widens every window to [soft, max(hard, rounded)].
 *
 * A timer's life: timer_init once, while it is not pending; then timer_add
 * to arm it afresh, timer_mod to arm or move it whether pending or not,
 * timer_del to disarm it.  The wheel links timers through their own
 * structs, so a misused one corrupts the wheel, not only itself.  These
 * misuses panic instead, naming the timer:
 *   - timer_init on a pending timer;
 *   - timer_init on the timer whose callback is running (from the callback
 *     itself, or from an interrupt taken during it);
 *   - timer_add on a pending timer;
 *   - timer_mod (so timer_add too) on a timer with no function.
 * Not checked, and still corrupting:
 *   - timer_add, timer_mod, timer_del or timer_pending on a timer that was
 *     never through timer_init: they trust its list pointers, which may be
 *     anything;
 *   - a pending timer's memory reused or overwritten: a stack timer going
 *     out of scope while pending, a memset or a struct copy over it.
 *     (timer_init looks for t only on the list its `bucket` field names; if
 *     that field was overwritten, it looks in the wrong place and lets the
 *     init through.)
 */
#ifndef LULL_TIME_TIMER_H
#define LULL_TIME_TIMER_H

#include "../compiler.h"
#include "../spinlock.h"
#include "arch.h"
#include "slack.h"

struct timer {
	struct timer *next;        /* bucket list; pprev == NULL: not pending */
	struct timer **pprev;
	uint32_t expires;          /* in jiffies: the window's soft end */
	uint32_t hard;             /* the window's hard end (time.h/slack.h) */
	void (*function)(struct timer *t);
	const char *name;          /* shown by `timers` and wakeup accounting */
	uint16_t bucket;           /* owned by the wheel: which bucket holds it,
	                              so emptying one clears its occupancy bit */
	uint8_t class;             /* enum timer_class: how timer_mod sets hard */
	uint8_t slack_pct;         /* TIMER_CLASS_PERCENT's percentage */
	struct timer_base *base;   /* the CPU wheel it is (or was last) on */
};

/* Two wheels behind this one API, chosen at boot (wheel=cascade|level) or
 * switched at runtime (timer_wheel_switch): the cascading wheel Linux used
 * until 4.7 (kernel/time/timer.c explains its levels) and the level wheel
 * of Linux 4.8 (kernel/time/timer_level.c).  Both file timers in the same
 * arrays; they are sized for the larger. */
enum timer_wheel_kind { TIMER_WHEEL_CASCADE, TIMER_WHEEL_LEVEL };
#define WHEEL_CASCADE_BUCKETS  (256 + 4 * 64)
#define WHEEL_LEVEL_BUCKETS    (9 * 64)
#define WHEEL_BUCKETS  (WHEEL_LEVEL_BUCKETS > WHEEL_CASCADE_BUCKETS ? \
                        WHEEL_LEVEL_BUCKETS : WHEEL_CASCADE_BUCKETS)
#define BITS_PER_WORD  32
_Static_assert(WHEEL_BUCKETS >= WHEEL_CASCADE_BUCKETS && WHEEL_BUCKETS >= WHEEL_LEVEL_BUCKETS,
               "the bucket arrays hold either wheel");
_Static_assert(WHEEL_BUCKETS % BITS_PER_WORD == 0 && WHEEL_BUCKETS < 0xFFFF,
               "whole occupancy words; a bucket number fits struct timer's `bucket`");

struct wheel_ops;

/* One CPU's wheel: every CPU has its own (in the time core's struct
 * time_cpu; time_timer_base finds it, percpu.h), under its own lock.  Only
 * the timer files of kernel/time/ look inside (timer_wheel.h lists them). */
struct timer_base {
	spinlock_t lock;
	unsigned cpu;                           /* whose wheel */
	const struct wheel_ops *ops;            /* which wheel: how buckets are used */
	uint32_t base;                          /* next jiffy to process */
	struct timer *bucket[WHEEL_BUCKETS];
	/* Each bucket's earliest timer, or NULL when not known (recomputed on
	 * the next query).  Keeps timer_next_expiry() from walking long
	 * buckets again and again: without it a query cost more the more
	 * timers were pending; with it, `make bench-timers` (rows "next
	 * expiry, N pending") shows the cost flat from 10 to 100,000. */
	struct timer *bucket_min[WHEEL_BUCKETS];
	uint32_t occupied[WHEEL_BUCKETS / BITS_PER_WORD];   /* bit set: bucket non-empty */
	struct timer *running;                  /* due timers being run now */
	struct timer *firing;                   /* the one whose callback runs now */
	unsigned count;                         /* pending timers */
	bool in_run;                            /* inside timer_run_expired */
	uint32_t run_until;                     /* the `now` it runs up to */
	/* Work done by timer_run_expired: timers moved to another bucket
	 * (cascaded, re-filed) or taken to be run.  Only ever counts up; the
	 * unit tests and bench/timer_bench.c read it to compare the wheels'
	 * cost per tick without a clock. */
	uint32_t work;
	/* Timers whose hard end a next-expiry query compared (list_min).  Only
	 * counts up; the unit tests read it to check that a query's cost does
	 * not grow with the number of pending timers. */
	uint32_t looked;
};

/* Every CPU's wheel starts at `now` (the current jiffies): its base, the
 * next jiffy it will process.  Timers still pending are forgotten.
 *
 * Which CPU.  timer_init puts a timer on the wheel of the CPU that calls
 * it; timer_add, timer_mod and timer_del act on the wheel it is on, and
 * timer_mod_on moves it to another CPU's.  A timer fires on the CPU whose
 * wheel holds it, from that CPU's tick; timer_run_expired, timer_next_expiry
 * and timer_next_name look at the calling CPU's wheel only. */
void timer_wheel_init(uint32_t now);

/* Set t up, not pending.  t may be uninitialised memory: whether it is
 * pending is decided from the wheel's own lists (one walked, see
 * wheel_holds in kernel/time/timer.c), never by following a pointer in t.
 * Panics if t is pending or its callback is running. */
void timer_init(struct timer *t, void (*fn)(struct timer *), const char *name);
/* Its name for messages ("?" for a timer given none). */
static inline const char *timer_name(const struct timer *t) { return t->name ? t->name : "?"; }
/* Arm t, which must not be pending (panics if it is), for `expires`: for
 * code that means "start this timer", where finding it already armed is a
 * bug.  Expiry rules as for timer_mod. */
void timer_add(struct timer *t, uint32_t expires);
/* Arm (or re-arm) t for `expires`.  Returns 1 if it was pending before.
 * An expiry before the wheel's base is already due and fires with the next
 * jiffy the wheel processes; armed from a callback, that is later in the
 * same run if it has not reached its `now` yet, else the next run.  An
 * expiry 2^31 or more jiffies ahead reads as past (time_after's rule). */
int timer_mod(struct timer *t, uint32_t expires);
/* Windows (include/time/slack.h).  timer_mod arms t for the window
 * [expires, hard], hard from t's class and how far ahead of jiffies
 * `expires` is (whole jiffies, rounded down); timer_mod_range names
 * both ends (a hard end before the soft one is taken as the soft one; one
 * 2^31 or more past the wheel's base, as base + 2^31 - 1).
 * The timer fires with the first timer_run_expired at or after its soft
 * end; the idle path wakes for timer_next_expiry, the earliest hard end.
 * timer_set_class chooses the class for the next arm (pct: the
 * percentage, for TIMER_CLASS_PERCENT); timer_init sets the default. */
int timer_mod_range(struct timer *t, uint32_t soft, uint32_t hard);
void timer_set_class(struct timer *t, enum timer_class c, unsigned pct);
/* timer_mod on CPU `cpu`'s wheel: t moves there, pending or not (panics if
 * that CPU is not online).  Returns 1 if it was pending before, anywhere.
 * Armed for another CPU, that CPU is told afterwards (the tick's
 * armed_remote, below: it may be asleep with its tick stopped, and must
 * wake to look at its wheel again). */
int timer_mod_on(struct timer *t, uint32_t expires, unsigned cpu);
int timer_mod_range_on(struct timer *t, uint32_t soft, uint32_t hard, unsigned cpu);

/* What the wheel asks of the tick, which sits above it: registered once,
 * before the first timer is armed (tick_install_timer_hooks); none (the
 * host tests' wheel alone) tells no one.
 *   armed_remote   a timer was armed, by any of the functions above, on
 *                  another CPU's wheel (called with no lock held). */
struct timer_tick_ops {
	void (*armed_remote)(unsigned cpu);
};
void timer_set_tick_ops(const struct timer_tick_ops *ops);
/* Disarm.  Returns 1 if it was pending.  An all-zero timer (a static one
 * never through timer_init) is not pending: 0.  It does not wait for, nor
 * tell of, a callback running now (Linux's del_timer): that callback may
 * re-arm t, or still be using its memory, after timer_del returns.
 *
 * timer_try_to_del is the same but says so: -1 if t's callback is running
 * on some CPU (t left alone).  timer_del_sync waits for a running callback
 * to return and disarms again if it re-armed t: on return t is neither
 * pending nor running (Linux's del_timer_sync; 1 if it disarmed t).  It
 * spins with interrupts as the caller had them, so not from t's own
 * callback (panics, naming t) nor holding a lock the callback takes.
 * timer_callback_running: whether t's callback runs now (a snapshot). */
int timer_del(struct timer *t);
int timer_try_to_del(struct timer *t);
int timer_del_sync(struct timer *t);
bool timer_callback_running(const struct timer *t);
static inline bool timer_pending(const struct timer *t) { return t->pprev != NULL; }

/* Run every timer whose expiry is at or before `now`, jiffy by jiffy (timers
 * due on the same jiffy in no particular order), with interrupts enabled.
 * Advances the wheel to now + 1.  Cost: O(timers fired + cascades + levels)
 * per call, even after a skip of thousands of jiffies.  Safe to call again
 * from an interrupt during a callback: the outer call runs on to the later
 * `now`. */
void timer_run_expired(uint32_t now);

/* The earliest pending hard end on CPU `cpu`'s wheel (exact) and that
 * timer's name (either pointer may be NULL); false if none.  Before the
 * base if a timer is already due.  Cost: a scan of the per-level occupancy
 * bitmaps plus one cached earliest timer per level (a bucket's list is
 * walked only after its earliest timer was deleted or fired) — never
 * every bucket. */
bool timer_next_expiry_on(unsigned cpu, uint32_t *expires, const char **name);
/* This CPU's.  Waking then serves every pending timer. */
static inline bool timer_next_expiry(uint32_t *expires)
{
	return timer_next_expiry_on(arch_this_cpu_id(), expires, NULL);
}
/* The name of that earliest timer (of one of them, if several share the
 * expiry), NULL if none is pending: for wakeup accounting. */
const char *timer_next_name(void);

/* Number of timers pending on CPU `cpu`'s wheel, and a walk over them (for
 * `timers`); fn runs with interrupts off and must not arm or delete timers. */
unsigned timer_count_on(unsigned cpu);
void timer_for_each_on(unsigned cpu, void (*fn)(struct timer *t, void *ctx), void *ctx);
static inline unsigned timer_count(void) { return timer_count_on(arch_this_cpu_id()); }

/* The wheel's notion of now: the next jiffy it will process. */
uint32_t timer_wheel_base(void);

/* Re-express every pending timer's expiry, on every CPU's wheel, after a tick-rate change so that
 * it keeps its deadline in real time: map(t->expires) is called with
 * interrupts off and must return the new expiry.  The wheel restarts with
 * base new_now; a timer mapped to new_now or earlier fires on the next run.
 * Not from a timer callback (panics). */
void timer_wheel_remap(uint32_t new_now, uint32_t (*map)(uint32_t expires, void *ctx), void *ctx);

/* Which wheel files timers.  timer_wheel_init uses the boot choice
 * (wheel=, cascade unless given); timer_wheel_switch moves every pending
 * timer on every CPU to the other wheel, each keeping its window [soft,
 * hard].  Not from a timer callback (panics). */
void timer_wheel_switch(enum timer_wheel_kind kind);
enum timer_wheel_kind timer_wheel_current(void);
const char *timer_wheel_name(enum timer_wheel_kind kind);
/* "cascade" or "level" to a kind: 0, or -EINVAL. */
int timer_wheel_parse(const char *s, enum timer_wheel_kind *kind);

#endif
