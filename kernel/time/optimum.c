/* kernel/time/optimum.c — the fewest wakeups that serve a set of windows
 * (include/time/optimum.h has the greedy and why it is optimal). */
#include "time/optimum.h"

/* Heapsort by hard end: in place, O(n log n) even on the worst input, and
 * no recursion, so no stack to worry about at n = 16k.  (Not stable; the
 * greedy does not care how windows with equal hard ends are ordered.) */

static bool window_before(const struct window *a, const struct window *b)
{
	return a->hard < b->hard;
}

/* Let w[i] sink until the subtree under it, within w[0..n), is a heap
 * with the latest hard end on top. */
static void sift_down(struct window *w, unsigned i, unsigned n)
{
	for (;;) {
		unsigned child = 2 * i + 1;
		if (child >= n)
			return;
		if (child + 1 < n && window_before(&w[child], &w[child + 1]))
			child++;
		if (!window_before(&w[i], &w[child]))
			return;
		struct window tmp = w[i];
		w[i] = w[child];
		w[child] = tmp;
		i = child;
	}
}

static void sort_by_hard(struct window *w, unsigned n)
{
	for (unsigned i = n / 2; i-- > 0;)
		sift_down(w, i, n);
	/* Move the latest to the end, shrink the heap, repeat. */
	for (unsigned end = n; end > 1; end--) {
		struct window tmp = w[0];
		w[0] = w[end - 1];
		w[end - 1] = tmp;
		sift_down(w, 0, end - 1);
	}
}

unsigned optimum_schedule(struct window *w, unsigned n, uint64_t *at)
{
	for (unsigned i = 0; i < n; i++)
		if (w[i].hard < w[i].soft)
			w[i].hard = w[i].soft;
	sort_by_hard(w, n);

	/* Every window before i in this order has a hard end <= w[i].hard, so
	 * the last wakeup placed is <= w[i].hard: it serves w[i] exactly when
	 * w[i] has started by then. */
	unsigned count = 0;
	uint64_t last = 0;
	for (unsigned i = 0; i < n; i++) {
		if (count > 0 && w[i].soft <= last)
			continue;
		last = w[i].hard;
		if (at)
			at[count] = last;
		count++;
	}
	return count;
}

unsigned optimum_served(const struct window *w, unsigned n, const uint64_t *at, unsigned m)
{
	unsigned served = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t hard = w[i].hard < w[i].soft ? w[i].soft : w[i].hard;
		/* The first wakeup at or after the soft end: binary search. */
		unsigned lo = 0, hi = m;
		while (lo < hi) {
			unsigned mid = lo + (hi - lo) / 2;
			if (at[mid] < w[i].soft)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < m && at[lo] <= hard)
			served++;
	}
	return served;
}
