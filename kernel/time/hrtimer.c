/* kernel/time/hrtimer.c — nanosecond timers in a binary min-heap.
 *
 * The heap is an array where the element at index i has its children at
 * 2i+1 and 2i+2, and no child has an earlier deadline than its parent; so
 * the earliest timer is always heap[0].  Adding or removing moves one timer
 * up or down one path: at most log2(HRTIMER_MAX) = 7 steps.  Every timer
 * remembers its own index (heap_index), so cancelling one from the middle
 * needs no search.
 *
 * Cost: start, cancel O(log n); next expiry O(1); each expiry O(log n).
 *
 * Equal deadlines are fine: the heap order is "not earlier than", so ties
 * come out in some order and every one of them fires.
 */
#include "time/hrtimer.h"
#include "time/arch.h"
#include "errno.h"

static struct hrtimer *hrtimer_heap[HRTIMER_MAX];
static unsigned hrtimer_heap_size;

/* The callbacks running now, innermost first: each hrtimer_run_expired
 * call keeps one frame on its stack, and a call nested in an interrupt
 * taken during a callback links its frame in front of the one it
 * interrupted.  hrtimer_init walks them to refuse re-initialising a timer
 * whose callback is still running. */
struct hrtimer_run_frame {
	const struct hrtimer *firing;   /* NULL between callbacks */
	struct hrtimer_run_frame *outer;
};
static struct hrtimer_run_frame *hrtimer_runs;

void (*hrtimer_first_changed)(uint64_t expires_ns);

/* Put t at index i (keeping its heap_index true). */
static void heap_set(unsigned i, struct hrtimer *t)
{
	hrtimer_heap[i] = t;
	t->heap_index = (int)i;
}

/* Move the timer at i towards the root while its parent expires later. */
static void heap_sift_up(unsigned i)
{
	struct hrtimer *t = hrtimer_heap[i];
	while (i > 0) {
		unsigned parent = (i - 1) / 2;
		if (hrtimer_heap[parent]->expires_ns <= t->expires_ns)
			break;
		heap_set(i, hrtimer_heap[parent]);
		i = parent;
	}
	heap_set(i, t);
}

/* Move the timer at i towards the leaves while a child expires earlier. */
static void heap_sift_down(unsigned i)
{
	struct hrtimer *t = hrtimer_heap[i];
	for (;;) {
		unsigned child = 2 * i + 1;
		if (child >= hrtimer_heap_size)
			break;
		if (child + 1 < hrtimer_heap_size &&
		    hrtimer_heap[child + 1]->expires_ns < hrtimer_heap[child]->expires_ns)
			child++;
		if (t->expires_ns <= hrtimer_heap[child]->expires_ns)
			break;
		heap_set(i, hrtimer_heap[child]);
		i = child;
	}
	heap_set(i, t);
}

/* Restore the order after the timer at i changed its deadline (or a
 * different timer moved into slot i): it moves up if it is now earlier than
 * its parent, else down if later than a child. */
static void heap_fix(unsigned i)
{
	if (i > 0 && hrtimer_heap[(i - 1) / 2]->expires_ns > hrtimer_heap[i]->expires_ns)
		heap_sift_up(i);
	else
		heap_sift_down(i);
}

/* Take the timer at i out: the last timer fills the hole and moves to its
 * place.  Interrupts are off. */
static void heap_remove(unsigned i)
{
	struct hrtimer *t = hrtimer_heap[i];
	hrtimer_heap_size--;
	if (i != hrtimer_heap_size) {
		heap_set(i, hrtimer_heap[hrtimer_heap_size]);
		heap_fix(i);
	}
	hrtimer_heap[hrtimer_heap_size] = NULL;
	t->heap_index = -1;
}

/* Whether t is in the heap, judged by the heap's own memory: t may be
 * uninitialised (a stack timer about to be set up), so its heap_index is
 * only a number to check, in range and pointing back at t.  Interrupts
 * off. */
static bool heap_holds(const struct hrtimer *t)
{
	return (unsigned)t->heap_index < hrtimer_heap_size && hrtimer_heap[t->heap_index] == t;
}

static bool hrtimer_firing(const struct hrtimer *t)
{
	for (const struct hrtimer_run_frame *f = hrtimer_runs; f; f = f->outer)
		if (f->firing == t)
			return true;
	return false;
}

/* Re-initialising a queued timer would set heap_index to -1 while the heap
 * still holds it: a later start queues it twice, and its first expiry
 * leaves a dangling slot.  So it is refused, as is re-initialising a timer
 * whose callback is running (its return value would then restart a timer
 * with a cleared deadline). */
void hrtimer_init(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *), const char *name)
{
	unsigned long flags = arch_irq_save();
	if (heap_holds(t))
		panic("hrtimer_init: %s is queued (hrtimer_start moves it, hrtimer_cancel dequeues it)",
		      name ? name : "?");
	if (hrtimer_firing(t))
		panic("hrtimer_init: %s is running: re-initialised while its callback runs",
		      name ? name : "?");
	t->expires_ns = 0;
	t->function = fn;
	t->name = name;
	t->heap_index = -1;
	arch_irq_restore(flags);
}

/* Queue t, or move it if queued.  Interrupts are off. */
static int hrtimer_enqueue(struct hrtimer *t, uint64_t expires_ns)
{
	if (t->heap_index >= 0) {
		t->expires_ns = expires_ns;
		heap_fix((unsigned)t->heap_index);
		return 0;
	}
	if (hrtimer_heap_size == HRTIMER_MAX)
		return -ENOSPC;
	t->expires_ns = expires_ns;
	heap_set(hrtimer_heap_size++, t);
	heap_sift_up((unsigned)t->heap_index);
	return 0;
}

int hrtimer_start(struct hrtimer *t, uint64_t expires_ns)
{
	if (t->function == NULL)
		panic("hrtimer_start: %s has no function", t->name ? t->name : "?");
	unsigned long flags = arch_irq_save();
	bool had_first = hrtimer_heap_size > 0;
	uint64_t old_first = had_first ? hrtimer_heap[0]->expires_ns : 0;
	int ret = hrtimer_enqueue(t, expires_ns);
	/* Tell the tick layer only when the device must fire sooner than it
	 * was told; a later first deadline costs one early, empty interrupt. */
	if (ret == 0 && (!had_first || hrtimer_heap[0]->expires_ns < old_first) &&
	    hrtimer_first_changed)
		hrtimer_first_changed(hrtimer_heap[0]->expires_ns);
	arch_irq_restore(flags);
	return ret;
}

int hrtimer_cancel(struct hrtimer *t)
{
	unsigned long flags = arch_irq_save();
	int was_queued = t->heap_index >= 0;
	if (was_queued)
		heap_remove((unsigned)t->heap_index);
	arch_irq_restore(flags);
	return was_queued;
}

/* Adding whole intervals to the old deadline, not to now, keeps a periodic
 * timer drift-free: a late callback does not push every later period. */
uint64_t hrtimer_forward(struct hrtimer *t, uint64_t now_ns, uint64_t interval_ns)
{
	if (interval_ns == 0)
		panic("hrtimer_forward: %s: zero interval", t->name ? t->name : "?");
	if (t->heap_index >= 0)
		panic("hrtimer_forward: %s is queued (cancel it first)", t->name ? t->name : "?");
	if (t->expires_ns > now_ns)
		return 0;
	uint64_t n = (now_ns - t->expires_ns) / interval_ns + 1;
	t->expires_ns += n * interval_ns;
	return n;
}

bool hrtimer_next_expiry(uint64_t *expires_ns)
{
	unsigned long flags = arch_irq_save();
	bool any = hrtimer_heap_size > 0;
	if (any)
		*expires_ns = hrtimer_heap[0]->expires_ns;
	arch_irq_restore(flags);
	return any;
}

/* Each timer is taken off the heap before its callback runs, with
 * interrupts back on, so the callback may start or cancel any timer,
 * itself included; and an interrupt arriving during a callback may call us
 * again safely: the nested call just takes the next expired timer. */
unsigned hrtimer_run_expired(uint64_t now_ns)
{
	unsigned ran = 0;
	unsigned long flags = arch_irq_save();
	struct hrtimer_run_frame frame = { .firing = NULL, .outer = hrtimer_runs };
	hrtimer_runs = &frame;
	while (hrtimer_heap_size > 0 && hrtimer_heap[0]->expires_ns <= now_ns) {
		struct hrtimer *t = hrtimer_heap[0];
		heap_remove(0);
		frame.firing = t;
		arch_irq_restore(flags);
		enum hrtimer_restart restart = t->function(t);
		flags = arch_irq_save();
		frame.firing = NULL;
		ran++;
		/* The callback may have queued t itself; then it already has
		 * its place. */
		if (restart == HRTIMER_RESTART && t->heap_index < 0) {
			/* Re-queueing at or before now would run it again in
			 * this loop, forever: the callback forgot to forward. */
			if (t->expires_ns <= now_ns)
				panic("hrtimer_run_expired: %s restarted without moving its deadline",
				      t->name ? t->name : "?");
			if (hrtimer_enqueue(t, t->expires_ns) != 0)
				panic("hrtimer_run_expired: no room to restart %s",
				      t->name ? t->name : "?");
		}
	}
	hrtimer_runs = frame.outer;
	arch_irq_restore(flags);
	return ran;
}

const char *hrtimer_next_name(void)
{
	unsigned long flags = arch_irq_save();
	const char *name = hrtimer_heap_size > 0 ? hrtimer_heap[0]->name : NULL;
	arch_irq_restore(flags);
	return name;
}

unsigned hrtimer_count(void)
{
	return READ_ONCE(hrtimer_heap_size);
}

/* In heap order, which is not deadline order beyond the first. */
void hrtimer_for_each(void (*fn)(struct hrtimer *t, void *ctx), void *ctx)
{
	unsigned long flags = arch_irq_save();
	for (unsigned i = 0; i < hrtimer_heap_size; i++)
		fn(hrtimer_heap[i], ctx);
	arch_irq_restore(flags);
}

#ifdef LULL_HOST
void hrtimer_reset_for_test(void)
{
	for (unsigned i = 0; i < hrtimer_heap_size; i++)
		hrtimer_heap[i]->heap_index = -1;
	hrtimer_heap_size = 0;
	hrtimer_first_changed = NULL;
	hrtimer_runs = NULL;
}
#endif
