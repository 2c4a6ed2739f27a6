/* kernel/sleep.c — sleeping without spinning (include/sleep.h).
 *
 * A sleeping caller must not poll the clock: every poll is a wakeup, and a
 * CPU that wakes every tick to look at jiffies is the very cost the 2005
 * patch set out to remove.  Instead the caller arms a timer for the moment
 * it wants and halts; the timer's callback sets a flag; wait_event()
 * (include/idle.h) re-checks the flag after each interrupt and halts again
 * until it is set.  In tickless mode the idle loop then programs the tick
 * device for exactly that timer, so five sleepers due on the same jiffy
 * cost one wakeup, however far away it is.
 */
#include "sleep.h"
#include "console.h"
#include "errno.h"
#include "idle.h"
#include "lab.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "time/timekeeping.h"

#define SLEEP_MAX_TICKS  0x7fffffffLL  /* the wheel's range: 2^31 - 1 jiffies */

/* ---------------------------------------------------------- on the wheel */

/* The timer's callback, in interrupt context: note the jiffy, raise the
 * flag, tell whoever asked. */
static void sleeper_wake(struct timer *t)
{
	/* LAB alarm: BEGIN
	 * The sleeper that owns t is container_of(t, struct sleeper, timer).
	 * Record when it woke, set its flag, then call its notify (if any).
	 */
	struct sleeper *s = container_of(t, struct sleeper, timer);
	s->woke_jiffy = jiffies;
	s->woke = true;
	if (s->notify)
		s->notify(s);
	/* LAB alarm: STUB
	UNUSED(t);
	lab_not_implemented("alarm");
	   LAB alarm: END */
}

void sleeper_init(struct sleeper *s, void (*notify)(struct sleeper *s))
{
	timer_init(&s->timer, sleeper_wake, "sleep");
	s->woke = false;
	s->notify = notify;
}

int sleeper_arm(struct sleeper *s, int64_t ticks)
{
	/* LAB alarm: BEGIN
	 * Refuse a sleep beyond the wheel's range; a sleep of zero or fewer
	 * ticks wakes at once (call sleeper_wake yourself, interrupts off, as
	 * the wheel would).  Otherwise clear the flag and put s->timer on the
	 * wheel `ticks` jiffies from now (include/time/timer.h).
	 */
	if (ticks > SLEEP_MAX_TICKS)
		return -EINVAL;
	unsigned long f = arch_irq_save();      /* one jiffy for both reads */
	s->armed_jiffy = jiffies;
	s->woke = false;
	if (ticks <= 0)
		sleeper_wake(&s->timer);
	else
		timer_mod(&s->timer, s->armed_jiffy + (uint32_t)ticks);
	arch_irq_restore(f);
	return 0;
	/* LAB alarm: STUB
	UNUSED(s);
	UNUSED(ticks);
	lab_not_implemented("alarm");
	return -ENOSYS;
	   LAB alarm: END */
}

int sleep_ticks(int64_t ticks)
{
	/* LAB alarm: BEGIN
	 * Arm a sleeper that lives on this stack, then wait for its flag
	 * with wait_event() (include/idle.h) -- never by polling jiffies.
	 * Ctrl-C (console_interrupted()) must end the wait too; on every
	 * way out the timer must be off the wheel before the frame goes.
	 */
	struct sleeper s;
	sleeper_init(&s, NULL);
	int rc = sleeper_arm(&s, ticks);
	if (rc < 0)
		return rc;
	wait_event(s.woke || console_interrupted());
	timer_del_sync(&s.timer);
	return s.woke ? 0 : -EINTR;
	/* LAB alarm: STUB
	UNUSED(ticks);
	lab_not_implemented("alarm");
	return -ENOSYS;
	   LAB alarm: END */
}

/* ---------------------------------------------------------- on an hrtimer */

struct hr_sleeper {
	struct hrtimer timer;
	volatile bool done;
};

static enum hrtimer_restart hr_sleeper_wake(struct hrtimer *t)
{
	container_of(t, struct hr_sleeper, timer)->done = true;
	return HRTIMER_NORESTART;
}

/* Twin of sleep_ticks (above): the same wait on the other kind of timer;
 * the alarm lab has students write both. */
int sleep_ns(uint64_t ns)
{
	/* LAB alarm: BEGIN
	 * The same wait on a high-resolution timer (include/time/hrtimer.h),
	 * due ns from ktime_get_ns().  A zero sleep returns at once.
	 */
	struct hr_sleeper s = { .done = false };
	hrtimer_init(&s.timer, hr_sleeper_wake, "sleep");
	if (ns == 0)
		return 0;
	int rc = hrtimer_start(&s.timer, ktime_get_ns() + ns);
	if (rc < 0)
		return rc;
	wait_event(s.done || console_interrupted());
	/* On every way out, Ctrl-C included: the heap must not keep a
	 * pointer into this stack frame once it is gone. */
	hrtimer_cancel(&s.timer);
	return s.done ? 0 : -EINTR;
	/* LAB alarm: STUB
	UNUSED(ns);
	UNUSED(hr_sleeper_wake);
	lab_not_implemented("alarm");
	return -ENOSYS;
	   LAB alarm: END */
}

/* Twin of sleep_ns (above), outside the alarm lab: the commands that
 * measure an idle CPU wait here, so that in the alarm lab's copy, where
 * sleep_ns is the student's (or a stub), `idle` and `power` still measure
 * and the other labs still grade (docs/labs/README.md). */
int wait_ns(uint64_t ns)
{
	struct hr_sleeper s = { .done = false };
	hrtimer_init(&s.timer, hr_sleeper_wake, "sleep");
	if (ns == 0)
		return 0;
	int rc = hrtimer_start(&s.timer, ktime_get_ns() + ns);
	if (rc < 0)
		return rc;
	wait_event(s.done || console_interrupted());
	hrtimer_cancel(&s.timer);      /* the heap keeps no pointer into this frame */
	return s.done ? 0 : -EINTR;
}
