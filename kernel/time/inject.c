/* kernel/time/inject.c — a clocksource that lies on purpose
 * (include/time/inject.h).
 *
 * A faulty counter's read op is replaced by faulty_read(), which calls the
 * driver's own read and bends the result:
 *
 *     value = stalled ? frozen
 *           : raw + offset + (raw - skew_from) * ppm / 10^6      (mod width)
 *
 * A step adds to offset; a skew starts counting extra cycles from the
 * moment it is set (earlier extra cycles are folded into offset, so a
 * second skew does not move the count); a stall freezes what the counter
 * shows now.  The state changes under fault_lock, which every read of a
 * faulty counter takes too: a CPU never sees half of a 64-bit offset.
 */
#include "errno.h"
#include "spinlock.h"
#include "time/arch.h"
#include "time/inject.h"

#define FAULTS_MAX 4            /* counters with a fault at once */

struct fault {
	struct clocksource *cs;     /* NULL: slot free */
	uint64_t (*read)(struct clocksource *cs);   /* the driver's own */
	uint64_t offset;            /* cycles added (mod 2^64) */
	uint64_t skew_from;         /* raw count when the skew was set */
	int32_t ppm;
	bool stalled;
	uint64_t frozen;            /* what a stalled counter shows */
};

static spinlock_t fault_lock = SPINLOCK_INIT;
static struct fault faults[FAULTS_MAX];

/* The extra cycles a skew added since skew_from (signed, mod 2^64). */
static uint64_t skew_cycles(const struct fault *f, uint64_t raw)
{
	uint64_t since = (raw - f->skew_from) & f->cs->mask;
	uint64_t mag = since / PARTS_PER_MILLION * (uint64_t)(f->ppm < 0 ? -f->ppm : f->ppm) +
	               since % PARTS_PER_MILLION * (uint64_t)(f->ppm < 0 ? -f->ppm : f->ppm) /
	               PARTS_PER_MILLION;
	return f->ppm < 0 ? -mag : mag;
}

static uint64_t bent(const struct fault *f, uint64_t raw)
{
	if (f->stalled)
		return f->frozen;
	return (raw + f->offset + skew_cycles(f, raw)) & f->cs->mask;
}

static struct fault *fault_of(struct clocksource *cs)
{
	for (unsigned i = 0; i < FAULTS_MAX; i++)
		if (faults[i].cs == cs)
			return &faults[i];
	return NULL;
}

static uint64_t faulty_read(struct clocksource *cs)
{
	unsigned long flags = spin_lock_irqsave(&fault_lock);
	struct fault *f = fault_of(cs);
	uint64_t v = f ? bent(f, f->read(cs) & cs->mask) : 0;
	spin_unlock_irqrestore(&fault_lock, flags);
	return v;
}

/* The fault slot of `cs`, taken if it had none.  fault_lock held. */
static struct fault *fault_get(struct clocksource *cs)
{
	struct fault *f = fault_of(cs);
	if (f)
		return f;
	if (!(f = fault_of(NULL)))
		return NULL;
	*f = (struct fault){ .cs = cs, .read = cs->read };
	f->skew_from = f->read(cs) & cs->mask;
	cs->read = faulty_read;
	return f;
}

/* Fold what the skew added so far into the offset and restart it at the
 * current count: the count does not move when the skew changes. */
static void fold_skew(struct fault *f)
{
	uint64_t raw = f->read(f->cs) & f->cs->mask;
	f->offset += skew_cycles(f, raw);
	f->skew_from = raw;
}

int inject_clocksource_step(struct clocksource *cs, int64_t delta_ns)
{
	unsigned long flags = spin_lock_irqsave(&fault_lock);
	struct fault *f = fault_get(cs);
	if (f) {
		uint64_t c = clocksource_ns_to_cycles((uint64_t)(delta_ns < 0 ? -delta_ns : delta_ns), cs->freq_hz);
		f->offset += delta_ns < 0 ? -c : c;
	}
	spin_unlock_irqrestore(&fault_lock, flags);
	return f ? 0 : -ENOSPC;
}

int inject_clocksource_stall(struct clocksource *cs)
{
	unsigned long flags = spin_lock_irqsave(&fault_lock);
	struct fault *f = fault_get(cs);
	if (f && !f->stalled) {
		f->frozen = bent(f, f->read(cs) & cs->mask);
		f->stalled = true;
	}
	spin_unlock_irqrestore(&fault_lock, flags);
	return f ? 0 : -ENOSPC;
}

int inject_clocksource_skew(struct clocksource *cs, int32_t ppm)
{
	if (cs->mask != UINT64_MAX)
		return -EINVAL;
	unsigned long flags = spin_lock_irqsave(&fault_lock);
	struct fault *f = fault_get(cs);
	if (f) {
		fold_skew(f);
		f->ppm = ppm;
	}
	spin_unlock_irqrestore(&fault_lock, flags);
	return f ? 0 : -ENOSPC;
}

void inject_clocksource_clear(void)
{
	unsigned long flags = spin_lock_irqsave(&fault_lock);
	for (unsigned i = 0; i < FAULTS_MAX; i++) {
		if (faults[i].cs) {
			faults[i].cs->read = faults[i].read;
			faults[i].cs = NULL;
		}
	}
	spin_unlock_irqrestore(&fault_lock, flags);
}
