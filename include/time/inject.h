/* include/time/inject.h — the one seam through which tests reach into a
 * device: its ops are wrapped from here, so the drivers and the paths
 * they feed hold no test code.
 *
 * Deliberate faults in a clocksource, for the shell's `inject` command and
 * the host tests: the counter steps, stops, or runs at a wrong rate, as
 * real ones do (a TSC written by firmware, an emulator that stalls a
 * device, a crystal off by hundreds of ppm).  The fault sits between the
 * driver and every reader: the counter's read op is wrapped, so
 * timekeeping, the watchdog and the shell all see the same lie.  A counter
 * keeps its fault until inject_clocksource_clear().
 *
 * Extra work in a clock event device's interrupt: after each event the
 * device passes on, a test's function runs in the same interrupt (`stress`
 * arms and cancels timers from there, in the tick device's interrupt on
 * every CPU).
 */
#ifndef LULL_TIME_INJECT_H
#define LULL_TIME_INJECT_H

#include "clockevent.h"
#include "clocksource.h"

/* The counter jumps by delta_ns (negative: back) at once.  0 or -ENOSPC
 * (faults on too many counters). */
int inject_clocksource_step(struct clocksource *cs, int64_t delta_ns);
/* The counter stops counting: every read returns the value it has now. */
int inject_clocksource_stall(struct clocksource *cs);
/* From now on the counter runs ppm parts per million fast (negative: slow).
 * 64-bit counters only (-EINVAL otherwise): the extra count is taken from
 * the raw count since the skew began, which a narrower counter's wraps
 * would hide between two reads. */
int inject_clocksource_skew(struct clocksource *cs, int32_t ppm);
/* Take every fault away (the counters keep any UNSTABLE flag they got). */
void inject_clocksource_clear(void);

/* One verified read of `cs` (a counter with a read_raw op) in which raw
 * read number `nth` (from 1) comes back with `bits` flipped, as a torn
 * read does.  Interrupts off throughout.  *bad: what that raw read gave;
 * *good: what the verified read returned; *raw_reads: how many raw reads
 * it took.  0, or -EINVAL (no read_raw). */
int inject_clocksource_glitch(struct clocksource *cs, unsigned nth, uint64_t bits,
                              uint64_t *bad, uint64_t *good, unsigned *raw_reads);

/* After every event `dev` passes to its handler, call after(dev), in the
 * interrupt (interrupts off).  The handler is wrapped: a handler the tick
 * installs later (a mode or device switch) replaces the wrapper, so
 * follow a device only while it keeps its handler.  0, -EBUSY (followed
 * already), -ENOSPC (too many), -EINVAL (no handler). */
int inject_clockevent_follow(struct clock_event_device *dev,
                             void (*after)(struct clock_event_device *dev));
/* Every followed device gets its own handler back. */
void inject_clockevent_unfollow_all(void);

/* The next time `dev` is programmed, its driver is handed `ticks` instead
 * of the count the core worked out (a deadline the driver must catch as
 * already past, say); after that one write the device has its own op
 * back.  0, or -EBUSY (one is armed already). */
int inject_clockevent_next_ticks(struct clock_event_device *dev, uint64_t ticks);

/* Faults in a CPU's idle sleep (kernel/time/inject_idle.c), through its
 * tick device's ops; one armed at a time, for CPU `cpu` (the caller's).
 *
 * late-wakeup: the next sleep's end is taken late_ns after its deadline,
 * as when a host deschedules the virtual CPU; the next sleep programmed
 * after it is noted.  The report disarms.  -ENODEV: no tick device. */
int inject_idle_late(unsigned cpu, uint64_t late_ns);
struct inject_idle_late_report {
	bool done;              /* both sleeps happened */
	uint64_t deadline_ns;   /* the late sleep's deadline */
	uint64_t woke_ns;       /* when it was let go */
	uint64_t next_wake_ns;  /* when the next sleep was programmed to end */
	unsigned ticks_between; /* tick-long sleeps before that one */
};
void inject_idle_late_report(struct inject_idle_late_report *out);

/* idle-race: the next sleep is programmed only after the device's current
 * deadline has passed, so its interrupt is pending at the halt (one-shot
 * modes).  The report (which disarms) says whether the armed idle entry
 * happened; whether the sleep was given up, the wakeup counts say. */
int inject_idle_race(unsigned cpu);
bool inject_idle_race_report(void);

#endif
