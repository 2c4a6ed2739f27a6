/* kernel/time/hrtimer_heap.h — what kernel/time/hrtimer.c calls of the
 * heaps in hrtimer_heap.c; nothing outside kernel/time/ needs it (that is
 * include/time/hrtimer.h).  All of it runs with interrupts off and the
 * heap's lock held: both heaps' locks for hrtimer_move.
 */
#ifndef LULL_KERNEL_TIME_HRTIMER_HEAP_H
#define LULL_KERNEL_TIME_HRTIMER_HEAP_H

#include "time/hrtimer.h"

/* Whether t is queued on b, judged by b's own array (t may be
 * uninitialised). */
bool heap_holds(const struct hrtimer_base *b, const struct hrtimer *t);

/* Queue t on b for the window [expires_ns, hard_ns], or move it to its new
 * place if it is queued on b already: 0, or -ENOSPC if it is not and b is
 * full. */
int hrtimer_enqueue(struct hrtimer_base *b, struct hrtimer *t, uint64_t expires_ns,
                    uint64_t hard_ns);

/* Queue t on `to` (t on `from`, which may be `to`): 0 or -ENOSPC (then t
 * stays where it was), and in *sooner whether `to`'s earliest hard end
 * became earlier. */
int hrtimer_move(struct hrtimer_base *from, struct hrtimer_base *to,
                 struct hrtimer *t, uint64_t expires_ns, uint64_t hard_ns, bool *sooner);

/* Take t, queued on b, out of both heaps. */
void heap_remove(struct hrtimer_base *b, struct hrtimer *t);

/* The earliest hard end on b: what its CPU's device must fire for. */
static inline uint64_t first_hard(const struct hrtimer_base *b)
{
	return b->hard_heap[0]->hard_ns;
}

#endif
