/* kernel/time/inject_idle.c — faults in a CPU's idle sleep, through its
 * tick device's ops (include/time/inject.h): the idle loop holds no
 * injection code.
 *
 * late-wakeup: the first event of the CPU's tick device that ends a sleep
 * (it comes while the tick says the CPU is idle) is held, interrupts off,
 * until `late` past the deadline it was programmed for, as when a host
 * deschedules the virtual CPU: then the tick's handler runs.  Then the
 * next skip (the next sleep the tick stopped for: its skip count moves)
 * is noted, with the end its idle entry programmed, and the tick-long
 * sleeps that ended before it.
 *
 * idle-race: the first sleep programmed while idle is written only after
 * the device's current deadline (+ a margin) has passed, interrupts off:
 * the race an idle entry loses when that deadline falls inside it.  The
 * old deadline's interrupt is then pending when the idle loop looks for
 * one before halting (cpu_idle's irq_window), and the sleep must be given
 * up rather than halted into (the wakeup counts say which: `abandoned`).
 *
 * idle-race means something only where the idle entry replaces a one-shot
 * deadline: tickless (in periodic and dyntick the device ticks on: the old
 * `idle_race_hook` failed there too).  late-wakeup works in every mode
 * (in periodic there is no skip to note).  One fault is armed at a time, for the CPU that arms it (its tick
 * device is its own).
 */
#include "errno.h"
#include "spinlock.h"
#include "time/arch.h"
#include "time/clockevent.h"
#include "time/inject.h"
#include "time/percpu.h"
#include "time/wakeups.h"
#include "time/timekeeping.h"

/* idle-race waits this long past the old deadline, so the device has
 * surely fired (its counter and the clocksource are different clocks). */
#define IDLE_RACE_MARGIN_NS     (20 * NSEC_PER_USEC)

enum idle_fault_kind { IDLE_FAULT_LATE, IDLE_FAULT_RACE };

static spinlock_t idle_fault_lock = SPINLOCK_INIT;
static struct {
	struct clock_event_device *dev;     /* NULL: none armed */
	unsigned cpu;
	enum idle_fault_kind kind;
	int (*set_next_event)(struct clock_event_device *dev, uint64_t ticks);  /* the driver's */
	void (*handler)(struct clock_event_device *dev);    /* the tick's */
	uint64_t held_fires_ns;         /* the deadline the device holds now */
	uint64_t late_ns;
	bool late_taken;                /* late-wakeup: the late event happened */
	uint64_t skips_at_late;         /* the tick's skip count then */
	uint64_t idle_program_ns;       /* the end the last idle program asked for */
	struct inject_idle_late_report late;
	bool race_done;
} fault;

/* On the armed CPU, with its tick in the idle path. */
static bool armed_here_and_idle(void)
{
	return arch_this_cpu_id() == fault.cpu && READ_ONCE(this_tick()->idle);
}

static int fault_set_next_event(struct clock_event_device *dev, uint64_t ticks)
{
	bool idle = armed_here_and_idle();
	if (fault.kind == IDLE_FAULT_RACE && idle && !fault.race_done) {
		while (ktime_get_ns() <= fault.held_fires_ns + IDLE_RACE_MARGIN_NS)
			;               /* the device fires; nobody answers yet */
		fault.race_done = true;
	}
	int rc = fault.set_next_event(dev, ticks);
	fault.held_fires_ns = dev->fires_ns;
	if (idle)
		fault.idle_program_ns = dev->next_event_ns;
	return rc;
}

/* How many skips this CPU has begun, in either mode (its own counts: in
 * its interrupt, nobody else writes them). */
static uint64_t my_skips(void)
{
	const struct wakeup_stats *s = &time_wakeups_of(arch_this_cpu_id())->stats;
	return s->by_mode[SKIP_DYNTICK].skips + s->by_mode[SKIP_TICKLESS].skips;
}

static void fault_event(struct clock_event_device *dev)
{
	if (fault.kind == IDLE_FAULT_LATE && armed_here_and_idle() && !fault.late.done) {
		if (!fault.late_taken) {
			uint64_t due = dev->state == CLOCK_EVT_STATE_ONESHOT && dev->next_event_ns ?
			               dev->next_event_ns : dev->event_ns;
			fault.late.deadline_ns = due;
			while (ktime_get_ns() < due + fault.late_ns)
				;       /* away: the device fired, nobody answers */
			fault.late.woke_ns = ktime_get_ns();
			fault.late_taken = true;
			fault.skips_at_late = my_skips();
		} else if (my_skips() != fault.skips_at_late) {
			fault.late.next_wake_ns = fault.idle_program_ns;     /* the skip's end */
			fault.late.done = true;
		} else {
			fault.late.ticks_between++;  /* a tick-long sleep first (dyntick's rule) */
		}
	}
	fault.handler(dev);
}

/* Give the device its own ops back (a handler the tick installed meanwhile
 * stays).  idle_fault_lock held. */
static void idle_fault_disarm_locked(void)
{
	struct clock_event_device *dev = fault.dev;
	if (!dev)
		return;
	unsigned long f = arch_irq_save();
	if (dev->set_next_event == fault_set_next_event)
		dev->set_next_event = fault.set_next_event;
	if (dev->event_handler == fault_event)
		dev->event_handler = fault.handler;
	fault.dev = NULL;
	arch_irq_restore(f);
}

static int idle_fault_arm(enum idle_fault_kind kind, unsigned cpu, uint64_t late_ns)
{
	struct clock_event_device *dev = READ_ONCE(time_tick_of(cpu)->dev);
	if (!dev || !dev->event_handler)
		return -ENODEV;
	unsigned long flags = spin_lock_irqsave(&idle_fault_lock);
	idle_fault_disarm_locked();
	fault.cpu = cpu;
	fault.kind = kind;
	fault.late_ns = late_ns;
	fault.late_taken = false;
	fault.late = (struct inject_idle_late_report){ 0 };
	fault.race_done = false;
	fault.set_next_event = dev->set_next_event;
	fault.handler = dev->event_handler;
	fault.held_fires_ns = dev->fires_ns;
	fault.dev = dev;
	dev->set_next_event = fault_set_next_event;
	dev->event_handler = fault_event;
	spin_unlock_irqrestore(&idle_fault_lock, flags);
	return 0;
}

int inject_idle_late(unsigned cpu, uint64_t late_ns)
{
	return idle_fault_arm(IDLE_FAULT_LATE, cpu, late_ns);
}

int inject_idle_race(unsigned cpu)
{
	return idle_fault_arm(IDLE_FAULT_RACE, cpu, 0);
}

void inject_idle_late_report(struct inject_idle_late_report *out)
{
	unsigned long flags = spin_lock_irqsave(&idle_fault_lock);
	*out = fault.late;
	idle_fault_disarm_locked();
	spin_unlock_irqrestore(&idle_fault_lock, flags);
}

bool inject_idle_race_report(void)
{
	unsigned long flags = spin_lock_irqsave(&idle_fault_lock);
	bool done = fault.race_done;
	idle_fault_disarm_locked();
	spin_unlock_irqrestore(&idle_fault_lock, flags);
	return done;
}
