/* kernel/time/timer_cascade.c — the cascading wheel's bucket layer: its
 * five levels, which bucket a timer goes in, and the cascade that re-sorts
 * a coarse bucket into finer ones as its time comes near.
 *
 * The design, with the table of levels per HZ and why every timer fires
 * on its exact jiffy, is the header comment of kernel/time/timer.c: read
 * it first.  Linux used this wheel until 4.7; the level wheel that
 * replaced it is kernel/time/timer_level.c.  Both sit behind struct
 * wheel_ops (timer_wheel.h), and both keep their buckets through
 * kernel/time/timer_bucket.c.
 */
#include "lab.h"
#include "timer_wheel.h"

#define CASCADE_LEVELS  5

/* Each level's first bucket is a multiple of 32, so each level's bits
 * start on a fresh word of w->occupied[]. */
static const struct wheel_level cascade_levels[CASCADE_LEVELS] = {
	{ .shift = 0,  .size = 256, .first = 0 },
	{ .shift = 8,  .size = 64,  .first = 256 },
	{ .shift = 14, .size = 64,  .first = 320 },
	{ .shift = 20, .size = 64,  .first = 384 },
	{ .shift = 26, .size = 64,  .first = 448 },
};

/* Which bucket a timer expiring at `expires` goes in, seen from the base:
 * the finest level whose span covers it. */
static unsigned cascade_bucket_for(const struct timer_base *w, uint32_t expires)
{
	/* LAB wheel: BEGIN
	 * Seen from the base, how far ahead is `expires`?  Already due: the
	 * base's own level-0 bucket.  Else the first level whose span
	 * (size << shift jiffies) exceeds that distance, and in it the bucket
	 * that `expires`' own bits select (cascade_levels, and the table in
	 * timer.c's header comment).
	 */
	uint32_t delta = expires - w->base;
	if ((int32_t)delta < 0)         /* already due: with the next jiffy */
		return w->base % cascade_levels[0].size;
	unsigned level = 0;
	while (level < CASCADE_LEVELS - 1 &&
	       delta >= (uint32_t)cascade_levels[level].size << cascade_levels[level].shift)
		level++;
	const struct wheel_level *lv = &cascade_levels[level];
	return lv->first + ((expires >> lv->shift) & (lv->size - 1));
	/* LAB wheel: STUB
	UNUSED(expires);
	lab_not_implemented("wheel");
	return w->base % cascade_levels[0].size;
	   LAB wheel: END */
}

/* Processing jiffy j (== base): every level whose block starts at j hands
 * that block's bucket down, re-sorted from j.  Level L's block starts at j
 * when j's low `shift` bits are 0; if that fails for L it fails for every
 * higher level too.  A re-sorted timer is due within the emptied block, so
 * it falls at least one level: to level 0 if due within 256 jiffies (whose
 * bucket for j is run right after this), otherwise to a later block of its
 * new level, never to a bucket this loop has just emptied. */
static void wheel_cascade(struct timer_base *w, uint32_t j)
{
	/* LAB wheel: BEGIN
	 * For each level from 1 up whose block starts at j: take the bucket
	 * for j out of the wheel (wheel_bucket_take) and put each of its
	 * timers back with wheel_place, which files it by what is left of
	 * its wait; count each in w->work.  Stop at the first level whose
	 * block does not start at j.
	 */
	for (unsigned level = 1; level < CASCADE_LEVELS; level++) {
		const struct wheel_level *lv = &cascade_levels[level];
		if (j & ((1u << lv->shift) - 1))
			break;
		struct timer *list = wheel_bucket_take(w, lv->first + ((j >> lv->shift) & (lv->size - 1)));
		while (list) {
			struct timer *t = list;
			list = t->next;
			wheel_place(w, t);
			w->work++;
		}
	}
	/* LAB wheel: STUB
	UNUSED(w);
	UNUSED(j);
	lab_not_implemented("wheel");
	   LAB wheel: END */
}

/* Jiffy j on the cascading wheel: cascade, then run its level-0 bucket. */
static void cascade_collect(struct timer_base *w, uint32_t j)
{
	wheel_cascade(w, j);
	/* LAB wheel: BEGIN
	 * Expiry.  After the cascade every timer due at j is in level 0's
	 * bucket for j, and nothing else is.  Empty that bucket
	 * (wheel_bucket_take) and hand each of its timers to wheel_run_add,
	 * which puts it on the list timer_run_expired runs.
	 */
	struct timer *list = wheel_bucket_take(w, j % cascade_levels[0].size);
	while (list) {
		struct timer *t = list;
		list = t->next;
		wheel_run_add(w, t);
	}
	/* LAB wheel: STUB
	lab_not_implemented("wheel");
	for (unsigned b = 0; b < cascade_levels[0].size; b++) {
		struct timer *list = wheel_bucket_take(w, b);
		while (list) {
			struct timer *t = list;
			list = t->next;
			wheel_run_add(w, t);
		}
	}
	   LAB wheel: END */
}

/* Shaped like timer_level_ops (timer_level.c): one struct, each wheel its own values. */
const struct wheel_ops timer_cascade_ops = {
	.kind = TIMER_WHEEL_CASCADE,
	.name = "cascade",
	.levels = cascade_levels,
	.nlevels = CASCADE_LEVELS,
	.bucket_for = cascade_bucket_for,
	.collect = cascade_collect,
	.runs_at_block_start = false,
	.forward = NULL,
};
