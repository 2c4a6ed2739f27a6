/* kernel/shell/alarm_sleep.c — the two `alarm` tests that go through
 * sleep_ticks() and sleep_ns() themselves, as a thread would call them
 * (kernel/shell/cmd_alarm.c runs them and prints their verdict):
 *
 *   sleep       sleep_ticks(10) five times, with another interrupt every
 *               3 ms beside it: each returns on its own tick, never on
 *               whichever interrupt comes first, and leaves no timer;
 *   interrupt   Ctrl-C 100 ms into a 1 s sleep_ticks, then sleep_ns: each
 *               returns -EINTR at once and leaves nothing queued.
 *
 * Ctrl-C is pressed by an hrtimer, which hands the byte to the console as
 * the UART's interrupt handler would (console_input_push), so the press
 * lands at the same guest instant on every run.
 */
#include "arch/smp.h"
#include "console.h"
#include "errno.h"
#include "kstring.h"
#include "kprintf.h"
#include "sleep.h"
#include "shell/alarm_sleep.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "time/timekeeping.h"
#include "time/timer.h"

#define ALARM_SLEEP_TICKS   10u                     /* `sleep`: each sleep_ticks() */
#define ALARM_SLEEPS        5u
#define ALARM_NOISE_NS      (3 * NSEC_PER_MSEC)     /* `sleep`: another interrupt, off the tick */
#define ALARM_PRESS_NS      (100 * NSEC_PER_MSEC)   /* `interrupt`: Ctrl-C this far in */
#define ALARM_LONG_MS       1000u                   /* ... to a sleep this long */

/* The sleepers' timers pending on this CPU (kernel/sleep.c names them). */
static void count_sleep(const char *name, void *n)
{
	if (name && strcmp(name, "sleep") == 0)
		(*(unsigned *)n)++;
}
static void count_timer(struct timer *t, void *n) { count_sleep(t->name, n); }
static void count_hrtimer(struct hrtimer *t, void *n) { count_sleep(t->name, n); }

static unsigned sleep_timers(bool ns)
{
	unsigned n = 0;
	if (ns)
		hrtimer_for_each_on(this_cpu()->index, count_hrtimer, &n);
	else
		timer_for_each_on(this_cpu()->index, count_timer, &n);
	return n;
}

/* Another interrupt source beside a sleep: a sleep ends on its own timer,
 * not on whichever interrupt comes first. */
static struct hrtimer noise;

static enum hrtimer_restart noise_fire(struct hrtimer *t)
{
	hrtimer_forward(t, ktime_get_ns(), ALARM_NOISE_NS);
	return HRTIMER_RESTART;
}

/* sleep: sleep_ticks() as Pintos' timer_sleep(), from a "thread". */
const char *alarm_check_sleep_ticks(char *why, unsigned size)
{
	hrtimer_init(&noise, noise_fire, "alarm noise");
	if (hrtimer_start(&noise, ktime_get_ns() + ALARM_NOISE_NS) < 0)
		return "no free hrtimer for the other interrupt";
	const char *failed = NULL;
	for (unsigned i = 0; i < ALARM_SLEEPS && !failed; i++) {
		uint32_t before = jiffies;
		int rc = sleep_ticks(ALARM_SLEEP_TICKS);
		uint32_t took = jiffies - before;
		failed = why;
		if (rc == -EINTR || (rc == 0 && took < ALARM_SLEEP_TICKS))
			ksnprintf(why, size, "sleep_ticks(%u) returned %d after %u ticks, with no Ctrl-C: another "
			          "interrupt ended it (wait_event waits until the flag is up)", ALARM_SLEEP_TICKS,
			          rc, took);
		else if (rc != 0)
			ksnprintf(why, size, "sleep_ticks(%u) returned %d", ALARM_SLEEP_TICKS, rc);
		else if (took > ALARM_SLEEP_TICKS + ALARM_LATE_TICKS)
			ksnprintf(why, size, "sleep_ticks(%u) took %u ticks", ALARM_SLEEP_TICKS, took);
		else if (sleep_timers(false))
			ksnprintf(why, size, "sleep_ticks(%u) left a timer on the wheel", ALARM_SLEEP_TICKS);
		else
			failed = NULL;
	}
	hrtimer_cancel(&noise);
	return failed;
}

/* Ctrl-C, as the UART's interrupt handler delivers it. */
static struct hrtimer press;
static volatile uint64_t pressed_ns;

static enum hrtimer_restart press_ctrl_c(struct hrtimer *t)
{
	UNUSED(t);
	pressed_ns = ktime_get_ns();
	console_input_push(CTRL('C'));
	return HRTIMER_NORESTART;
}

/* The sleep runs below a cushion of stack that nothing after it reaches.
 * A sleep that leaves its timer queued leaves it in a frame no later call
 * or interrupt overwrites, so when that timer fires it only raises a flag
 * nobody reads, and the boot goes on to print the verdict below instead
 * of crashing in some later command. */
#define ALARM_CUSHION_BYTES 4096

static __attribute__((noinline)) int sleep_cushioned(bool ns)
{
	volatile char cushion[ALARM_CUSHION_BYTES];
	cushion[0] = 0;
	int rc = ns ? sleep_ns((uint64_t)ALARM_LONG_MS * NSEC_PER_MSEC) : sleep_ticks(ms_to_jiffies(ALARM_LONG_MS));
	(void)cushion[ALARM_CUSHION_BYTES - 1];
	return rc;
}

/* interrupt: a long sleep_ticks (or sleep_ns) and Ctrl-C in the middle. */
const char *alarm_check_interrupted(bool ns, char *why, unsigned size)
{
	const char *f = ns ? "sleep_ns" : "sleep_ticks";
	console_set_command_running(true);      /* no Ctrl-C yet */
	pressed_ns = 0;
	hrtimer_init(&press, press_ctrl_c, "alarm ctrl-c");
	if (hrtimer_start(&press, ktime_get_ns() + ALARM_PRESS_NS) < 0)
		return "no free hrtimer to press Ctrl-C";
	int rc = sleep_cushioned(ns);
	uint64_t late = ktime_get_ns() - pressed_ns;
	hrtimer_cancel(&press);
	console_set_command_running(true);      /* the shell need not say ^C */
	if (sleep_timers(ns))
		ksnprintf(why, size, "%s left its %s queued after Ctrl-C, pointing into its stack frame, "
		          "which is gone: cancel it on every way out", f, ns ? "hrtimer" : "timer");
	else if (rc != -EINTR)
		ksnprintf(why, size, "%s returned %d after Ctrl-C, want -EINTR (%d): does its wait end on "
		          "console_interrupted()?", f, rc, -EINTR);
	else if (!pressed_ns || late > NSEC_PER_SEC / tick_hz)
		ksnprintf(why, size, "%s returned %llu ms after Ctrl-C, not at once", f,
		          (unsigned long long)(pressed_ns ? late / NSEC_PER_MSEC : 0));
	else
		return NULL;
	return why;
}
