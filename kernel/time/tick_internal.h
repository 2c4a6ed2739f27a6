/* kernel/time/tick_internal.h — what the four tick files share, and
 * nothing outside kernel/time/ needs (that is include/time/tick.h):
 *
 *   tick.c        the tick modes and handlers: jiffies from the clocksource,
 *                 the device's interrupt, irq enter/exit, switching mode,
 *                 device and HZ, and the rule that picks the device;
 *   tick_sched.c  the idle CPU stopping the tick, and the restart when an
 *                 interrupt ends the skip;
 *   tick_boot.c   how the tick starts: the boot options, tick_init(), and
 *                 the 2005 dyntick patch's boot messages;
 *   tick_smp.c    the other CPUs: their ticks, and the hooks through which
 *                 the boot CPU's tick tells and asks them.
 */
#ifndef LULL_KERNEL_TIME_TICK_INTERNAL_H
#define LULL_KERNEL_TIME_TICK_INTERNAL_H

#include "time/tick.h"

/* ----------------------------------------- tick_jiffies.c: jiffies */

/* Advance jiffies to the last whole tick boundary at or before now.
 * Returns how many ticks that was. */
uint64_t tick_update_jiffies(struct tick_cpu *tc, uint64_t now);

/* Refresh this CPU's copy of the last jiffy boundary (no advance). */
void tick_sync_jiffies(struct tick_cpu *tc);

/* The CPU that owns jiffies (advances them on its tick), or
 * TICK_OWNER_NONE; and giving them up (this CPU stops its tick). */
int tick_jiffies_owner(void);
void tick_release_jiffies(void);

/* On this CPU's tick: take jiffies if nobody owns them; advance them if
 * this CPU owns them, else only refresh the copy of the boundary. */
void tick_do_jiffies(struct tick_cpu *tc, uint64_t now);

/* Start jiffies' boundaries at `first`, every period_ns, owned by this
 * CPU (the first start). */
void tick_jiffies_start(uint64_t first, uint64_t period_ns);

/* A change of HZ on this CPU (interrupts off): catch-up, wheel remap and
 * the new period in one critical section. */
void tick_jiffies_change_rate(struct tick_cpu *tc, uint64_t now, unsigned hz);

/* One jiffy at `hz`, in ns. */
static inline uint64_t tick_period_for(unsigned hz) { return NSEC_PER_SEC / hz; }

/* The clocksource time of the next jiffy boundary. */
static inline uint64_t tick_next_jiffy_ns(const struct tick_cpu *tc)
{
	return tc->last_jiffy_ns + tc->period_ns;
}

/* ------------------------------------------------ tick.c: the device */

/* Program the one-shot tick device to interrupt just after `expires`. */
void tick_program_oneshot(struct tick_cpu *tc, uint64_t expires, uint64_t now);
/* Note how late the interrupt taken at `now` came (tc->late_ns). */
void tick_note_latency(struct tick_cpu *tc, uint64_t now);
/* Start the device ticking for tc's mode (0, or the driver's error), and
 * the device's interrupt handler. */
int tick_start_device(struct tick_cpu *tc);
void tick_handle_event(struct clock_event_device *dev);

/* Hand the wheel and the hrtimers the tick's hooks (before any timer). */
void tick_install_timer_hooks(void);

/* -------------------------------- tick_switch.c: which device, switching */

/* Stop this CPU's old tick device and run `mode` on `dev` (interrupts
 * off): the boot CPU's switches, and each AP following them.  0, or the
 * driver's error if dev refused the mode: then the old device and mode
 * run again. */
int tick_switch(struct tick_cpu *tc, struct clock_event_device *dev, enum tick_mode mode);

/* The boot CPU's tick changes, interrupts off: switch; if that worked,
 * the other CPUs follow, and if the device refused, one line says so. */
int tick_switch_to(struct tick_cpu *tc, struct clock_event_device *dev, enum tick_mode mode);

/* The device called `name` if it is registered and can run `mode`. */
struct clock_event_device *tick_device_for(enum tick_mode mode, const char *name);

/* The device the 2005 patch's dyntick= option asked for ("pit", or "lapic"
 * with forceapic), or NULL.  Set by tick_boot.c, read by
 * tick_choose_device(). */
extern const char *tick_patch_device;

/* Can the current clocksource run `mode`?  If not and `verbose`, say why
 * on an error: line. */
bool tick_mode_allowed(enum tick_mode mode, bool verbose);

/* Start ticking for the first time: at tick_hz, on `dev`, in `mode`. */
void tick_start(struct clock_event_device *dev, enum tick_mode mode);

/* The other CPUs' hooks, or NULL (tick_set_smp_hooks), and the call that
 * tells them the tick started or changed (kernel/time/tick_smp.c). */
extern const struct tick_smp_hooks *tick_smp;
void tick_changed(void);

/* dyntick on several CPUs (tick_smp.c): is any other CPU busy (not in its
 * idle loop)?  Is any other CPU's tick stopped?  And wake every other CPU
 * whose tick is stopped, so each ticks again (the 2005 rule: no skipping
 * while any CPU is busy). */
bool tick_others_busy(void);
bool tick_others_stopped(void);
void tick_wake_stopped_others(void);

/* The boot CPU's two jobs on several CPUs (tick_sched.c): its device ends
 * every dyntick skip, and it then wakes the others (the 2005 patch let the
 * last CPU to go idle do it, its skip_cpu); and its sleeps alone are cut
 * short to read the clocksource before it wraps (Linux gives that job to
 * the CPU that keeps time, tick_do_timer_cpu). */
#define TICK_BOOT_CPU 0

#endif
