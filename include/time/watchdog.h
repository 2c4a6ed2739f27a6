/* include/time/watchdog.h — the clocksource watchdog: is every counter
 * still counting at the rate it claims?
 *
 * Counters lie: a TSC steps when firmware writes it or slows in a deep
 * C-state, a counter stops when an emulator stalls it, a badly wired HPET
 * runs at the wrong rate.  Timekeeping cannot see any of this by itself:
 * it trusts the one counter it reads.  The watchdog compares every usable
 * continuous counter with a reference, a second counter of independent
 * hardware, and past a threshold marks the liar unstable (which switches
 * timekeeping away from it, clocksource_mark_unstable).
 *
 * Mainline Linux runs its watchdog from a timer every 0.5 s, which wakes an
 * idle CPU twice a second.  lull's adds no wakeup where the reference can
 * wait: it checks on interrupts that happen anyway (the boot CPU's tick and
 * the interrupt that ends a skip), at most once per WATCHDOG_INTERVAL_NS.
 * Only a reference that wraps (the 24-bit PM timer, every 4.7 s) bounds how
 * long the CPU may sleep between checks; the idle path asks
 * watchdog_max_idle_ns() and names the wakeup "limit: watchdog" when it is
 * the reason.  The HPET's 64-bit counter never wraps, so with it as the
 * reference the watchdog costs no wakeup at all.
 *
 * kernel/time/watchdog.c has the checks and their thresholds.
 */
#ifndef LULL_TIME_WATCHDOG_H
#define LULL_TIME_WATCHDOG_H

#include "clocksource.h"

/* Pick the reference and start checking (kernel/main.c, after the
 * clocksources registered).  Prints one line naming the reference and the
 * case: no wakeups of its own, or a bound from the reference's wrap. */
void watchdog_start(void);

/* On an interrupt (the boot CPU's, kernel/time/tick.c): check if the last
 * check is WATCHDOG_INTERVAL_NS old, or if time has not moved since the
 * last poll (a stalled counter freezes time, and with it the interval). */
void watchdog_poll(void);

/* Check now, whatever the interval (the shell's `watchdog check`). */
void watchdog_check(void);

/* How much longer the CPU may sleep from `now` before the reference could
 * wrap since the last check; UINT64_MAX if it need not wake for that. */
uint64_t watchdog_max_idle_ns(uint64_t now);


struct watchdog_status {
	struct clocksource *ref;        /* NULL: nothing to compare with */
	uint64_t bound_ns;              /* UINT64_MAX: no wakeups of its own */
	uint64_t checks, slow_reads, alarms;
};
void watchdog_get_status(struct watchdog_status *st);

#endif
