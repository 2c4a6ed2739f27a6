/* kernel/time/timer_expiry.c — the tick's side of the jiffy timers, on
 * either wheel: run every timer that is due (timer_run_expired), and say
 * when the next one will be (timer_next_expiry).
 *
 * The run jumps over the jiffies with nothing to do (wheel_next_work,
 * kernel/time/timer_bucket.c) and lets the wheel's collect put each due
 * timer on the running list; the callbacks run with the lock dropped.  The
 * next-expiry query is exact without looking at every bucket: why a
 * level's first occupied buckets hold its earliest timers is proved in the
 * header comment of kernel/time/timer.c ("Where the earliest timers are").
 */
#include "time/percpu.h"
#include "time/jiffies.h"
#include "lab.h"
#include "spinlock.h"
#include "timer_wheel.h"

/* Each due bucket moves to w->running and its timers are taken off one
 * at a time, each run with interrupts back on.  So a callback may arm or
 * delete any timer: itself, one due later in this run, or one still
 * waiting on the running list (which then does not run).
 *
 * The base has already moved past the jiffy being run, so a timer a
 * callback arms for that jiffy or earlier counts as "already due" and fires
 * with the next jiffy the wheel processes: later in this same call if
 * `now` is not reached yet, else in the next call.  It never runs twice
 * for one jiffy, so a callback re-arming itself for `now` cannot hold the
 * tick in a loop.
 *
 * An interrupt during a callback may call us again (the tick).  That nested
 * call only moves run_until on, and this loop goes on to it. */
void timer_run_expired(uint32_t now)
{
	struct timer_base *w = this_base();
	unsigned long flags = spin_lock_irqsave(&w->lock);
	if (w->in_run) {
		if (time_after(now, w->run_until))
			w->run_until = now;
		spin_unlock_irqrestore(&w->lock, flags);
		return;
	}
	w->in_run = true;
	w->run_until = now;

	while (time_after_eq(w->run_until, w->base)) {
		/* Jump over the jiffies with nothing to run or cascade. */
		uint32_t distance = 0;
		if (!wheel_next_work(w, &distance) || distance > w->run_until - w->base) {
			w->base = w->run_until + 1;
			break;
		}
		uint32_t j = w->base + distance;
		w->base = j;

		/* Jiffy j: the wheel hands over what is due (cascading first,
		 * on the cascading wheel). */
		w->ops->collect(w, j);
		w->base = j + 1;

		while (w->running) {
			struct timer *t = w->running;
			wheel_unlink(w, t);
			w->firing = t;
			/* The callback runs with the lock dropped and interrupts
			 * as the caller had them, so it may arm and delete timers
			 * on any CPU, its own included. */
			spin_unlock_irqrestore(&w->lock, flags);
			t->function(t);
			flags = spin_lock_irqsave(&w->lock);
			w->firing = NULL;
		}
	}
	w->in_run = false;
	spin_unlock_irqrestore(&w->lock, flags);
}

/* Whether a's hard end is before b's (b may be NULL), as signed
 * distances from the base: an overdue timer is behind it. */
static bool hard_before(const struct timer_base *w, const struct timer *a, const struct timer *b)
{
	return !b || (int32_t)(a->hard - w->base) < (int32_t)(b->hard - w->base);
}

/* The earlier (by hard end) of `best` and every timer on list t. */
static struct timer *list_min(struct timer_base *w, struct timer *t, struct timer *best)
{
	for (; t; t = t->next, w->looked++)
		if (hard_before(w, t, best))
			best = t;
	return best;
}

/* The pending timer with the earliest hard end, or NULL: the latest jiffy
 * to wake at that still serves every pending timer, in *when.  Interrupts
 * off.
 *
 * Buckets are filed by soft end (expires), and hard >= soft.  So walk each
 * level's buckets in time order (timer.c's header comment proves the
 * order) and stop at the first whose block starts after the best hard end
 * found so far: every timer from there on has its soft end, so its hard
 * end, later.
 * With exact timers that is each level's first bucket, as before windows;
 * with wide windows, as many buckets as lie inside the earliest window.
 * Each bucket gives its cached earliest-hard timer; a list is walked only
 * when that cache was invalidated.
 *
 * On the level wheel a bucket's block start is the jiffy its timers run
 * (timer_level.c): none can run before it, so its timers' wake-up is
 * max(start, hard), and the bucket's is max(start, its earliest hard). */
static struct timer *wheel_earliest(struct timer_base *w, uint32_t *when)
{
	/* LAB wheel: BEGIN
	 * The next-expiry query, exact and cheap: the pending timer with the
	 * earliest hard end, and in *when the jiffy to wake at for it.  Start
	 * from the running list (list_min).  Then, per level, visit the
	 * occupied buckets in time order: level_scan finds the next one from
	 * an index, and timer.c's header comment proves which index comes
	 * first (k0) and what jiffy a bucket's block starts at.  Stop a level at
	 * the first block starting after the best so far (the base's own
	 * level-0 bucket, which holds overdue timers, is always looked at).
	 * A bucket's earliest is w->bucket_min[b] (NULL: work it out with
	 * list_min and keep it).  Compare as signed distances from the base.
	 * On the level wheel (ops->runs_at_block_start) a timer cannot run
	 * before its bucket's block start: wake at the later of the two.
	 */
	/* Asked from a callback: the timers still waiting to run count too. */
	struct timer *best = list_min(w, w->running, NULL);
	int32_t best_at = best ? (int32_t)(best->hard - w->base) : 0;   /* from the base */
	const struct wheel_ops *ops = w->ops;
	for (unsigned level = 0; level < ops->nlevels; level++) {
		const struct wheel_level *lv = &ops->levels[level];
		uint32_t width = 1u << lv->shift;
		unsigned current = (w->base >> lv->shift) & (lv->size - 1);
		unsigned k0 = (w->base & (width - 1)) == 0 ? 0 : 1;
		uint32_t block0 = w->base & ~(width - 1);
		for (unsigned k = k0; k < k0 + lv->size; k++) {
			int d = level_scan(w, lv, (current + k) & (lv->size - 1));
			if (d < 0 || k + (unsigned)d >= k0 + lv->size)
				break;          /* empty, or gone round */
			k += (unsigned)d;
			int32_t start = (int32_t)(block0 + (uint32_t)k * width - w->base);
			/* (The base's own bucket also holds the overdue timers,
			 * armed for the past: it is always looked at.) */
			if (best && !(level == 0 && k == 0) && start > best_at)
				break;          /* every timer from here is later */
			unsigned b = lv->first + ((current + k) & (lv->size - 1));
			if (!w->bucket_min[b])
				w->bucket_min[b] = list_min(w, w->bucket[b], NULL);
			int32_t at = (int32_t)(w->bucket_min[b]->hard - w->base);
			if (ops->runs_at_block_start && at < start)
				at = start;
			if (!best || at < best_at) {
				best = w->bucket_min[b];
				best_at = at;
			}
		}
	}
	*when = w->base + (uint32_t)best_at;
	return best;
	/* LAB wheel: STUB
	lab_not_implemented("wheel");
	struct timer *any = list_min(w, w->running, NULL);
	for (unsigned b = 0; !any && b < WHEEL_BUCKETS; b++)
		any = w->bucket[b];
	*when = w->base;
	return any;
	   LAB wheel: END */
}

bool timer_next_expiry_on(unsigned cpu, uint32_t *expires, const char **name)
{
	struct timer_base *w = time_timer_base(cpu);
	unsigned long flags = spin_lock_irqsave(&w->lock);
	uint32_t when;
	struct timer *t = wheel_earliest(w, &when);
	if (t && expires)
		*expires = when;
	if (t && name)
		*name = t->name;
	spin_unlock_irqrestore(&w->lock, flags);
	return t != NULL;
}

const char *timer_next_name(void)
{
	const char *name = NULL;
	timer_next_expiry_on(arch_this_cpu_id(), NULL, &name);
	return name;
}
