/* kernel/time/timer_wheel.h — what the jiffy-timer files share, and
 * nothing outside kernel/time/ needs (that is include/time/timer.h):
 *
 *   timer.c          the cascading wheel's design (its header comment),
 *                    and a timer's life: timer_init, arming (timer_mod,
 *                    timer_add, timer_mod_on...) and disarming (timer_del,
 *                    timer_del_sync...), under the lock of t's base;
 *   timer_expiry.c   the tick's side: timer_run_expired, and the
 *                    next-expiry query (timer_next_expiry...);
 *   timer_base.c     each CPU's wheel as a whole: timer_wheel_init, the
 *                    wheel= option, timer_wheel_switch, timer_wheel_remap,
 *                    timer_count, timer_for_each;
 *   timer_bucket.c   the buckets both wheels keep: the lists, each
 *                    bucket's cached earliest timer, the occupancy bits
 *                    and their scan;
 *   timer_cascade.c  the cascading wheel's bucket layer (Linux to 4.7);
 *   timer_level.c    the level wheel's (Linux 4.8).
 *
 * It is the seam between the timer API and its two bucket layers.  The
 * first three files own everything a caller sees: locking, the running
 * list, callbacks, remote arming, windows, the next-expiry walk.  A wheel
 * says only how its buckets are laid out and used, through struct
 * wheel_ops: its levels, which bucket a timer goes in, what to do when the
 * wheel reaches a jiffy, and (the level wheel) how to move a stale clock
 * forward.
 */
#ifndef LULL_TIME_TIMER_WHEEL_H
#define LULL_TIME_TIMER_WHEEL_H

#include "time/percpu.h"
#include "time/timer.h"
#include "time/arch.h"

/* t->bucket of a timer taken from its bucket and waiting to be run. */
#define TIMER_BUCKET_RUNNING  0xFFFFu

struct wheel_level {
	unsigned shift;     /* bucket width is 2^shift jiffies */
	unsigned size;      /* buckets in this level, a power of two, >= 32 */
	unsigned first;     /* its first bucket in w->bucket[], a multiple of 32 */
};

struct wheel_ops {
	enum timer_wheel_kind kind;
	const char *name;                       /* "cascade", "level" */
	const struct wheel_level *levels;       /* finest first */
	unsigned nlevels;
	/* The bucket for a timer whose soft end is `expires`, seen from
	 * w->base (an expiry before the base: already due, with the base). */
	unsigned (*bucket_for)(const struct timer_base *w, uint32_t expires);
	/* The wheel is at jiffy j (w->base == j): hand every timer due at j
	 * to wheel_run_add, after whatever re-filing the wheel does then. */
	void (*collect)(struct timer_base *w, uint32_t j);
	/* Whether a bucket's block start is the jiffy its timers run (the
	 * level wheel) rather than only a lower bound of their soft ends (the
	 * cascading wheel): then a timer's wake-up is max(hard, that start). */
	bool runs_at_block_start;
	/* Move a stale w->base towards jiffies before an arm; NULL: never. */
	void (*forward)(struct timer_base *w);
};

extern const struct wheel_ops timer_cascade_ops, timer_level_ops;

/* ---------------------------------------------------------- the bases */

/* This CPU's wheel, and CPU `cpu`'s. */
static inline struct timer_base *this_base(void)
{
	return time_timer_base(arch_this_cpu_id());
}

/* ------------------------------------------ timer_bucket.c: the buckets */
/* Interrupts off, the wheel's lock held. */

/* Put t at the head of bucket b, the one bucket_for names for t->expires;
 * wheel_place asks bucket_for itself. */
void wheel_bucket_insert(struct timer_base *w, struct timer *t, unsigned b);
void wheel_place(struct timer_base *w, struct timer *t);
/* Re-arm a pending t whose new expiry maps to the bucket it is in. */
void wheel_rekey(struct timer_base *w, struct timer *t, uint32_t expires, uint32_t hard);
/* Take t off its bucket or the running list. */
void wheel_unlink(struct timer_base *w, struct timer *t);
/* Empty bucket b and return its list. */
struct timer *wheel_bucket_take(struct timer_base *w, unsigned b);
/* Put t, just taken from its bucket, on the list of timers to run now. */
void wheel_run_add(struct timer_base *w, struct timer *t);
/* The first occupied bucket of a level at or after index `from`, going
 * round: its distance from `from`, or -1 if the level is empty. */
int level_scan(const struct timer_base *w, const struct wheel_level *lv, unsigned from);
/* The next jiffy with work, as a distance from the base; false: none. */
bool wheel_next_work(const struct timer_base *w, uint32_t *distance);

#endif
