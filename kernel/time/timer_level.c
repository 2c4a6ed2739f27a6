/* kernel/time/timer_level.c — jiffy timers on a wheel that never cascades.
 *
 * The design is Linux 4.8's timer wheel (Thomas Gleixner's 2016 rewrite),
 * the one that replaced the cascading wheel of kernel/time/timer_cascade.c
 * (whose design is the header comment of kernel/time/timer.c).  Every
 * level has 64 buckets; each level's buckets are 8 times wider than the
 * level below (Linux: LVL_BITS 6, LVL_CLK_SHIFT 3).  A timer goes into the
 * level fine enough for how far ahead it is, and there it stays: its expiry
 * is rounded UP to the level's granularity, and the bucket is run when the
 * wheel reaches that rounded jiffy, the bucket's expiry E.  So a timer
 * never fires early, and fires at most one granularity minus a jiffy late
 * — less than 8/63 (12.7%) of how far ahead it was armed, since a level
 * takes only timers at least 63/8 of its granularity ahead.
 *
 *   level  granularity  takes timers       granularity / farthest, in time
 *          (jiffies)    this far ahead     HZ=100            HZ=250            HZ=1000
 *     0    1            0 .. 63            10 ms / 630 ms    4 ms / 252 ms     1 ms / 63 ms
 *     1    8            64 .. 504          80 ms / 5.04 s    32 ms / 2.02 s    8 ms / 504 ms
 *     2    64           505 .. 4032        640 ms / 40.3 s   256 ms / 16.1 s   64 ms / 4.03 s
 *     3    512          .. 32256           5.12 s / 5.4 min  2.05 s / 2.2 min  512 ms / 32.3 s
 *     4    4096         .. 258048          41 s / 43 min     16.4 s / 17 min   4.1 s / 4.3 min
 *     5    2^15         .. 2064384         5.5 min / 5.7 h   2.2 min / 2.3 h   32.8 s / 34 min
 *     6    2^18         .. 16515072        44 min / 46 h     17.5 min / 18.4 h 4.4 min / 4.6 h
 *     7    2^21         .. 132120576       5.8 h / 15.3 d    2.3 h / 6.1 d     35 min / 36.7 h
 *     8    2^24         .. 1056964608 (a)  46.6 h / 122 d    18.6 h / 48.9 d   4.7 h / 12.2 d
 *
 * Level L takes a timer if it is at most 63 granularities ahead (g = 8^L):
 * its E is then at most 63 buckets past the first bucket the wheel will
 * reach in that level, so no two different E's share one of the 64
 * buckets while pending.  (64 ahead would not do: from a base that starts
 * a block, E = base + 64g is the bucket of E = base, run now.)
 *
 * (a) Farther than level 8 reaches (up to the 2^31 - 1 jiffies timer_mod
 *     allows): the timer waits in level 8's farthest bucket and is filed
 *     again when that bucket comes up, at most twice.  This is the
 *     level wheel's only re-filing; Linux 4.8 instead clamped such timers
 *     to its farthest bucket, firing them early, which lull never does.
 *
 * Why it never cascades.  The cascading wheel moves every far timer down
 * a level, up to four times, so that it fires on its exact jiffy; when a
 * coarse bucket comes up, all its timers move in that one tick (a spike:
 * tests/unit/test_timer_wheel.c and `make bench-timers` count it).  Most
 * far timers are timeouts that are cancelled long before they fire, so
 * that moving is wasted.  Here a timer is touched when armed, when
 * cancelled, and when its bucket is run: nothing in between.  The price
 * is precision: a timer 10 s ahead at HZ=1000 may fire 4 s late.
 *
 * Windows.  A timer's window is [soft, hard] (include/time/slack.h); it is
 * filed by its soft end, so it can run only when its bucket's E comes:
 * the level wheel's granularity widens every window to [soft, max(hard,
 * E)].  timer_next_expiry reports that widened hard end: for a bucket,
 * max(E, its earliest hard end); it is the latest jiffy that serves the
 * timer, since waking before E runs nothing.
 *
 * Running.  When the wheel reaches jiffy j, every level whose granularity
 * divides j has one bucket with E = j (level 0 every jiffy, level 1 every
 * 8th, ...): each is emptied onto the running list (level_collect).  The
 * wheel jumps over jiffies with no occupied bucket, as the cascading wheel
 * does (wheel_next_work in timer_bucket.c), so a long skip costs nothing.
 *
 * The stale clock (level_forward).  The wheel's base is the next jiffy it
 * will process.  A CPU idle with its tick stopped does not process
 * jiffies, so its base stays behind.  A timer armed on it then (by an
 * interrupt, or remotely by timer_mod_on) is measured from the stale base:
 * 10 jiffies from now looks 100,000 jiffies ahead, goes to level 4, and
 * fires up to 4095 jiffies late.  Linux 4.8 found this and added
 * forward_timer_base(); so does lull: before an arm the base moves to
 * jiffies, but never past the earliest bucket still to run.
 *
 * Everything else (locks, the running list, callbacks, remote arming, the
 * next-expiry walk, switching wheels) is shared by both wheels: timer.c,
 * timer_expiry.c and timer_base.c (kernel/time/timer_wheel.h maps them).
 */
#include "time/jiffies.h"
#include "timer_wheel.h"

#define LEVEL_DEPTH      9
#define LEVEL_BITS       6                      /* 64 buckets a level */
#define LEVEL_SIZE       (1u << LEVEL_BITS)
#define LEVEL_CLK_SHIFT  3                      /* each level 8x coarser */
#define LEVEL_SHIFT(l)   ((l) * LEVEL_CLK_SHIFT)
/* The farthest ahead level l takes a timer: 63 of its granularities. */
#define LEVEL_REACH(l)   ((LEVEL_SIZE - 1) << LEVEL_SHIFT(l))

_Static_assert(LEVEL_DEPTH * LEVEL_SIZE == WHEEL_LEVEL_BUCKETS, "timer.h sizes the arrays for us");
_Static_assert(LEVEL_SHIFT(LEVEL_DEPTH - 1) + LEVEL_BITS <= 31,
               "the top level's 64 buckets span less than 2^31 jiffies");

#define LEVEL(l)  { .shift = LEVEL_SHIFT(l), .size = LEVEL_SIZE, .first = (l) * LEVEL_SIZE }
static const struct wheel_level level_levels[LEVEL_DEPTH] = {
	LEVEL(0), LEVEL(1), LEVEL(2), LEVEL(3), LEVEL(4), LEVEL(5), LEVEL(6), LEVEL(7), LEVEL(8),
};

static unsigned level_bucket(unsigned level, uint32_t e)
{
	return level * LEVEL_SIZE + ((e >> LEVEL_SHIFT(level)) & (LEVEL_SIZE - 1));
}

/* The bucket for a soft end `expires`: the finest level that reaches it,
 * the expiry rounded up to that level's granularity. */
static unsigned level_bucket_for(const struct timer_base *w, uint32_t expires)
{
	uint32_t delta = expires - w->base;
	if ((int32_t)delta < 0)                 /* already due: with the base */
		return level_bucket(0, w->base);
	for (unsigned level = 0; level < LEVEL_DEPTH; level++) {
		if (delta <= LEVEL_REACH(level)) {
			uint32_t g = 1u << LEVEL_SHIFT(level);
			return level_bucket(level, (expires + g - 1) & ~(g - 1));
		}
	}
	/* Beyond the top level, note (a): its farthest bucket, 63 after the
	 * first one the wheel will reach. */
	unsigned top = LEVEL_DEPTH - 1;
	uint32_t g = 1u << LEVEL_SHIFT(top);
	return level_bucket(top, ((w->base + g - 1) & ~(g - 1)) + LEVEL_REACH(top));
}

/* Jiffy j: run every bucket whose E is j.  Level l has one when its
 * granularity divides j; if it does not for l, it does not for any
 * coarser level either. */
static void level_collect(struct timer_base *w, uint32_t j)
{
	for (unsigned level = 0; level < LEVEL_DEPTH; level++) {
		if (j & ((1u << LEVEL_SHIFT(level)) - 1))
			break;
		struct timer *list = wheel_bucket_take(w, level_bucket(level, j));
		while (list) {
			struct timer *t = list;
			list = t->next;
			if (time_before(j, t->expires)) {
				/* Only a timer beyond the top level's reach, note (a);
				 * it lands in a bucket with E > j, never in one this
				 * loop empties. */
				wheel_bucket_insert(w, t, level_bucket_for(w, t->expires));
				w->work++;
			} else {
				wheel_run_add(w, t);
			}
		}
	}
}

/* Linux 4.8's forward_timer_base(): before an arm, a base behind jiffies
 * (the CPU was idle, its tick stopped) moves to jiffies, so the new timer's
 * distance is measured from now and it lands in the level it belongs to.
 * Never past the earliest bucket still to run: those jiffies have work, and
 * the base must not skip it.  jiffies itself is still to be processed (its
 * tick may not have run here yet), so the base goes to jiffies, not after. */
static void level_forward(struct timer_base *w)
{
	uint32_t now = jiffies;
	if (!time_before(w->base, now))
		return;
	uint32_t distance;
	if (wheel_next_work(w, &distance) && distance < now - w->base)
		now = w->base + distance;
	w->base = now;
}

/* Shaped like timer_cascade_ops (timer_cascade.c): one struct, each wheel its own values. */
const struct wheel_ops timer_level_ops = {
	.kind = TIMER_WHEEL_LEVEL,
	.name = "level",
	.levels = level_levels,
	.nlevels = LEVEL_DEPTH,
	.bucket_for = level_bucket_for,
	.collect = level_collect,
	.runs_at_block_start = true,
	.forward = level_forward,
};
