/* kernel/time/hrtimer_heap.c — the two binary min-heaps that hold each
 * CPU's nanosecond timers: queueing a timer, moving it to another CPU's
 * heaps, taking it out, and the order kept through each.
 *
 * A heap is an array where the element at index i has its children at
 * 2i+1 and 2i+2, and no child has an earlier key than its parent; so the
 * earliest timer is always at index 0.  Adding or removing moves one timer
 * up or down one path: at most log2(HRTIMER_MAX) = 7 steps.  Every timer
 * remembers its own index, so cancelling one from the middle needs no
 * search.
 *
 * Equal deadlines are fine: the heap order is "not earlier than", so ties
 * come out in some order and every one of them fires.
 *
 * All of it runs with interrupts off and the heap's lock held (both
 * heaps' locks for hrtimer_move); kernel/time/hrtimer.c, the API, takes
 * them and says why there are two heaps.
 */
#include "errno.h"
#include "hrtimer_heap.h"

/* The two heaps (include/time/hrtimer.h): by soft end (expires_ns), the
 * order timers run in, and by hard end (hard_ns), the deadline the device
 * is programmed for.  Every queued timer is in both, at heap_index and
 * hard_index; the code below is written once for either. */
enum heap_kind { HEAP_SOFT, HEAP_HARD };

static struct hrtimer **heap_slots(struct hrtimer_base *b, enum heap_kind h)
{
	return h == HEAP_HARD ? b->hard_heap : b->heap;
}

static uint64_t heap_key(const struct hrtimer *t, enum heap_kind h)
{
	return h == HEAP_HARD ? t->hard_ns : t->expires_ns;
}

/* Put t at index i of heap h (keeping its index there true). */
static void heap_set(struct hrtimer_base *b, enum heap_kind h, unsigned i, struct hrtimer *t)
{
	heap_slots(b, h)[i] = t;
	if (h == HEAP_HARD)
		t->hard_index = (int)i;
	else
		t->heap_index = (int)i;
}

/* Move the timer at i towards the root while its parent's key is later. */
static void heap_sift_up(struct hrtimer_base *b, enum heap_kind h, unsigned i)
{
	struct hrtimer **slot = heap_slots(b, h);
	struct hrtimer *t = slot[i];
	while (i > 0) {
		unsigned parent = (i - 1) / 2;
		if (heap_key(slot[parent], h) <= heap_key(t, h))
			break;
		heap_set(b, h, i, slot[parent]);
		i = parent;
	}
	heap_set(b, h, i, t);
}

/* Move the timer at i towards the leaves while a child's key is earlier. */
/* Twin of heap_sift_up (above): the mirror walk; one loop with a direction
 * would test it at every level of the hot path. */
static void heap_sift_down(struct hrtimer_base *b, enum heap_kind h, unsigned i)
{
	struct hrtimer **slot = heap_slots(b, h);
	struct hrtimer *t = slot[i];
	for (;;) {
		unsigned child = 2 * i + 1;
		if (child >= b->size)
			break;
		if (child + 1 < b->size && heap_key(slot[child + 1], h) < heap_key(slot[child], h))
			child++;
		if (heap_key(t, h) <= heap_key(slot[child], h))
			break;
		heap_set(b, h, i, slot[child]);
		i = child;
	}
	heap_set(b, h, i, t);
}

/* Restore heap h's order after the timer at i changed its key (or a
 * different timer moved into slot i): it moves up if it is now earlier than
 * its parent, else down if later than a child. */
static void heap_fix(struct hrtimer_base *b, enum heap_kind h, unsigned i)
{
	struct hrtimer **slot = heap_slots(b, h);
	if (i > 0 && heap_key(slot[(i - 1) / 2], h) > heap_key(slot[i], h))
		heap_sift_up(b, h, i);
	else
		heap_sift_down(b, h, i);
}

/* Take t out of both heaps: in each, the last timer fills the hole and
 * moves to its place.  Interrupts are off. */
void heap_remove(struct hrtimer_base *b, struct hrtimer *t)
{
	unsigned at[2] = { (unsigned)t->heap_index, (unsigned)t->hard_index };
	b->size--;
	for (enum heap_kind h = HEAP_SOFT; h <= HEAP_HARD; h++) {
		struct hrtimer **slot = heap_slots(b, h);
		if (at[h] != b->size) {
			heap_set(b, h, at[h], slot[b->size]);
			heap_fix(b, h, at[h]);
		}
		slot[b->size] = NULL;
	}
	t->heap_index = -1;
	t->hard_index = -1;
}

/* Whether t is in the heap, judged by the heap's own memory: t may be
 * uninitialised (a stack timer about to be set up), so its heap_index is
 * only a number to check, in range and pointing back at t.  Interrupts
 * off. */
bool heap_holds(const struct hrtimer_base *b, const struct hrtimer *t)
{
	return (unsigned)t->heap_index < b->size && b->heap[t->heap_index] == t;
}

/* Queue t for the window [expires_ns, hard_ns], or move it if queued.
 * b's lock is held. */
int hrtimer_enqueue(struct hrtimer_base *b, struct hrtimer *t, uint64_t expires_ns,
                    uint64_t hard_ns)
{
	if (t->heap_index < 0 && b->size == HRTIMER_MAX)
		return -ENOSPC;
	t->expires_ns = expires_ns;
	t->hard_ns = hard_ns < expires_ns ? expires_ns : hard_ns;
	if (t->heap_index >= 0) {
		heap_fix(b, HEAP_SOFT, (unsigned)t->heap_index);
		heap_fix(b, HEAP_HARD, (unsigned)t->hard_index);
		return 0;
	}
	unsigned last = b->size++;
	for (enum heap_kind h = HEAP_SOFT; h <= HEAP_HARD; h++) {
		heap_set(b, h, last, t);
		heap_sift_up(b, h, last);
	}
	return 0;
}

/* Queue t on `to` (both heaps locked, t on `from`); whether `to`'s earliest
 * hard end became earlier. */
int hrtimer_move(struct hrtimer_base *from, struct hrtimer_base *to,
                 struct hrtimer *t, uint64_t expires_ns, uint64_t hard_ns, bool *sooner)
{
	bool had_first = to->size > 0;
	uint64_t old_first = had_first ? first_hard(to) : 0;
	int ret = 0;
	*sooner = false;
	if (from != to) {
		if (to->size == HRTIMER_MAX)
			return -ENOSPC;         /* t stays where it was */
		if (t->heap_index >= 0)
			heap_remove(from, t);
		t->base = to;
	}
	ret = hrtimer_enqueue(to, t, expires_ns, hard_ns);
	*sooner = ret == 0 && (!had_first || first_hard(to) < old_first);
	return ret;
}
