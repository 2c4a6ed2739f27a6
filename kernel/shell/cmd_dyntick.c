/* kernel/shell/cmd_dyntick.c — the shell commands that make the HZ trade-off
 * visible: latency (a small cyclictest), trace, and two timer exercisers —
 * every (a periodic wheel timer) and keytimer (a timer armed from an
 * interrupt handler); alarm has its own file, cmd_alarm.c. */
#include "shell/args.h"
#include "console.h"
#include "histogram.h"
#include "idle.h"
#include "arch/irq.h"
#include "kprintf.h"
#include "arch/smp.h"
#include "kstring.h"
#include "shell/shell.h"
#include "time/arch.h"
#include "time/clocksource.h"
#include "time/hrtimer.h"
#include "time/path.h"
#include "time/jiffies.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"
#include "time/trace.h"
#include "time/wakeups.h"
#include "power_model.h"
#include "shell/commands.h"

#define LATENCY_MAX_COUNT 1000000u
#define LATENCY_MIN_US    50u
#define LATENCY_MAX_US    1000000u
#define LATENCY_HIST_US   20000u         /* 1 us buckets up to 20 ms */
#define LATENCY_LOG2_BINS 16u            /* printed: [0,1) us ... [8192,16384), >=16384 */
#define EVERY_MAX_MS      3600000u
#define KEYTIMER_MAX_MS   60000u
_Static_assert((1u << (LATENCY_LOG2_BINS - 2)) <= LATENCY_HIST_US,
               "the bucket of 20 ms and over must fall in the open last log2 bin");

/* ---------------------------------------------------------- latency */

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
	/* A small log2 histogram: [0,1) [1,2) [2,4) ... us.  Its last bin,
	 * from 16384 us up, also holds the bucket of 20 ms and over, so it
	 * has no upper edge and says so. */
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
	if (breakdown)
		print_breakdown(lat.sum / lat.n);
	return console_interrupted() ? -EINTR : 0;
}

/* ---------------------------------------------------------- trace */

static const char *const trace_names[] = {
	[TRACE_TIMER_IRQ] = "timer_irq", [TRACE_IDLE_ENTER] = "idle_enter",
	[TRACE_IDLE_EXIT] = "idle_exit",
};
static const char *const limit_names[] = {
	[TICK_LIMIT_NONE] = "tick", [TICK_LIMIT_TIMER] = "timer", [TICK_LIMIT_HRTIMER] = "hrtimer",
	[TICK_LIMIT_DEVICE] = "device_max", [TICK_LIMIT_WRAP] = "clocksource_wrap",
	[TICK_LIMIT_WATCHDOG] = "watchdog",
};

int cmd_trace(int argc, char **argv)
{
	uint32_t secs;
	if (argc != 2 || parse_u32(argv[1], 1, TRACE_MAX_S, &secs) != 0)
		return SHELL_USAGE;
	struct tick_cpu *tc = this_tick();
	trace_start(ktime_get_ns());
	int rc = sleep_ns((uint64_t)secs * NSEC_PER_SEC);
	trace_stop();
	if (rc == -ENOSPC) {
		kprintf("error: no free hrtimer slot\n");
		return rc;
	}
	kprintf("# trace: mode=%s device=%s hz=%u cpus=%u events=%u dropped=%u\n",
	        tick_mode_name(tc->mode), tc->dev->name, tc->hz, cpus_online, trace_buf.count,
	        trace_buf.dropped);
	if (trace_buf.dropped) {
		/* The CSV below stops here: say so before it, not after. */
		uint64_t full = trace_buf.full_ns > trace_buf.start_ns ?
		                trace_buf.full_ns - trace_buf.start_ns : 0;
		char after[FMT_FIXED_SIZE];
		kprintf("# trace: buffer full after %s s of %u s; %u events dropped\n",
		        fmt_fixed(after, sizeof(after), full / NSEC_PER_MSEC, 3), secs,
		        trace_buf.dropped);
	}
	/* One line per event, every CPU's in the order they were added. */
	kprintf("t_ns,cpu,event,cause,skip_ticks,sleep_ns,name\n");
	for (unsigned i = 0; i < trace_buf.count; i++) {
		const struct trace_event *e = &trace_buf.ev[i];
		const char *cause = "";
		char irq[24];
		if (e->kind == TRACE_IDLE_ENTER) {
			cause = limit_names[e->cause];
		} else if (e->kind == TRACE_IDLE_EXIT) {
			cause = wakeup_kind_name((enum wakeup_kind)e->cause);
			if (e->cause == WAKE_IRQ) {
				const char *n = irq_vector_name(e->vector);
				ksnprintf(irq, sizeof(irq), "irq:%s", n ? n : "?");
				cause = irq;
			}
		}
		kprintf("%llu,%u,%s,%s,%u,%llu,%s\n", (unsigned long long)e->t_ns, e->cpu,
		        trace_names[e->kind], cause, e->skip, (unsigned long long)e->sleep_ns, e->name ? e->name : "");
	}
	return rc;
}

/* ---------------------------------------------------------- every */

static struct timer every_timer;
static uint32_t every_ms;

static void every_fire(struct timer *t)
{
	/* From the last expiry, not from now: a drift-free period. */
	timer_mod(t, t->expires + ms_to_jiffies(every_ms));
}

int cmd_every(int argc, char **argv)
{
	uint32_t ms;
	if (argc == 1) {
		if (timer_pending(&every_timer))
			kprintf("every: %u ms\n", every_ms);
		else
			kprintf("every: off\n");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "off") == 0) {
		timer_del_sync(&every_timer);
		return 0;
	}
	if (argc != 2 || parse_u32(argv[1], 1, EVERY_MAX_MS, &ms) != 0)
		return SHELL_USAGE;
	every_ms = ms;
	/* Set up once, at the first use: from then on the timer may be
	 * pending, and re-initialising a pending timer is refused (it would
	 * link it into the wheel twice).  timer_mod moves a running period. */
	if (!every_timer.function)
		timer_init(&every_timer, every_fire, "every");
	timer_mod(&every_timer, jiffies + ms_to_jiffies(ms));
	return 0;
}

/* ---------------------------------------------------------- keytimer */

/* Arm a wheel timer from inside the serial interrupt handler.  If the tick
 * was stopped, jiffies must already be caught up when the handler runs, or
 * the timer fires early (jiffies behind) or late (ahead).  */
static struct timer key_timer;
static uint32_t key_ms;
static volatile uint64_t key_armed_ns, key_fired_ns;
static volatile uint32_t key_armed_jiffy;
static volatile bool key_fired;

static void key_timer_fire(struct timer *t)
{
	(void)t;
	key_fired_ns = ktime_get_ns();
	key_fired = true;
}

static bool key_hook(char c)
{
	(void)c;
	key_armed_ns = ktime_get_ns();
	key_armed_jiffy = jiffies;
	/* timer_mod: a second byte before the hook is removed re-arms it. */
	timer_mod(&key_timer, jiffies + ms_to_jiffies(key_ms));
	return true;                    /* the byte is consumed */
}

int cmd_keytimer(int argc, char **argv)
{
	uint32_t ms;
	if (argc != 2 || parse_u32(argv[1], 1, KEYTIMER_MAX_MS, &ms) != 0)
		return SHELL_USAGE;
	key_ms = ms;
	key_fired = false;
	key_armed_ns = 0;
	/* Not pending: every way out of this command leaves it fired or
	 * deleted, and the hook that arms it is not installed yet. */
	timer_init(&key_timer, key_timer_fire, "keytimer");
	kprintf("keytimer: press a key; its interrupt arms a %u ms timer\n", ms);
	console_set_input_hook(key_hook);
	wait_event(key_armed_ns || console_interrupted());
	console_set_input_hook(NULL);
	wait_event(key_fired || console_interrupted());
	if (!key_fired) {
		timer_del_sync(&key_timer);
		return -EINTR;
	}
	uint64_t took = key_fired_ns - key_armed_ns;
	kprintf("keytimer: armed in the IRQ at jiffy %u, fired after %llu us (asked %u ms)\n",
	        key_armed_jiffy, (unsigned long long)(took / NSEC_PER_USEC), ms);
	return 0;
}
