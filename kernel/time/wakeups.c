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
 * Causes are charged for the boot CPU only: the `idle` and `wakeups`
 * commands run there, and these counters are its own (no lock).  The other
 * CPUs count their wakeups in their struct cpu (`cpus`), and their tick
 * events go to the trace with their CPU number.
 */
#include "kstring.h"
#include "time/arch.h"
#include "time/trace.h"
#include "time/wakeups.h"

struct wakeup_stats wakeup_stats;

static struct {
	bool active;
	uint64_t enter_ns;
	bool tick_fired;
	bool have_irq;
	unsigned first_vector;
	bool skipping;
	enum tick_limit limit;
	const char *name;
} cur;

static const char *const kind_names[] = {
	[WAKE_TICK] = "tick", [WAKE_TIMER] = "timer", [WAKE_HRTIMER] = "hrtimer",
	[WAKE_LIMIT_DEVICE] = "limit: device max", [WAKE_LIMIT_WRAP] = "limit: clocksource wrap",
	[WAKE_IRQ] = "irq", [WAKE_NONE] = "none",
};

const char *wakeup_kind_name(enum wakeup_kind kind) { return kind_names[kind]; }

void wakeups_window_start(void)
{
	wakeup_stats.window_max_sleep_ns = 0;
}

void wakeups_reset(uint64_t now)
{
	memset(&wakeup_stats, 0, sizeof(wakeup_stats));
	wakeup_stats.since_ns = now;
}

void wakeups_idle_enter(uint64_t now)
{
	if (arch_this_cpu_id() != 0)
		return;
	cur.active = true;
	cur.enter_ns = now;
	cur.tick_fired = cur.have_irq = cur.skipping = false;
	cur.name = NULL;
}

void wakeups_note_irq(unsigned vector)
{
	if (arch_this_cpu_id() != 0)
		return;
	if (cur.active && !cur.have_irq) {
		cur.have_irq = true;
		cur.first_vector = vector;
	}
}

void wakeups_note_tick_event(void)
{
	if (arch_this_cpu_id() != 0)
		return;
	if (cur.active)
		cur.tick_fired = true;
}

void wakeups_note_skip(enum tick_limit limit, const char *name, uint64_t len_ns)
{
	if (arch_this_cpu_id() != 0)
		return;
	(void)len_ns;
	cur.skipping = true;
	cur.limit = limit;
	cur.name = name;
	wakeup_stats.skips_by_limit[limit]++;
}

static void charge(enum wakeup_kind kind, const char *name, unsigned vector)
{
	struct wakeup_stats *s = &wakeup_stats;
	for (unsigned i = 0; i < s->ncauses; i++) {
		struct wakeup_cause *c = &s->causes[i];
		if (c->kind == kind && c->vector == vector &&
		    (c->name == name || (c->name && name && strcmp(c->name, name) == 0))) {
			c->count++;
			return;
		}
	}
	if (s->ncauses == WAKEUP_CAUSES_MAX) {
		s->other++;
		return;
	}
	s->causes[s->ncauses++] = (struct wakeup_cause){ kind, name, vector, 1 };
}

static enum wakeup_kind kind_of_limit(enum tick_limit l)
{
	switch (l) {
	case TICK_LIMIT_TIMER:   return WAKE_TIMER;
	case TICK_LIMIT_HRTIMER: return WAKE_HRTIMER;
	case TICK_LIMIT_DEVICE:  return WAKE_LIMIT_DEVICE;
	case TICK_LIMIT_WRAP:    return WAKE_LIMIT_WRAP;
	default:                 return WAKE_TICK;
	}
}

void wakeups_idle_exit(uint64_t now)
{
	if (arch_this_cpu_id() != 0)
		return;
	struct wakeup_stats *s = &wakeup_stats;
	if (!cur.active)
		return;
	cur.active = false;
	uint64_t slept = now > cur.enter_ns ? now - cur.enter_ns : 0;
	s->idle_ns += slept;
	if (!cur.tick_fired && !cur.have_irq)
		return;                 /* woke for no interrupt (one was pending) */
	s->wakeups++;
	if (slept > s->max_sleep_ns)
		s->max_sleep_ns = slept;
	if (slept > s->window_max_sleep_ns)
		s->window_max_sleep_ns = slept;
	enum wakeup_kind kind;
	const char *name = NULL;
	if (cur.tick_fired && cur.skipping) {
		kind = kind_of_limit(cur.limit);
		name = cur.name;
	} else {
		kind = cur.tick_fired ? WAKE_TICK : WAKE_IRQ;
	}
	unsigned vector = kind == WAKE_IRQ ? cur.first_vector : 0;
	charge(kind, name, vector);
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

void wakeups_snapshot(struct wakeup_stats *out)
{
	unsigned long f = arch_irq_save();
	*out = wakeup_stats;
	arch_irq_restore(f);
	/* Insertion sort, most frequent first: at most 32 entries. */
	for (unsigned i = 1; i < out->ncauses; i++) {
		struct wakeup_cause c = out->causes[i];
		unsigned j = i;
		while (j > 0 && out->causes[j - 1].count < c.count) {
			out->causes[j] = out->causes[j - 1];
			j--;
		}
		out->causes[j] = c;
	}
}
