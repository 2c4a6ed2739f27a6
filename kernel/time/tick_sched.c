/* kernel/time/tick_sched.c — how the idle CPU stops the tick, and how an
 * interrupt starts it again (Linux's tick-sched.c does the same job).
 *
 * A skip has three moments:
 *   tick_idle_enter()  interrupts off, right before the halt: decide how
 *                      long the CPU may sleep (stop_tick_if_worth_it(),
 *                      each limit applied by name) and program the device;
 *   tick_irq_enter()   the first interrupt of any kind, before its handler:
 *                      catch jiffies up and tick again (tick_restart());
 *   tick_idle_exit()   back from the halt: account for the sleep.
 * The first two are the 2005 dyntick patch's rules; tickless mode keeps
 * them and drops the whole-tick rounding.
 *
 * Longer than 400 lines because the three moments belong together: a
 * reader follows one skip from the decision to the restart in this one
 * file (docs/dyntick.md walks it), and two labs fill in parts of it.
 */
#include "lab.h"
#include "time/percpu.h"
#include "time/clocksource.h"
#include "time/hrtimer.h"
#include "time/slack.h"
#include "time/jiffies.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"
#include "time/trace.h"
#include "time/wakeups.h"
#include "time/watchdog.h"
#include "tick_internal.h"

/* ------------------------------------------------------ what skipping can do */

uint64_t tick_max_skip(void)
{
	struct tick_cpu *tc = this_tick();
	return tc->dev ? tc->dev->max_delta_ns / tc->period_ns : 0;
}

/* Which skipping mode's counters a skip counts in (wakeups.h). */
static enum skip_mode skip_mode_of(const struct tick_cpu *tc)
{
	return tc->mode == TICK_MODE_TICKLESS ? SKIP_TICKLESS : SKIP_DYNTICK;
}

/* The earliest pending timer of either kind on CPU `cpu`, as absolute ns
 * (its wheel's expiry at its jiffy boundary, from this CPU's copy of the
 * boundary); false if none.  *limit says which kind, *name which timer. */
static bool next_timer_on(unsigned cpu, uint64_t *ns, enum tick_limit *limit, const char **name)
{
	const struct tick_cpu *tc = this_tick();
	bool found = false;
	uint32_t expires;
	uint64_t hr;
	const char *wname = NULL, *hname = NULL;

	/* LAB tickless: BEGIN
	 * The wheel's next expiry (timer_next_expiry_on) is a jiffy: turn it
	 * into nanoseconds from this CPU's last jiffy boundary (a jiffy
	 * already past is due now).  Then the hrtimers' next expiry
	 * (hrtimer_next_expiry_on), already in ns: keep the earlier of the
	 * two, and say which kind (*limit) and which timer (*name) it was.
	 */
	if (timer_next_expiry_on(cpu, &expires, &wname)) {
		/* A wheel timer is due at the boundary that starts jiffy
		 * `expires`; if that is already past, it is due now. */
		int32_t ahead = (int32_t)(expires - jiffies);
		*ns = tc->last_jiffy_ns + (ahead > 0 ? (uint64_t)ahead * tc->period_ns : 0);
		*limit = TICK_LIMIT_TIMER;
		*name = wname;
		found = true;
	}
	if (hrtimer_next_expiry_on(cpu, &hr, &hname) && (!found || hr < *ns)) {
		*ns = hr;
		*limit = TICK_LIMIT_HRTIMER;
		*name = hname;
		found = true;
	}
	/* LAB tickless: STUB
	UNUSED(cpu);
	UNUSED(expires);
	UNUSED(hr);
	UNUSED(wname);
	UNUSED(hname);
	lab_not_implemented("tickless");
	*ns = tc->last_jiffy_ns + tc->period_ns;
	*limit = TICK_LIMIT_TIMER;
	*name = "lab stub: the next tick";
	found = true;
	   LAB tickless: END */
	return found;
}

/* This CPU's earliest timer; in dyntick mode on several CPUs, the earliest
 * of every CPU's (the 2005 rule: the idle CPUs share one skip to the next
 * event of any, and the first to wake wakes the rest). */
static bool tick_next_timer_ns(const struct tick_cpu *tc, uint64_t *ns, enum tick_limit *limit,
                               const char **name)
{
	unsigned me = arch_this_cpu_id();
	bool found = next_timer_on(me, ns, limit, name);
	if (tc->mode != TICK_MODE_DYNTICK)
		return found;
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		uint64_t t;
		enum tick_limit l;
		const char *n;
		if (cpu != me && next_timer_on(cpu, &t, &l, &n) && (!found || t < *ns)) {
			*ns = t;
			*limit = l;
			*name = n;
			found = true;
		}
	}
	return found;
}

/* ------------------------------------------------------ idle enter */

/* What an idle entry decided: the sleep's end, and what chose it. */
struct sleep_plan {
	uint64_t next;
	enum tick_limit limit;
	const char *name;               /* the timer that set `next`, if one did */
};

static void plan_limit(struct sleep_plan *p, uint64_t limit_ns, enum tick_limit why)
{
	if (p->next > limit_ns) {
		p->next = limit_ns;
		p->limit = why;
		p->name = NULL;
	}
}

/* The longest this CPU may sleep from `now`: its next timer, cut short by
 * each limit in turn.  An AP leaves the clocksource's and the watchdog's
 * limits to the boot CPU (TICK_BOOT_CPU), which wakes for them (an AP
 * that wakes reads the clocksource too, but need not wake for it). */
static struct sleep_plan sleep_limits(struct tick_cpu *tc, uint64_t now, bool ap)
{
	struct sleep_plan p = { .limit = TICK_LIMIT_NONE };
	/* 1. The next timer of either kind. */
	if (!tick_next_timer_ns(tc, &p.next, &p.limit, &p.name)) {
		p.next = UINT64_MAX;
		p.limit = TICK_LIMIT_DEVICE;
	}
	/* 2. The device cannot wait longer than its maximum delta. */
	plan_limit(&p, now + tc->dev->max_delta_ns, TICK_LIMIT_DEVICE);
	/* 3. The clocksource must be read before it wraps twice over. */
	uint64_t limit_ns = now + timekeeping_max_idle_ns();
	if (!ap && limit_ns > now)
		plan_limit(&p, limit_ns, TICK_LIMIT_WRAP);
	/* 4. The watchdog's reference must not wrap between two checks (only
	 * a narrow one, such as the PM timer, ever sets this limit). */
	uint64_t wd = watchdog_max_idle_ns(now);
	limit_ns = now + wd;
	if (!ap && wd != UINT64_MAX && limit_ns > now)
		plan_limit(&p, limit_ns, TICK_LIMIT_WATCHDOG);
	return p;
}

/* Dyntick: the 2005 patch's skip, in whole ticks from the last jiffy
 * boundary to `next`; 0 if it is not worth reprogramming the device for
 * (the tick then keeps running: tc->stopped back to false). */
static uint64_t dyntick_skip(struct tick_cpu *tc, uint64_t next)
{
	uint64_t skip = 0;
	/* LAB dyntick: BEGIN
	 * The 2005 patch's rule: how many whole tick periods lie
	 * between the last jiffy boundary (tc->last_jiffy_ns) and
	 * `next`?  That is the skip.  A skip of TICK_DYNTICK_MIN_SKIP
	 * ticks or fewer is not worth reprogramming the device for:
	 * mark the tick running again and return 0.
	 */
	skip = next <= tc->last_jiffy_ns ? 1 :
	       (next - tc->last_jiffy_ns) / tc->period_ns;
	if (skip <= TICK_DYNTICK_MIN_SKIP) {
		WRITE_ONCE(tc->stopped, false);
		return 0;       /* not worth it: keep ticking */
	}
	/* LAB dyntick: STUB
	UNUSED(next);
	lab_not_implemented("dyntick");
	WRITE_ONCE(tc->stopped, false);
	return 0;
	   LAB dyntick: END */
	return skip;
}

/* Dyntick on this CPU: set `p->next` to the end of a whole-tick skip and
 * put the device in one-shot mode; false if the tick keeps running.
 *
 * The 2005 patch on SMP: no tick is skipped while another CPU is busy;
 * the last CPU to go idle skips, and any CPU still ticking skips at its
 * next tick, when it finds all idle.  One CPU's device ends the skip and
 * that CPU wakes the others: in lull always the boot CPU (TICK_BOOT_CPU),
 * so an AP that is last to go idle sleeps past the next event and the
 * boot CPU, idle and ticking, programs the skip at its next tick.  (Were
 * each CPU to end its own copy, the first device to fire would kick the
 * rest just before theirs fired: two interrupts each, and the boot CPU
 * woken by the kick as often as by its timer.)
 * Marked stopped before looking, and a CPU getting busy marks itself busy
 * before looking for stopped CPUs to wake (tick_work_starts,
 * tick_restart): each writes, fences, then reads, so at least one of the
 * two sees the other.  Looking first lost the race in QEMU (the boot CPU
 * skipped through a busy second of CPU 1's: its LAPIC write let CPU 1 run
 * in between). */
static bool dyntick_plan(struct tick_cpu *tc, uint64_t now, bool follower, struct sleep_plan *p)
{
	WRITE_ONCE(tc->stopped, true);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (tick_others_busy()) {
		WRITE_ONCE(tc->stopped, false);
		return false;
	}
	uint64_t skip = dyntick_skip(tc, p->next);
	if (!skip)
		return false;
	/* Never more than the patch's maximum, the device's reach in whole
	 * ticks (tick_max_skip(), its boot line "limited to N"), even late in
	 * a jiffy, when counting from the boundary one more would still fit. */
	uint64_t max_skip = tick_max_skip();
	if (skip > max_skip) {
		skip = max_skip;
		p->limit = TICK_LIMIT_DEVICE;
		p->name = NULL;
	}
	/* The boot CPU ends every skip and wakes the others: they sleep a
	 * tick longer, in case no kick comes, as far as their device reaches. */
	if (follower &&
	    (now + tc->dev->max_delta_ns - tc->last_jiffy_ns) / tc->period_ns > skip)
		skip++;
	tc->skip = (unsigned)skip;
	p->next = tc->last_jiffy_ns + skip * tc->period_ns;
	clockevents_set_oneshot(tc->dev);
	return true;
}

/* Program the sleep planned, stop the tick and account for it. */
static void stop_tick(struct tick_cpu *tc, const struct sleep_plan *p)
{
	/* The device counts from now, not from the `now` the decision began
	 * with: the decision itself takes time (finding the next timer, the
	 * limits), and a delta measured from its start would make every skip
	 * end that much past its deadline (as every hrtimer that ended a skip
	 * once was, under -icount: test_a_skip_ends_on_its_deadline). */
	tick_program_oneshot(tc, p->next, ktime_get_ns());
	WRITE_ONCE(tc->stopped, true);
	/* A CPU with its tick stopped cannot keep jiffies: give them up; the
	 * next CPU whose tick fires takes them (tick_jiffies.c). */
	tick_release_jiffies();
	tc->skip_limit = p->limit;
	tc->skip_timer = p->name;
	tc->skip_from = jiffies;        /* tick_restart counts what was slept */
	wakeups_note_skip(skip_mode_of(tc), p->limit, p->name);
}

/* Decide how long the CPU may sleep and program the tick device for it.
 * Returns the absolute time programmed, or 0 if the tick keeps running. */
static uint64_t stop_tick_if_worth_it(struct tick_cpu *tc, uint64_t now)
{
	if (tc->mode == TICK_MODE_PERIODIC || tc->softirq_pending || tc->stopped)
		return 0;               /* tick on; or work to do; or already asleep */
	/* On several CPUs an AP leaves two jobs to the boot CPU: reading the
	 * clocksource in time, and in dyntick ending the skip. */
	bool ap = arch_this_cpu_id() != TICK_BOOT_CPU;
	struct sleep_plan p = sleep_limits(tc, now, ap);

	if (tc->mode == TICK_MODE_DYNTICK) {
		if (!dyntick_plan(tc, now, ap, &p))
			return 0;
	} else if (p.next <= tick_next_jiffy_ns(tc)) {
		/* Tickless, but something is due this tick: the device keeps
		 * its busy program (the next jiffy, or an hrtimer before it,
		 * as tick_irq_exit set it), unless `next` is earlier still.
		 * It can be: an hrtimer armed for this CPU from another, after
		 * that program and before this CPU marked itself idle, comes
		 * with no kick (the arming CPU saw it awake).  Left to the
		 * program, it ran up to a jiffy late, past its window's hard
		 * end (found with `timerload 10 1 3 1 cpu=1` on two CPUs). */
		if (tc->programmed_ns == 0 || p.next < tc->programmed_ns)
			tick_program_oneshot(tc, p.next, ktime_get_ns());
		return 0;
	} else {
		tc->skip = (unsigned)((p.next - tc->last_jiffy_ns) / tc->period_ns);
	}
	stop_tick(tc, &p);
	return p.next;
}

/* Called with interrupts off, right before the CPU halts. */
void tick_idle_enter(void)
{
	struct tick_cpu *tc = this_tick();
	tc->irqs_at_idle = tc->irqs;
	if (!tc->dev)
		return;
	uint64_t now = timekeeping_update();
	tick_update_jiffies(tc, now);
	wakeups_idle_enter(now);
	/* Idle, then read the queues (stop_tick_if_worth_it): pairs with
	 * tick_kick_remote*, which queues a timer, fences, then reads this
	 * flag, so either it sees us idle and kicks, or we see its timer.  A
	 * store then a load: only a full fence orders them (the queues'
	 * lock is taken with acquire only; on x86 its xchg would do, but the
	 * time core is portable). */
	WRITE_ONCE(tc->idle, true);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	tc->skip_limit = TICK_LIMIT_NONE;
	uint64_t until = stop_tick_if_worth_it(tc, now);
	if (trace_on()) {
		struct trace_event e = {
			.t_ns = now, .kind = TRACE_IDLE_ENTER,
			.cause = until ? tc->skip_limit : TICK_LIMIT_NONE,
			.skip = until ? tc->skip : 0, .sleep_ns = until ? until - now : 0,
			.name = until ? tc->skip_timer : NULL,
		};
		trace_add(&e);
	}
}

uint64_t tick_idle_wake_ns(bool *skipping)
{
	struct tick_cpu *tc = this_tick();
	*skipping = tc->dev && tc->stopped && tc->programmed_ns;
	if (!tc->dev)
		return 0;
	return *skipping ? tc->programmed_ns : tick_next_jiffy_ns(tc);
}

/* ------------------------------------------------------ the interrupt */

/* The tick is stopped (or stretched) and an interrupt arrived: catch up,
 * then tick again at HZ until the idle loop decides otherwise. */
static void tick_restart(struct tick_cpu *tc, unsigned vector)
{
	uint64_t now = timekeeping_update();
	tick_note_latency(tc, now);
	tick_update_jiffies(tc, now);
	wakeups_note_catchup(skip_mode_of(tc), jiffies - tc->skip_from);
	WRITE_ONCE(tc->stopped, false);
	/* Dyntick: the 2005 dyntick patch's rule, back to one tick per period
	 * at once.  Tickless: tick_irq_exit() programs the next tick once the
	 * handler has run (not now: the device's interrupt being handled was
	 * armed by the old program, and clockevents_handle_event judges it by
	 * that). */
	if (tc->mode == TICK_MODE_DYNTICK) {
		/* LAB dyntick: BEGIN
		 * The catch-up is done (tick_update_jiffies above).  Put the
		 * device back to one tick per period (clockevents_set_periodic)
		 * and forget the one-shot deadline (tc->programmed_ns).
		 */
		clockevents_set_periodic(tc->dev, tc->hz);
		tc->programmed_ns = 0;
		/* LAB dyntick: STUB
		lab_not_implemented("dyntick");
		   LAB dyntick: END */
		/* The first CPU to wake (others still asleep) restores every
		 * CPU's tick, and counts as busy from now (its idle loop would
		 * say so only after the handler), so none of them skips again
		 * meanwhile.  The CPUs it wakes just tick again: a CPU woken by
		 * that kick is not the first, and waking the others from there
		 * (one of them may be asleep again already) made the CPUs keep
		 * waking each other, far more often than the tick, with the
		 * boot CPU on the PIT. */
		if (!arch_vector_is_kick(vector) && tick_others_stopped()) {
			WRITE_ONCE(tc->idle, false);
			tick_wake_stopped_others();
		}
	}
	/* Piggybacking (time/slack.h): whatever woke us, the timers whose
	 * soft end has passed run now, on irq exit, not in a wakeup of their
	 * own at their hard end.  (The tick device's own interrupt runs them
	 * either way: tick_handle_event.) */
	if (timer_piggyback)
		tc->softirq_pending = true;
	tc->restarted = true;
}

/* Before any interrupt's handler (kernel/arch/irq.c): note what woke an
 * idle CPU, and restart a stopped tick. */
void tick_irq_enter(unsigned vector)
{
	struct tick_cpu *tc = this_tick();
	tc->irqs++;
	if (!tc->dev)
		return;                 /* before tick_init, or no device for this CPU */
	if (tc->idle)
		wakeups_note_irq(vector);
	if (tc->stopped)
		tick_restart(tc, vector);
}

/* ------------------------------------------------------ idle exit */

bool tick_idle_abandon(void)
{
	struct tick_cpu *tc = this_tick();
	/* A CPU with no tick device keeps no wakeup record, but an
	 * interrupt in the window (an IPI bringing it work) must still
	 * keep it from halting: with no timer of its own, nothing else
	 * would wake it. */
	if (!tc->dev)
		return tc->irqs != tc->irqs_at_idle;
	if (!wakeups_idle_abandon())
		return false;
	WRITE_ONCE(tc->idle, false);
	return true;
}

/* Back from the halt (interrupts off): the interrupt that woke us already
 * caught jiffies up and restored the tick (tick_restart). */
void tick_idle_exit(void)
{
	struct tick_cpu *tc = this_tick();
	if (!tc->dev)
		return;
	WRITE_ONCE(tc->idle, false);
	wakeups_idle_exit(ktime_get_ns());
}
