/* kernel/shell/cmd_latency.c — `latency COUNT PERIOD_US [breakdown]`: a
 * small cyclictest.  One hrtimer fires COUNT times, every PERIOD_US on
 * absolute deadlines, and each callback notes how late it ran; then the
 * minimum, average, p50, p99 and maximum, and a log2 histogram.  With
 * `breakdown`, also where the time went, stage by stage, from the stamps
 * the interrupt path leaves (include/time/path.h). */
#include "shell/args.h"
#include "console.h"
#include "histogram.h"
#include "idle.h"
#include "kprintf.h"
#include "kstring.h"
#include "shell/shell.h"
#include "time/arch.h"
#include "time/clocksource.h"
#include "time/hrtimer.h"
#include "time/path.h"
#include "time/timekeeping.h"
#include "shell/commands.h"

#define LATENCY_HIST_US   20000u         /* 1 us buckets up to 20 ms */
#define LATENCY_LOG2_BINS 16u            /* printed: [0,1) us ... [8192,16384), >=16384 */
_Static_assert((1u << (LATENCY_LOG2_BINS - 2)) <= LATENCY_HIST_US,
               "the bucket of 20 ms and over must fall in the open last log2 bin");

static struct {
	struct hrtimer timer;
	uint64_t period_ns;
	uint32_t want, n;
	uint64_t min, max, sum;
	uint32_t hist[LATENCY_HIST_US + 1];     /* last bucket: 20 ms and over */
	volatile bool done;
} lat;

static enum hrtimer_restart latency_tick(struct hrtimer *t)
{
	uint64_t now = ktime_get_ns();
	uint64_t l = now > t->expires_ns ? now - t->expires_ns : 0;
	lat.min = MIN(lat.min, l);
	lat.max = MAX(lat.max, l);
	lat.sum += l;
	lat.hist[MIN(l / NSEC_PER_USEC, LATENCY_HIST_US)]++;
	if (++lat.n == lat.want) {
		lat.done = true;
		return HRTIMER_NORESTART;
	}
	/* Absolute deadlines: the next one is a period after the last
	 * deadline, not after now, so latency does not accumulate. */
	hrtimer_forward(t, now, lat.period_ns);
	return HRTIMER_RESTART;
}

/* A percentile in us, or ">=20000" when it lies in the last bucket: the
 * histogram cannot tell how far past 20 ms it is (max is exact). */
static void print_latency_percentile(const char *label, unsigned pct)
{
	bool clipped;
	uint32_t us = hist_percentile(lat.hist, LATENCY_HIST_US, lat.n, pct, &clipped);
	kprintf(" %s=%s%u", label, clipped ? ">=" : "", us);
}

/* A small log2 histogram: [0,1) [1,2) [2,4) ... us.  Its last bin,
 * from 16384 us up, also holds the bucket of 20 ms and over, so it
 * has no upper edge and says so. */
static void print_latency_histogram(void)
{
	uint32_t bins[LATENCY_LOG2_BINS] = { 0 }, top = 1;
	for (uint32_t us = 0; us <= LATENCY_HIST_US; us++)
		bins[hist_log2_bin(us, LATENCY_LOG2_BINS)] += lat.hist[us];
	for (unsigned b = 0; b < LATENCY_LOG2_BINS; b++)
		top = MAX(top, bins[b]);
	for (unsigned b = 0; b < LATENCY_LOG2_BINS; b++) {
		if (!bins[b])
			continue;
		uint32_t lo, hi;
		if (hist_log2_bounds(b, LATENCY_LOG2_BINS, &lo, &hi))
			kprintf("  %5u-%-5u us %8u ", lo, hi, bins[b]);
		else
			kprintf("  >=%-9u us %8u ", lo, bins[b]);
		for (uint32_t i = 0; i < (uint64_t)bins[b] * 40 / top; i++)
			kprintf("#");
		kprintf("\n");
	}
}

/* `latency ... breakdown`: where the time went, stage by stage
 * (include/time/path.h), in ns at the TSC's calibrated rate: the average
 * wakeup, and the one slowest from the interrupt's entry to the callback.
 * The first line is the part before the interrupt's first C code (the
 * device's own lateness, the wake from the halt, the entry stub): the
 * average latency less the stages after it, so it also holds the
 * callback's own clock read. */
static void print_breakdown(uint64_t avg_latency_ns)
{
	uint64_t cycles[PATH_STAGES], slow[PATH_STAGES];
	uint64_t paths = path_totals(arch_this_cpu_id(), cycles, slow);
	const struct clocksource *tsc = clocksource_lookup("tsc");
	if (!paths || !tsc || !tsc->freq_hz) {
		kprintf("breakdown: no complete path was stamped\n");
		return;
	}
	uint64_t hz = tsc->freq_hz, avg[PATH_STAGES], sum[2][2] = { { 0 } };
	for (unsigned s = PATH_ENTRY + 1; s < PATH_STAGES; s++) {
		avg[s] = clocksource_cycles_to_ns(cycles[s], hz) / paths;
		slow[s] = clocksource_cycles_to_ns(slow[s], hz);
		sum[0][s > PATH_HRTIMERS] += avg[s];
		sum[1][s > PATH_HRTIMERS] += slow[s];
	}
	kprintf("breakdown: %llu wakeups, ns per stage at the TSC's %llu Hz:\n",
	        (unsigned long long)paths, (unsigned long long)hz);
	kprintf("  %-24s %8s %8s\n", "stage", "average", "slowest");
	kprintf("  %-24s %8lld\n", "deadline to entry", (long long)avg_latency_ns - (long long)sum[0][0]);
	for (unsigned s = PATH_ENTRY + 1; s < PATH_STAGES; s++) {
		kprintf("  %-24s %8llu %8llu\n", path_stage_name(s), (unsigned long long)avg[s],
		        (unsigned long long)slow[s]);
		if (s == PATH_HRTIMERS) {
			kprintf("  %-24s %8llu %8llu\n", "= entry to the callback",
			        (unsigned long long)sum[0][0], (unsigned long long)sum[1][0]);
			kprintf("  %-24s %8llu\n", "= deadline to callback", (unsigned long long)avg_latency_ns);
		}
	}
	kprintf("  %-24s %8llu %8llu\n", "= after the callback", (unsigned long long)sum[0][1],
	        (unsigned long long)sum[1][1]);
}

int cmd_latency(int argc, char **argv)
{
	uint32_t count, period_us;
	bool breakdown = argc == 4 && strcmp(argv[3], "breakdown") == 0;
	if ((argc != 3 && !breakdown) || parse_u32(argv[1], 1, LATENCY_MAX_COUNT, &count) != 0 ||
	    parse_u32(argv[2], LATENCY_MIN_US, LATENCY_MAX_US, &period_us) != 0)
		return SHELL_USAGE;
	if (breakdown && !arch_cycles()) {
		kprintf("error: breakdown needs a cycle counter (the TSC), and this CPU has none\n");
		return -ENODEV;
	}
	memset(&lat, 0, sizeof(lat));
	lat.min = UINT64_MAX;
	lat.want = count;
	lat.period_ns = (uint64_t)period_us * NSEC_PER_USEC;
	hrtimer_init(&lat.timer, latency_tick, "latency");
	if (hrtimer_start(&lat.timer, ktime_get_ns() + lat.period_ns) < 0) {
		kprintf("error: no free hrtimer slot\n");
		return -ENOSPC;
	}
	if (breakdown) {
		path_reset();
		path_on = true;
	}
	wait_event(lat.done || console_interrupted());
	path_on = false;
	hrtimer_cancel(&lat.timer);
	if (!lat.n)
		return -EINTR;
	uint64_t avg10 = lat.sum * 10 / lat.n / NSEC_PER_USEC;     /* tenths of us */
	char avg[FMT_FIXED_SIZE];
	kprintf("latency: n=%u period=%uus min=%llu avg=%s", lat.n, period_us,
	        (unsigned long long)(lat.min / NSEC_PER_USEC), fmt_fixed(avg, sizeof(avg), avg10, 1));
	print_latency_percentile("p50", 50);
	print_latency_percentile("p99", 99);
	kprintf(" max=%llu (us)\n", (unsigned long long)(lat.max / NSEC_PER_USEC));
	print_latency_histogram();
	if (breakdown)
		print_breakdown(lat.sum / lat.n);
	return console_interrupted() ? -EINTR : 0;
}
