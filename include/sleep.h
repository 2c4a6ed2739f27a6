/* include/sleep.h — how a caller sleeps without spinning (kernel/sleep.c).
 *
 * Two ways, as in Linux:
 *   sleep_ticks(n)  n jiffies on the timer wheel: Pintos' timer_sleep(),
 *                   with jiffy resolution;
 *   sleep_ns(ns)    ns on a high-resolution timer.
 * Both arm a timer and halt in wait_event() until its callback has run, so
 * the tick code may stop the tick while the caller waits (docs/dyntick.md).
 *
 * lull has no threads.  A `struct sleeper` is what a sleeping thread would
 * be: a wheel timer and a flag.  sleep_ticks() waits on one on its own
 * stack; the `alarm` shell command runs Pintos' alarm tests by arming
 * several and re-arming each as it wakes, as each thread would call
 * timer_sleep() again (kernel/shell/cmd_alarm.c).
 */
#ifndef LULL_SLEEP_H
#define LULL_SLEEP_H

#include "compiler.h"
#include "time/timer.h"

struct sleeper {
	struct timer timer;
	volatile bool woke;             /* set by the timer's callback */
	uint32_t armed_jiffy;           /* jiffies when sleeper_arm was called */
	uint32_t woke_jiffy;            /* jiffies when it woke */
	/* Called from the timer's callback (interrupt context) once the
	 * sleeper has woken, or NULL. */
	void (*notify)(struct sleeper *s);
};

/* Once, before the first sleeper_arm; the sleeper must not be pending. */
void sleeper_init(struct sleeper *s, void (*notify)(struct sleeper *s));

/* Wake s `ticks` jiffies from now: s->woke is false until then.  ticks <= 0
 * wakes it at once, with no timer (Pintos: a zero or negative sleep returns
 * immediately).  Returns 0, or -EINVAL when `ticks` is 2^31 or more (the
 * wheel's range, include/time/jiffies.h). */
int sleeper_arm(struct sleeper *s, int64_t ticks);

/* Sleep `ticks` jiffies: 0, or -EINTR (Ctrl-C), -EINVAL (as sleeper_arm). */
int sleep_ticks(int64_t ticks);

/* Sleep `ns` nanoseconds on a high-resolution timer: 0, -EINTR (Ctrl-C) or
 * -ENOSPC (no free hrtimer slot). */
int sleep_ns(uint64_t ns);

/* The same wait on the kernel's own code, never a lab's: for the commands
 * that measure idling (`idle`, `power`, `trace`, `timerload`, `stress`),
 * which must measure in every lab's copy. */
int wait_ns(uint64_t ns);

#endif
