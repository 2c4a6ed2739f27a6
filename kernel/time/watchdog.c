/* kernel/time/watchdog.c — the clocksource watchdog (include/time/watchdog.h).
 *
 * One check compares each watched counter C with the reference R over the
 * interval since C's previous check:
 *
 *     read R, read C, read R          (a bracket: C was read in between)
 *     ref_ns = R's cycles since C's last bracket, converted
 *     skew   = C's cycles since its last bracket, less what ref_ns
 *              predicts at C's rate, converted to ns
 *
 * A bracket wider than WATCHDOG_MAX_READ_NS means something stalled us
 * between the reads (a host that deschedules the emulator, an SMI): the
 * reads are tried again, and after WATCHDOG_READ_TRIES slow ones the check
 * is skipped, never judged.  A counter is condemned only when its skew
 * exceeds what the two counters' claimed precision and the brackets'
 * widths can explain (watchdog_allowance).
 *
 * Wraps.  R must not wrap twice between two checks, so while R is a narrow
 * counter the idle path wakes at least every R's max_idle_ns (half its
 * wrap) since the last check: watchdog_max_idle_ns.  C may be narrow
 * too (the PM timer watched against the HPET, across a minute of tickless
 * sleep): its delta is taken modulo its width, against the count that
 * ref_ns predicts, so any skew smaller than half C's wrap (2.3 s for the PM
 * timer) is measured right however often C wrapped.
 *
 * Who is the reference.  The best usable continuous counter other than the
 * one timekeeping reads, in this order: one whose rate is its own (a spec
 * value or a register, not measured against another counter: the HPET, the
 * PM timer; a TSC calibrated against the HPET agrees with it by
 * construction and is a poor judge of it), then one that does not wrap in
 * WATCHDOG_NO_WRAP_NS, then the higher rating.  Counters that only count
 * interrupts (the "pit" clocksource: driven_by) are neither watched nor
 * used: they stop when ticks are skipped, which is no fault.
 *
 * Only the boot CPU polls (from its interrupts); the shell may check from
 * any CPU.  Everything runs under wd_lock with interrupts off.
 *
 * Longer than 400 lines, with one job: choosing the reference and
 * checking against it share the state in `wd` under wd_lock, and a new
 * reference takes every counter's first bracket at once
 * (reselect_locked), so the file stays whole.
 */
#include "cmdline.h"
#include "errno.h"
#include "kprintf.h"
#include "kstring.h"
#include "spinlock.h"
#include "time/arch.h"
#include "time/clocksource.h"
#include "time/timekeeping.h"
#include "time/watchdog.h"

/* How often to check at most: once a second, on an interrupt that comes
 * anyway.  Linux checks every 0.5 s from a timer of its own. */
#define WATCHDOG_INTERVAL_NS    NSEC_PER_SEC
/* The rate disagreement allowed beyond the precision each counter claims
 * (rate_spread_ppm).  Measured under QEMU TCG: counter pairs agree within
 * 140 ppm over 50 ms windows (the `selftest` boot option prints each
 * pair: kernel/selftest_agree.c), and within a few ppm over seconds once
 * the TSC is refined (`watchdog` prints each counter's last and worst
 * skew).  200 ppm detects a counter 500 ppm off in one check of a second
 * (500 us against 250 us allowed). */
#define WATCHDOG_MAX_PPM        200
/* Plus a fixed allowance for what the brackets cannot see (the few
 * instructions between the reads, the conversions' rounding). */
#define WATCHDOG_MARGIN_NS      (50 * NSEC_PER_USEC)
/* A bracket wider than this, and the reads are tried again. */
#define WATCHDOG_MAX_READ_NS    (100 * NSEC_PER_USEC)
#define WATCHDOG_READ_TRIES     3
/* A reference that takes longer than this to wrap (an hour) never needs
 * a wakeup of its own: some interrupt always comes before. */
#define WATCHDOG_NO_WRAP_NS     (3600ull * NSEC_PER_SEC)
/* The largest rate error a check must still measure right when the
 * reference wrapped since the last one (5%): a counter further off than
 * that is broken, not drifting, and a check with less time in it caught
 * it already (busy CPUs are checked every second).  It sets how long a
 * wrapping reference may go unread: half its wrap / 5%, 47 s for the PM
 * timer, instead of the 2.3 s half-wrap a plain difference needs. */
#define WATCHDOG_ALIAS_PPM      50000

static spinlock_t wd_lock = SPINLOCK_INIT;
static struct {
	bool started;
	struct clocksource *ref;
	struct clocksource *cur;        /* timekeeping's counter when ref was picked */
	uint64_t bound_ns;              /* longest time between checks; UINT64_MAX none */
	uint64_t last_check_ns;         /* ktime of the last check */
	uint64_t last_poll_ns;          /* ktime at the last poll */
	uint64_t checks, slow_reads, alarms;
} wd;

static bool never_wraps(const struct clocksource *cs)
{
	return cs->mask / cs->freq_hz >= WATCHDOG_NO_WRAP_NS / NSEC_PER_SEC;
}

/* Does a wrap later than b (64-bit counters: the slower one)? */
static bool wider(const struct clocksource *a, const struct clocksource *b)
{
	return a->mask / a->freq_hz >= b->mask / b->freq_hz;
}


/* Can `cs` take part at all: usable, keeps counting through skips, and
 * counts on its own (not the ticks'). */
static bool watchable(const struct clocksource *cs)
{
	return !(cs->flags & CLOCK_SOURCE_UNSTABLE) && (cs->flags & CLOCK_SOURCE_CONTINUOUS) &&
	       !cs->driven_by;
}

/* Is a better reference than b (NULL: anything is)? */
static bool better_ref(const struct clocksource *a, const struct clocksource *b)
{
	if (!b)
		return true;
	if (!a->rate_ref != !b->rate_ref)
		return !a->rate_ref;
	if (never_wraps(a) != never_wraps(b))
		return never_wraps(a);
	return a->rating > b->rating;
}

static struct clocksource *pick_ref(void)
{
	struct clocksource *cur = clocksource_current(), *best = NULL;
	for (struct clocksource *cs = clocksource_first(); cs; cs = cs->next)
		if (cs != cur && watchable(cs) && better_ref(cs, best))
			best = cs;
	return best;
}

/* How long `c` may go unchecked against the wrapping reference r.  The
 * wider of the two measures the interval and the other's count is taken
 * modulo its width (check_one): a wider c lets r wrap as long as the skew
 * stays under half r's wrap (WATCHDOG_ALIAS_PPM); a wider r must not wrap
 * at all, so half its wrap. */
static uint64_t pair_bound_ns(const struct clocksource *c, const struct clocksource *r)
{
	uint64_t half_wrap = clocksource_cycles_to_ns(r->mask / 2, r->freq_hz);
	return wider(c, r) ? half_wrap / WATCHDOG_ALIAS_PPM * PARTS_PER_MILLION : half_wrap;
}

static bool watchable(const struct clocksource *cs);

static uint64_t bound_for(const struct clocksource *r)
{
	uint64_t bound = UINT64_MAX;
	if (!r || never_wraps(r))
		return bound;
	for (struct clocksource *c = clocksource_first(); c; c = c->next)
		if (c != r && watchable(c))
			bound = MIN(bound, pair_bound_ns(c, r));
	return bound;
}

static void say_case(void)
{
	struct clocksource *r = wd.ref;
	if (!r) {
		kprintf("watchdog: off (no second continuous counter to compare %s with)\n",
		        clocksource_current() ? clocksource_current()->name : "the clocksource");
		return;
	}
	if (wd.bound_ns == UINT64_MAX)
		kprintf("watchdog: against %s, on interrupts that come anyway "
		        "(%s does not wrap: no wakeups of its own)\n", r->name, r->name);
	else
		kprintf("watchdog: against %s, on interrupts that come anyway, "
		        "but at least every %llu ms (%s wraps)\n", r->name,
		        (unsigned long long)(wd.bound_ns / NSEC_PER_MSEC), r->name);
}

/* The counter to condemn, and the words to do it with. */
struct verdict {
	struct clocksource *cs;
	char why[96];
};

/* Forget every counter's last bracket (a new reference starts afresh). */
static void forget_pairs(void)
{
	for (struct clocksource *cs = clocksource_first(); cs; cs = cs->next)
		cs->wd_valid = false;
}

static void check_all_locked(struct verdict *v);

/* A new reference: every counter's first bracket against it is taken at
 * once, so that a fault right after this is measured from here. */
static void reselect_locked(void)
{
	struct clocksource *ref = pick_ref();
	wd.cur = clocksource_current();
	wd.bound_ns = bound_for(ref);
	if (ref == wd.ref)
		return;
	wd.ref = ref;
	forget_pairs();
	if (ref) {
		struct verdict none = { 0 };
		check_all_locked(&none);        /* first brackets only: no verdicts */
	}
}

/* The boot option watchdog=off (default on). */
static bool wd_disabled;
static int watchdog_option(const char *value)
{
	bool on;
	int rc = cmdline_on_off(value, &on);
	if (rc == 0)
		wd_disabled = !on;
	return rc;
}
BOOT_OPTION("watchdog", watchdog_option, "clocksource watchdog: on (default) or off");

void watchdog_start(void)
{
	if (wd_disabled) {
		kprintf("watchdog: off (watchdog=off)\n");
		return;
	}
	unsigned long f = spin_lock_irqsave(&wd_lock);
	wd.started = true;
	wd.ref = NULL;
	reselect_locked();
	wd.last_check_ns = wd.last_poll_ns = ktime_get_ns();
	spin_unlock_irqrestore(&wd_lock, f);
	say_case();
}

/* Timekeeping moved to another counter, or the reference was condemned:
 * pick again (silently: `watchdog` shows the state). */
static bool choice_stale(void)
{
	return clocksource_current() != wd.cur || (wd.ref && !watchable(wd.ref));
}

/* One bracket: R, C, R, narrow enough.  *ref gets R's count at C's read
 * (the middle of the bracket), *width_ns the bracket's width. */
static bool read_bracketed(struct clocksource *c, uint64_t *ref, uint64_t *val, uint64_t *width_ns)
{
	struct clocksource *r = wd.ref;
	for (unsigned t = 0; t < WATCHDOG_READ_TRIES; t++) {
		uint64_t r1 = r->read(r) & r->mask;
		uint64_t v = c->read(c) & c->mask;
		uint64_t r2 = r->read(r) & r->mask;
		uint64_t w = (r2 - r1) & r->mask;
		*width_ns = clocksource_cycles_to_ns(w, r->freq_hz);
		if (*width_ns <= WATCHDOG_MAX_READ_NS) {
			*ref = (r1 + w / 2) & r->mask;
			*val = v;
			return true;
		}
	}
	wd.slow_reads++;
	return false;
}


/* Signed cycles -> ns, saturating. */
static int64_t skew_to_ns(const struct clocksource *c, uint64_t mag, bool negative)
{
	uint64_t ns = mag / c->freq_hz >= (uint64_t)INT64_MAX / NSEC_PER_SEC ? (uint64_t)INT64_MAX :
	              clocksource_cycles_to_ns(mag, c->freq_hz);
	return negative ? -(int64_t)ns : (int64_t)ns;
}

/* a - b, two counts of cs less than half its wrap apart, in ns
 * (negative if a is behind). */
static int64_t mod_diff_ns(const struct clocksource *cs, uint64_t a, uint64_t b)
{
	uint64_t ahead = (a - b) & cs->mask;
	if (ahead <= cs->mask / 2)
		return skew_to_ns(cs, ahead, false);
	return skew_to_ns(cs, (b - a) & cs->mask, true);
}

/* What the two counters' precision and the brackets can explain. */
static uint64_t allowance_ns(const struct clocksource *c, uint64_t ref_ns, uint64_t widths_ns)
{
	uint64_t ppm = WATCHDOG_MAX_PPM + c->rate_spread_ppm + wd.ref->rate_spread_ppm;
	return ref_ns / PARTS_PER_MILLION * ppm + WATCHDOG_MARGIN_NS + widths_ns;
}

/* skew / ref_ns in parts per million, saturating. */
static int64_t ppm_of(int64_t skew, uint64_t ref_ns)
{
	uint64_t mag = (uint64_t)(skew < 0 ? -skew : skew);
	uint64_t us = ref_ns / NSEC_PER_USEC;
	if (us == 0)
		return 0;
	uint64_t ppm = mag < UINT64_MAX / 1000 ? mag * 1000 / us : UINT64_MAX / us;
	if (ppm > INT32_MAX)
		ppm = INT32_MAX;
	return skew < 0 ? -(int64_t)ppm : (int64_t)ppm;
}

/* Check one counter; fills *v if it lies.  The wider of c and the
 * reference says how long it was since c's last bracket, and the other's
 * count is compared with what that predicts, modulo its own width: so a
 * narrow counter can wrap between checks (the PM timer, against the HPET
 * across a minute of sleep, or as the reference of a TSC), as long as the
 * skew stays under half its wrap. */
static void check_one(struct clocksource *c, struct verdict *v)
{
	uint64_t ref, val, width;
	if (!read_bracketed(c, &ref, &val, &width))
		return;
	if (c->wd_valid) {
		struct clocksource *r = wd.ref;
		uint64_t r_cyc = (ref - c->wd_ref_last) & r->mask, c_cyc = (val - c->wd_last) & c->mask;
		uint64_t c_ns = clocksource_cycles_to_ns(c_cyc, c->freq_hz);
		uint64_t r_ns = clocksource_cycles_to_ns(r_cyc, r->freq_hz);
		int64_t skew;           /* positive: c ran fast */
		if (wider(c, r))
			skew = -mod_diff_ns(r, r_cyc, clocksource_ns_to_cycles(c_ns, r->freq_hz) & r->mask);
		else
			skew = mod_diff_ns(c, c_cyc, clocksource_ns_to_cycles(r_ns, c->freq_hz) & c->mask);
		uint64_t interval = MAX(c_ns, r_ns);    /* a stalled c says 0 */
		uint64_t mag = (uint64_t)(skew < 0 ? -skew : skew);
		int64_t ppm = ppm_of(skew, interval);
		c->wd_skew_ns = skew;
		c->wd_ppm = (int32_t)ppm;
		c->wd_interval_ns = interval;
		if (mag > c->wd_worst_ns)
			c->wd_worst_ns = mag;
		if (mag > allowance_ns(c, interval, width + c->wd_width_ns) && !v->cs) {
			v->cs = c;
			ksnprintf(v->why, sizeof(v->why), "watchdog: %+lld us against %s in %llu ms (%+lld ppm)",
			          (long long)(skew / (int64_t)NSEC_PER_USEC), r->name,
			          (unsigned long long)(interval / NSEC_PER_MSEC), (long long)ppm);
		}
	}
	c->wd_valid = true;
	c->wd_last = val;
	c->wd_ref_last = ref;
	c->wd_width_ns = (uint32_t)width;
}

static void check_all_locked(struct verdict *v)
{
	for (struct clocksource *c = clocksource_first(); c; c = c->next)
		if (c != wd.ref && watchable(c))
			check_one(c, v);
	wd.last_check_ns = wd.last_poll_ns = ktime_get_ns();
}

void watchdog_check(void)
{
	struct verdict v = { 0 };
	unsigned long f = spin_lock_irqsave(&wd_lock);
	if (wd.started && choice_stale())
		reselect_locked();
	if (!wd.started || !wd.ref) {
		spin_unlock_irqrestore(&wd_lock, f);
		return;
	}
	wd.checks++;
	check_all_locked(&v);
	if (v.cs)
		wd.alarms++;
	spin_unlock_irqrestore(&wd_lock, f);
	/* Outside the lock: marking it may switch timekeeping (which reads
	 * counters under its own lock); then a new reference is picked. */
	if (v.cs) {
		clocksource_mark_unstable(v.cs, v.why);
		f = spin_lock_irqsave(&wd_lock);
		reselect_locked();
		spin_unlock_irqrestore(&wd_lock, f);
	}
}

void watchdog_poll(void)
{
	if (!READ_ONCE(wd.started))
		return;
	uint64_t now = ktime_get_ns();
	/* Unlocked first look: only the boot CPU polls, and a stale value
	 * only moves a check by one interrupt. */
	bool frozen = now == wd.last_poll_ns;
	wd.last_poll_ns = now;
	if (frozen || now - wd.last_check_ns >= WATCHDOG_INTERVAL_NS || choice_stale())
		watchdog_check();
}

uint64_t watchdog_max_idle_ns(uint64_t now)
{
	uint64_t bound = READ_ONCE(wd.bound_ns);
	if (!READ_ONCE(wd.ref) || bound == UINT64_MAX)
		return UINT64_MAX;
	uint64_t due = wd.last_check_ns + bound;
	return due > now ? due - now : 0;
}

void watchdog_get_status(struct watchdog_status *st)
{
	unsigned long f = spin_lock_irqsave(&wd_lock);
	st->ref = wd.ref;
	st->bound_ns = wd.ref ? wd.bound_ns : UINT64_MAX;
	st->checks = wd.checks;
	st->slow_reads = wd.slow_reads;
	st->alarms = wd.alarms;
	spin_unlock_irqrestore(&wd_lock, f);
}

#ifdef LULL_HOST
/* Host unit tests only (declared in tests/unit/time_test.h): stop, with no
 * reference and every count at 0. */
void watchdog_reset_for_test(void)
{
	wd.started = false;
	wd.ref = wd.cur = NULL;
	wd.checks = wd.slow_reads = wd.alarms = 0;
}
#endif
