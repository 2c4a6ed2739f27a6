/* kernel/time/clockevents.c — devices that interrupt at a time we choose.
 *
 * Drivers give a counting frequency and the smallest and largest count their
 * hardware accepts.  Here we derive the conversion ns -> ticks (mult/shift,
 * with clocks_calc_mult_shift from mult_shift.c), the same limits in ns, and
 * program deadlines: clamp the delta into the limits, convert, and retry if
 * the driver says the deadline slipped by while it was being written.  A
 * device whose rate derives from a clocksource (rate_source) follows that
 * counter when its rate is measured again (clockevents_rate_source_changed).
 *
 * Which device drives the tick is the tick layer's decision
 * (tick_choose_device() in kernel/time/tick.c, first made by tick_init()
 * once every driver is in): we only keep the list.
 *
 * Longer than 400 lines, with one job: registering (with the derivation),
 * following a re-measured rate, programming and delivering events all
 * read and write the same device fields and lists, and programming takes
 * a rate another CPU left, so the parts would call each other across any
 * split.  tests/unit/test_clockevents.c mirrors it.
 */
#include "time/clockevent.h"
#include "spinlock.h"
#include "time/mult_shift.h"
#include "time/timekeeping.h"
#include "time/clocksource.h"
#include "time/arch.h"
#include "errno.h"
#include "kstring.h"

/* Longest delta the conversion must handle without overflow.  Ten minutes,
 * the clocksource limit, is far beyond any device here (a 32-bit HPET
 * comparator at 14.3 MHz reaches 300 s). */
#define CLOCKEVENT_MAX_CONVERT_S  600

/* After -ETIME, retry at min_delta, then 2, 4 and 8 times it.  The backoff
 * covers an emulator that loses a few microseconds to host preemption
 * between our reading of the time and the write of the comparator; a device
 * that still misses is broken, and the caller hears -ETIME. */
#define CLOCKEVENT_ETIME_RETRIES  4

/* Room for a name, terminator included: the preferred name is a copy. */
#define CLOCKEVENT_NAME_MAX       32

static struct clock_event_device *clockevent_list;   /* registration order */
/* The CPUs' own devices (clockevents_add_cpu_device): added by each CPU as
 * it starts, walked by a rate change on another; under the lock. */
static struct clock_event_device *cpu_device_list;
static spinlock_t cpu_device_lock = SPINLOCK_INIT;
static char clockevent_preferred_name[CLOCKEVENT_NAME_MAX];   /* "" = none */

/* Until the tick layer installs its handler, an interrupt does nothing. */
static void clockevents_handle_noop(struct clock_event_device *dev)
{
	UNUSED(dev);
}

/* ticks -> ns, rounded up or down, saturating at UINT64_MAX.
 * From ticks = (ns * mult) >> shift:  ns = (ticks << shift) / mult. */
static uint64_t clockevent_ticks2ns_round(const struct clock_event_device *dev,
                                          uint64_t ticks, bool round_up)
{
	if (ticks > UINT64_MAX >> dev->shift)
		return UINT64_MAX;
	uint64_t scaled = ticks << dev->shift;
	uint64_t ns = scaled / dev->mult;
	if (round_up && ns * dev->mult != scaled)
		ns++;
	return ns;
}

uint64_t clockevent_ticks2ns(const struct clock_event_device *dev, uint64_t ticks)
{
	return clockevent_ticks2ns_round(dev, ticks, false);
}

/* Saturates at UINT64_MAX instead of overflowing. */
uint64_t clockevent_ns2ticks(const struct clock_event_device *dev, uint64_t ns)
{
	if (ns > UINT64_MAX / dev->mult)
		return UINT64_MAX;
	return (ns * dev->mult) >> dev->shift;
}

/* Check what the driver filled in: the features it claims need their ops. */
static bool clockevent_valid(const struct clock_event_device *dev)
{
	if (!dev || !dev->name || dev->freq_hz == 0)
		return false;
	if (!(dev->features & (CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT)))
		return false;
	if ((dev->features & CLOCK_EVT_FEAT_PERIODIC) && !dev->set_periodic)
		return false;
	if ((dev->features & CLOCK_EVT_FEAT_ONESHOT) && (!dev->set_oneshot || !dev->set_next_event))
		return false;
	return dev->min_delta_ticks >= 1 && dev->min_delta_ticks <= dev->max_delta_ticks;
}

/* Names must tell devices apart, and fit the preferred-name copy. */
/* Twin of clocksource_name_ok and clocksource_derive (kernel/time/clocksource.c):
 * two lists of two types, and a conversion the other way round. */
static bool clockevent_name_ok(const struct clock_event_device *dev)
{
	if (strlen(dev->name) >= CLOCKEVENT_NAME_MAX)
		return false;
	for (struct clock_event_device *p = clockevent_list; p; p = p->next)
		if (p == dev || strcmp(p->name, dev->name) == 0)
			return false;
	return true;
}

/* mult/shift and the limits in ns from freq_hz and the limits in ticks.
 * -EINVAL if the rate is too slow or the limits cannot be met. */
static int clockevent_derive(struct clock_event_device *dev)
{
	/* Convert ns -> ticks over the device's whole range (at most ten
	 * minutes): the longest delta we will ever program. */
	uint64_t range_s = dev->max_delta_ticks / dev->freq_hz + 1;
	uint64_t maxsec = MIN(range_s, (uint64_t)CLOCKEVENT_MAX_CONVERT_S);
	clocks_calc_mult_shift(&dev->mult, &dev->shift, NSEC_PER_SEC, dev->freq_hz, maxsec);
	if (dev->mult == 0)
		return -EINVAL;     /* slower than 1 tick in 8.6 s: nothing that slow */

	/* The limits in ns, rounded inwards so that converting them back never
	 * leaves the hardware's range:
	 *   min rounded up:   ns * mult >= min_ticks << shift,
	 *                     so ns2ticks(min_delta_ns) >= min_delta_ticks;
	 *   max rounded down: ns * mult <= max_ticks << shift,
	 *                     so ns2ticks(max_delta_ns) <= max_delta_ticks.
	 * max is also capped where ns * mult would overflow (then
	 * ns * mult <= 2^64 - 1 < max_ticks << shift, so the second line
	 * still holds). */
	uint64_t max_ns = clockevent_ticks2ns_round(dev, dev->max_delta_ticks, false);
	dev->min_delta_ns = clockevent_ticks2ns_round(dev, dev->min_delta_ticks, true);
	dev->max_delta_ns = MIN(max_ns, UINT64_MAX / dev->mult);
	if (dev->min_delta_ns > dev->max_delta_ns)
		return -EINVAL;
	return 0;
}

/* Drivers register from init code, one at a time; interrupts are off only
 * while the list changes. */
int clockevents_register(struct clock_event_device *dev)
{
	if (!clockevent_valid(dev) || !clockevent_name_ok(dev))
		return -EINVAL;

	if (clockevent_derive(dev))
		return -EINVAL;

	dev->event_handler = clockevents_handle_noop;
	dev->state = CLOCK_EVT_STATE_SHUTDOWN;
	dev->next_event_ns = 0;
	dev->events = 0;
	dev->retries = 0;
	dev->next = NULL;
	unsigned long flags = arch_irq_save();
	struct clock_event_device **tail = &clockevent_list;
	while (*tail)
		tail = &(*tail)->next;
	*tail = dev;
	arch_irq_restore(flags);

	kprintf("clockevent: registered %s (rating %d)\n", dev->name, dev->rating);
	return 0;
}

int clockevents_update_freq(struct clock_event_device *dev, uint64_t freq_hz)
{
	if (!dev || freq_hz == 0)
		return -EINVAL;
	unsigned long flags = arch_irq_save();
	struct clock_event_device old = *dev;
	dev->freq_hz = freq_hz;
	int rc = clockevent_derive(dev);
	if (rc)
		*dev = old;
	arch_irq_restore(flags);
	return rc;
}

/* freq_hz * new_hz / old_hz, written as freq_hz + freq_hz * (new - old) / old
 * so that it fits 64 bits: a re-measured rate moves by little (the TSC's
 * refinement refuses more than 1%), and even a 20 GHz device times a 1%
 * step of a 20 GHz source is 4e18, below 2^63.  A step too large for that
 * returns false.  The division truncates toward zero; a device with freq_hz
 * equal to old_hz (one that counts the source itself) lands exactly on
 * new_hz. */
static bool clockevent_scale_rate(uint64_t freq_hz, uint64_t old_hz, uint64_t new_hz,
                                  uint64_t *out)
{
	if (old_hz > INT64_MAX || new_hz > INT64_MAX || freq_hz > INT64_MAX)
		return false;
	int64_t step = (int64_t)new_hz - (int64_t)old_hz;
	uint64_t mag = (uint64_t)(step < 0 ? -step : step);
	if (mag && freq_hz > INT64_MAX / mag)
		return false;
	int64_t moved = (int64_t)freq_hz * step / (int64_t)old_hz;
	if (moved < 0 && (uint64_t)-moved >= freq_hz)
		return false;
	*out = freq_hz + (uint64_t)moved;
	return true;
}

void clockevents_rate_source_changed(struct clocksource *cs, uint64_t old_hz, uint64_t new_hz)
{
	if (!cs || old_hz == 0 || new_hz == 0 || old_hz == new_hz)
		return;
	for (struct clock_event_device *dev = clockevent_list; dev; dev = dev->next) {
		/* No message if a device keeps its old rate: this runs from a
		 * timer while the user may be typing at the shell. */
		uint64_t hz;
		if (dev->rate_source == cs && clockevent_scale_rate(dev->freq_hz, old_hz, new_hz, &hz))
			clockevents_update_freq(dev, hz);
	}
	/* The CPUs' own devices: scaled from the rate they will have taken
	 * (a refinement not yet applied counts), applied by their CPU. */
	unsigned long flags = spin_lock_irqsave(&cpu_device_lock);
	for (struct clock_event_device *dev = cpu_device_list; dev; dev = dev->next) {
		uint64_t hz, from = dev->rate_pending ? dev->pending_freq_hz : dev->freq_hz;
		if (dev->rate_source == cs && clockevent_scale_rate(from, old_hz, new_hz, &hz)) {
			dev->pending_freq_hz = hz;
			__atomic_store_n(&dev->rate_pending, 1, __ATOMIC_RELEASE);
		}
	}
	spin_unlock_irqrestore(&cpu_device_lock, flags);
}

/* On the device's own CPU: take a rate left for it. */
static void clockevent_take_pending_rate(struct clock_event_device *dev)
{
	if (!__atomic_load_n(&dev->rate_pending, __ATOMIC_ACQUIRE))
		return;
	unsigned long flags = spin_lock_irqsave(&cpu_device_lock);
	uint64_t hz = dev->pending_freq_hz;
	dev->rate_pending = 0;
	spin_unlock_irqrestore(&cpu_device_lock, flags);
	clockevents_update_freq(dev, hz);
}

void clockevents_add_cpu_device(struct clock_event_device *dev)
{
	unsigned long flags = spin_lock_irqsave(&cpu_device_lock);
	dev->pending_freq_hz = 0;
	dev->rate_pending = 0;
	dev->next = cpu_device_list;
	cpu_device_list = dev;
	spin_unlock_irqrestore(&cpu_device_lock, flags);
}

struct clock_event_device *clockevents_first(void)
{
	return clockevent_list;
}

struct clock_event_device *clockevents_find(const char *name)
{
	for (struct clock_event_device *dev = clockevent_list; dev; dev = dev->next)
		if (strcmp(dev->name, name) == 0)
			return dev;
	return NULL;
}

/* The earlier registered device wins a tie. */
struct clock_event_device *clockevents_best(uint32_t features)
{
	struct clock_event_device *best = NULL;
	for (struct clock_event_device *dev = clockevent_list; dev; dev = dev->next)
		if ((dev->features & features) == features && (!best || dev->rating > best->rating))
			best = dev;
	return best;
}

int clockevents_set_periodic(struct clock_event_device *dev, unsigned hz)
{
	if (!(dev->features & CLOCK_EVT_FEAT_PERIODIC) || hz == 0)
		return -EINVAL;
	int ret = dev->set_periodic(dev, hz);
	if (ret == 0) {
		dev->state = CLOCK_EVT_STATE_PERIODIC;
		dev->next_event_ns = 0;
	}
	return ret;
}

int clockevents_set_oneshot(struct clock_event_device *dev)
{
	if (!(dev->features & CLOCK_EVT_FEAT_ONESHOT))
		return -EINVAL;
	int ret = dev->set_oneshot(dev);
	if (ret == 0) {
		dev->state = CLOCK_EVT_STATE_ONESHOT;
		dev->next_event_ns = 0;
	}
	return ret;
}

/* A device without a shutdown op cannot be stopped; we only record that it
 * is no longer in use. */
int clockevents_shutdown(struct clock_event_device *dev)
{
	int ret = dev->shutdown ? dev->shutdown(dev) : 0;
	if (ret == 0) {
		dev->state = CLOCK_EVT_STATE_SHUTDOWN;
		dev->next_event_ns = 0;
	}
	return ret;
}

/* Clamp a delta into the device's limits and hand it to the driver.  The
 * count needs no clamp of its own: the ns limits were rounded so that they
 * convert to counts inside [min_delta_ticks, max_delta_ticks], and the
 * conversion never decreases.  clock_ns: the clock read the delta counts
 * from (armed_ns, for the stale-event check). */
static int clockevent_program_delta(struct clock_event_device *dev, uint64_t delta_ns,
                                    uint64_t clock_ns)
{
	delta_ns = MAX(delta_ns, dev->min_delta_ns);
	delta_ns = MIN(delta_ns, dev->max_delta_ns);
	dev->armed_ns = clock_ns;
	dev->fires_ns = dev->armed_ns + delta_ns;
	return dev->set_next_event(dev, clockevent_ns2ticks(dev, delta_ns));
}

int clockevents_program_event(struct clock_event_device *dev,
                              uint64_t expires_ns, uint64_t now_ns)
{
	if (dev->state != CLOCK_EVT_STATE_ONESHOT)
		return -EINVAL;
	/* A CPU's own device takes a rate refined on another CPU here, on
	 * its own CPU, before it converts the delta. */
	clockevent_take_pending_rate(dev);

	/* The delta counts from the clock read here, just before the write,
	 * not from the caller's now_ns alone: a device counts relative to the
	 * moment it is written, and a caller delayed between its clock read
	 * and this write (a lock it waited for, as program_busy_oneshot waits
	 * for the hrtimer heap's; a virtual CPU the host stopped) would arm it
	 * late by that delay.  `stress` on four CPUs under icount saw
	 * milliseconds between the two, and an hrtimer run that late while
	 * its CPU ran (docs/smp.md; Linux reads ktime_get() inside
	 * clockevents_program_event for the same reason).  now_ns stays a
	 * floor: the host tests give the time that way, with no clock behind
	 * ktime_get_ns. */
	uint64_t clock = ktime_get_ns(), now = clock < now_ns ? now_ns : clock;
	/* A deadline already past fires as soon as the device can. */
	uint64_t delta_ns = expires_ns > now ? expires_ns - now : 0;
	dev->next_event_ns = expires_ns;
	int ret = clockevent_program_delta(dev, delta_ns, clock);    /* one read for both */

	/* -ETIME: the count ran out while we were writing it (the delta was
	 * tiny, or we were delayed).  The deadline has passed, so aim for the
	 * earliest the device can do, backing off in case min_delta is too
	 * optimistic on this machine. */
	uint64_t retry_ns = dev->min_delta_ns;
	for (unsigned i = 0; ret == -ETIME && i < CLOCKEVENT_ETIME_RETRIES; i++) {
		dev->retries++;
		ret = clockevent_program_delta(dev, retry_ns, ktime_get_ns());
		retry_ns = retry_ns > dev->max_delta_ns / 2 ? dev->max_delta_ns : retry_ns * 2;
	}
	if (ret != 0)
		dev->next_event_ns = 0;     /* nothing is armed */
	return ret;
}

/* QUIRK: an interrupt from before the device was armed.
 * Symptom: a one-shot event "fires" at once, milliseconds before its
 * deadline (the self-test saw the PIT and HPET fire a 10 ms one-shot
 * almost as soon as it was armed).  Hardware: the 8259A PIC latches an
 * edge in its Interrupt Request Register even while the line is masked;
 * the PIT's channel 0 (left in mode 0 after the firmware's tick was
 * stopped) or an HPET comparator raised IRQ0 long ago, and the latched
 * request is delivered the moment the next user unmasks the line.
 * Workaround: a one-shot event that arrives in the first half of the
 * delay it was programmed for is counted as stale and not passed on; the
 * real one follows.  (Half, not "a little early": a device calibrated a
 * few ppm off fires microseconds early on a long delay, and that event is
 * real; and the deadline is armed again, in case the verdict was wrong.)
 * Reference: Intel 8259A datasheet, "Interrupt Request Register" and
 * edge-triggered mode; Linux handles the same symptom in clockevents by
 * re-checking the expiry in its handlers. */
void clockevents_handle_event(struct clock_event_device *dev)
{
	struct clocksource *cs = clocksource_current();
	bool can_tell = cs && (cs->flags & CLOCK_SOURCE_CONTINUOUS);
	uint64_t now = timekeeping_update();
	dev->event_ns = now;
	if (dev->state == CLOCK_EVT_STATE_ONESHOT && dev->fires_ns && can_tell) {
		uint64_t half = (dev->fires_ns - dev->armed_ns) / 2;
		if (now < dev->armed_ns + half) {
			dev->stale_events++;
			/* Arm the deadline again for what is left of it: the
			 * verdict trusts the clocksource, and one that stands
			 * still (stalled, until the watchdog replaces it) makes
			 * the real event look stale too.  Dropping it would leave
			 * the device unarmed and the CPU asleep for good; this
			 * way a wrong verdict costs one more interrupt. */
			clockevents_program_event(dev, dev->fires_ns, now);
			return;
		}
		dev->fires_ns = 0;
	}
	dev->events++;
	dev->event_handler(dev);
}

void clockevents_set_preferred(const char *name)
{
	if (name == NULL)
		name = "";
	size_t len = strlen(name);
	if (len >= sizeof(clockevent_preferred_name)) {
		kprintf("clockevent: name '%s' too long, ignored\n", name);
		return;
	}
	/* A copy: the boot command line's buffer may not outlive us. */
	memcpy(clockevent_preferred_name, name, len + 1);
}

const char *clockevents_preferred(void)
{
	return clockevent_preferred_name[0] ? clockevent_preferred_name : NULL;
}

#ifdef LULL_HOST
/* Host unit tests only (declared in tests/unit/time_test.h): forget every
 * device and the preferred name. */
void clockevents_reset_for_test(void)
{
	clockevent_list = NULL;
	cpu_device_list = NULL;
	clockevent_preferred_name[0] = '\0';
}
#endif
