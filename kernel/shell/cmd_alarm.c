/* kernel/shell/cmd_alarm.c — `alarm TEST`: Pintos' alarm-clock tests, run on
 * lull's sleepers (include/sleep.h).
 *
 * Pintos' tests start threads that call timer_sleep() in a loop.  lull has
 * no threads, so each "thread" here is a struct sleeper plus how many sleeps
 * it has left: when one wakes, this command (waiting in wait_event, halted)
 * notes it and arms it again, just as the thread would call timer_sleep()
 * again on waking.  The checks are Pintos':
 *
 *   single        1 sleeper, 5 sleeps of 10 ticks
 *   multiple      5 sleepers, 7 sleeps each; sleeper i sleeps 10(i+1) ticks,
 *                 so they wake in the order of iteration x duration
 *   simultaneous  5 sleepers, 5 sleeps of 10 ticks: each round wakes on one
 *                 tick, and in tickless mode costs one wakeup, not five
 *   order         5 pairs armed longest first, 10 ticks between pairs: they
 *                 wake in deadline order, each pair on one tick
 *   zero          sleep_ticks(0) returns at once
 *   negative      sleep_ticks(-100) returns at once
 *
 * and for every test: no sleeper wakes before its tick, nor more than
 * ALARM_LATE_TICKS after it.  Two more go through the sleep functions
 * themselves, as a thread would call them (kernel/shell/alarm_sleep.c):
 *
 *   sleep         5 calls of sleep_ticks(10), with another interrupt every
 *                 3 ms beside them: each returns on its own tick, and
 *                 leaves no timer behind
 *   interrupt     Ctrl-C, pressed by an hrtimer 100 ms into a 1 s sleep:
 *                 sleep_ticks, then sleep_ns, must return -EINTR at once
 *                 and leave no timer queued (it lived on their stack)
 *
 * The last two lines say what it cost (this CPU's wakeups and halted share
 * while waiting) and the verdict:
 *   alarm NAME: W wakeups in T ms, halted H%
 *   alarm NAME: PASS            (or FAIL: the first check that failed)
 */
#include "shell/args.h"
#include "shell/alarm_sleep.h"
#include "arch/smp.h"
#include "console.h"
#include "errno.h"
#include "idle.h"
#include "kprintf.h"
#include "kstring.h"
#include "sleep.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "time/arch.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "time/timekeeping.h"
#include "time/wakeups.h"

#define ALARM_SLEEPERS_MAX  10u
#define ALARM_WAKES_MAX     64u
#define ALARM_BACKWARDS     100     /* `negative`: Pintos sleeps -100 ticks */
#define ALARM_GUARD_SLACK_S 2u      /* the guard: twice the longest run, plus this */

struct alarm_test {
	const char *name;
	unsigned sleepers, sleeps;
	uint32_t (*ticks)(unsigned i);  /* sleeper i's sleep */
	bool pairs;                     /* sleepers 2k and 2k+1 share a deadline */
};

static uint32_t ten(unsigned i)          { UNUSED(i); return 10; }
static uint32_t ten_times_i1(unsigned i) { return 10 * (i + 1); }
static uint32_t pairs_longest_first(unsigned i) { return 10 * (ALARM_SLEEPERS_MAX / 2 - i / 2); }

static const struct alarm_test tests[] = {
	{ "single",       1, 5, ten,                 false },
	{ "multiple",     5, 7, ten_times_i1,        false },
	{ "simultaneous", 5, 5, ten,                 false },
	{ "order",        ALARM_SLEEPERS_MAX, 1, pairs_longest_first, true },
};

struct alarm_sleeper {
	struct sleeper s;
	unsigned id, done;
	uint32_t ticks;
};

struct alarm_wake { unsigned id, iteration; uint32_t armed, woke, ticks; };

static struct alarm_sleeper sleepers[ALARM_SLEEPERS_MAX];
static struct alarm_wake wakes[ALARM_WAKES_MAX];
/* Woken sleepers' ids, queued by their callbacks for the loop below. */
static volatile unsigned queue[ALARM_SLEEPERS_MAX];
static volatile unsigned queued, taken;
/* A sleeper that never wakes (a broken wheel, or a lab's stub) must not
 * hang the shell: an hrtimer, which jiffies do not drive, ends the wait. */
static struct hrtimer guard;
static volatile bool guard_fired;

static enum hrtimer_restart guard_fire(struct hrtimer *t)
{
	UNUSED(t);
	guard_fired = true;
	return HRTIMER_NORESTART;
}

static void alarm_notify(struct sleeper *s)
{
	queue[queued % ALARM_SLEEPERS_MAX] = container_of(s, struct alarm_sleeper, s)->id;
	queued++;
}

static void cancel_all(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		timer_del_sync(&sleepers[i].s.timer);
}

/* Why the wait gave up, told by the first sleeper still out, before its
 * timer is cancelled. */
static char gave_up[160];

static void why_gave_up(const struct alarm_test *t)
{
	ksnprintf(gave_up, sizeof(gave_up), "a sleeper never woke (the wait gave up)");
	for (unsigned i = 0; i < t->sleepers; i++) {
		const struct sleeper *s = &sleepers[i].s;
		if (sleepers[i].done >= t->sleeps)
			continue;
		if (s->woke)
			ksnprintf(gave_up, sizeof(gave_up), "sleeper %u woke, but its notify was never called "
			          "(sleeper_wake)", i);
		else if (!timer_pending(&s->timer))
			ksnprintf(gave_up, sizeof(gave_up), "sleeper %u's timer left the wheel, but the sleeper "
			          "never woke (sleeper_wake)", i);
		else
			ksnprintf(gave_up, sizeof(gave_up), "sleeper %u never woke: its timer is still pending, "
			          "for jiffy %u (now %u)", i, s->timer.expires, jiffies);
		return;
	}
}

/* Arm every sleeper, then re-arm each as it wakes until all are done.
 * Returns the number of wakes recorded, or a negative error. */
static int run_sleepers(const struct alarm_test *t)
{
	unsigned n = t->sleepers, total = n * t->sleeps, recorded = 0;
	queued = taken = 0;
	uint32_t longest = 0;
	for (unsigned i = 0; i < n; i++)
		longest = MAX(longest, t->ticks(i) * t->sleeps);
	guard_fired = false;
	hrtimer_init(&guard, guard_fire, "alarm guard");
	if (hrtimer_start(&guard, ktime_get_ns() + 2 * (uint64_t)longest * (NSEC_PER_SEC / tick_hz) +
	                  ALARM_GUARD_SLACK_S * NSEC_PER_SEC) < 0)
		return -ENOSPC;
	for (unsigned i = 0; i < n; i++) {
		sleepers[i] = (struct alarm_sleeper){ .id = i, .ticks = t->ticks(i) };
		sleeper_init(&sleepers[i].s, alarm_notify);
	}
	unsigned long f = arch_irq_save();      /* one jiffy for all first sleeps */
	for (unsigned i = 0; i < n; i++) {
		int rc = sleeper_arm(&sleepers[i].s, sleepers[i].ticks);
		if (rc < 0) {
			arch_irq_restore(f);
			cancel_all(i);
			hrtimer_cancel(&guard);
			return rc;
		}
	}
	arch_irq_restore(f);
	while (recorded < total) {
		wait_event(queued != taken || console_interrupted() || guard_fired);
		if (queued == taken) {
			why_gave_up(t);
			cancel_all(n);
			hrtimer_cancel(&guard);
			return guard_fired ? -ETIMEDOUT : -EINTR;
		}
		struct alarm_sleeper *a = &sleepers[queue[taken % ALARM_SLEEPERS_MAX]];
		taken++;
		wakes[recorded++] = (struct alarm_wake){ a->id, a->done, a->s.armed_jiffy,
		                                         a->s.woke_jiffy, a->ticks };
		if (++a->done < t->sleeps) {
			int rc = sleeper_arm(&a->s, a->ticks);
			if (rc < 0) {
				cancel_all(n);
				hrtimer_cancel(&guard);
				return rc;
			}
		}
	}
	hrtimer_cancel(&guard);
	return (int)recorded;
}

/* The first failed check of a run, or NULL. */
static const char *check(const struct alarm_test *t, unsigned n, char *why, unsigned size)
{
	for (unsigned k = 0; k < n; k++) {
		const struct alarm_wake *w = &wakes[k];
		uint32_t due = w->armed + w->ticks;
		if (time_before(w->woke, due)) {
			ksnprintf(why, size, "sleeper %u woke at jiffy %u, before its tick %u", w->id, w->woke, due);
			return why;
		}
		if (w->woke - due > ALARM_LATE_TICKS) {
			ksnprintf(why, size, "sleeper %u woke %u ticks late", w->id, w->woke - due);
			return why;
		}
		if (k == 0)
			continue;
		const struct alarm_wake *p = &wakes[k - 1];
		/* Pintos' alarm-multiple: iteration x duration never decreases. */
		if ((w->iteration + 1) * w->ticks < (p->iteration + 1) * p->ticks) {
			ksnprintf(why, size, "sleeper %u (%u x %u ticks) woke after sleeper %u (%u x %u ticks)",
			         w->id, w->iteration + 1, w->ticks, p->id, p->iteration + 1, p->ticks);
			return why;
		}
		/* Equal deadlines wake on one tick. */
		if (p->armed + p->ticks == due && p->woke != w->woke &&
		    (!t->pairs || p->id / 2 == w->id / 2)) {
			ksnprintf(why, size, "sleepers %u and %u share a deadline but woke on jiffies %u and %u",
			         p->id, w->id, p->woke, w->woke);
			return why;
		}
	}
	return NULL;
}

/* zero and negative: the call must return at once, without a timer. */
static const char *check_at_once(int64_t ticks, char *why, unsigned size)
{
	uint32_t before = jiffies;
	unsigned pending = timer_count();
	int rc = sleep_ticks(ticks);
	uint32_t after = jiffies;
	if (rc != 0)
		ksnprintf(why, size, "sleep_ticks(%lld) returned -%s (%s)", (long long)ticks,
		          errno_name(shell_error("alarm", rc)), errno_text(rc));
	else if (after - before > ALARM_LATE_TICKS)
		ksnprintf(why, size, "sleep_ticks(%lld) took %u ticks", (long long)ticks, after - before);
	else if (timer_count() != pending)
		ksnprintf(why, size, "sleep_ticks(%lld) left a timer on the wheel", (long long)ticks);
	else
		return NULL;
	return why;
}

static void cost_mark(uint64_t *w, uint64_t *idle, uint64_t now)
{
	static struct wakeup_stats s;
	wakeups_snapshot(this_cpu()->index, now, &s);
	*w = s.wakeups;
	*idle = s.halted_ns;
}

int cmd_alarm(int argc, char **argv)
{
	if (argc != 2)
		return SHELL_USAGE;
	const struct alarm_test *t = NULL;
	for (unsigned i = 0; i < ARRAY_SIZE(tests); i++)
		if (strcmp(argv[1], tests[i].name) == 0)
			t = &tests[i];
	bool zero = strcmp(argv[1], "zero") == 0, negative = strcmp(argv[1], "negative") == 0;
	bool sleep = strcmp(argv[1], "sleep") == 0, interrupt = strcmp(argv[1], "interrupt") == 0;
	if (!t && !zero && !negative && !sleep && !interrupt)
		return SHELL_USAGE;

	static char why[160];
	const char *failed = NULL;
	uint64_t w0, w1, i0, i1, t0 = ktime_get_ns();
	cost_mark(&w0, &i0, t0);
	if (t) {
		int n = run_sleepers(t);
		if (n == -EINTR)
			return n;
		if (n == -ETIMEDOUT) {
			failed = gave_up;
		} else if (n < 0) {
			shell_error("alarm", n);
			failed = "a sleeper could not be armed";
		} else {
			for (int k = 0; k < n; k++)
				kprintf("alarm: sleeper %u (%u ticks) woke at jiffy %u, sleep %u, product %u\n",
				        wakes[k].id, wakes[k].ticks, wakes[k].woke, wakes[k].iteration + 1,
				        (wakes[k].iteration + 1) * wakes[k].ticks);
			failed = check(t, (unsigned)n, why, sizeof(why));
		}
	} else if (sleep) {
		failed = alarm_check_sleep_ticks(why, sizeof(why));
	} else if (interrupt) {
		failed = alarm_check_interrupted(false, why, sizeof(why));
		if (!failed)
			failed = alarm_check_interrupted(true, why, sizeof(why));
	} else {
		failed = check_at_once(zero ? 0 : -ALARM_BACKWARDS, why, sizeof(why));
	}
	uint64_t t1 = ktime_get_ns(), span = t1 - t0;
	cost_mark(&w1, &i1, t1);
	kprintf("alarm %s: %llu wakeups in %llu ms, halted %llu%%\n", argv[1],
	        (unsigned long long)(w1 - w0), (unsigned long long)(span / NSEC_PER_MSEC),
	        (unsigned long long)(span ? (i1 - i0) * 100 / span : 0));
	if (failed)
		kprintf("alarm %s: FAIL: %s\n", argv[1], failed);
	else
		kprintf("alarm %s: PASS\n", argv[1]);
	return 0;
}
