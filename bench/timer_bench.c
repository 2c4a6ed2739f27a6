/* bench/timer_bench.c — host micro-benchmark of lull's timer wheel
 * (kernel/time/timer.c, compiled unchanged) against a binary-heap timer
 * queue written here as the baseline.
 *
 * Workloads:
 *   timeout   1,000,000 operations on a pool of timers with spread expiries,
 *             99% of them cancelled or re-armed before they expire (the share
 *             of networking/IO timeouts the mainline kernel measured);
 *   expiry    1,000,000 timers armed, then all run out;
 *   next      the next-expiry query, with 10 .. 100,000 timers pending after
 *             a long idle: what the dyntick idle path asks on every entry.
 *
 * Each workload runs once per structure, and only that run is measured
 * (a "phase"): setup such as allocating and arming the pending timers of
 * the next-expiry workload is not.  Two tables come out:
 *   ns/op      wall clock, so noisy on a shared machine;
 *   instr/op   the same phases re-run under valgrind's callgrind, which
 *              counts instructions executed: the same on a loaded machine
 *              as on an idle one.  The program runs itself under valgrind
 *              (`--callgrind-pass`); each phase zeroes callgrind's counters
 *              as it starts and dumps them as it ends (<valgrind/callgrind.h>),
 *              one file per phase, DIR/timer-core.callgrind.1, .2, ...  Read
 *              one with callgrind_annotate to see where a phase's
 *              instructions go.  Without valgrind the table is skipped.
 * Instruction counts say nothing about cache misses; the two tables
 * together do.
 *
 * Usage: timer_bench [-o DIR] [SCALE]
 *   SCALE divides every operation count (not the pending counts); make
 *   bench-timers QUICK=1 uses 10.  DIR (default .) receives the callgrind
 *   dumps and timer-core.csv:
 *     workload,pending,ops,wheel_ns_per_op,heap_ns_per_op,wheel_instr_per_op,heap_instr_per_op
 *   pending is filled in for next_expiry only; a value not measured is empty.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "time/timer.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#else
#define HAVE_CALLGRIND 0
#define CALLGRIND_ZERO_STATS
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

/* One line of the tables: a workload at one size. */
struct row {
	const char *workload;           /* the CSV's name for it */
	char title[40];                 /* the tables' */
	unsigned pending;               /* next_expiry: timers pending; else 0 */
	unsigned ops;
	uint64_t ns[STRUCTS];
	uint64_t instr[STRUCTS];        /* under callgrind; 0: not measured */
};

#define MAX_ROWS 8
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

static void timeout_workload(unsigned ops)
{
	static struct timer wt[POOL];
	static struct htimer ht[POOL];
	struct row *r = row_new("timeout", "timeout (99% cancel/re-arm)", 0, ops);
	uint32_t jw = 0, jh = 0;
	timer_wheel_init(0);
	heap_n = 0;
	for (unsigned i = 0; i < POOL; i++) {
		timer_init(&wt[i], wheel_fire, "t");
		ht[i].index = -1;
	}
	/* The same random sequence for both: slot, expiry, cancel or re-arm. */
	uint64_t seed = rng;
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
			heap_run(jh++);
	}
	phase_stop(r, HEAP);
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

static void next_expiry_workload(unsigned pending, unsigned queries)
{
	struct timer *wt = calloc(pending, sizeof(*wt));
	struct htimer *ht = calloc(pending, sizeof(*ht));
	char title[40];
	snprintf(title, sizeof(title), "next expiry, %u pending", pending);
	struct row *r = row_new("next_expiry", title, pending, queries);
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
	phase_start(r, WHEEL);
	for (unsigned q = 0; q < queries; q++) {
		timer_next_expiry(&e);
		sink += e;
	}
	phase_stop(r, WHEEL);
	phase_start(r, HEAP);
	for (unsigned q = 0; q < queries; q++) {
		heap_next_expiry(&e);
		sink += e;
	}
	phase_stop(r, HEAP);
	if (sink == 42)
		puts("");                       /* keep the loops from being optimized out */
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
	free(heap);
}

/* ------------------------------------------------ callgrind pass */

/* Run this program again under callgrind, at the same scale, and fill in
 * rows[].instr from its dumps.  false (and a line saying why) if it could
 * not. */
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
		execlp("valgrind", "valgrind", "--tool=callgrind", out, log,
		       self, "--callgrind-pass", scale_arg, (char *)NULL);
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

	/* Dump k: "desc: Trigger: Client Request: <phase name>", and the
	 * phase's instruction count as "totals: N". */
	for (unsigned k = 1; k <= 2 * nrows; k++) {
		struct row *r = &rows[(k - 1) / 2];
		int s = (int)((k - 1) % 2);
		char want[64], line[4096];
		phase_name(want, sizeof(want), r, s);
		snprintf(path, sizeof(path), "%s/timer-core.callgrind.%u", dir, k);
		FILE *f = fopen(path, "r");
		bool named = false;
		unsigned long long total = 0;
		if (f) {
			while (fgets(line, sizeof(line), f)) {
				const char *desc = "desc: Trigger: Client Request: ";
				line[strcspn(line, "\n")] = '\0';
				if (!strncmp(line, desc, strlen(desc)))
					named = !strcmp(line + strlen(desc), want);
				else
					sscanf(line, "totals: %llu", &total);
			}
			fclose(f);
		}
		if (!named || !total) {
			printf("callgrind: failed, %s is not the dump of phase %s\n", path, want);
			return false;
		}
		r->instr[s] = total;
	}
	return true;
}

/* ------------------------------------------------ output */

static void print_table(const char *unit, bool instr)
{
	for (unsigned i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		const uint64_t *v = instr ? r->instr : r->ns;
		double w = (double)v[WHEEL] / r->ops, h = (double)v[HEAP] / r->ops;
		printf("%-34s %8u ops  wheel %8.1f %s  heap %8.1f %s  heap/wheel %6.2fx\n",
		       r->title, r->ops, w, unit, h, unit, w > 0 ? h / w : 0.0);
	}
}

static void csv_value(FILE *f, uint64_t v, unsigned ops)
{
	if (v)
		fprintf(f, ",%.2f", (double)v / ops);
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
	      "wheel_instr_per_op,heap_instr_per_op\n", f);
	for (unsigned i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		fprintf(f, "%s,", r->workload);
		if (r->pending)
			fprintf(f, "%u", r->pending);
		fprintf(f, ",%u", r->ops);
		for (int s = 0; s < STRUCTS; s++)
			csv_value(f, r->ns[s], r->ops);
		for (int s = 0; s < STRUCTS; s++)
			csv_value(f, r->instr[s], r->ops);
		fputc('\n', f);
	}
	fclose(f);
}

static void usage(void)
{
	fprintf(stderr, "usage: timer_bench [-o DIR] [SCALE]\n");
	exit(2);
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
	print_table("ns/op", false);
	if (callgrind_pass(argv[0], dir, scale)) {
		printf("\ncallgrind, instructions per operation, the same phases (%s):\n", sizes);
		print_table("instr/op", true);
	}
	write_csv(dir);
	return 0;
}
