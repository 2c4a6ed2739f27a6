/* bench/timer_bench.c — host micro-benchmark of lull's timer wheel
 * (kernel/time/timer*.c, compiled unchanged) against a binary-heap timer
 * queue written here as the baseline.
 *
 * Workloads:
 *   timeout   1,000,000 operations on a pool of 10,000 timers: pick one at
 *             random; if it is pending, cancel it or re-arm it (even odds),
 *             else arm it, up to 5,000 jiffies out; a jiffy passes every
 *             100 operations.  What the operations turned out to be is
 *             counted, not assumed (see "census" below);
 *   expiry    1,000,000 timers armed, then all run out;
 *   next      the next-expiry query, with 10 .. 100,000 timers pending after
 *             a long idle: what the dyntick idle path asks on every entry.
 *             Twice: "cached", the same query asked again and again, which
 *             the wheel answers from each bucket's remembered earliest
 *             timer; and "uncached", every query the first after a change
 *             that made the wheel forget those (each bucket's earliest
 *             timer taken out and put back), so it walks the lists.  Only
 *             the queries are measured, not the changes.
 *
 * Each workload runs once per structure, and only that run is measured
 * (a "phase"): setup such as allocating and arming the pending timers of
 * the next-expiry workload is not.  The tables:
 *   ns/op      wall clock, so noisy on a shared machine;
 *   instr/op   the same phases re-run under valgrind's callgrind, which
 *              counts instructions executed: the same on a loaded machine
 *              as on an idle one.  The program runs itself under valgrind
 *              (`--callgrind-pass`); each phase zeroes callgrind's counters
 *              as it starts and dumps them as it ends (<valgrind/callgrind.h>),
 *              one file per phase, DIR/timer-core.callgrind.1, .2, ...  Read
 *              one with callgrind_annotate to see where a phase's
 *              instructions go.  Without valgrind the table is skipped.
 *   L1 misses, mispredicts per op   from the same callgrind run, with its
 *              cache and branch-predictor simulation (--cache-sim=yes
 *              --branch-sim=yes): valgrind's model of this host's L1
 *              caches (I1mr + D1mr + D1mw) and of a simple predictor
 *              (Bcm + Bim), not the CPU's own counters.
 * And counted in the baseline, outside any timing:
 *   census     the timeout workload replayed on the heap, counting what
 *              each operation did, how many timers were pending after it,
 *              and the heap's element swaps (timeout_census()); and on
 *              the wheel, the re-arms it only rekeyed.  The
 *              wheel's run, the heap's and the replay must end with as many
 *              timers pending and fired, or the program stops.
 *
 * Usage: timer_bench [-o DIR] [SCALE]
 *   SCALE divides every operation count (not the pending counts); make
 *   bench-timers QUICK=1 uses 10.  DIR (default .) receives the callgrind
 *   dumps and timer-core.csv:
 *     workload,pending,ops,wheel_ns_per_op,heap_ns_per_op,
 *     wheel_instr_per_op,heap_instr_per_op,wheel_l1_miss_per_op,
 *     heap_l1_miss_per_op,wheel_mispredict_per_op,heap_mispredict_per_op,
 *     heap_swaps_per_op,pending_mean,pending_max,cancel_pct,rearm_pct,
 *     arm_pct,ended_early_pct,rearm_kept_pct
 *   workload is timeout, expiry, next_expiry or next_expiry_uncached;
 *   pending is filled in for the next-expiry rows, the census columns for
 *   timeout (ended_early_pct: of the timeouts that ended during the run,
 *   the share cancelled or re-armed rather than expired; rearm_kept_pct:
 *   of the re-arms, the share whose new expiry fell in the timer's wheel
 *   bucket, which the wheel only rekeys).  A value not measured is empty.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "time/jiffies.h"
#include "time/percpu.h"
#include "time/timer.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#else
#define HAVE_CALLGRIND 0
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(what) ((void)(what))
#endif

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

/* The heap's answer to timer_next_expiry(): its root.  Kept a real call
 * (noipa), as timer_next_expiry() is one, so the compiler cannot hoist the
 * load out of the query loop and time nothing. */
__attribute__((noipa)) static bool heap_next_expiry(uint32_t *expires)
{
	if (!heap_n)
		return false;
	*expires = heap[0]->expires;
	return true;
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

/* ------------------------------------------------ phases and results */

enum { WHEEL, HEAP, STRUCTS };
static const char *const struct_names[STRUCTS] = { "wheel", "heap" };

/* What the timeout workload did, counted on a replay (timeout_census()). */
struct census {
	unsigned cancels;               /* a pending timer cancelled */
	unsigned rearms;                /* a pending timer moved */
	unsigned arms;                  /* an idle timer armed */
	unsigned expired;               /* timers that ran out */
	uint64_t pending_sum;           /* timers pending after each operation */
	unsigned pending_max;
	uint64_t swaps;                 /* heap_swap() calls */
	unsigned rearms_kept;           /* re-arms that left the timer in its wheel bucket */
};

/* One line of the tables: a workload at one size. */
struct row {
	const char *workload;           /* the CSV's name for it */
	char title[48];                 /* the tables' */
	unsigned pending;               /* next expiry: timers pending; else 0 */
	unsigned ops;
	uint64_t ns[STRUCTS];
	bool callgrind;                 /* the three below were measured */
	uint64_t instr[STRUCTS];
	uint64_t l1_miss[STRUCTS];      /* I1mr + D1mr + D1mw */
	uint64_t mispredict[STRUCTS];   /* Bcm + Bim */
	bool has_census;
	struct census census;
};

#define MAX_ROWS 16
static struct row rows[MAX_ROWS];
static unsigned nrows;

static struct row *row_new(const char *workload, const char *title, unsigned pending, unsigned ops)
{
	if (nrows == MAX_ROWS) {
		fprintf(stderr, "timer_bench: more than MAX_ROWS rows\n");
		exit(1);
	}
	struct row *r = &rows[nrows++];
	r->workload = workload;
	snprintf(r->title, sizeof(r->title), "%s", title);
	r->pending = pending;
	r->ops = ops;
	return r;
}

/* Phase k (from 1) is row (k-1)/2, structure (k-1)%2; its callgrind dump is
 * DIR/timer-core.callgrind.k, named by phase_name(). */
static void phase_name(char *buf, size_t size, const struct row *r, int s)
{
	snprintf(buf, size, "%s-%u-%s", r->workload, r->pending, struct_names[s]);
}

static char phase_what[64];
static uint64_t phase_t0;

/* Start measuring: under callgrind, forget the instructions counted so far
 * (setup), then read the clock. */
static void phase_start(const struct row *r, int s)
{
	phase_name(phase_what, sizeof(phase_what), r, s);
	CALLGRIND_ZERO_STATS;
	phase_t0 = now_ns();
}

static void phase_stop(struct row *r, int s)
{
	r->ns[s] = now_ns() - phase_t0;
	CALLGRIND_DUMP_STATS_AT(phase_what);
}

/* ------------------------------------------------ workloads */

#define POOL 10000u

/* The census counts the heap's swaps without a counter in heap_swap()
 * (which would cost the measured heap instructions): a heap_del() moves
 * one element, the last, into the freed slot and sifts it either up or
 * down, and each swap takes it one level; a heap_mod() then adds the timer
 * at the bottom and sifts it up.  So the swaps are level differences. */
static unsigned heap_level(int index)
{
	return 31u - (unsigned)__builtin_clz((unsigned)index + 1);
}

static void census_del(struct htimer *t, struct census *c)
{
	int from = t->index;
	struct htimer *moved = heap[heap_n - 1];
	heap_del(t);
	if (moved != t)
		c->swaps += (unsigned)abs((int)heap_level(moved->index) - (int)heap_level(from));
}

static void census_mod(struct htimer *t, uint32_t expires, struct census *c)
{
	if (t->index >= 0)
		census_del(t, c);
	int from = (int)heap_n;
	heap_mod(t, expires);
	c->swaps += heap_level(from) - heap_level(t->index);
}

static void heap_pool_reset(struct htimer *ht)
{
	heap_n = 0;
	for (unsigned i = 0; i < POOL; i++)
		ht[i].index = -1;
}

/* Replay the timeout workload (the sequence starting at `seed`) on the heap,
 * unmeasured, and count what it did: the heap's loop in timeout_workload(),
 * step for step. */
static void timeout_census(struct htimer *ht, unsigned ops, uint64_t seed, struct census *c)
{
	uint32_t jh = 0;
	heap_pool_reset(ht);
	rng = seed;
	memset(c, 0, sizeof(*c));
	for (unsigned i = 0; i < ops; i++) {
		struct htimer *t = &ht[rnd() % POOL];
		uint32_t x = rnd();
		if (t->index >= 0 && x % 100 < 50) {
			census_del(t, c);
			c->cancels++;
		} else {
			if (t->index >= 0)
				c->rearms++;
			else
				c->arms++;
			census_mod(t, jh + 1 + x % 5000, c);
		}
		if (i % 100 == 99) {
			while (heap_n && (int32_t)(heap[0]->expires - jh) <= 0) {
				census_del(heap[0], c);
				c->expired++;
			}
			jh++;
		}
		c->pending_sum += heap_n;
		if (heap_n > c->pending_max)
			c->pending_max = heap_n;
	}
}

/* Replay the timeout workload on the wheel, unmeasured, and count the
 * re-arms whose new expiry falls in the bucket the timer is already in:
 * the wheel only rekeys those (wheel_rekey() in kernel/time/timer_bucket.c). */
static void timeout_wheel_census(struct timer *wt, unsigned ops, uint64_t seed, struct census *c)
{
	uint32_t jw = 0;
	timer_wheel_init(0);
	for (unsigned i = 0; i < POOL; i++)
		timer_init(&wt[i], wheel_fire, "t");
	rng = seed;
	for (unsigned i = 0; i < ops; i++) {
		struct timer *t = &wt[rnd() % POOL];
		uint32_t x = rnd();
		if (timer_pending(t) && x % 100 < 50) {
			timer_del(t);
		} else {
			bool pending = timer_pending(t);
			uint16_t bucket = t->bucket;
			timer_mod(t, jw + 1 + x % 5000);
			c->rearms_kept += pending && t->bucket == bucket;
		}
		if (i % 100 == 99)
			timer_run_expired(jw++);
	}
}

static void timeout_workload(unsigned ops)
{
	static struct timer wt[POOL];
	static struct htimer ht[POOL];
	struct row *r = row_new("timeout", "timeout (add/re-arm/cancel)", 0, ops);
	uint32_t jw = 0, jh = 0;
	unsigned heap_fired = 0;
	timer_wheel_init(0);
	heap_pool_reset(ht);
	for (unsigned i = 0; i < POOL; i++)
		timer_init(&wt[i], wheel_fire, "t");
	/* The same random sequence for both: slot, expiry, cancel or re-arm. */
	uint64_t seed = rng;
	unsigned fired0 = fired;
	phase_start(r, WHEEL);
	for (unsigned i = 0; i < ops; i++) {
		struct timer *t = &wt[rnd() % POOL];
		uint32_t x = rnd();
		if (timer_pending(t) && x % 100 < 50)
			timer_del(t);
		else
			timer_mod(t, jw + 1 + x % 5000);
		if (i % 100 == 99)
			timer_run_expired(jw++);
	}
	phase_stop(r, WHEEL);
	unsigned wheel_pending = timer_count(), wheel_fired = fired - fired0;
	rng = seed;
	phase_start(r, HEAP);
	for (unsigned i = 0; i < ops; i++) {
		struct htimer *t = &ht[rnd() % POOL];
		uint32_t x = rnd();
		if (t->index >= 0 && x % 100 < 50)
			heap_del(t);
		else
			heap_mod(t, jh + 1 + x % 5000);
		if (i % 100 == 99)
			heap_fired += heap_run(jh++);
	}
	phase_stop(r, HEAP);
	if (wheel_pending != heap_n || wheel_fired != heap_fired) {
		fprintf(stderr, "timer_bench: timeout: the wheel ended with %u pending, %u fired; "
		        "the heap with %u, %u: not the same workload\n",
		        wheel_pending, wheel_fired, heap_n, heap_fired);
		exit(1);
	}
	timeout_census(ht, ops, seed, &r->census);
	timeout_wheel_census(wt, ops, seed, &r->census);
	r->has_census = true;
	if (r->census.expired != heap_fired || heap_n != wheel_pending) {
		fprintf(stderr, "timer_bench: timeout: the census is not the heap's run\n");
		exit(1);
	}
}

static void expiry_workload(unsigned n)
{
	struct timer *wt = calloc(n, sizeof(*wt));
	struct htimer *ht = calloc(n, sizeof(*ht));
	struct row *r = row_new("expiry", "expiry (arm all, run all)", 0, n);
	timer_wheel_init(0);
	heap_n = 0;
	uint64_t seed = rng;
	phase_start(r, WHEEL);
	for (unsigned i = 0; i < n; i++) {
		timer_init(&wt[i], wheel_fire, "t");
		timer_mod(&wt[i], 1 + rnd() % 1000);
	}
	for (uint32_t j = 0; j <= 1001; j++)
		timer_run_expired(j);
	phase_stop(r, WHEEL);
	rng = seed;
	phase_start(r, HEAP);
	for (unsigned i = 0; i < n; i++) {
		ht[i].index = -1;
		heap_mod(&ht[i], 1 + rnd() % 1000);
	}
	for (uint32_t j = 0; j <= 1001; j++)
		heap_run(j);
	phase_stop(r, HEAP);
	free(wt);
	free(ht);
}

/* The next-expiry workloads' timers: `pending` of them after a long idle
 * (the wheel's base has moved far), spread over hours of jiffies so every
 * level holds some; the same expiries in the wheel and in the heap. */
#define NEXT_BASE 123456789u

static void next_expiry_setup(unsigned pending, struct timer **wt, struct htimer **ht)
{
	*wt = calloc(pending, sizeof(**wt));
	*ht = calloc(pending, sizeof(**ht));
	rng = 88172645463325252ull ^ pending;   /* the same timers, cached or not */
	timer_wheel_init(NEXT_BASE);
	heap_n = 0;
	for (unsigned i = 0; i < pending; i++) {
		uint32_t e = NEXT_BASE + 1000 + rnd() % 50000000;
		timer_init(&(*wt)[i], wheel_fire, "t");
		timer_mod(&(*wt)[i], e);
		(*ht)[i].index = -1;
		heap_mod(&(*ht)[i], e);
	}
}

static uint32_t query_sink;     /* keeps the query loops from being optimized out */

static void next_expiry_workload(unsigned pending, unsigned queries)
{
	struct timer *wt;
	struct htimer *ht;
	char title[48];
	snprintf(title, sizeof(title), "next expiry, %u pending", pending);
	struct row *r = row_new("next_expiry", title, pending, queries);
	next_expiry_setup(pending, &wt, &ht);
	uint32_t e = 0;
	phase_start(r, WHEEL);
	for (unsigned q = 0; q < queries; q++) {
		timer_next_expiry(&e);
		query_sink += e;
	}
	phase_stop(r, WHEEL);
	phase_start(r, HEAP);
	for (unsigned q = 0; q < queries; q++) {
		heap_next_expiry(&e);
		query_sink += e;
	}
	phase_stop(r, HEAP);
	free(wt);
	free(ht);
}

/* ns that a now_ns() pair costs by itself, taken off each timed query. */
static uint64_t clock_pair_ns(void)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < 10000; i++) {
		uint64_t t0 = now_ns();
		sum += now_ns() - t0;
	}
	return sum / 10000;
}

static uint64_t timed_ns(uint64_t t0, uint64_t overhead)
{
	uint64_t d = now_ns() - t0;
	return d > overhead ? d - overhead : 0;
}

/* Every query the first after a change: before each, every bucket's
 * earliest timer is taken out and put back at the same expiry (the base
 * does not move, so into the same bucket), which leaves the wheel not
 * knowing any bucket's earliest timer; the heap gets the same changes.
 * Only the queries are measured: each is timed alone (less the cost of
 * reading the clock), and callgrind collects only while it runs. */
static void next_expiry_uncached_workload(unsigned pending, unsigned queries)
{
	struct timer *wt;
	struct htimer *ht;
	char title[48];
	snprintf(title, sizeof(title), "next expiry uncached, %u pending", pending);
	struct row *r = row_new("next_expiry_uncached", title, pending, queries);
	next_expiry_setup(pending, &wt, &ht);
	/* Each occupied bucket's earliest timer, by index. */
	static int first_in[1 << 16];
	unsigned *firsts = calloc(pending, sizeof(*firsts)), nfirsts = 0;
	memset(first_in, -1, sizeof(first_in));
	for (unsigned i = 0; i < pending; i++) {
		int *f = &first_in[wt[i].bucket];
		if (*f < 0)
			firsts[nfirsts++] = wt[i].bucket;
		if (*f < 0 || (int32_t)(wt[i].expires - wt[*f].expires) < 0)
			*f = (int)i;
	}
	for (unsigned k = 0; k < nfirsts; k++)
		firsts[k] = (unsigned)first_in[firsts[k]];
	uint64_t overhead = clock_pair_ns(), ns = 0;
	uint32_t e = 0;

	phase_start(r, WHEEL);
	CALLGRIND_TOGGLE_COLLECT;                       /* off: the changes */
	for (unsigned q = 0; q < queries; q++) {
		for (unsigned k = 0; k < nfirsts; k++) {
			struct timer *t = &wt[firsts[k]];
			timer_del(t);
			timer_mod(t, t->expires);
		}
		uint64_t t0 = now_ns();
		CALLGRIND_TOGGLE_COLLECT;               /* on: the query */
		timer_next_expiry(&e);
		CALLGRIND_TOGGLE_COLLECT;
		ns += timed_ns(t0, overhead);
		query_sink += e;
	}
	CALLGRIND_TOGGLE_COLLECT;
	phase_stop(r, WHEEL);
	r->ns[WHEEL] = ns;

	ns = 0;
	phase_start(r, HEAP);
	CALLGRIND_TOGGLE_COLLECT;
	for (unsigned q = 0; q < queries; q++) {
		for (unsigned k = 0; k < nfirsts; k++) {
			struct htimer *t = &ht[firsts[k]];
			heap_mod(t, t->expires);
		}
		uint64_t t0 = now_ns();
		CALLGRIND_TOGGLE_COLLECT;
		heap_next_expiry(&e);
		CALLGRIND_TOGGLE_COLLECT;
		ns += timed_ns(t0, overhead);
		query_sink += e;
	}
	CALLGRIND_TOGGLE_COLLECT;
	phase_stop(r, HEAP);
	r->ns[HEAP] = ns;
	free(firsts);
	free(wt);
	free(ht);
}

static void run_workloads(unsigned scale)
{
	heap = calloc(1000000, sizeof(*heap));
	timeout_workload(1000000 / scale);
	expiry_workload(1000000 / scale);
	for (unsigned p = 10; p <= 100000; p *= 10)
		next_expiry_workload(p, 100000 / scale);
	for (unsigned p = 10; p <= 100000; p *= 10)
		next_expiry_uncached_workload(p, 10000 / scale);
	if (query_sink == 42)
		puts("");
	free(heap);
}

/* ------------------------------------------------ callgrind pass */

/* Where each event callgrind counts sits in a dump's "totals:" line. */
enum { EV_IR, EV_I1MR, EV_D1MR, EV_D1MW, EV_BCM, EV_BIM, EVENTS };
static const char *const event_names[EVENTS] = { "Ir", "I1mr", "D1mr", "D1mw", "Bcm", "Bim" };

/* Read one dump, which must be phase `want`'s, into the totals of the
 * events above.  false if it is missing, another phase's, or lacks any of
 * them. */
static bool read_dump(const char *path, const char *want, unsigned long long ev[EVENTS])
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char line[4096];
	int col[EVENTS];
	bool named = false, have_events = false, have_totals = false;
	const char *desc = "desc: Trigger: Client Request: ";
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, desc, strlen(desc))) {
			named = !strcmp(line + strlen(desc), want);
		} else if (!strncmp(line, "events:", 7)) {
			/* "events: Ir Dr Dw I1mr ...": the order of the totals */
			for (int e = 0; e < EVENTS; e++)
				col[e] = -1;
			int c = 0;
			for (char *tok = strtok(line + 7, " "); tok; tok = strtok(NULL, " "), c++)
				for (int e = 0; e < EVENTS; e++)
					if (!strcmp(tok, event_names[e]))
						col[e] = c;
			have_events = true;
			for (int e = 0; e < EVENTS; e++)
				have_events = have_events && col[e] >= 0;
		} else if (!strncmp(line, "totals:", 7) && have_events) {
			unsigned long long v[64];
			int c = 0;
			for (char *tok = strtok(line + 7, " "); tok && c < 64; tok = strtok(NULL, " "))
				v[c++] = strtoull(tok, NULL, 10);
			have_totals = true;
			for (int e = 0; e < EVENTS; e++) {
				/* callgrind leaves trailing zero counts out */
				ev[e] = col[e] < c ? v[col[e]] : 0;
			}
		}
	}
	fclose(f);
	return named && have_events && have_totals;
}

/* Run this program again under callgrind, at the same scale, and fill in
 * rows[].instr, .l1_miss and .mispredict from its dumps.  false (and a
 * line saying why) if it could not. */
static bool callgrind_pass(const char *self, const char *dir, unsigned scale)
{
	if (!HAVE_CALLGRIND) {
		puts("callgrind: skipped, built without <valgrind/callgrind.h> "
		     "(tools/install-deps bench installs valgrind; then rebuild)");
		return false;
	}
	char out[512], log[512], scale_arg[16], path[540];
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/timer-core.callgrind", dir);
	snprintf(log, sizeof(log), "--log-file=%s/timer-core.valgrind", dir);
	snprintf(scale_arg, sizeof(scale_arg), "%u", scale);
	/* Old dumps would be read as this run's if this one stopped early. */
	for (unsigned k = 1; ; k++) {
		snprintf(path, sizeof(path), "%s/timer-core.callgrind.%u", dir, k);
		if (unlink(path) != 0)
			break;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("callgrind: skipped, fork");
		return false;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execlp("valgrind", "valgrind", "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
		       out, log, self, "--callgrind-pass", scale_arg, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (waitpid(pid, &status, 0) < 0)
		status = -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		puts("callgrind: skipped, valgrind not installed (tools/install-deps bench installs it)");
		return false;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		printf("callgrind: failed, see %s/timer-core.valgrind\n", dir);
		return false;
	}

	for (unsigned k = 1; k <= 2 * nrows; k++) {
		struct row *r = &rows[(k - 1) / 2];
		int s = (int)((k - 1) % 2);
		char want[64];
		unsigned long long ev[EVENTS];
		phase_name(want, sizeof(want), r, s);
		snprintf(path, sizeof(path), "%s/timer-core.callgrind.%u", dir, k);
		if (!read_dump(path, want, ev) || !ev[EV_IR]) {
			printf("callgrind: failed, %s is not the dump of phase %s\n", path, want);
			return false;
		}
		r->instr[s] = ev[EV_IR];
		r->l1_miss[s] = ev[EV_I1MR] + ev[EV_D1MR] + ev[EV_D1MW];
		r->mispredict[s] = ev[EV_BCM] + ev[EV_BIM];
	}
	for (unsigned i = 0; i < nrows; i++)
		rows[i].callgrind = true;
	return true;
}

/* ------------------------------------------------ output */

static void print_table(const char *unit, const uint64_t *(*values)(const struct row *))
{
	for (unsigned i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		const uint64_t *v = values(r);
		double w = (double)v[WHEEL] / r->ops, h = (double)v[HEAP] / r->ops;
		printf("%-38s %8u ops  wheel %8.2f %s  heap %8.2f %s  heap/wheel %6.2fx\n",
		       r->title, r->ops, w, unit, h, unit, w > 0 ? h / w : 0.0);
	}
}

static const uint64_t *row_ns(const struct row *r) { return r->ns; }
static const uint64_t *row_instr(const struct row *r) { return r->instr; }
static const uint64_t *row_l1(const struct row *r) { return r->l1_miss; }
static const uint64_t *row_mispredict(const struct row *r) { return r->mispredict; }

static double pct(unsigned part, unsigned whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

/* The census, in words. */
static void print_counts(void)
{
	for (unsigned i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		if (!r->has_census)
			continue;
		const struct census *c = &r->census;
		unsigned ended = c->cancels + c->rearms + c->expired;
		printf("%s, counted: of %u operations %.1f%% cancelled a pending timer, "
		       "%.1f%% re-armed one, %.1f%% armed an idle one; %u timers expired.\n"
		       "  Of the %u timeouts that ended, %.1f%% were cancelled or re-armed before "
		       "they expired.  Pending after each operation: mean %.0f, max %u.\n"
		       "  The heap swapped %.3f times per operation; %.1f%% of the re-arms left the "
		       "timer in its wheel bucket.\n",
		       r->workload, r->ops, pct(c->cancels, r->ops), pct(c->rearms, r->ops),
		       pct(c->arms, r->ops), c->expired, ended, pct(c->cancels + c->rearms, ended),
		       (double)c->pending_sum / r->ops, c->pending_max, (double)c->swaps / r->ops,
		       pct(c->rearms_kept, c->rearms));
	}
}

static void csv_per_op(FILE *f, bool have, uint64_t v, unsigned ops)
{
	if (have)
		fprintf(f, ",%.3f", (double)v / ops);
	else
		fputc(',', f);
}

static void write_csv(const char *dir)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/timer-core.csv", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs("workload,pending,ops,wheel_ns_per_op,heap_ns_per_op,"
	      "wheel_instr_per_op,heap_instr_per_op,wheel_l1_miss_per_op,heap_l1_miss_per_op,"
	      "wheel_mispredict_per_op,heap_mispredict_per_op,heap_swaps_per_op,"
	      "pending_mean,pending_max,cancel_pct,rearm_pct,arm_pct,ended_early_pct,"
	      "rearm_kept_pct\n", f);
	for (unsigned i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		fprintf(f, "%s,", r->workload);
		if (r->pending)
			fprintf(f, "%u", r->pending);
		fprintf(f, ",%u", r->ops);
		for (int s = 0; s < STRUCTS; s++)
			csv_per_op(f, true, r->ns[s], r->ops);
		for (int s = 0; s < STRUCTS; s++)
			csv_per_op(f, r->callgrind, r->instr[s], r->ops);
		for (int s = 0; s < STRUCTS; s++)
			csv_per_op(f, r->callgrind, r->l1_miss[s], r->ops);
		for (int s = 0; s < STRUCTS; s++)
			csv_per_op(f, r->callgrind, r->mispredict[s], r->ops);
		if (r->has_census) {
			const struct census *c = &r->census;
			unsigned ended = c->cancels + c->rearms + c->expired;
			fprintf(f, ",%.3f,%.1f,%u,%.2f,%.2f,%.2f,%.2f,%.2f\n",
			        (double)c->swaps / r->ops, (double)c->pending_sum / r->ops,
			        c->pending_max, pct(c->cancels, r->ops), pct(c->rearms, r->ops),
			        pct(c->arms, r->ops), pct(c->cancels + c->rearms, ended),
			        pct(c->rearms_kept, c->rearms));
		} else {
			fputs(",,,,,,,,\n", f);
		}
	}
	fclose(f);
}

static void usage(void)
{
	fprintf(stderr, "usage: timer_bench [-o DIR] [SCALE]\n");
	exit(2);
}

/* ------------------------------------------------ the two wheels */

/* The cascading wheel against the level wheel (kernel/time/timer_level.c)
 * with n timers pending, 2^14 .. 2^20 jiffies ahead: add, cancel and
 * next-expiry cost, and the worst single tick over the next 2^16 jiffies,
 * in ns and in work units (timers moved or taken to run: struct
 * timer_base's `work`, the unit the host test asserts on). */
static void wheels_compare(unsigned n)
{
	struct timer *t = calloc(n, sizeof(*t));
	if (!t)
		abort();
	for (int k = 0; k < 2; k++) {
		enum timer_wheel_kind kind = k ? TIMER_WHEEL_LEVEL : TIMER_WHEEL_CASCADE;
		timer_wheel_init(0);
		timer_wheel_switch(kind);
		jiffies_64 = 0;
		rng = 88172645463325252ull;
		for (unsigned i = 0; i < n; i++)
			timer_init(&t[i], wheel_fire, "bench");
		uint64_t t0 = now_ns();
		for (unsigned i = 0; i < n; i++)
			timer_mod(&t[i], (1u << 14) + rnd() % ((1u << 20) - (1u << 14)));
		double add = (double)(now_ns() - t0) / n;
		uint32_t next = 0;
		t0 = now_ns();
		for (unsigned q = 0; q < 100000; q++)
			timer_next_expiry(&next);
		double query = (double)(now_ns() - t0) / 100000;
		struct timer_base *w = time_timer_base(0);
		uint64_t worst_ns = 0;
		uint32_t worst_work = 0;
		for (uint32_t j = 0; j < (1u << 16); j++) {
			uint32_t before = w->work;
			jiffies_64 = j;
			t0 = now_ns();
			timer_run_expired(j);
			uint64_t ns = now_ns() - t0;
			if (ns > worst_ns)
				worst_ns = ns;
			if (w->work - before > worst_work)
				worst_work = w->work - before;
		}
		t0 = now_ns();
		for (unsigned i = 0; i < n; i++)
			timer_del(&t[i]);
		double cancel = (double)(now_ns() - t0) / n;
		printf("  %-8s %7u %9.1f %10.1f %11.1f %13llu %11u\n", timer_wheel_name(kind), n, add,
		       cancel, query, (unsigned long long)worst_ns, worst_work);
	}
	free(t);
}

int main(int argc, char **argv)
{
	const char *dir = ".";
	unsigned scale = 1;
	bool under_callgrind = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--callgrind-pass"))
			under_callgrind = true;
		else if (argv[i][0] >= '1' && argv[i][0] <= '9')
			scale = (unsigned)atoi(argv[i]);
		else
			usage();
	}
	char sizes[48] = "full sizes";
	if (scale > 1)
		snprintf(sizes, sizeof(sizes), "operation counts divided by %u", scale);

	run_workloads(scale);
	if (under_callgrind)
		return 0;
	printf("wall clock, ns per operation (%s; noisy on a loaded machine):\n", sizes);
	print_table("ns/op", row_ns);
	if (callgrind_pass(argv[0], dir, scale)) {
		printf("\ncallgrind, instructions per operation, the same phases (%s):\n", sizes);
		print_table("instr/op", row_instr);
		printf("\ncallgrind's simulated L1 caches, misses (I1mr+D1mr+D1mw) per operation:\n");
		print_table("miss/op", row_l1);
		printf("\ncallgrind's simulated branch predictor, mispredicts (Bcm+Bim) per operation:\n");
		print_table("misp/op", row_mispredict);
	}
	printf("\n");
	print_counts();
	printf("\nthe two wheels, timers 2^14..2^20 jiffies ahead; worst tick over 2^16 jiffies (ns noisy):\n");
	printf("  %-8s %7s %9s %10s %11s %13s %11s\n", "wheel", "pending", "add ns", "cancel ns",
	       "next-exp ns", "worst tick ns", "worst work");
	wheels_compare(10000);
	wheels_compare(100000 / scale);
	write_csv(dir);
	return 0;
}
