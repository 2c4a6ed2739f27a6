/* kernel/time/timekeeping.c — monotonic nanoseconds since boot.
 *
 * We remember one point where counter and time agree: the counter read
 * cycle_last, when the time was base_ns.  Time now is that base plus the
 * cycles counted since, converted:
 *
 *     now_ns = base_ns + cyc2ns((read() - cycle_last) & mask)
 *
 * The subtraction is wrap-safe: masked to the counter's width, it gives the
 * right count across a wrap, as long as the counter wraps at most once
 * between two folds.  timekeeping_update() folds the elapsed cycles into the
 * base often enough to keep it so (the tick, the interrupt that ends a
 * stopped tick, and every idle entry call it; timekeeping_max_idle_ns() says
 * how long is too long).
 *
 * Only kernel/time/clocksource.c calls timekeeping_init() and
 * timekeeping_change_clocksource(), so that its notion of the current
 * counter and ours never differ.
 *
 * Every CPU reads the time, so every access to tk holds tk_lock, with
 * interrupts off (include/spinlock.h): the 64-bit fields are not read
 * atomically on i386, and a fold on one CPU between another's reading of
 * cycle_last and of the counter would move cycle_last past that reading.
 * One lock is the simplest correct choice; Linux lets readers retry
 * instead (a seqcount), which scales to many CPUs reading at once.
 */
#include "spinlock.h"
#include "time/timekeeping.h"
#include "time/arch.h"

static spinlock_t tk_lock = SPINLOCK_INIT;

static struct {
	struct clocksource *cs;
	uint32_t mult, shift;   /* cs's conversion when we started on it, or
	                           last took its rate (see change_clocksource) */
	uint64_t cycle_last;    /* counter at the last fold, masked */
	uint64_t base_ns;       /* time at cycle_last, whole ns ... */
	uint64_t base_frac;     /* ... plus base_frac / 2^shift ns */
	uint64_t last_returned; /* what ktime_get_ns last returned */
} tk;

/* Cycles since the last fold, reading the counter into *now.  A delta
 * above max_cycles cannot happen while the update contract is kept, and
 * converting it would overflow.  On a wide counter (max_cycles below its
 * mask, as for a 64-bit TSC) it means the counter stepped back below
 * cycle_last: an unsynced TSC, a torn read of two 32-bit halves.  Then
 * *stepped_back is set and 0 returned.  A narrow counter, whose max_cycles
 * is its whole mask, cannot tell a step back from a wrap; that is why its
 * driver must hand us monotonic reads. */
static uint64_t tk_cycles_since_fold(uint64_t *now, bool *stepped_back)
{
	struct clocksource *cs = tk.cs;
	*now = cs->read(cs) & cs->mask;
	uint64_t delta = (*now - tk.cycle_last) & cs->mask;
	*stepped_back = delta > cs->max_cycles;
	return *stepped_back ? 0 : delta;
}

/* Move the base up to the counter's current value.
 *
 * Precision: cyc2ns truncates up to 1 ns.  Folding converted whole
 * nanoseconds at every tick would drop up to 1 ns per tick (up to 1 us a
 * second at HZ=1000) and time would run slow.  So we keep the dropped part:
 * base_frac holds the low `shift` bits of the scaled product, in units of
 * 2^-shift ns, and is added back before the next conversion.  Nothing is
 * lost, and the sum stays below 2^64 because max_cycles * mult leaves 1/8
 * of the range spare while base_frac < 2^shift <= 2^32.  Interrupts are off. */
static void tk_fold(void)
{
	uint64_t now;
	bool stepped_back;
	uint64_t delta = tk_cycles_since_fold(&now, &stepped_back);
	if (stepped_back) {
		/* Count from here; ktime_get_ns's clamp holds time still until the
		 * new count passes what was already returned. */
		tk.cycle_last = now;
		return;
	}
	uint64_t scaled = tk.base_frac + delta * tk.mult;
	tk.base_ns += scaled >> tk.shift;
	tk.base_frac = scaled & ((1ull << tk.shift) - 1);
	tk.cycle_last = now;
}

void timekeeping_init(struct clocksource *cs)
{
	if (cs == NULL)
		panic("timekeeping_init: no clocksource");
	unsigned long flags = spin_lock_irqsave(&tk_lock);
	tk.cs = cs;
	tk.mult = cs->mult;
	tk.shift = cs->shift;
	tk.cycle_last = cs->read(cs) & cs->mask;
	tk.base_ns = 0;
	tk.base_frac = 0;
	tk.last_returned = 0;
	spin_unlock_irqrestore(&tk_lock, flags);
}

uint64_t ktime_get_ns(void)
{
	/* Locked, interrupts off: the 64-bit fields are not read atomically on
	 * i386, and a tick (or another CPU) between reading cycle_last and
	 * reading the counter could fold and move cycle_last past our own
	 * reading. */
	unsigned long flags = spin_lock_irqsave(&tk_lock);
	uint64_t ns = 0;
	if (tk.cs) {
		uint64_t now;
		bool stepped_back;
		uint64_t delta = tk_cycles_since_fold(&now, &stepped_back);
		ns = tk.base_ns + ((tk.base_frac + delta * tk.mult) >> tk.shift);
		/* Never go backwards.  The arithmetic alone would not: a counter
		 * that steps back (an unsynced TSC, a torn read of a 64-bit
		 * counter in two halves) yields delta 0 here, which is less than
		 * the delta we returned a moment ago.  Callers subtract times and
		 * would see a huge unsigned interval, so hold time still instead. */
		if (ns < tk.last_returned)
			ns = tk.last_returned;
		tk.last_returned = ns;
	}
	spin_unlock_irqrestore(&tk_lock, flags);
	return ns;
}

uint64_t timekeeping_update(void)
{
	unsigned long flags = spin_lock_irqsave(&tk_lock);
	uint64_t ns = 0;
	if (tk.cs) {
		tk_fold();
		/* Folded up to now: no cycles since, and base_frac is under
		 * 1 ns, so the time is the base (held as ktime_get_ns holds it). */
		ns = MAX(tk.base_ns, tk.last_returned);
		tk.last_returned = ns;
	}
	spin_unlock_irqrestore(&tk_lock, flags);
	return ns;
}

/* With no clocksource there is nothing that could wrap. */
uint64_t timekeeping_max_idle_ns(void)
{
	struct clocksource *cs = READ_ONCE(tk.cs);
	return cs ? cs->max_idle_ns : UINT64_MAX;
}

/* Fold the old counter up to now, then restart on the new one at the same
 * base: time continues without a jump.  The sub-ns remainder is dropped (it
 * is in the old counter's units, and under 1 ns), and the instants between
 * the two reads are lost rather than counted twice.  Called with the
 * current counter, after its rate was re-measured (clocksource_change_rate):
 * the fold counts up to now at the old rate, and from the same reading on
 * the new one applies. */
void timekeeping_change_clocksource(struct clocksource *cs)
{
	if (cs == NULL)
		panic("timekeeping_change_clocksource: no clocksource");
	unsigned long flags = spin_lock_irqsave(&tk_lock);
	if (tk.cs == NULL) {
		spin_unlock_irqrestore(&tk_lock, flags);
		timekeeping_init(cs);
		return;
	}
	tk_fold();
	if (cs != tk.cs) {
		tk.cs = cs;
		tk.cycle_last = cs->read(cs) & cs->mask;
	}
	tk.mult = cs->mult;
	tk.shift = cs->shift;
	tk.base_frac = 0;
	spin_unlock_irqrestore(&tk_lock, flags);
}
