/* kernel/shell/inject_witness.c — the recovery check that `inject`
 * (cmd_inject.c) runs around every fault (docs/robustness.md, "The
 * recovery check: witnesses").
 *
 * Before the fault, each online CPU gets an hrtimer and a wheel timer at
 * two deadlines that span the fault (witness_arm).  Afterwards all of them
 * must have fired exactly once and none before its deadline, and jiffies
 * must have advanced exactly as the clocksource says (witness_report
 * prints one "recovered:" line, or an `error:` line per broken promise).
 */
#include "arch/smp.h"
#include "console.h"
#include "errno.h"
#include "idle.h"
#include "kprintf.h"
#include "shell/inject_witness.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"

#define WITNESS_GRACE_MS    3000        /* all must have fired this long after the last deadline */
#define WITNESS_SETTLE_MS   50          /* then a pause in which none may fire again */

struct witness {
	struct hrtimer hr;
	struct timer wh;
	unsigned cpu;
	uint64_t due_ns;
	uint32_t due_jiffy;
	volatile unsigned hr_fired, wh_fired;
	volatile bool early;
	volatile uint64_t hr_at_ns;
};

#define WITNESSES_PER_CPU 2
static struct witness witnesses[NR_CPUS * WITNESSES_PER_CPU];
static unsigned nwitnesses;
static unsigned witness_waiter;         /* the shell's CPU: kicked by each */
static struct {
	uint64_t t0_ns;
	uint32_t j0;
	uint64_t b0_ns;         /* the boundary j0 was reached at */
} base;

static void witness_done(void)
{
	smp_kick(witness_waiter);       /* nothing if it is this CPU */
}

static enum hrtimer_restart witness_hr_fn(struct hrtimer *t)
{
	struct witness *w = container_of(t, struct witness, hr);
	uint64_t now = ktime_get_ns();
	if (now < w->due_ns)
		w->early = true;
	w->hr_at_ns = now;
	__atomic_add_fetch(&w->hr_fired, 1, __ATOMIC_RELEASE);
	witness_done();
	return HRTIMER_NORESTART;
}

static void witness_wheel_fn(struct timer *t)
{
	struct witness *w = container_of(t, struct witness, wh);
	if (time_before(jiffies, w->due_jiffy))
		w->early = true;
	__atomic_add_fetch(&w->wh_fired, 1, __ATOMIC_RELEASE);
	witness_done();
}

/* Wait (busy: the tick runs) until jiffies have caught up with the
 * clocksource: the boundary they last reached is less than a period ago. */
static void jiffies_caught_up(uint32_t *j, uint64_t *boundary_ns)
{
	uint64_t period = NSEC_PER_SEC / tick_hz, give_up = ktime_get_ns() + 2 * period;
	do {
		tick_jiffies_snapshot(j, boundary_ns);
	} while (ktime_get_ns() - *boundary_ns >= period && ktime_get_ns() < give_up);
}

/* Two deadlines per CPU: at `first_ms` and at `last_ms` from now. */
int witness_arm(uint32_t first_ms, uint32_t last_ms)
{
	witness_waiter = this_cpu()->index;
	jiffies_caught_up(&base.j0, &base.b0_ns);
	base.t0_ns = ktime_get_ns();
	nwitnesses = 0;
	for (unsigned cpu = 0; cpu < cpus_online; cpu++) {
		for (unsigned k = 0; k < WITNESSES_PER_CPU; k++) {
			struct witness *w = &witnesses[nwitnesses++];
			uint32_t ms = k == 0 ? first_ms : last_ms;
			*w = (struct witness){ .cpu = cpu };
			hrtimer_init(&w->hr, witness_hr_fn, "witness");
			timer_init(&w->wh, witness_wheel_fn, "witness");
			w->due_ns = base.t0_ns + (uint64_t)ms * NSEC_PER_MSEC;
			w->due_jiffy = base.j0 + ms_to_jiffies(ms);
			if (hrtimer_start_on(&w->hr, w->due_ns, cpu) < 0) {
				kprintf("error: CPU %u has no free hrtimer slot\n", cpu);
				nwitnesses--;
				return -ENOSPC;
			}
			timer_mod_on(&w->wh, w->due_jiffy, cpu);
		}
	}
	return 0;
}

static bool witnesses_all_fired(void)
{
	for (unsigned i = 0; i < nwitnesses; i++)
		if (!__atomic_load_n(&witnesses[i].hr_fired, __ATOMIC_ACQUIRE) ||
		    !__atomic_load_n(&witnesses[i].wh_fired, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

void witness_cancel(void)
{
	for (unsigned i = 0; i < nwitnesses; i++) {
		hrtimer_cancel(&witnesses[i].hr);
		timer_del_sync(&witnesses[i].wh);
	}
}

/* Sleep `ms` on a timer of this CPU (or until Ctrl-C, or cond). */
static volatile bool pause_over;
static enum hrtimer_restart pause_fn(struct hrtimer *t)
{
	UNUSED(t);
	pause_over = true;
	return HRTIMER_NORESTART;
}
void inject_pause_ms(uint32_t ms, bool (*done)(void))
{
	static struct hrtimer pause;
	hrtimer_init(&pause, pause_fn, "inject");
	pause_over = false;
	hrtimer_start(&pause, ktime_get_ns() + (uint64_t)ms * NSEC_PER_MSEC);
	wait_event(pause_over || (done && done()) || console_interrupted());
	hrtimer_cancel(&pause);
}

/* Wait for every witness, then a little longer for any second firing;
 * print the verdict.  0, or -EIO after the error lines. */
int witness_report(void)
{
	uint64_t last_due = 0;
	for (unsigned i = 0; i < nwitnesses; i++)
		last_due = MAX(last_due, witnesses[i].due_ns);
	uint64_t now = ktime_get_ns();
	uint32_t wait = (uint32_t)((last_due > now ? last_due - now : 0) / NSEC_PER_MSEC) +
	                WITNESS_GRACE_MS;
	inject_pause_ms(wait, witnesses_all_fired);
	inject_pause_ms(WITNESS_SETTLE_MS, NULL);

	int rc = 0;
	uint64_t latest = 0;
	for (unsigned i = 0; i < nwitnesses; i++) {
		struct witness *w = &witnesses[i];
		if (w->hr_fired != 1 || w->wh_fired != 1) {
			kprintf("error: witness on CPU %u fired %u (hrtimer) and %u (wheel) times, "
			        "not once\n", w->cpu, w->hr_fired, w->wh_fired);
			rc = -EIO;
		}
		if (w->early) {
			kprintf("error: witness on CPU %u fired before its deadline\n", w->cpu);
			rc = -EIO;
		}
		if (w->hr_fired && w->hr_at_ns > w->due_ns)
			latest = MAX(latest, w->hr_at_ns - w->due_ns);
	}
	witness_cancel();

	/* Jiffies: never ahead of the clocksource, caught up to within a
	 * period of it, and advanced by exactly the periods between the
	 * boundaries they reached (a tick counted by interrupts, not by the
	 * clocksource, breaks the first or the last). */
	uint64_t b1, period = NSEC_PER_SEC / tick_hz;
	uint32_t j1;
	jiffies_caught_up(&j1, &b1);
	uint64_t t_end = ktime_get_ns(), span = t_end - base.t0_ns;
	uint32_t got = j1 - base.j0;
	uint64_t want = (b1 - base.b0_ns) / period;
	if (b1 > t_end || t_end - b1 >= 2 * period || got != want || (b1 - base.b0_ns) % period) {
		kprintf("error: jiffies advanced %u, the clocksource %llu periods; the last "
		        "boundary %lld us from now\n", got, (unsigned long long)want,
		        (long long)((int64_t)(b1 - t_end) / 1000));
		rc = -EIO;
	}
	char late[FMT_FIXED_SIZE];
	if (rc == 0)
		kprintf("recovered: %u timers on %u CPU%s fired once each, none early, the latest "
		        "%s ms late; jiffies +%u in %llu ms (%llu expected)\n",
		        2 * nwitnesses, cpus_online, cpus_online > 1 ? "s" : "",
		        fmt_fixed(late, sizeof(late), latest / 10000, 2), got,
		        (unsigned long long)(span / NSEC_PER_MSEC), (unsigned long long)want);
	return rc;
}

/* witness_arm fills the table CPU by CPU, each CPU's first then its last. */
uint64_t witness_last_due_ns(unsigned cpu)
{
	return witnesses[cpu * WITNESSES_PER_CPU + WITNESSES_PER_CPU - 1].due_ns;
}
