/* include/time/tick.h — the tick: what turns a clock event device's
 * interrupts into jiffies, timer callbacks and (when idle) silence.
 *
 * Three modes, switchable at runtime (docs/dyntick.md):
 *   periodic  the device fires HZ times a second, busy or idle;
 *   dyntick   the 2005 design: periodic while busy; on entering idle, if the
 *             next timer is more than TICK_DYNTICK_MIN_SKIP ticks away, the
 *             device is reprogrammed to fire once after that many ticks;
 *   tickless  the device is one-shot only: programmed for the next tick while
 *             busy, and for the next timer (wheel or hrtimer) while idle.
 * Both skipping modes need a clocksource that keeps counting across skipped
 * ticks (CLOCK_SOURCE_CONTINUOUS): jiffies are caught up from it.
 *
 * The state lives in one struct tick_cpu per CPU (in the kernel, in its
 * struct cpu: include/arch/smp.h).  Every CPU ticks on its own device and
 * runs its own timers; jiffies have one owner CPU at a time (tick.c;
 * docs/smp.md).  The code: kernel/time/tick.c runs the tick, tick_sched.c
 * stops it while idle, tick_boot.c starts it (boot options, the patch's
 * boot messages), tick_smp.c has what only several CPUs need.
 */
#ifndef LULL_TIME_TICK_H
#define LULL_TIME_TICK_H

#include "arch.h"
#include "clockevent.h"
#include "path.h"

enum tick_mode { TICK_MODE_PERIODIC, TICK_MODE_DYNTICK, TICK_MODE_TICKLESS };

/* No CPU owns jiffies (every CPU's tick is stopped). */
#define TICK_OWNER_NONE (-1)

/* The 2005 dyntick patch's DYN_TICK_MIN_SKIP: skipping 1 or 2 ticks is not
 * worth the reprogramming, so only sleeps of more than 2 ticks are skipped. */
#define TICK_DYNTICK_MIN_SKIP 2

/* Printed at boot in the 2005 dyntick patch's "Registering dynamic tick
 * timer v..." line; the patch's own was 050610-1.  Bump when the idle rules
 * change. */
#define TICK_DYNTICK_VERSION "lull-1"

/* What ended a sleep, or what chose its length (wakeup accounting). */
enum tick_limit {
	TICK_LIMIT_NONE,        /* not a skip */
	TICK_LIMIT_TIMER,       /* the next wheel timer */
	TICK_LIMIT_HRTIMER,     /* the next high-resolution timer */
	TICK_LIMIT_DEVICE,      /* the device's maximum delta / max skip */
	TICK_LIMIT_WRAP,        /* half the clocksource's wrap interval */
	TICK_LIMIT_WATCHDOG,    /* the watchdog's reference would wrap (watchdog.h) */
	TICK_LIMIT_COUNT
};

/* One CPU's tick.  Who writes and who reads:
 *   - Each CPU writes only its own, with interrupts off (its tick, idle
 *     loop and interrupt exit), except `recheck`, which another CPU sets.
 *   - Other CPUs read, without a lock: dev, mode and idle (tick_smp.c,
 *     dyntick's "is anyone busy"; tick_kick_remote*), stopped (tick_smp.c),
 *     mode and hz (kernel/smp_boot.c, an AP following CPU 0).  Those are
 *     written with WRITE_ONCE and read with READ_ONCE; the fences that
 *     order them against a timer queue are where they are read (tick.c's
 *     tick_kick_remote, tick_smp.c) and written (tick_sched.c's idle entry).
 *   - The statistics at the end, and `path`, are read by the shell on
 *     another CPU for display only: a 64-bit count may be read torn on
 *     i386, which a display can bear.
 *   - Everything else is this CPU's alone. */
struct tick_cpu {
	struct clock_event_device *dev;   /* the tick device (read remotely) */
	enum tick_mode mode;              /* (read remotely) */
	unsigned hz;                      /* == tick_hz (read remotely) */
	uint64_t period_ns;               /* NSEC_PER_SEC / hz */
	uint64_t last_jiffy_ns;           /* clocksource time of the jiffy boundary
	                                     jiffies_64 last advanced to */
	uint64_t programmed_ns;           /* one-shot deadline programmed, 0 none */
	uint64_t late_ns;                 /* how long after programmed_ns the last
	                                     interrupt that ended a skip, or the tick
	                                     device's, was taken: the interrupt latency
	                                     a timer run in it suffered (0: not late) */
	bool idle;                        /* between idle enter and exit (read remotely) */
	bool stopped;                     /* skipping: no tick until the device fires
	                                     (read remotely) */
	bool softirq_pending;             /* timers may be due: run on irq exit */
	bool restarted;                   /* an interrupt ended a skip: irq exit
	                                     programs the busy tick */
	bool in_softirq;
	uint32_t irqs;                    /* interrupts taken on this CPU (tick_irq_enter) */
	uint32_t irqs_at_idle;            /* ... when it last entered idle: any since
	                                     means the halt is abandoned, also on a
	                                     CPU with no tick device */
	bool recheck;                     /* an hrtimer was armed here from another
	                                     CPU while this one was awake in tickless
	                                     mode: its irq exit looks at the device's
	                                     program again.  Set by that CPU, taken
	                                     (atomic exchange) by this one. */
	unsigned skip;                    /* dyntick: ticks this skip was programmed for */
	uint32_t skip_from;               /* jiffies when the tick stopped */
	enum tick_limit skip_limit;       /* what chose the current sleep's length */
	const char *skip_timer;           /* name of the timer that chose it, if any */
	struct path_cpu path;             /* the interrupt path's stamps (time/path.h) */
};

/* This CPU's: this_tick(), inline in percpu.h. */

/* An AP's tick, on its own device, in the boot CPU's mode and rate
 * (kernel/smp_boot.c calls tick_secondary_follow on the AP whenever they
 * change): the same tick as the boot CPU's, running the AP's own timers. */
void tick_secondary_start(struct clock_event_device *dev, enum tick_mode mode, unsigned hz);
void tick_secondary_follow(struct clock_event_device *dev);

/* What the boot CPU's tick tells the other CPUs.  kernel/smp_boot.c
 * registers it (a registered hook, not a call, so the time core calls
 * nothing above it); without it there is one CPU.  Called with interrupts
 * off; may be NULL.
 *   changed      the tick started or changed mode, rate or device: the
 *                other CPUs follow (tick_secondary_start). */
struct tick_smp_hooks {
	void (*changed)(void);
};
void tick_set_smp_hooks(const struct tick_smp_hooks *hooks);

/* Who is told of each tick event on a CPU (after jiffies): the scheduler,
 * which bills the jiffies that passed to what runs and ends a time slice
 * (kernel/task.c registers it; a registered hook, so the time core calls
 * nothing above it).  Called in the tick's interrupt, interrupts off; NULL
 * until set. */
void tick_set_account_hook(void (*fn)(void));

/* This CPU leaves its idle loop to run work (an AP taking a call): in
 * dyntick mode no CPU may skip while one is busy, so every CPU asleep
 * with its tick stopped is woken to tick again. */
void tick_work_starts(void);

/* Pick the tick device and mode (boot options) and start ticking. */
void tick_init(void);

/* Runtime switches; each prints why when it refuses (-EINVAL / -ENODEV),
 * and nothing when it does what it was asked: the caller reads the tick
 * back and says what it is now (the shell's `tick`, `clockevent`, `hz`). */
int tick_set_mode(enum tick_mode mode);
int tick_set_device(const char *name);
int tick_set_hz(unsigned hz);
/* The device that runs `mode`, and in *why the reason in words (the rule
 * is written out above its definition in tick_switch.c): a mode switch
 * goes where it points. */
struct clock_event_device *tick_choose_device(enum tick_mode mode, const char **why);
const char *tick_mode_name(enum tick_mode mode);
int tick_parse_mode(const char *name, enum tick_mode *mode);
/* Can the current clocksource measure skipped ticks? (the 2005 dyntick
 * patch's "suitable") */
bool tick_skipping_suitable(void);
/* jiffies and the clocksource time of the boundary it last reached, taken
 * together (they change together, under one lock). */
void tick_jiffies_snapshot(uint32_t *j, uint64_t *boundary_ns);
/* The most ticks the tick device can skip at the current HZ. */
uint64_t tick_max_skip(void);

/* The idle path (kernel/idle.c), both with interrupts off:
 * enter decides how long the CPU may sleep and programs the device;
 * exit accounts for the sleep. */
void tick_idle_enter(void);
void tick_idle_exit(void);
/* Between tick_idle_enter and the halt, after an interrupt window: true if
 * an interrupt came in it, and then the CPU must not halt (the sleep is
 * forgotten; the interrupt restarted the tick).  See kernel/idle.c. */
bool tick_idle_abandon(void);
/* After tick_idle_enter: when this CPU's device should end the sleep (the
 * skip's deadline, or the next tick if it keeps ticking: *skipping says
 * which); 0 if it has no tick device. */
uint64_t tick_idle_wake_ns(bool *skipping);

#endif
