/* include/time/hrtimer.h — high-resolution timers: nanosecond deadlines.
 *
 * Kept in a binary min-heap ordered by deadline: O(log n) start and cancel,
 * O(1) earliest.  They fire from the clock event device in one-shot mode, at
 * their own deadline rather than at a tick.  The caller owns the struct; the
 * heap holds pointers in a fixed array of HRTIMER_MAX slots.
 *
 * A timer's life: hrtimer_init once, while it is not queued; then
 * hrtimer_start to queue or move it, hrtimer_cancel to dequeue it.  The
 * heap keeps pointers to the caller's structs, so a misused timer corrupts
 * the heap, not only itself.  These misuses panic instead, naming the
 * timer:
 *   - hrtimer_init on a queued timer;
 *   - hrtimer_init on a timer whose callback is running (from the callback
 *     itself, or from an interrupt taken during it, at any depth of nested
 *     runs);
 *   - hrtimer_start on a timer with no function; hrtimer_forward on a
 *     queued timer or with a zero interval; a callback returning
 *     HRTIMER_RESTART without moving its deadline past now.
 * Not checked, and still corrupting:
 *   - hrtimer_start, hrtimer_cancel or hrtimer_is_queued on a timer that
 *     was never through hrtimer_init: they trust its heap_index;
 *   - a queued timer's memory reused or overwritten: a stack timer going
 *     out of scope while queued, a memset or a struct copy over it.
 *     (hrtimer_init finds a queued t only through its heap_index; if that
 *     was overwritten, the check looks at the wrong slot and lets the init
 *     through.)
 */
#ifndef LULL_TIME_HRTIMER_H
#define LULL_TIME_HRTIMER_H

#include "../compiler.h"
#include "../spinlock.h"
#include "arch.h"
#include "slack.h"

#define HRTIMER_MAX 128

enum hrtimer_restart { HRTIMER_NORESTART, HRTIMER_RESTART };

struct hrtimer {
	uint64_t expires_ns;       /* absolute, ktime_get_ns() clock: the soft end */
	uint64_t hard_ns;          /* the window's hard end (slack.h) */
	enum hrtimer_restart (*function)(struct hrtimer *t);
	const char *name;
	int heap_index;            /* in the soft-end heap; -1: not queued */
	int hard_index;            /* in the hard-end heap */
	struct hrtimer_base *base; /* the CPU heap it is (or was last) on */
	uint8_t class;             /* enum timer_class: how hrtimer_start sets hard_ns */
	uint8_t slack_pct;         /* TIMER_CLASS_PERCENT's percentage */
};

/* The callbacks running on one CPU (kernel/time/hrtimer.c). */
struct hrtimer_run_frame {
	const struct hrtimer *firing;   /* NULL between callbacks */
	struct hrtimer_run_frame *outer;
};

/* One CPU's heap: every CPU has its own (in the time core's struct
 * time_cpu; time_hrtimer_base finds it, percpu.h), under its own lock.
 * Only kernel/time/hrtimer.c and hrtimer_heap.c look inside. */
struct hrtimer_base {
	spinlock_t lock;
	unsigned cpu;                   /* whose heap */
	struct hrtimer *heap[HRTIMER_MAX];       /* by soft end: who runs */
	struct hrtimer *hard_heap[HRTIMER_MAX];  /* by hard end: when to wake */
	unsigned size;                           /* in each */
	struct hrtimer_run_frame *runs; /* innermost first */
};

/* Set t up, not queued.  t may be uninitialised memory: whether it is
 * queued is decided from the heap's own array (t's heap_index in range and
 * that slot holding t), never by trusting t.  Panics if t is queued or its
 * callback is running. */
void hrtimer_init(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *), const char *name);
/* Its name for messages ("?" for a timer given none). */
static inline const char *hrtimer_name(const struct hrtimer *t) { return t->name ? t->name : "?"; }
/* Queue (or re-queue) t at expires_ns.  1 if it was queued before (the
 * old deadline is gone, as Linux 2.6's hrtimer_start said), 0 if not,
 * -ENOSPC if the heap is full (t stays as it was). */
int hrtimer_start(struct hrtimer *t, uint64_t expires_ns);
/* Windows (include/time/slack.h).  hrtimer_start queues t for the window
 * [expires_ns, hard_ns], hard_ns from t's class and how far ahead of
 * the tick's clock (its clock_ns, below) expires_ns is; hrtimer_start_range_ns gives the slack
 * (Linux's name and meaning: hard = soft + slack_ns).  A timer runs with the
 * first hrtimer_run_expired at or after its soft end; hrtimer_next_expiry
 * is the earliest hard end.  hrtimer_set_class chooses the class for the
 * next start (pct for TIMER_CLASS_PERCENT); hrtimer_init sets the default.
 * A restarted periodic timer (hrtimer_forward) keeps its window's width. */
int hrtimer_start_range_ns(struct hrtimer *t, uint64_t expires_ns, uint64_t slack_ns);
void hrtimer_set_class(struct hrtimer *t, enum timer_class c, unsigned pct);

/* Cancelling, as Linux's pair of the same names.
 *
 * hrtimer_try_to_cancel never waits: 1 if t was queued (it is not now),
 * 0 if it was neither queued nor running, -1 if its callback is running
 * on some CPU (t is left alone: the callback may still re-queue it).
 *
 * hrtimer_cancel waits for a running callback to return, then dequeues
 * again if that callback re-queued t: on return t is neither queued nor
 * running, and nothing queued before the call can run it.  1 if it took t
 * off a queue, 0 if not.  It spins with interrupts as the caller had them,
 * so it must not be called where the callback cannot finish: from t's own
 * callback (on its CPU: panics, naming t), or holding a lock the callback
 * takes.  A callback that must stop another timer uses the try form. */
int hrtimer_try_to_cancel(struct hrtimer *t);
int hrtimer_cancel(struct hrtimer *t);
/* Whether t's callback is running on some CPU now (a snapshot). */
bool hrtimer_callback_running(const struct hrtimer *t);
static inline bool hrtimer_is_queued(const struct hrtimer *t) { return t->heap_index >= 0; }

/* Push t's deadline forward by whole intervals until it is after now;
 * returns how many intervals were added (overruns + 1), 0 if it already
 * was.  For callbacks that return HRTIMER_RESTART with absolute, drift-free
 * periods.  t must not be queued, and interval_ns not 0 (panics). */
uint64_t hrtimer_forward(struct hrtimer *t, uint64_t now_ns, uint64_t interval_ns);

/* The earliest hard end on CPU `cpu`'s heap and that timer's name (either
 * pointer may be NULL); false if none queued. */
bool hrtimer_next_expiry_on(unsigned cpu, uint64_t *expires_ns, const char **name);
/* This CPU's earliest hard end.  Waking then serves every queued timer. */
static inline bool hrtimer_next_expiry(uint64_t *expires_ns)
{
	return hrtimer_next_expiry_on(arch_this_cpu_id(), expires_ns, NULL);
}
/* The name of that earliest timer (of one of them, on a tie), NULL if none
 * is queued: for wakeup accounting. */
const char *hrtimer_next_name(void);

/* Run every timer with expires_ns <= now_ns, earliest first, with interrupts
 * enabled; a callback returning HRTIMER_RESTART is re-queued at its
 * (forwarded) expires_ns, which must be after now_ns (panics otherwise).
 * Callbacks may start and cancel any hrtimer.  Returns the number of
 * callbacks run. */
unsigned hrtimer_run_expired(uint64_t now_ns);

/* How many timers CPU `cpu`'s heap holds, and a walk over them. */
unsigned hrtimer_count_on(unsigned cpu);
void hrtimer_for_each_on(unsigned cpu, void (*fn)(struct hrtimer *t, void *ctx), void *ctx);
static inline unsigned hrtimer_count(void) { return hrtimer_count_on(arch_this_cpu_id()); }

/* Empty every CPU's heap (at boot, before any timer is started). */
void hrtimer_bases_init(void);

/* Which CPU.  hrtimer_init puts a timer on the heap of the CPU that calls
 * it; hrtimer_start and hrtimer_cancel act on the heap it is on, and a
 * timer fires on that CPU; hrtimer_start_on moves it to CPU `cpu`'s heap
 * (panics if that CPU is not online; returns as hrtimer_start).
 * When that makes another CPU's earliest deadline earlier, that CPU is
 * told (the tick's armed_remote, below). */
int hrtimer_start_on(struct hrtimer *t, uint64_t expires_ns, unsigned cpu);
int hrtimer_start_range_ns_on(struct hrtimer *t, uint64_t expires_ns, uint64_t slack_ns, unsigned cpu);

/* What the hrtimers ask of the tick, which sits above them: registered
 * once, before the first timer is armed (tick_install_timer_hooks); with
 * none registered, or a member NULL, that step does nothing (the host
 * tests run the heaps alone).
 *   clock_ns       the clock class slack counts from (ktime_get_ns; none:
 *                  every timer counts as due now, so a class gives no
 *                  slack).
 *   first_changed  this CPU's earliest deadline became earlier, or the
 *                  only timer was queued (interrupts off): reprogram the
 *                  device sooner.  Not called when the earliest moves
 *                  later (a cancel, a restart further out): that costs
 *                  one early, empty interrupt.  Nor for HRTIMER_RESTART
 *                  re-queues inside hrtimer_run_expired, whose caller
 *                  reprograms after it.
 *   armed_remote   a start on another CPU made that CPU's earliest
 *                  deadline earlier: it may be asleep, or awake with its
 *                  device programmed for later.  Called with interrupts
 *                  off and that CPU's heap still locked, so that whoever
 *                  finds the new timer there finds it told: it must not
 *                  take that lock. */
struct hrtimer_tick_ops {
	uint64_t (*clock_ns)(void);
	void (*first_changed)(uint64_t expires_ns);
	void (*armed_remote)(unsigned cpu);
};
void hrtimer_set_tick_ops(const struct hrtimer_tick_ops *ops);

#endif
