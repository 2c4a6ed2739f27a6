/* kernel/time/wakeups.c — charging each wakeup to one cause.
 *
 * While the CPU is idle, tick.c reports what happens: the first interrupt
 * vector to arrive, whether the tick device fired, and what chose the length
 * of the sleep.  At idle exit the wakeup is charged to exactly one cause:
 *   - the tick device fired during a skip: what chose the skip's length
 *     (a named timer or hrtimer, or a limit: device maximum, clocksource wrap);
 *   - the tick device fired while ticking: "tick";
 *   - otherwise: the interrupt line that arrived first.
 *
 * Each CPU charges its own wakeups, in its struct wakeup_cpu: only that
 * CPU writes it, with interrupts off, and it holds the CPU's lock while it
 * does, so the shell on another CPU can copy or reset it whole (64-bit
 * counts on the i386 are two stores).
 */
#include "kstring.h"
#include "time/percpu.h"
#include "time/arch.h"
#include "time/trace.h"
#include "time/wakeups.h"

static struct wakeup_cpu *this_wakeups(void) { return time_wakeups_of(arch_this_cpu_id()); }

static const char *const kind_names[] = {
	[WAKE_TICK] = "tick", [WAKE_TIMER] = "timer", [WAKE_HRTIMER] = "hrtimer",
	[WAKE_LIMIT_DEVICE] = "limit: device max", [WAKE_LIMIT_WRAP] = "limit: clocksource wrap",
	[WAKE_LIMIT_WATCHDOG] = "limit: watchdog",
	[WAKE_IRQ] = "irq", [WAKE_NONE] = "none",
};

const char *wakeup_kind_name(enum wakeup_kind kind) { return kind_names[kind]; }

void wakeups_window_start(uint64_t now)
{
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		struct wakeup_cpu *w = time_wakeups_of(cpu);
		unsigned long f = spin_lock_irqsave(&w->lock);
		w->stats.window_max_sleep_ns = 0;
		w->window_start_ns = now;
		spin_unlock_irqrestore(&w->lock, f);
	}
}

/* Another CPU is asleep while the shell resets: its sleep in progress
 * counts from the reset on. */
void wakeups_reset(uint64_t now)
{
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		struct wakeup_cpu *w = time_wakeups_of(cpu);
		unsigned long f = spin_lock_irqsave(&w->lock);
		memset(&w->stats, 0, sizeof(w->stats));
		w->stats.since_ns = now;
		if (w->cur.active && w->cur.enter_ns < now)
			w->cur.enter_ns = now;
		spin_unlock_irqrestore(&w->lock, f);
	}
}

void wakeups_idle_enter(uint64_t now)
{
	struct wakeup_cpu *w = this_wakeups();
	spin_lock(&w->lock);
	w->cur.active = true;
	w->cur.enter_ns = now;
	w->cur.enter_cycles = arch_cycles();
	w->cur.tick_fired = w->cur.have_irq = w->cur.skipping = false;
	w->cur.name = NULL;
	spin_unlock(&w->lock);
}

/* (The sleep in progress is this CPU's alone: no lock.) */
void wakeups_note_irq(unsigned vector)
{
	struct wakeup_cpu *w = this_wakeups();
	if (w->cur.active && !w->cur.have_irq) {
		w->cur.have_irq = true;
		w->cur.first_vector = vector;
	}
}

void wakeups_note_tick_event(void)
{
	struct wakeup_cpu *w = this_wakeups();
	if (w->cur.active)
		w->cur.tick_fired = true;
}

void wakeups_note_skip(enum skip_mode mode, enum tick_limit limit, const char *name)
{
	struct wakeup_cpu *w = this_wakeups();
	spin_lock(&w->lock);
	w->cur.skipping = true;
	w->cur.limit = limit;
	w->cur.name = name;
	w->stats.skips_by_limit[limit]++;
	w->stats.by_mode[mode].skips++;
	spin_unlock(&w->lock);
}

void wakeups_note_catchup(enum skip_mode mode, uint32_t ticks_slept)
{
	struct wakeup_cpu *w = this_wakeups();
	struct skip_counts *k = &w->stats.by_mode[mode];
	spin_lock(&w->lock);
	k->catchups++;
	k->ticks_skipped += ticks_slept;
	k->longest_skip = MAX(k->longest_skip, (uint64_t)ticks_slept);
	spin_unlock(&w->lock);
}

static bool same_cause(const struct wakeup_cause *c, enum wakeup_kind kind, const char *name,
                       unsigned vector)
{
	return c->kind == kind && c->vector == vector &&
	       (c->name == name || (c->name && name && strcmp(c->name, name) == 0));
}

static void charge(struct wakeup_stats *s, enum wakeup_kind kind, const char *name,
                   unsigned vector, uint64_t count)
{
	for (unsigned i = 0; i < s->ncauses; i++) {
		if (same_cause(&s->causes[i], kind, name, vector)) {
			s->causes[i].count += count;
			return;
		}
	}
	if (s->ncauses == WAKEUP_CAUSES_MAX) {
		s->other += count;
		return;
	}
	s->causes[s->ncauses++] = (struct wakeup_cause){ kind, name, vector, count };
}

static enum wakeup_kind kind_of_limit(enum tick_limit l)
{
	switch (l) {
	case TICK_LIMIT_TIMER:   return WAKE_TIMER;
	case TICK_LIMIT_HRTIMER: return WAKE_HRTIMER;
	case TICK_LIMIT_DEVICE:  return WAKE_LIMIT_DEVICE;
	case TICK_LIMIT_WRAP:    return WAKE_LIMIT_WRAP;
	case TICK_LIMIT_WATCHDOG: return WAKE_LIMIT_WATCHDOG;
	default:                 return WAKE_TICK;
	}
}

bool wakeups_idle_abandon(void)
{
	struct wakeup_cpu *w = this_wakeups();
	spin_lock(&w->lock);
	bool abandon = w->cur.active && (w->cur.tick_fired || w->cur.have_irq);
	if (abandon) {
		w->cur.active = false;
		w->stats.abandoned++;
	}
	spin_unlock(&w->lock);
	return abandon;
}

void wakeups_idle_exit(uint64_t now)
{
	struct wakeup_cpu *w = this_wakeups();
	struct wakeup_stats *s = &w->stats;
	if (!w->cur.active)
		return;
	spin_lock(&w->lock);
	w->cur.active = false;
	uint64_t slept = now > w->cur.enter_ns ? now - w->cur.enter_ns : 0;
	s->idle_ns += slept;
	uint64_t halt = arch_halt_cycles();
	if (w->cur.enter_cycles) {
		uint64_t cycles = arch_cycles() - w->cur.enter_cycles;
		s->idle_cycles += cycles;
		s->halted_cycles += MIN(halt, cycles);
	}
	if (!w->cur.tick_fired && !w->cur.have_irq) {
		spin_unlock(&w->lock);
		return;                 /* woke for no interrupt (one was pending) */
	}
	s->wakeups++;
	if (slept > s->max_sleep_ns)
		s->max_sleep_ns = slept;
	uint64_t from = MAX(w->cur.enter_ns, w->window_start_ns);
	if (now > from && now - from > s->window_max_sleep_ns)
		s->window_max_sleep_ns = now - from;        /* the window's part of it */
	enum wakeup_kind kind;
	const char *name = NULL;
	if (w->cur.tick_fired && w->cur.skipping) {
		kind = kind_of_limit(w->cur.limit);
		name = w->cur.name;
	} else {
		kind = w->cur.tick_fired ? WAKE_TICK : WAKE_IRQ;
	}
	unsigned vector = kind == WAKE_IRQ ? w->cur.first_vector : 0;
	charge(s, kind, name, vector, 1);
	spin_unlock(&w->lock);
	if (trace_on()) {
		struct trace_event e = { .t_ns = now, .kind = TRACE_IDLE_EXIT, .cause = kind,
		                         .vector = (uint16_t)vector, .name = name };
		trace_add(&e);
	}
}

/* floor(a * b / c), exact for any 64-bit a and b and c > 0; UINT64_MAX if
 * the quotient needs more than 64 bits.  The product needs up to 128 bits,
 * which i386 has no type for, so it is built in two 64-bit halves from four
 * 32x32-bit products, then divided one bit at a time (long division in
 * base 2).  Slow, but only the shell's printing calls it. */
static uint64_t mul_div_u64(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
	uint64_t ll = a_lo * b_lo, hl = a_hi * b_lo, lh = a_lo * b_hi, hh = a_hi * b_hi;
	/* The middle 32-bit column and its carry: under 2^34, no overflow. */
	uint64_t mid = (ll >> 32) + (uint32_t)hl + (uint32_t)lh;
	uint64_t lo = (mid << 32) | (uint32_t)ll;
	uint64_t hi = hh + (hl >> 32) + (lh >> 32) + (mid >> 32);
	if (hi >= c)
		return UINT64_MAX;              /* the quotient is 2^64 or more */
	/* The remainder starts as hi (< c) and stays below c after each step;
	 * before a step's subtraction it is below 2c, which may need a 65th
	 * bit: `carry` is that bit, and the 64-bit subtraction wraps to the
	 * right answer. */
	uint64_t q = 0, r = hi;
	for (int i = 63; i >= 0; i--) {
		bool carry = r >> 63;
		r = (r << 1) | ((lo >> i) & 1);
		q <<= 1;
		if (carry || r >= c) {
			r -= c;
			q |= 1;
		}
	}
	return q;
}

uint64_t wakeups_rate_centi(uint64_t count, uint64_t span_ns)
{
	return span_ns ? mul_div_u64(count, 100 * NSEC_PER_SEC, span_ns) : 0;
}

/* Add one CPU's counts to a sum. */
static void add_stats(struct wakeup_stats *sum, const struct wakeup_stats *s)
{
	sum->wakeups += s->wakeups;
	sum->idle_ns += s->idle_ns;
	sum->halted_ns += s->halted_ns;
	sum->other += s->other;
	sum->abandoned += s->abandoned;
	sum->asleep += s->asleep;
	if (s->max_sleep_ns > sum->max_sleep_ns)
		sum->max_sleep_ns = s->max_sleep_ns;
	if (s->window_max_sleep_ns > sum->window_max_sleep_ns)
		sum->window_max_sleep_ns = s->window_max_sleep_ns;
	for (unsigned l = 0; l < TICK_LIMIT_COUNT; l++)
		sum->skips_by_limit[l] += s->skips_by_limit[l];
	for (unsigned m = 0; m < SKIP_MODES; m++) {
		sum->by_mode[m].skips += s->by_mode[m].skips;
		sum->by_mode[m].ticks_skipped += s->by_mode[m].ticks_skipped;
		sum->by_mode[m].catchups += s->by_mode[m].catchups;
		sum->by_mode[m].longest_skip = MAX(sum->by_mode[m].longest_skip, s->by_mode[m].longest_skip);
	}
	for (unsigned i = 0; i < s->ncauses; i++)
		charge(sum, s->causes[i].kind, s->causes[i].name, s->causes[i].vector,
		       s->causes[i].count);
}

/* Most frequent first (insertion sort: at most 32 entries). */
static void sort_causes(struct wakeup_stats *s)
{
	for (unsigned i = 1; i < s->ncauses; i++) {
		struct wakeup_cause c = s->causes[i];
		unsigned j = i;
		while (j > 0 && s->causes[j - 1].count < c.count) {
			s->causes[j] = s->causes[j - 1];
			j--;
		}
		s->causes[j] = c;
	}
}

/* CPU `cpu`'s counts at `now`, its sleep in progress counted so far. */
static void copy_cpu(unsigned cpu, uint64_t now, struct wakeup_stats *out)
{
	struct wakeup_cpu *w = time_wakeups_of(cpu);
	unsigned long f = spin_lock_irqsave(&w->lock);
	*out = w->stats;
	/* The halts' share of the idle time, by the cycle counter. */
	out->halted_ns = out->idle_cycles ?
		mul_div_u64(out->idle_ns, out->halted_cycles, out->idle_cycles) : out->idle_ns;
	if (w->cur.active && now > w->cur.enter_ns) {
		uint64_t so_far = now - w->cur.enter_ns;
		out->idle_ns += so_far;
		out->halted_ns += so_far;       /* asleep now: halted, as far as anyone can see */
		out->max_sleep_ns = MAX(out->max_sleep_ns, so_far);
		uint64_t from = MAX(w->cur.enter_ns, w->window_start_ns);
		if (now > from)
			out->window_max_sleep_ns = MAX(out->window_max_sleep_ns, now - from);
		out->asleep = 1;
	}
	spin_unlock_irqrestore(&w->lock, f);
}

void wakeups_snapshot_each(uint64_t now, struct wakeup_stats *sum, struct wakeup_stats *each)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned c = 0; c < arch_nr_cpus(); c++) {
		copy_cpu(c, now, &each[c]);
		add_stats(sum, &each[c]);
		sort_causes(&each[c]);
	}
	sum->since_ns = each[0].since_ns;
	sort_causes(sum);
}

void wakeups_snapshot(unsigned cpu, uint64_t now, struct wakeup_stats *out)
{
	copy_cpu(cpu, now, out);
	sort_causes(out);
}
