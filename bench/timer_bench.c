/* bench/timer_bench.c — host micro-benchmark of lull's timer wheel
 * (kernel/time/timer.c, compiled unchanged) against a binary-heap timer
 * queue written here as the baseline.
 *
 * Workloads (issue 6):
 *   timeout   1,000,000 operations on a pool of timers with spread expiries,
 *             99% of them cancelled or re-armed before they expire (the share
 *             of networking/IO timeouts the mainline kernel measured);
 *   expiry    1,000,000 timers armed, then all run out;
 *   next      the next-expiry query, with 10 .. 100,000 timers pending after
 *             a long idle: what the dyntick idle path asks on every entry.
 * Prints ns/op (wall clock, so noisy) per structure and the ratio.  Run it
 * under `valgrind --tool=callgrind` for instruction counts (bench/bench.py
 * does, with smaller sizes), which do not depend on the machine's load.
 *
 * Usage: timer_bench [SCALE]   SCALE divides every size (callgrind uses 10).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "time/timer.h"

/* ------------------------------------------------ the baseline: a heap */

struct htimer {
	uint32_t expires;
	int index;                      /* -1: not queued */
};

static struct htimer **heap;
static unsigned heap_n;

static int before(const struct htimer *a, const struct htimer *b)
{
	return (int32_t)(a->expires - b->expires) < 0;
}

static void heap_swap(unsigned i, unsigned j)
{
	struct htimer *t = heap[i];
	heap[i] = heap[j];
	heap[j] = t;
	heap[i]->index = (int)i;
	heap[j]->index = (int)j;
}

static void sift_up(unsigned i)
{
	while (i && before(heap[i], heap[(i - 1) / 2])) {
		heap_swap(i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void sift_down(unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;
		if (l < heap_n && before(heap[l], heap[m]))
			m = l;
		if (r < heap_n && before(heap[r], heap[m]))
			m = r;
		if (m == i)
			return;
		heap_swap(i, m);
		i = m;
	}
}

static void heap_del(struct htimer *t)
{
	if (t->index < 0)
		return;
	unsigned i = (unsigned)t->index;
	heap[i] = heap[--heap_n];
	heap[i]->index = (int)i;
	t->index = -1;
	if (i < heap_n) {
		sift_up(i);
		sift_down(i);
	}
}

static void heap_mod(struct htimer *t, uint32_t expires)
{
	heap_del(t);
	t->expires = expires;
	t->index = (int)heap_n;
	heap[heap_n++] = t;
	sift_up(heap_n - 1);
}

static unsigned heap_run(uint32_t now)
{
	unsigned n = 0;
	while (heap_n && (int32_t)(heap[0]->expires - now) <= 0) {
		heap_del(heap[0]);
		n++;
	}
	return n;
}

/* ------------------------------------------------ helpers */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static unsigned fired;
static void wheel_fire(struct timer *t) { (void)t; fired++; }

static void report(const char *what, uint64_t ops, uint64_t wheel_ns, uint64_t heap_ns)
{
	double w = (double)wheel_ns / (double)ops, h = (double)heap_ns / (double)ops;
	printf("%-34s %10llu ops  wheel %8.1f ns/op  heap %8.1f ns/op  heap/wheel %6.2fx\n",
	       what, (unsigned long long)ops, w, h, h / w);
}

/* ------------------------------------------------ workloads */

#define POOL 10000u

static void timeout_workload(unsigned ops)
{
	static struct timer wt[POOL];
	static struct htimer ht[POOL];
	uint32_t jw = 0, jh = 0;
	timer_wheel_init(0);
	heap_n = 0;
	for (unsigned i = 0; i < POOL; i++) {
		timer_init(&wt[i], wheel_fire, "t");
		ht[i].index = -1;
	}
	/* The same random sequence for both: slot, expiry, cancel or re-arm. */
	uint64_t seed = rng, t0 = now_ns();
	for (unsigned i = 0; i < ops; i++) {
		struct timer *t = &wt[rnd() % POOL];
		uint32_t r = rnd();
		if (timer_pending(t) && r % 100 < 50)
			timer_del(t);
		else
			timer_mod(t, jw + 1 + r % 5000);
		if (i % 100 == 99)
			timer_run_expired(jw++);
	}
	uint64_t wheel = now_ns() - t0;
	rng = seed;
	t0 = now_ns();
	for (unsigned i = 0; i < ops; i++) {
		struct htimer *t = &ht[rnd() % POOL];
		uint32_t r = rnd();
		if (t->index >= 0 && r % 100 < 50)
			heap_del(t);
		else
			heap_mod(t, jh + 1 + r % 5000);
		if (i % 100 == 99)
			heap_run(jh++);
	}
	report("timeout (99% cancel/re-arm)", ops, wheel, now_ns() - t0);
}

static void expiry_workload(unsigned n)
{
	struct timer *wt = calloc(n, sizeof(*wt));
	struct htimer *ht = calloc(n, sizeof(*ht));
	timer_wheel_init(0);
	heap_n = 0;
	uint64_t seed = rng, t0 = now_ns();
	for (unsigned i = 0; i < n; i++) {
		timer_init(&wt[i], wheel_fire, "t");
		timer_mod(&wt[i], 1 + rnd() % 1000);
	}
	for (uint32_t j = 0; j <= 1001; j++)
		timer_run_expired(j);
	uint64_t wheel = now_ns() - t0;
	rng = seed;
	t0 = now_ns();
	for (unsigned i = 0; i < n; i++) {
		ht[i].index = -1;
		heap_mod(&ht[i], 1 + rnd() % 1000);
	}
	for (uint32_t j = 0; j <= 1001; j++)
		heap_run(j);
	report("expiry (arm all, run all)", n, wheel, now_ns() - t0);
	free(wt);
	free(ht);
}

static void next_expiry_workload(unsigned pending, unsigned queries)
{
	struct timer *wt = calloc(pending, sizeof(*wt));
	struct htimer *ht = calloc(pending, sizeof(*ht));
	/* A long idle: the wheel's base has moved far, timers spread over
	 * hours of jiffies so every level holds some. */
	uint32_t base = 123456789;
	timer_wheel_init(base);
	heap_n = 0;
	for (unsigned i = 0; i < pending; i++) {
		uint32_t e = base + 1000 + rnd() % 50000000;
		timer_init(&wt[i], wheel_fire, "t");
		timer_mod(&wt[i], e);
		ht[i].index = -1;
		heap_mod(&ht[i], e);
	}
	uint32_t e = 0, sink = 0;
	uint64_t t0 = now_ns();
	for (unsigned q = 0; q < queries; q++) {
		timer_next_expiry(&e);
		sink += e;
	}
	uint64_t wheel = now_ns() - t0;
	t0 = now_ns();
	for (unsigned q = 0; q < queries; q++)
		sink += heap[0]->expires;
	uint64_t h = now_ns() - t0;
	char what[64];
	snprintf(what, sizeof(what), "next expiry, %u pending", pending);
	report(what, queries, wheel, h ? h : 1);
	if (sink == 42)
		puts("");                       /* keep the loops from being optimized out */
	free(wt);
	free(ht);
}

int main(int argc, char **argv)
{
	unsigned scale = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
	if (!scale)
		scale = 1;
	heap = calloc(1000000, sizeof(*heap));
	timeout_workload(1000000 / scale);
	expiry_workload(1000000 / scale);
	for (unsigned p = 10; p <= 100000; p *= 10)
		next_expiry_workload(p, 100000 / scale);
	return 0;
}
