/* kernel/time/timer_bucket.c — the buckets both timer wheels file timers
 * in: each bucket's list, its cached earliest timer and its occupancy bit,
 * and the scan of those bits for the next bucket with work.
 *
 * A wheel (timer_cascade.c, timer_level.c) decides which bucket a timer
 * goes in and at which jiffy a bucket is due; the code here keeps a
 * bucket's list, cache and bit true together, whichever wheel asks.  All
 * of it runs with interrupts off and the wheel's lock held.  Why a level's
 * first occupied bucket, counted from k0, holds its earliest timers is
 * proved in the header comment of kernel/time/timer.c.
 */
#include "lab.h"
#include "timer_wheel.h"

static void bucket_mark(struct timer_base *w, unsigned b, bool occupied)
{
	uint32_t bit = 1u << (b % BITS_PER_WORD);
	if (occupied)
		w->occupied[b / BITS_PER_WORD] |= bit;
	else
		w->occupied[b / BITS_PER_WORD] &= ~bit;
}

/* Put t at the head of bucket b, the one the wheel's bucket_for names for
 * t->expires (interrupts off).  The bucket's cached timer is the one with
 * the earliest hard end. */
void wheel_bucket_insert(struct timer_base *w, struct timer *t, unsigned b)
{
	struct timer *min = w->bucket_min[b];
	t->next = w->bucket[b];
	if (!t->next) {
		w->bucket_min[b] = t;        /* the only one */
		bucket_mark(w, b, true);
	} else {
		if (min && (int32_t)(t->hard - min->hard) < 0)
			w->bucket_min[b] = t;        /* earlier than the known earliest */
		t->next->pprev = &t->next;
	}
	w->bucket[b] = t;
	t->pprev = &w->bucket[b];
	t->bucket = (uint16_t)b;
}

/* Put t in its bucket (t->expires set, interrupts off). */
void wheel_place(struct timer_base *w, struct timer *t)
{
	wheel_bucket_insert(w, t, w->ops->bucket_for(w, t->expires));
}

/* Re-arm a pending t whose new expiry maps to the bucket it is already in
 * (interrupts off).  Buckets are unordered, so it stays where it is: no
 * list splicing, no neighbours touched; only the bucket's cached earliest
 * timer may change.  The common re-arm of a timeout pushed a little
 * further out (the shell's key timer, on every key) takes this path. */
void wheel_rekey(struct timer_base *w, struct timer *t, uint32_t expires, uint32_t hard)
{
	struct timer **min = &w->bucket_min[t->bucket];
	bool later = (int32_t)(hard - t->hard) > 0;
	t->expires = expires;
	t->hard = hard;
	if (*min == t) {
		if (later)
			*min = NULL;            /* maybe no longer the earliest: unknown until asked */
	} else if (*min && (int32_t)(hard - (*min)->hard) < 0) {
		*min = t;
	}
}

/* Timer t has just been unlinked from bucket b's list (interrupts off):
 * keep what the wheel knows of b true without it. */
static void bucket_forget(struct timer_base *w, unsigned b, const struct timer *t)
{
	/* LAB wheel: BEGIN
	 * Besides its list, two things describe bucket b: its bit in
	 * w->occupied (bucket_mark), which the next-expiry query and the run
	 * trust to say "non-empty", and its cached earliest timer,
	 * w->bucket_min[b] (NULL: not known, found again when next asked).
	 * Make both true now that t is gone.
	 */
	if (w->bucket_min[b] == t)
		w->bucket_min[b] = NULL;     /* unknown until asked */
	if (w->bucket[b] == NULL)
		bucket_mark(w, b, false);
	/* LAB wheel: STUB
	UNUSED(t);
	lab_not_implemented("wheel");
	w->bucket_min[b] = NULL;
	   LAB wheel: END */
}

/* Take t off whatever list it is on: a bucket or the running list. */
void wheel_unlink(struct timer_base *w, struct timer *t)
{
	*t->pprev = t->next;
	if (t->next)
		t->next->pprev = t->pprev;
	if (t->bucket != TIMER_BUCKET_RUNNING)
		bucket_forget(w, t->bucket, t);
	t->next = NULL;
	t->pprev = NULL;
	w->count--;
}

/* Empty bucket b and return its list (interrupts off). */
struct timer *wheel_bucket_take(struct timer_base *w, unsigned b)
{
	struct timer *list = w->bucket[b];
	w->bucket[b] = NULL;
	w->bucket_min[b] = NULL;
	bucket_mark(w, b, false);
	return list;
}

/* Put t, just taken from its bucket, on the list of timers to run now. */
void wheel_run_add(struct timer_base *w, struct timer *t)
{
	t->next = w->running;
	if (t->next)
		t->next->pprev = &t->next;
	w->running = t;
	t->pprev = &w->running;
	t->bucket = TIMER_BUCKET_RUNNING;
	w->work++;
}

/* The first occupied bucket of a level at or after index `from`, going
 * round: its distance from `from` (0 .. size-1), or -1 if the level is
 * empty.  The word holding `from` is looked at twice: at the start only its
 * bits from `from` up; at the end, after going round, the whole word, in
 * which only the bits below `from` can still be set. */
int level_scan(const struct timer_base *w, const struct wheel_level *lv, unsigned from)
{
	const uint32_t *map = &w->occupied[lv->first / BITS_PER_WORD];
	unsigned nwords = lv->size / BITS_PER_WORD;     /* a power of two: & wraps, no divide */
	unsigned from_bit = from % BITS_PER_WORD;
	for (unsigned i = 0; i <= nwords; i++) {
		unsigned w = (from / BITS_PER_WORD + i) & (nwords - 1);
		uint32_t bits = map[w];
		if (i == 0)
			bits &= ~0u << from_bit;
		if (bits) {
			unsigned index = w * BITS_PER_WORD + (unsigned)__builtin_ctz(bits);
			return (int)((index - from) & (lv->size - 1));
		}
	}
	return -1;
}

/* A level's earliest timers (timer.c's header comment): its first occupied
 * bucket in wheel order, and the start of the block that bucket stands for
 * — the jiffy at which the wheel must cascade it (level 0: run it), or on
 * the level wheel collect it. */
static bool level_first(const struct timer_base *w, const struct wheel_level *lv,
                        unsigned *bucket, uint32_t *start)
{
	uint32_t width = 1u << lv->shift;
	unsigned current = (w->base >> lv->shift) & (lv->size - 1);
	unsigned k0 = (w->base & (width - 1)) == 0 ? 0 : 1;
	int k = level_scan(w, lv, (current + k0) & (lv->size - 1));
	if (k < 0)
		return false;
	k += (int)k0;
	*bucket = lv->first + ((current + (unsigned)k) & (lv->size - 1));
	*start = (w->base & ~(width - 1)) + (uint32_t)k * width;
	return true;
}

/* The next jiffy, from the base on, at which the wheel has work: a level-0
 * bucket to run or a non-empty bucket to cascade (on the level wheel: a
 * bucket to collect).  Its distance from the base; false if the wheel is
 * empty. */
bool wheel_next_work(const struct timer_base *w, uint32_t *distance)
{
	bool found = false;
	for (unsigned level = 0; level < w->ops->nlevels; level++) {
		unsigned b;
		uint32_t start;
		if (level_first(w, &w->ops->levels[level], &b, &start) && (!found || start - w->base < *distance)) {
			*distance = start - w->base;
			found = true;
		}
	}
	return found;
}
