/* kernel/time/inject.c — the seam into devices (include/time/inject.h): a
 * clocksource that lies on purpose, and a clock event device whose
 * interrupt does a test's extra work.
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
#include "time/clockevent.h"
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

/* ------------------------------------------------ clock event followers */

/* Devices followed in one boot: each CPU's tick device, and the boot
 * CPU's others (pit, hpet) if the tick moves between them. */
#define FOLLOWED_MAX 16

/* A slot, once a device's, stays that device's: an event that entered
 * followed_event just before the device got its own handler back still
 * finds its handler here (only `active` changes).  Written before the
 * wrapper is installed and read by it on the device's CPU. */
struct follower {
	struct clock_event_device *dev;     /* NULL: slot free */
	void (*handler)(struct clock_event_device *dev);    /* the tick's own */
	void (*after)(struct clock_event_device *dev);
	bool active;
};

static struct follower followers[FOLLOWED_MAX];

static void followed_event(struct clock_event_device *dev)
{
	for (unsigned i = 0; i < FOLLOWED_MAX; i++) {
		struct follower *f = &followers[i];
		if (__atomic_load_n(&f->dev, __ATOMIC_ACQUIRE) != dev)
			continue;
		f->handler(dev);
		if (__atomic_load_n(&f->active, __ATOMIC_ACQUIRE))
			f->after(dev);
		return;
	}
	panic("inject: a followed clock event device %s has no slot", dev->name);
}

int inject_clockevent_follow(struct clock_event_device *dev,
                             void (*after)(struct clock_event_device *dev))
{
	if (!dev->event_handler || !after)
		return -EINVAL;
	unsigned long flags = spin_lock_irqsave(&fault_lock);
	struct follower *f = NULL;
	for (unsigned i = 0; i < FOLLOWED_MAX && !f; i++)
		if (followers[i].dev == dev || !followers[i].dev)
			f = &followers[i];
	int rc = !f ? -ENOSPC : f->dev && f->active ? -EBUSY : 0;
	if (rc == 0) {
		if (dev->event_handler != followed_event)
			f->handler = dev->event_handler;
		f->after = after;
		__atomic_store_n(&f->active, true, __ATOMIC_RELEASE);
		__atomic_store_n(&f->dev, dev, __ATOMIC_RELEASE);
		__atomic_store_n(&dev->event_handler, followed_event, __ATOMIC_RELEASE);
	}
	spin_unlock_irqrestore(&fault_lock, flags);
	return rc;
}

void inject_clockevent_unfollow_all(void)
{
	unsigned long flags = spin_lock_irqsave(&fault_lock);
	for (unsigned i = 0; i < FOLLOWED_MAX; i++) {
		struct follower *f = &followers[i];
		if (!f->dev || !f->active)
			continue;
		/* A handler the tick installed meanwhile stays. */
		void (*mine)(struct clock_event_device *) = followed_event;
		__atomic_compare_exchange_n(&f->dev->event_handler, &mine, f->handler, false,
		                            __ATOMIC_RELEASE, __ATOMIC_RELAXED);
		__atomic_store_n(&f->active, false, __ATOMIC_RELEASE);
	}
	spin_unlock_irqrestore(&fault_lock, flags);
}

/* ------------------------------------------------ one write overridden */

static struct {
	struct clock_event_device *dev;     /* NULL: none armed */
	int (*set_next_event)(struct clock_event_device *dev, uint64_t ticks);
	uint64_t ticks;
} next_write;

static int overridden_write(struct clock_event_device *dev, uint64_t ticks)
{
	UNUSED(ticks);
	unsigned long flags = spin_lock_irqsave(&fault_lock);
	int (*own)(struct clock_event_device *, uint64_t) = next_write.set_next_event;
	uint64_t forced = next_write.ticks;
	dev->set_next_event = own;      /* one write only */
	next_write.dev = NULL;
	spin_unlock_irqrestore(&fault_lock, flags);
	return own(dev, forced);
}

int inject_clockevent_next_ticks(struct clock_event_device *dev, uint64_t ticks)
{
	unsigned long flags = spin_lock_irqsave(&fault_lock);
	int rc = next_write.dev ? -EBUSY : 0;
	if (rc == 0) {
		next_write.dev = dev;
		next_write.set_next_event = dev->set_next_event;
		next_write.ticks = ticks;
		dev->set_next_event = overridden_write;
	}
	spin_unlock_irqrestore(&fault_lock, flags);
	return rc;
}

/* ------------------------------------------------ one torn raw read */

static struct {
	uint64_t (*read_raw)(struct clocksource *cs);   /* the driver's own */
	unsigned reads, nth;
	uint64_t bits, bad;
} glitch;

static uint64_t glitched_read_raw(struct clocksource *cs)
{
	uint64_t v = glitch.read_raw(cs);
	if (++glitch.reads == glitch.nth) {
		v = (v ^ glitch.bits) & cs->mask;
		glitch.bad = v;
	}
	return v;
}

int inject_clocksource_glitch(struct clocksource *cs, unsigned nth, uint64_t bits,
                              uint64_t *bad, uint64_t *good, unsigned *raw_reads)
{
	if (!cs->read_raw || nth == 0)
		return -EINVAL;
	/* Interrupts off, and no lock: cs->read may itself be a fault's
	 * wrapper, which takes fault_lock.  A read on another CPU in between
	 * would go through the glitch too; the check rejects a torn middle
	 * read wherever it is made. */
	unsigned long flags = arch_irq_save();
	glitch.read_raw = cs->read_raw;
	glitch.reads = 0;
	glitch.nth = nth;
	glitch.bits = bits;
	glitch.bad = 0;
	cs->read_raw = glitched_read_raw;
	*good = cs->read(cs) & cs->mask;
	cs->read_raw = glitch.read_raw;
	*bad = glitch.bad;
	*raw_reads = glitch.reads;
	arch_irq_restore(flags);
	return 0;
}
