/* include/time/clockevent.h — devices that raise an interrupt at a time we
 * choose: the PIT's channel 0, the local APIC timer, HPET comparator 0.
 *
 * A driver gives its counting frequency and the smallest and largest count it
 * can be programmed with; the core (kernel/time/clockevents.c) derives the
 * same limits in nanoseconds, converts deadlines to counts, clamps them, and
 * retries when the driver says the deadline already passed.  The device does
 * not know what its interrupt means: the tick code installs event_handler.
 *
 * Ratings use the same 1..499 scale as clocksources.
 */
#ifndef LULL_TIME_CLOCKEVENT_H
#define LULL_TIME_CLOCKEVENT_H

#include "../compiler.h"

struct clocksource;

#define CLOCK_EVT_FEAT_PERIODIC  (1u << 0)  /* can fire every 1/hz s by itself */
#define CLOCK_EVT_FEAT_ONESHOT   (1u << 1)  /* can fire once after a delta */

enum clock_event_state {
	CLOCK_EVT_STATE_SHUTDOWN = 0,   /* stopped: no interrupts, counter idle */
	CLOCK_EVT_STATE_PERIODIC,
	CLOCK_EVT_STATE_ONESHOT,
};

struct clock_event_device {
	/* --- set by the driver --- */
	const char *name;
	int rating;
	uint32_t features;
	uint64_t freq_hz;          /* counting rate of the programmed count */
	uint64_t min_delta_ticks;  /* smallest count that reliably fires */
	uint64_t max_delta_ticks;  /* largest count the hardware holds */
	int irq;                   /* legacy IRQ line, or -1 (e.g. LAPIC vector) */
	/* The clocksource freq_hz was derived from, or NULL if the rate is the
	 * device's own (a crystal, a spec value).  tsc-deadline counts TSC
	 * cycles; the LAPIC timer's rate was measured against a clocksource,
	 * so what it knows is its ratio to that counter.  When the counter's
	 * rate is measured again (clocksource_change_rate), the core moves
	 * freq_hz by the same ratio: the driver is not told. */
	struct clocksource *rate_source;
	/* The name of the counter freq_hz was measured against (also when that
	 * was a stopwatch, which has no clocksource: "pit" for PIT channel 2),
	 * or NULL for a device's own rate.  Read by the self-test. */
	const char *rate_ref;

	/* Fire every 1/hz s until told otherwise.  0 or -EINVAL. */
	int (*set_periodic)(struct clock_event_device *dev, unsigned hz);
	/* Enter one-shot mode, stopped until set_next_event. */
	int (*set_oneshot)(struct clock_event_device *dev);
	/* Fire once, `ticks` counts from now.  -ETIME if the device can tell
	 * the deadline already passed while it was being programmed. */
	int (*set_next_event)(struct clock_event_device *dev, uint64_t ticks);
	/* Stop: no more interrupts, and stop counting where the hardware can
	 * (a masked but running timer still costs power and host CPU). */
	int (*shutdown)(struct clock_event_device *dev);

	/* --- owned by the core --- */
	void (*event_handler)(struct clock_event_device *dev);
	enum clock_event_state state;
	uint32_t mult, shift;      /* ticks = (ns * mult) >> shift */
	uint64_t min_delta_ns, max_delta_ns;
	uint64_t next_event_ns;    /* deadline last programmed (oneshot), 0 if
	                              none; it may fire earlier if the delta was
	                              clamped to max_delta_ns, later if to min */
	uint64_t armed_ns;         /* when the one-shot was last programmed */
	uint64_t fires_ns;         /* when the armed one-shot should fire (after
	                              clamping), 0 if none: an event in the
	                              first half of the wait is stale */
	uint64_t event_ns;         /* the time the event being handled was
	                              taken (timekeeping_update's; 0 without a
	                              clocksource): the handler's "now", one
	                              counter read for the core and the tick;
	                              the handler takes it (sets it to 0) */
	uint64_t events;           /* interrupts delivered */
	uint64_t stale_events;     /* early interrupts dropped (see QUIRK in
	                              clockevents.c) */
	uint64_t retries;          /* -ETIME retries */
	uint64_t pending_freq_hz;  /* a CPU's own device (clockevents_add_cpu_device):
	                              the rate its rate_source's refinement gave it,
	                              written by the CPU that refined it, applied
	                              by the owning CPU at its next program; both
	                              under the core's lock for these devices */
	uint32_t rate_pending;     /* pending_freq_hz is set (an atomic flag, so a
	                              program need not take the lock to look) */
	struct clock_event_device *next;
};

/* Derive mult/shift and the ns limits (min rounded up, max down, so both
 * convert back inside [min_delta_ticks, max_delta_ticks]), reset the core's
 * fields (state SHUTDOWN, a do-nothing event_handler), add to the registry.
 * The tick code looks at the registry when it chooses a device (at
 * tick_init, and on each mode switch).  Returns 0, or -EINVAL for a bad
 * field (no name, zero frequency, no features, a feature without its ops,
 * min_delta_ticks 0 or above max), a name over 31 characters or one
 * already registered. */
int clockevents_register(struct clock_event_device *dev);
/* The device's counting rate was measured again (the TSC-deadline timer
 * counts TSC cycles, refined a second after boot): derive mult/shift and
 * the ns limits anew.  An event already programmed keeps its old ticks.
 * -EINVAL (nothing changed) for 0 or a rate the limits cannot be met at. */
int clockevents_update_freq(struct clock_event_device *dev, uint64_t freq_hz);
/* Called by clocksource_change_rate() after `cs` went from old_hz to
 * new_hz: every registered device whose rate_source is cs gets freq_hz
 * scaled by new_hz / old_hz through clockevents_update_freq (so a pending
 * one-shot keeps its old ticks).  Other devices are left alone.  A device
 * the new rate cannot be applied to keeps its old one. */
void clockevents_rate_source_changed(struct clocksource *cs, uint64_t old_hz, uint64_t new_hz);
/* A CPU's own copy of a registered device (an AP's local APIC timer): not
 * in the registry (no tick chooses it but its CPU's), but followed by
 * clockevents_rate_source_changed like the registered ones.  Its CPU
 * programs it, so the new rate is left in pending_freq_hz and the CPU
 * takes it at its next clockevents_program_event (a rate changed from
 * another CPU under its feet would tear mult and shift).  dev must be
 * derived already (a copy of a registered device is); it is added once. */
void clockevents_add_cpu_device(struct clock_event_device *dev);
struct clock_event_device *clockevents_first(void);
struct clock_event_device *clockevents_find(const char *name);

/* The count a device counting at freq_hz is programmed with to fire hz
 * times a second, rounded to the nearest count (the PIT: 1193182 / 250 =
 * 4772.7, so 4773); 0 for hz 0.  Drivers' set_periodic ops use it. */
static inline uint64_t clockevent_periodic_count(uint64_t freq_hz, unsigned hz)
{
	return hz ? (freq_hz + hz / 2) / hz : 0;
}

/* Highest-rated registered device with all of `features`, or NULL. */
struct clock_event_device *clockevents_best(uint32_t features);

/* ns <-> device ticks with the core's conversion; both round down and
 * saturate at UINT64_MAX. */
uint64_t clockevent_ns2ticks(const struct clock_event_device *dev, uint64_t ns);
uint64_t clockevent_ticks2ns(const struct clock_event_device *dev, uint64_t ticks);

/* State changes (call the driver, record the state on success).  -EINVAL
 * if the device lacks the feature. */
int clockevents_set_periodic(struct clock_event_device *dev, unsigned hz);
int clockevents_set_oneshot(struct clock_event_device *dev);
int clockevents_shutdown(struct clock_event_device *dev);

/* Program a one-shot deadline at absolute time expires_ns, given the current
 * time now_ns.  The delta is clamped to [min_delta_ns, max_delta_ns].  If
 * the driver reports -ETIME, retry at min_delta (doubling it each time, a
 * few times; each retry counts in dev->retries), then give up with -ETIME.
 * Returns 0 or -errno (-EINVAL if the device is not in one-shot mode). */
int clockevents_program_event(struct clock_event_device *dev,
                              uint64_t expires_ns, uint64_t now_ns);

/* A driver's interrupt handler calls this: it counts the event in
 * dev->events and passes it to dev->event_handler. */
void clockevents_handle_event(struct clock_event_device *dev);

/* The boot option clockevent=NAME (honoured by the tick code).  A copy is
 * kept (up to 31 characters); NULL or "" forgets it, and then
 * clockevents_preferred() returns NULL. */
void clockevents_set_preferred(const char *name);
const char *clockevents_preferred(void);

#endif
