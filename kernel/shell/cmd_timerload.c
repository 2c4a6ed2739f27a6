/* kernel/shell/cmd_timerload.c — `timerload`: how many wakeups a set of
 * armed timers costs, against the fewest that could serve them (`slack`,
 * which sets the default window, is next door in cmd_slack.c).
 *
 * timerload arms N periodic hrtimers on this CPU, periods drawn uniformly
 * from [MIN_MS, MAX_MS] by a seeded xorshift32 (the same seed gives the
 * same periods and phases), each with the window its class gives a timer
 * armed one period ahead (include/time/slack.h).  Each expiry is an
 * instance of its window [soft, hard]; the next one's soft end is exactly
 * one period later, whenever this one ran, so the set of windows does not
 * depend on when the CPU woke.  That makes the optimum well defined: the
 * fewest instants that serve every window (kernel/time/optimum.c), which
 * the run's wakeups are divided by.
 *
 * Every expiry is recorded (soft, hard, when it ran); then the checks:
 * early (ran before soft: a bug), past hard (ran later than hard plus the
 * allowance below), how late the latest ran, and how much of its window
 * each one used.
 */
#include "shell/shell.h"
#include "shell/commands.h"
#include "shell/args.h"
#include "time/percpu.h"
#include "time/hrtimer.h"
#include "time/optimum.h"
#include "time/slack.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"
#include "time/jiffies.h"
#include "arch/smp.h"
#include "time/wakeups.h"
#include "histogram.h"
#include "kprintf.h"
#include "kstring.h"

/* Recorded expiries: 50 timers of 1..5 s for 60 s need about 1,300. */
#define TIMERLOAD_MAX_EXPIRIES  16384
/* "Past hard" means later than hard plus the interrupt latency.  The
 * latency is measured, per wakeup: how long after the programmed deadline
 * the interrupt was taken (tick_cpu's late_ns; under TCG the host can
 * deschedule the guest for milliseconds there).  On top of it, this much
 * for the callbacks run before this one in the same wakeup, and one tick
 * where timers run on tick boundaries (periodic, dyntick). */
#define TIMERLOAD_RUN_NS        (1 * NSEC_PER_MSEC)
#define TIMERLOAD_DEFAULT_SEED  1u

/* One periodic timer of the load: an hrtimer (times in ns) or, with
 * `wheel`, a wheel timer (times in jiffies, 64-bit here). */
struct load_timer {
	struct hrtimer t;
	struct timer w;
	uint64_t period;        /* ns or jiffies */
	uint64_t soft, width;   /* wheel: the next window, [soft, soft + width] */
};

struct expiry {
	uint64_t soft, hard, ran;
	uint64_t irq_late;      /* the interrupt latency of the wakeup it ran in */
};

static struct {
	struct load_timer timer[TIMERLOAD_MAX_TIMERS];
	struct expiry rec[TIMERLOAD_MAX_EXPIRIES];
	struct window win[TIMERLOAD_MAX_EXPIRIES];
	unsigned n;             /* recorded */
	bool full;              /* an expiry did not fit */
} load;

static void record(uint64_t soft, uint64_t hard, uint64_t ran, uint64_t irq_late)
{
	unsigned i = __atomic_fetch_add(&load.n, 1, __ATOMIC_RELAXED);
	if (i >= TIMERLOAD_MAX_EXPIRIES) {
		load.full = true;
		return;
	}
	load.rec[i] = (struct expiry){ soft, hard, ran, irq_late };
}

/* One expiry; and every later one already due (a window wider than the
 * period, or a late run) is served by this same run. */
static enum hrtimer_restart load_fire(struct hrtimer *t)
{
	struct load_timer *l = container_of(t, struct load_timer, t);
	uint64_t now = ktime_get_ns();
	uint64_t soft = t->expires_ns, width = t->hard_ns - t->expires_ns;
	uint64_t n = hrtimer_forward(t, now, l->period);
	for (uint64_t i = 0; i < n; i++)
		record(soft + i * l->period, soft + i * l->period + width, now, this_tick()->late_ns);
	return HRTIMER_RESTART;
}

/* The same for a wheel timer, in jiffies: the 32-bit jiffies read on this
 * CPU, made 64-bit next to the window it serves. */
static void load_wheel_fire(struct timer *t)
{
	struct load_timer *l = container_of(t, struct load_timer, w);
	uint64_t now = l->soft + (uint64_t)(int64_t)(int32_t)(jiffies - (uint32_t)l->soft);
	do {
		record(l->soft, l->soft + l->width, now, 0);
		l->soft += l->period;
	} while (l->soft <= now);
	timer_mod_range(t, (uint32_t)l->soft, (uint32_t)(l->soft + l->width));
}

/* xorshift32 (Marsaglia 2003): small, seeded, the same everywhere. */
static uint32_t next_random(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Uniform in [lo, hi] (lo <= hi). */
static uint32_t random_ms(uint32_t *rnd, uint32_t lo, uint32_t hi)
{
	return lo + next_random(rnd) % (hi - lo + 1);
}

/* Wakeups charged to timers (wheel or hrtimer) in a snapshot. */
static uint64_t timer_wakeups(const struct wakeup_stats *s)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < s->ncauses; i++)
		if (s->causes[i].kind == WAKE_TIMER || s->causes[i].kind == WAKE_HRTIMER)
			n += s->causes[i].count;
	return n;
}

/* What the recorded expiries say. */
struct load_result {
	unsigned fired, early, past_hard;
	uint64_t worst_late;            /* ran after hard, the most (0: never), in ns or jiffies */
	uint64_t worst_irq_late;        /* the largest interrupt latency seen, ns */
	uint32_t used[101];             /* % of its window each expiry used */
	uint64_t used_n;                /* expiries with a window to use */
};

static void judge(unsigned n, uint64_t allowance, struct load_result *r)
{
	memset(r, 0, sizeof(*r));
	r->fired = n;
	for (unsigned i = 0; i < n; i++) {
		const struct expiry *e = &load.rec[i];
		if (e->ran < e->soft)
			r->early++;
		if (e->ran > e->hard + e->irq_late + allowance)
			r->past_hard++;
		if (e->irq_late > r->worst_irq_late)
			r->worst_irq_late = e->irq_late;
		if (e->ran > e->hard && e->ran - e->hard > r->worst_late)
			r->worst_late = e->ran - e->hard;
		if (e->hard > e->soft && e->ran >= e->soft) {
			uint64_t pct = (e->ran - e->soft) * 100 / (e->hard - e->soft);
			r->used[pct > 100 ? 100 : pct]++;
			r->used_n++;
		}
		load.win[i] = (struct window){ e->soft, e->hard };
	}
}

static void print_class(enum timer_class c, unsigned pct)
{
	if (c == TIMER_CLASS_PERCENT)
		kprintf("%u%%", pct);
	else
		kprintf("%s", timer_class_name(c));
}

/* Arm load timer i of kind `wheel` on `cpu`: period and phase in ms. */
static void load_arm(struct load_timer *l, bool wheel, unsigned cpu, uint32_t period_ms,
                     uint32_t phase_ms, enum timer_class cls, unsigned pct, uint64_t t0_ns)
{
	if (wheel) {
		l->period = ms_to_jiffies(period_ms);
		l->width = timer_slack(cls, pct, l->period, tick_hz);
		l->soft = jiffies_64 + l->period + ms_to_jiffies(phase_ms);
		timer_init(&l->w, load_wheel_fire, "timerload");
		timer_mod_range_on(&l->w, (uint32_t)l->soft, (uint32_t)(l->soft + l->width), cpu);
	} else {
		l->period = (uint64_t)period_ms * NSEC_PER_MSEC;
		hrtimer_init(&l->t, load_fire, "timerload");
		hrtimer_start_range_ns_on(&l->t, t0_ns + l->period + (uint64_t)phase_ms * NSEC_PER_MSEC,
		                          timer_slack(cls, pct, l->period, NSEC_PER_SEC), cpu);
	}
}

/* What a `timerload` line asks for. */
struct load_args {
	uint32_t n, lo, hi, secs, seed, cpu;
	enum timer_class cls;
	unsigned pct;
	bool wheel;
};

/* timerload N MIN_MS MAX_MS SECONDS [CLASS] [wheel] [cpu=C] [seed=S]:
 * 0, or SHELL_USAGE. */
static int load_parse(int argc, char **argv, struct load_args *a)
{
	*a = (struct load_args){ .seed = TIMERLOAD_DEFAULT_SEED, .cpu = arch_this_cpu_id(),
	                         .cls = TIMER_CLASS_DEFAULT };
	if (argc < 5 || argc > 9 ||
	    parse_u32(argv[1], 1, TIMERLOAD_MAX_TIMERS, &a->n) != 0 ||
	    parse_u32(argv[2], 1, TIMERLOAD_MAX_MS, &a->lo) != 0 ||
	    parse_u32(argv[3], a->lo, TIMERLOAD_MAX_MS, &a->hi) != 0 ||
	    parse_u32(argv[4], 1, TIMERLOAD_MAX_S, &a->secs) != 0)
		return SHELL_USAGE;
	for (int i = 5; i < argc; i++) {
		if (strncmp(argv[i], "seed=", 5) == 0) {
			if (parse_u32(argv[i] + 5, 1, TIMERLOAD_MAX_SEED, &a->seed) != 0)
				return SHELL_USAGE;
		} else if (strncmp(argv[i], "cpu=", 4) == 0) {
			if (parse_u32(argv[i] + 4, 0, cpus_online - 1, &a->cpu) != 0)
				return SHELL_USAGE;
		} else if (strcmp(argv[i], "wheel") == 0) {
			a->wheel = true;
		} else if (timer_class_parse(argv[i], &a->cls, &a->pct) != 0) {
			return SHELL_USAGE;
		}
	}
	return 0;
}

/* Refused before anything is armed: more expiries than can be recorded,
 * or no room on the CPU for the hrtimers.  0, or -errno after the error
 * line. */
static int load_check_room(const struct load_args *a)
{
	/* Every timer at its shortest period for the whole run must fit. */
	if ((uint64_t)a->n * a->secs * MSEC_PER_SEC / a->lo + a->n > TIMERLOAD_MAX_EXPIRIES) {
		kprintf("error: timerload: up to %u expiries are recorded; %u timers of %u ms for %u s are too many\n",
		        TIMERLOAD_MAX_EXPIRIES, a->n, a->lo, a->secs);
		return -EINVAL;
	}
	if (!a->wheel && hrtimer_count_on(a->cpu) + a->n >= HRTIMER_MAX) {
		kprintf("error: timerload: %u hrtimers pending on CPU %u, no room for %u more\n",
		        hrtimer_count_on(a->cpu), a->cpu, a->n);
		return -ENOSPC;
	}
	return 0;
}

/* The first line: the run about to start. */
static void load_print_setup(const struct load_args *a)
{
	kprintf("timerload: seed %u, %u %s timers on CPU %u, periods %u..%u ms, class ", a->seed, a->n,
	        a->wheel ? "wheel" : "hr", a->cpu, a->lo, a->hi);
	print_class(a->cls, a->pct);
	kprintf(", %u s, piggyback %s\n", a->secs, timer_piggyback ? "on" : "off");
}

/* Arm the N timers, their periods and phases drawn from the seed. */
static void load_arm_all(const struct load_args *a, uint64_t t0)
{
	uint32_t rnd = a->seed;
	for (unsigned i = 0; i < a->n; i++) {
		/* First expiry one to two periods out (a random phase), its
		 * window the class's for a timer armed one period ahead. */
		uint32_t period_ms = random_ms(&rnd, a->lo, a->hi);
		load_arm(&load.timer[i], a->wheel, a->cpu, period_ms, random_ms(&rnd, 0, period_ms),
		         a->cls, a->pct, t0);
	}
}

static void load_disarm_all(const struct load_args *a)
{
	for (unsigned i = 0; i < a->n; i++)
		if (a->wheel)
			timer_del_sync(&load.timer[i].w);
		else
			hrtimer_cancel(&load.timer[i].t);
}

/* "timerload: slack used (% of window: expiries) 0-9:N ... 90-100:N" */
static void print_slack_used(const struct load_result *r)
{
	kprintf("timerload: slack used (%% of window: expiries)");
	for (unsigned d = 0; d < 10; d++) {
		uint64_t c = 0;
		for (unsigned p = d * 10; p < d * 10 + 10; p++)
			c += r->used[p];
		if (d == 9)
			c += r->used[100];
		kprintf(" %u-%u:%llu", d * 10, d == 9 ? 100 : d * 10 + 9, (unsigned long long)c);
	}
	kprintf("\n");
}

/* The verdict: the CPU's wakeups in the run (before to after, over span
 * ns) against the optimum, the expiries' checks (r, whose worst_late is
 * in units of unit_ns), the wakeups by cause, and how much of its window
 * each expiry used. */
static void load_report(const struct load_args *a, const struct load_result *r, unsigned optimum,
                        const struct wakeup_stats *before, const struct wakeup_stats *after,
                        uint64_t span, uint64_t unit_ns)
{
	uint64_t w = after->wakeups - before->wakeups;
	char num[FMT_FIXED_SIZE];
	kprintf("timerload: %u timers, %u fired, %llu wakeups (%s/s), optimum", a->n, r->fired,
	        (unsigned long long)w, fmt_fixed(num, sizeof(num), wakeups_rate_centi(w, span), 2));
	char ratio[FMT_FIXED_SIZE];
	kprintf(" %u (ratio %s), early %u, past hard %u, worst late %llu us, slack used ",
	        optimum, fmt_fixed(ratio, sizeof(ratio), optimum ? w * 100 / optimum : 0, 2),
	        r->early, r->past_hard, (unsigned long long)(r->worst_late * unit_ns / NSEC_PER_USEC));
	bool clipped;
	if (r->used_n)
		kprintf("%u%% median\n", hist_percentile(r->used, 100, r->used_n, 50, &clipped));
	else
		kprintf("- (no window)\n");
	kprintf("timerload: wakeups by cause: timers %llu, other %llu; worst interrupt latency %llu us\n",
	        (unsigned long long)(timer_wakeups(after) - timer_wakeups(before)),
	        (unsigned long long)(w - (timer_wakeups(after) - timer_wakeups(before))),
	        (unsigned long long)(r->worst_irq_late / NSEC_PER_USEC));
	if (r->used_n)
		print_slack_used(r);
	if (load.full)
		kprintf("error: timerload: more than %u expiries; only the first were judged\n",
		        TIMERLOAD_MAX_EXPIRIES);
}

/* timerload N MIN_MS MAX_MS SECONDS [CLASS] [wheel] [cpu=C] [seed=S]:
 * parse, check there is room, arm, idle, disarm, judge, report. */
int cmd_timerload(int argc, char **argv)
{
	struct load_args a;
	if (load_parse(argc, argv, &a) != 0)
		return SHELL_USAGE;
	int rc = load_check_room(&a);
	if (rc)
		return rc;
	struct tick_cpu *tc = this_tick();
	/* Wheel timers run on the tick boundary at or after their jiffy. */
	uint64_t unit_ns = a.wheel ? tc->period_ns : 1;
	uint64_t allowance = a.wheel ? 1 : TIMERLOAD_RUN_NS +
	                     (tc->mode == TICK_MODE_TICKLESS ? 0 : tc->period_ns);
	load_print_setup(&a);

	static struct wakeup_stats before, after;
	load.n = 0;
	load.full = false;
	uint64_t t0 = ktime_get_ns();
	wakeups_snapshot(a.cpu, t0, &before);
	load_arm_all(&a, t0);
	rc = wait_ns((uint64_t)a.secs * NSEC_PER_SEC);
	load_disarm_all(&a);
	uint64_t t1 = ktime_get_ns(), span = t1 - t0;
	wakeups_snapshot(a.cpu, t1, &after);
	if (rc != 0) {
		if (rc == -EINTR)
			kprintf("timerload: interrupted\n");
		return shell_sleep_error("timerload", rc);
	}
	unsigned recorded = load.n < TIMERLOAD_MAX_EXPIRIES ? load.n : TIMERLOAD_MAX_EXPIRIES;
	static struct load_result r;
	judge(recorded, allowance, &r);
	load_report(&a, &r, optimum_wakeups(load.win, recorded), &before, &after, span, unit_ns);
	return 0;
}
