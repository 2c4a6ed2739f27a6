/* kernel/time/timer.c — jiffy timers on a cascading hierarchical wheel: its
 * design, and a timer's life through the API both wheels share (timer_init,
 * arming with timer_mod and its kin, disarming with timer_del and its kin).
 * The rest has files of its own, mapped in kernel/time/timer_wheel.h: the
 * cascading wheel's levels and cascade (timer_cascade.c), the other wheel,
 * Linux 4.8's, which never cascades (timer_level.c), the buckets both keep
 * (timer_bucket.c), running due timers and the next-expiry query
 * (timer_expiry.c), and each CPU's wheel as a whole (timer_base.c).
 * Longer than 400 lines only by this header: the wheel's design lives
 * here, where a reader of the wheel starts (docs/labs/wheel.md).
 *
 * The design is the timer wheel Linux used until 4.7 (after Varghese and
 * Lauck, "Hashed and hierarchical timing wheels", SOSP 1987).  Picture the
 * hands of a clock: level 0 has a bucket per jiffy for the next 256 jiffies;
 * each higher level has 64 buckets, each as wide as the whole level below.
 * A timer goes into the finest level whose span covers it.  When the wheel
 * reaches the start of a coarse bucket it *cascades* it: re-sorts its timers
 * into the levels below, where the buckets are finer.  By the time a
 * timer's jiffy comes it sits in that jiffy's level-0 bucket, so every
 * timer fires on its exact jiffy, never earlier or later.  (Linux 4.8
 * dropped cascading and lets a far timer fire up to 12.5% late; we keep
 * exactness, at the price of at most 4 cascades per timer.)
 *
 *   level  buckets  bucket width  span       bucket width / span, in time
 *                   (jiffies)     (jiffies)  HZ=100          HZ=250           HZ=1000
 *     0      256    1             2^8        10 ms / 2.56 s  4 ms / 1.02 s    1 ms / 256 ms
 *     1       64    2^8           2^14       2.56 s / 164 s  1.02 s / 65.5 s  256 ms / 16.4 s
 *     2       64    2^14          2^20       164 s / 2.9 h   65.5 s / 70 min  16.4 s / 17.5 min
 *     3       64    2^20          2^26       2.9 h / 7.8 d   70 min / 3.1 d   17.5 min / 18.6 h
 *     4       64    2^26          2^31 (a)   7.8 d / 248 d   3.1 d / 99.4 d   18.6 h / 24.9 d
 *
 * (a) The range.  Five levels span 2^32 jiffies, but expiries are 32-bit
 *     and compared wrap-safely (jiffies.h), so the farthest future a timer
 *     can name is base + 2^31 - 1, and level 4 holds it.  Nothing lies
 *     beyond the range to clamp into the last bucket: an expiry 2^31 or
 *     more ahead is, by time_after()'s arithmetic, in the past, and fires
 *     on the next run.  Keep timeouts under 2^31 jiffies (24.8 days at
 *     HZ=1000).
 *
 * Cost:
 *   timer_mod, timer_add,   O(1).  A re-arm whose new expiry falls in the
 *   timer_del               bucket the timer is already in only updates it.
 *   timer_init              O(1) if t's pprev is NULL (never armed, fired
 *                           or disarmed); otherwise the one bucket list t
 *                           claims to be on is walked, looking for it.
 *   timer_run_expired       O(1) per timer fired and per timer cascaded (at
 *                           most 4 cascades in a timer's life), plus a scan
 *                           of the occupancy bitmaps (16 words) per jiffy
 *                           that has work.  Empty stretches cost nothing:
 *                           the wheel jumps straight to the next jiffy with
 *                           a bucket to run or cascade.
 *   timer_next_expiry       the bitmap scan plus, per level, the first
 *                           occupied bucket's cached earliest timer; a
 *                           bucket's list is walked only when its earliest
 *                           timer left since the last query.
 *   timer_count             O(1).
 *   timer_for_each, timer_wheel_remap  O(buckets + timers).
 *
 * Where the earliest timers are.  Call B the wheel's base, the next jiffy
 * it will process (everything before B is done).  For level L let g be its
 * bucket width and call [n*g, (n+1)*g) "block n"; all jiffy arithmetic is
 * modulo 2^32, and e/g below is integer division.  Claim: a timer in level
 * L with expiry e lies k = e/g - B/g blocks ahead of B's block, with
 *     k0 <= k <= k0 + (buckets - 1),   k0 = 0 if B starts a block, else 1,
 * and sits in bucket (B/g + k) mod buckets.
 *
 * Proof.  It was queued at some base A <= B with g <= e - A < buckets * g
 * (level 0: 0 <= e - A < 256), so e's block is at most `buckets` blocks
 * after A's, and fewer if A starts a block.  A bucket is cascaded (level 0:
 * run) when the wheel processes the first jiffy of a block with that
 * bucket's index (it skips a jiffy only when there is nothing to run or
 * cascade then).  The first such jiffy at or after A is the start of e's
 * own block: the one `buckets` blocks earlier is before A, or is A itself
 * only if e - A >= buckets * g.  The timer is still in the level, so the
 * start of e's block is >= B: k >= 0, and k = 0 only if B starts e's
 * block.  And since A <= B, k <= buckets, with k = buckets only if B does
 * not start a block.  So, taken in order k = k0, k0+1, ..., the buckets
 * hold disjoint, increasing ranges of expiries: the first occupied one
 * holds the level's minimum, and its block start is the earliest any of
 * its timers can expire, the jiffy at which it must be cascaded (or run).
 *
 * The one exception is a timer queued with its expiry already past: it goes
 * to level 0's bucket for B (k = 0) and fires with that jiffy.
 *
 * So timer_next_expiry() takes, for each level, the first occupied bucket
 * from k0 on (a cyclic bitmap scan), walks that one list for its minimum,
 * and returns the least of the levels' minima.  It must ask every level,
 * because levels interleave in time: a timer queued at jiffy 0 for jiffy
 * 300 goes to level 1 and stays there until jiffy 256, so seen from jiffy
 * 200 it is due sooner than anything level 0 holds past its next 100
 * buckets.  Note k0: at a block start the current bucket is still to be
 * cascaded and holds the soonest timers; one jiffy later it holds timers a
 * whole turn of that level away, and is searched last.
 */
#include "time/percpu.h"
#include "time/timer.h"
#include "time/jiffies.h"
#include "time/arch.h"
#include "spinlock.h"
#include "timer_wheel.h"

/* ------------------------------------------------------------ the bases */

/* Lock the base t is on (t->base changes only with both the old and the
 * new base locked, so once its lock is held and t->base still names it,
 * t stays there). */
static struct timer_base *lock_timer_base(const struct timer *t, unsigned long *flags)
{
	for (;;) {
		struct timer_base *w = READ_ONCE(t->base);
		*flags = spin_lock_irqsave(&w->lock);
		if (READ_ONCE(t->base) == w)
			return w;
		spin_unlock_irqrestore(&w->lock, *flags);
	}
}

/* The tick's hooks (timer.h), NULL until it registers them. */
static const struct timer_tick_ops *tick_ops;

void timer_set_tick_ops(const struct timer_tick_ops *ops)
{
	tick_ops = ops;
}

/* Every arm of a timer, by whichever function, ends here once the locks are
 * dropped: a timer now on another CPU's wheel is that CPU's news (it may
 * be asleep with its tick stopped, its device programmed for what it knew
 * before; the tick's hook wakes it if so). */
static void wheel_armed_on(unsigned cpu)
{
	if (cpu != arch_this_cpu_id() && tick_ops && tick_ops->armed_remote)
		tick_ops->armed_remote(cpu);
}

/* Whether t is on one of the wheel's lists, judged by the wheel's own
 * memory: t may be uninitialised (a stack timer about to be set up), so
 * its fields are only compared, never followed.  A pending timer always
 * has pprev set and `bucket` naming the list it is on, so a NULL pprev or
 * a bucket out of range means "not pending" at once; otherwise that one
 * list is walked looking for t.  Interrupts off. */
static bool wheel_holds(const struct timer_base *w, const struct timer *t)
{
	struct timer *list;
	if (t->pprev == NULL)
		return false;
	if (t->bucket == TIMER_BUCKET_RUNNING)
		list = w->running;
	else if (t->bucket < WHEEL_BUCKETS)
		list = w->bucket[t->bucket];
	else
		return false;
	for (; list; list = list->next)
		if (list == t)
			return true;
	return false;
}

/* Re-initialising a pending timer would declare it unlinked while a bucket
 * still points at it: the next arm links it a second time, into a loop if
 * it lands in the same bucket.  So it is refused, as is re-initialising
 * the timer whose callback is running: a callback re-arms its timer with
 * timer_mod or timer_add.  t may be uninitialised, so every CPU's wheel is
 * asked, not the t->base it may not have. */
void timer_init(struct timer *t, void (*fn)(struct timer *), const char *name)
{
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		struct timer_base *w = time_timer_base(cpu);
		unsigned long flags = spin_lock_irqsave(&w->lock);
		bool held = wheel_holds(w, t), firing = t == w->firing;
		spin_unlock_irqrestore(&w->lock, flags);
		if (held)
			panic("timer_init: %s is pending (timer_mod re-arms it, timer_del disarms it)",
			      name ? name : "?");
		if (firing)
			panic("timer_init: %s is running: re-initialised while its callback runs",
			      name ? name : "?");
	}
	t->next = NULL;
	t->pprev = NULL;
	t->expires = 0;
	t->hard = 0;
	t->class = TIMER_CLASS_DEFAULT;
	t->slack_pct = 0;
	t->function = fn;
	t->name = name;
	t->bucket = 0;
	t->base = this_base();
}

/* The hard end for a timer armed at `expires` by its class, the slack
 * counted from how far ahead of jiffies, now, that is.  (Not of the
 * wheel's base: that lags jiffies through a tickless sleep, and leads it
 * by one in a run, so a late callback re-arming itself would get far more
 * slack than its class allows.) */
/* A timer armed with no function would crash its CPU at expiry: stop here,
 * naming the caller. */
static void timer_check_function(const struct timer *t, const char *who)
{
	if (t->function == NULL)
		panic("%s: %s has no function", who, timer_name(t));
}

static uint32_t class_hard(const struct timer *t, uint32_t expires)
{
	if (t->class == TIMER_CLASS_DEFAULT && timer_slack_percent == 0)
		return expires;         /* the common case, exact: nothing to work out */
	int32_t ahead = (int32_t)(expires - jiffies);
	uint64_t slack = timer_slack((enum timer_class)t->class, t->slack_pct,
	                             ahead > 0 ? (uint64_t)ahead : 0, tick_hz);
	return expires + (uint32_t)slack;
}

/* Arm t on w, whose lock is held, for the window [expires, hard]:
 * was_pending says if t is on w now. */
static void wheel_arm(struct timer_base *w, struct timer *t, uint32_t expires, uint32_t hard,
                      int was_pending)
{
	/* The level wheel moves a stale base forward before any arm
	 * (timer_level.c, level_forward, says why): the level is then
	 * reckoned from now, not from when the CPU went idle. */
	if (w->ops->forward && !w->in_run)
		w->ops->forward(w);
	unsigned b = w->ops->bucket_for(w, expires);
	if (time_before(hard, expires))
		hard = expires;
	/* A wide window on a far timer (100% slack on 2^30 jiffies) can put
	 * the hard end 2^31 or more past the base, where it reads as past:
	 * timer_next_expiry would call it overdue and the idle path would
	 * never sleep.  The farthest a hard end can be is the range's end. */
	if (!time_before(expires, w->base) && (int32_t)(hard - w->base) < 0)
		hard = w->base + (uint32_t)INT32_MAX;
	/* (A timer waiting on the running list has TIMER_BUCKET_RUNNING, no b.) */
	if (was_pending && t->bucket == b) {
		wheel_rekey(w, t, expires, hard);
	} else {
		if (was_pending)
			wheel_unlink(w, t);
		t->expires = expires;
		t->hard = hard;
		wheel_bucket_insert(w, t, b);
		w->count++;
	}
}

void timer_set_class(struct timer *t, enum timer_class c, unsigned pct)
{
	t->class = (uint8_t)c;
	t->slack_pct = (uint8_t)(pct > SLACK_PERCENT_MAX ? SLACK_PERCENT_MAX : pct);
}

/* timer_mod and timer_mod_range: hard_given false takes the class's. */
static int timer_mod_window(struct timer *t, uint32_t expires, uint32_t hard, bool hard_given)
{
	timer_check_function(t, "timer_mod");
	unsigned long flags;
	struct timer_base *w = lock_timer_base(t, &flags);
	int was_pending = timer_pending(t);
	wheel_arm(w, t, expires, hard_given ? hard : class_hard(t, expires), was_pending);
	unsigned cpu = w->cpu;
	spin_unlock_irqrestore(&w->lock, flags);
	wheel_armed_on(cpu);
	return was_pending;
}

int timer_mod(struct timer *t, uint32_t expires)
{
	return timer_mod_window(t, expires, 0, false);
}

int timer_mod_range(struct timer *t, uint32_t soft, uint32_t hard)
{
	return timer_mod_window(t, soft, hard, true);
}

/* timer_mod_on and timer_mod_range_on: hard_given false takes the class's. */
static int timer_mod_window_on(struct timer *t, uint32_t expires, uint32_t hard, bool hard_given,
                               unsigned cpu)
{
	timer_check_function(t, "timer_mod_on");
	if (cpu >= arch_nr_cpus())
		panic("timer_mod_on: %s for CPU %u, which is not online", timer_name(t), cpu);
	struct timer_base *to = time_timer_base(cpu), *from;
	unsigned long flags = arch_irq_save();
	for (;;) {
		from = READ_ONCE(t->base);
		spin_lock_two(&from->lock, from->cpu, &to->lock, to->cpu);
		if (READ_ONCE(t->base) == from)
			break;
		spin_unlock_two(&from->lock, &to->lock);
	}
	/* A timer whose callback runs stays on its CPU until the callback
	 * returns (as in Linux): moved now, it could expire on the new CPU
	 * while the old one still runs it, one callback on two CPUs. */
	if (from != to && from->firing == t) {
		spin_unlock(&to->lock);
		to = from;
		cpu = from->cpu;
	}
	int was_pending = timer_pending(t);
	if (from != to) {
		if (was_pending)
			wheel_unlink(from, t);
		t->base = to;
	}
	wheel_arm(to, t, expires, hard_given ? hard : class_hard(t, expires),
	          from == to && was_pending);
	spin_unlock_two(&from->lock, &to->lock);
	arch_irq_restore(flags);
	wheel_armed_on(cpu);
	return was_pending;
}

int timer_mod_on(struct timer *t, uint32_t expires, unsigned cpu)
{
	return timer_mod_window_on(t, expires, 0, false, cpu);
}

int timer_mod_range_on(struct timer *t, uint32_t soft, uint32_t hard, unsigned cpu)
{
	return timer_mod_window_on(t, soft, hard, true, cpu);
}

/* timer_mod with a check in front, both under t's base lock, so nothing
 * can arm t in between. */
void timer_add(struct timer *t, uint32_t expires)
{
	timer_check_function(t, "timer_mod");
	unsigned long flags;
	struct timer_base *w = lock_timer_base(t, &flags);
	if (timer_pending(t)) {
		spin_unlock_irqrestore(&w->lock, flags);
		panic("timer_add: %s is already pending (timer_mod re-arms)",
		      timer_name(t));
	}
	wheel_arm(w, t, expires, class_hard(t, expires), 0);
	unsigned cpu = w->cpu;
	spin_unlock_irqrestore(&w->lock, flags);
	wheel_armed_on(cpu);
}

/* 1 pending (now not), 0 neither, -1 running (even if pending again).  A
 * running timer's callback runs on the wheel t->base names
 * (timer_mod_window_on leaves a running timer where it is), so that
 * wheel's `firing` answers. */
int timer_try_to_del(struct timer *t)
{
	if (READ_ONCE(t->base) == NULL)
		return 0;               /* all zeros, never through timer_init: not pending */
	unsigned long flags;
	struct timer_base *w = lock_timer_base(t, &flags);
	/* Running first, as Linux: a callback running while t is pending
	 * again (armed meanwhile) leaves t alone, so that timer_del_sync
	 * cannot return while the callback still runs. */
	int ret = 0;
	if (w->firing == t) {
		ret = -1;
	} else if (timer_pending(t)) {
		wheel_unlink(w, t);
		ret = 1;
	}
	spin_unlock_irqrestore(&w->lock, flags);
	return ret;
}

int timer_del(struct timer *t)
{
	if (READ_ONCE(t->base) == NULL)
		return 0;               /* all zeros, never through timer_init: not pending */
	unsigned long flags;
	struct timer_base *w = lock_timer_base(t, &flags);
	int was_pending = timer_pending(t);
	if (was_pending)
		wheel_unlink(w, t);
	spin_unlock_irqrestore(&w->lock, flags);
	return was_pending;
}

/* Twin of hrtimer_callback_running (kernel/time/hrtimer.c): see there. */
bool timer_callback_running(const struct timer *t)
{
	if (READ_ONCE(t->base) == NULL)
		return false;
	unsigned long flags;
	struct timer_base *w = lock_timer_base(t, &flags);
	bool running = w->firing == t;
	spin_unlock_irqrestore(&w->lock, flags);
	return running;
}

int timer_del_sync(struct timer *t)
{
	for (;;) {
		int r = timer_try_to_del(t);
		if (r >= 0)
			return r;
		/* Running on this CPU: its own callback (or an interrupt
		 * inside it), which waiting cannot outlast. */
		if (READ_ONCE(t->base)->cpu == arch_this_cpu_id())
			panic("timer_del_sync: %s from its own callback (timer_try_to_del "
			      "does not wait)", timer_name(t));
		while (timer_callback_running(t))
			cpu_relax();
	}
}
