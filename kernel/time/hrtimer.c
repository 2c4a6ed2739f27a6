/* kernel/time/hrtimer.c — nanosecond timers in two binary min-heaps per
 * CPU: the API a timer's owner and the tick call (start, cancel, forward,
 * run the expired), and the locking around the heaps.  The heaps
 * themselves, how they keep their order, are kernel/time/hrtimer_heap.c;
 * each CPU's heap as a whole (boot, next expiry, counts), hrtimer_base.c.
 *
 * Every timer has a window [expires_ns, hard_ns] (include/time/slack.h), so
 * there are two heaps over the same timers: by soft end, the order they
 * run in (every timer whose soft end has passed runs, whatever woke the
 * CPU), and by hard end, the instant the device must fire for (the latest
 * wakeup that still serves every timer).  With exact timers the two are
 * the same order.
 *
 * Cost: start, cancel O(log n); next expiry O(1); each expiry O(log n).
 */
#include "time/percpu.h"
#include "time/hrtimer.h"
#include "time/arch.h"
#include "time/path.h"
#include "spinlock.h"
#include "hrtimer_heap.h"

/* (Each CPU's heap is a struct hrtimer_base, include/time/hrtimer.h; its
 * lock guards it, and the callbacks running on that CPU are in its `runs`
 * frames, innermost first: each hrtimer_run_expired call keeps one frame
 * on its stack, and a call nested in an interrupt taken during a callback
 * links its frame in front of the one it interrupted.  hrtimer_init walks
 * them to refuse re-initialising a timer whose callback is still running.) */

/* A timer started with no function would crash its CPU at expiry. */
static void hrtimer_check_function(const struct hrtimer *t)
{
	if (t->function == NULL)
		panic("hrtimer_start: %s has no function", hrtimer_name(t));
}

/* The tick's hooks (hrtimer.h), NULL until it registers them. */
static const struct hrtimer_tick_ops *tick_ops;

void hrtimer_set_tick_ops(const struct hrtimer_tick_ops *ops)
{
	tick_ops = ops;
}

static uint64_t clock_ns_or(uint64_t fallback)
{
	return tick_ops && tick_ops->clock_ns ? tick_ops->clock_ns() : fallback;
}

static void tell_first_changed(uint64_t first)
{
	if (tick_ops && tick_ops->first_changed)
		tick_ops->first_changed(first);
}

static void tell_armed_remote(unsigned cpu)
{
	if (tick_ops && tick_ops->armed_remote)
		tick_ops->armed_remote(cpu);
}

static bool hrtimer_firing(const struct hrtimer_base *b, const struct hrtimer *t)
{
	for (const struct hrtimer_run_frame *f = b->runs; f; f = f->outer)
		if (f->firing == t)
			return true;
	return false;
}

static struct hrtimer_base *this_base(void)
{
	return time_hrtimer_base(arch_this_cpu_id());
}

/* Lock the heap t is on (t->base changes only with both the old and the
 * new heap locked). */
static struct hrtimer_base *lock_hrtimer_base(const struct hrtimer *t, unsigned long *flags)
{
	for (;;) {
		struct hrtimer_base *b = READ_ONCE(t->base);
		*flags = spin_lock_irqsave(&b->lock);
		if (READ_ONCE(t->base) == b)
			return b;
		spin_unlock_irqrestore(&b->lock, *flags);
	}
}

/* Re-initialising a queued timer would set heap_index to -1 while the heap
 * still holds it: a later start queues it twice, and its first expiry
 * leaves a dangling slot.  So it is refused, as is re-initialising a timer
 * whose callback is running (its return value would then restart a timer
 * with a cleared deadline).  t may be uninitialised, so every CPU's heap
 * is asked. */
void hrtimer_init(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *), const char *name)
{
	for (unsigned cpu = 0; cpu < arch_nr_cpus(); cpu++) {
		struct hrtimer_base *b = time_hrtimer_base(cpu);
		unsigned long flags = spin_lock_irqsave(&b->lock);
		bool held = heap_holds(b, t), firing = hrtimer_firing(b, t);
		spin_unlock_irqrestore(&b->lock, flags);
		if (held)
			panic("hrtimer_init: %s is queued (hrtimer_start moves it, hrtimer_cancel dequeues it)",
			      name ? name : "?");
		if (firing)
			panic("hrtimer_init: %s is running: re-initialised while its callback runs",
			      name ? name : "?");
	}
	t->expires_ns = 0;
	t->hard_ns = 0;
	t->function = fn;
	t->name = name;
	t->heap_index = -1;
	t->hard_index = -1;
	t->class = TIMER_CLASS_DEFAULT;
	t->slack_pct = 0;
	t->base = this_base();
}

/* expires + slack, saturating. */
static uint64_t hard_of(uint64_t expires_ns, uint64_t slack_ns)
{
	return expires_ns + slack_ns < expires_ns ? UINT64_MAX : expires_ns + slack_ns;
}

/* The hard end for t armed at expires_ns by its class: the slack counted
 * from how far ahead of now that is (with no clock hooked up: none). */
static uint64_t class_hard_ns(const struct hrtimer *t, uint64_t expires_ns)
{
	uint64_t now = clock_ns_or(expires_ns);
	uint64_t ahead = expires_ns > now ? expires_ns - now : 0;
	return hard_of(expires_ns, timer_slack((enum timer_class)t->class, t->slack_pct, ahead, NSEC_PER_SEC));
}

void hrtimer_set_class(struct hrtimer *t, enum timer_class c, unsigned pct)
{
	t->class = (uint8_t)c;
	t->slack_pct = (uint8_t)(pct > SLACK_PERCENT_MAX ? SLACK_PERCENT_MAX : pct);
}

/* hrtimer_start_on and hrtimer_start_range_ns_on. */
static int hrtimer_start_window_on(struct hrtimer *t, uint64_t expires_ns, uint64_t hard_ns,
                                   unsigned cpu)
{
	hrtimer_check_function(t);
	if (cpu >= arch_nr_cpus())
		panic("hrtimer_start_on: %s for CPU %u, which is not online",
		      hrtimer_name(t), cpu);
	struct hrtimer_base *to = time_hrtimer_base(cpu), *from;
	unsigned long flags = arch_irq_save();
	for (;;) {
		from = READ_ONCE(t->base);
		spin_lock_two(&from->lock, from->cpu, &to->lock, to->cpu);
		if (READ_ONCE(t->base) == from)
			break;
		spin_unlock_two(&from->lock, &to->lock);
	}
	/* A timer whose callback runs stays on its CPU until the callback
	 * returns (as in Linux): moved now, the callback's own re-arm or
	 * forward would race an expiry on the new CPU, and one callback
	 * could run on two CPUs at once. */
	if (from != to && hrtimer_firing(from, t)) {
		spin_unlock(&to->lock);
		to = from;
		cpu = from->cpu;
	}
	bool sooner, was = t->heap_index >= 0;
	int ret = hrtimer_move(from, to, t, expires_ns, hard_ns, &sooner);
	if (ret == 0)
		ret = was;
	/* Tell the tick layer only when the device must fire sooner than it
	 * was told; a later first deadline costs one early, empty interrupt. */
	bool here = cpu == arch_this_cpu_id();
	uint64_t first = sooner ? first_hard(to) : 0;
	/* Another CPU's: told while its heap is still locked, so that no one
	 * there sees the new earliest timer before it is told (hrtimer.h). */
	if (sooner && !here)
		tell_armed_remote(cpu);
	spin_unlock_two(&from->lock, &to->lock);
	/* The hook runs with interrupts still off but no lock held: it may
	 * look at the heap again. */
	if (sooner && here)
		tell_first_changed(first);
	arch_irq_restore(flags);
	return ret;
}

/* hrtimer_start and hrtimer_start_range_ns. */
static int hrtimer_start_window(struct hrtimer *t, uint64_t expires_ns, uint64_t hard_ns)
{
	unsigned long flags;
	struct hrtimer_base *b = lock_hrtimer_base(t, &flags);
	bool sooner, was = t->heap_index >= 0;
	int ret = hrtimer_move(b, b, t, expires_ns, hard_ns, &sooner);
	if (ret == 0)
		ret = was;
	bool here = b->cpu == arch_this_cpu_id();
	uint64_t first = sooner ? first_hard(b) : 0;
	if (sooner && !here)
		tell_armed_remote(b->cpu);      /* heap locked, as above */
	spin_unlock(&b->lock);
	if (sooner && here)
		tell_first_changed(first);
	arch_irq_restore(flags);
	return ret;
}

int hrtimer_start_on(struct hrtimer *t, uint64_t expires_ns, unsigned cpu)
{
	return hrtimer_start_window_on(t, expires_ns, class_hard_ns(t, expires_ns), cpu);
}

int hrtimer_start_range_ns_on(struct hrtimer *t, uint64_t expires_ns, uint64_t slack_ns, unsigned cpu)
{
	return hrtimer_start_window_on(t, expires_ns, hard_of(expires_ns, slack_ns), cpu);
}

int hrtimer_start(struct hrtimer *t, uint64_t expires_ns)
{
	hrtimer_check_function(t);
	return hrtimer_start_window(t, expires_ns, class_hard_ns(t, expires_ns));
}

int hrtimer_start_range_ns(struct hrtimer *t, uint64_t expires_ns, uint64_t slack_ns)
{
	hrtimer_check_function(t);
	return hrtimer_start_window(t, expires_ns, hard_of(expires_ns, slack_ns));
}

/* A timer's callback runs on the base it was queued on, and t->base stays
 * on it until the callback returns (hrtimer_start_window_on does not move a
 * running timer), so the base's own frames answer "running?". */
int hrtimer_try_to_cancel(struct hrtimer *t)
{
	if (READ_ONCE(t->base) == NULL)
		return 0;               /* all zeros, never through hrtimer_init: not queued */
	unsigned long flags;
	struct hrtimer_base *b = lock_hrtimer_base(t, &flags);
	/* Running first, as Linux: a callback running while t is queued
	 * again (armed meanwhile) leaves t alone, so that hrtimer_cancel
	 * cannot return while the callback still runs. */
	int ret = 0;
	if (hrtimer_firing(b, t)) {
		ret = -1;
	} else if (t->heap_index >= 0) {
		heap_remove(b, t);
		ret = 1;
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return ret;
}

/* Twin of timer_callback_running and timer_del_sync (kernel/time/timer.c):
 * the same wait on a base of another type and lock; one shared version
 * would cost each cancel three indirect calls. */
bool hrtimer_callback_running(const struct hrtimer *t)
{
	if (READ_ONCE(t->base) == NULL)
		return false;
	unsigned long flags;
	struct hrtimer_base *b = lock_hrtimer_base(t, &flags);
	bool running = hrtimer_firing(b, t);
	spin_unlock_irqrestore(&b->lock, flags);
	return running;
}

int hrtimer_cancel(struct hrtimer *t)
{
	for (;;) {
		int r = hrtimer_try_to_cancel(t);
		if (r >= 0)
			return r;
		/* Running.  On this CPU that is its own callback, or an
		 * interrupt taken inside it: waiting would never end. */
		struct hrtimer_base *b = READ_ONCE(t->base);
		if (b->cpu == arch_this_cpu_id())
			panic("hrtimer_cancel: %s from its own callback (hrtimer_try_to_cancel "
			      "does not wait)", hrtimer_name(t));
		while (hrtimer_callback_running(t))
			cpu_relax();
	}
}

/* Adding whole intervals to the old deadline, not to now, keeps a periodic
 * timer drift-free: a late callback does not push every later period. */
uint64_t hrtimer_forward(struct hrtimer *t, uint64_t now_ns, uint64_t interval_ns)
{
	if (interval_ns == 0)
		panic("hrtimer_forward: %s: zero interval", hrtimer_name(t));
	if (t->heap_index >= 0)
		panic("hrtimer_forward: %s is queued (cancel it first)", hrtimer_name(t));
	if (t->expires_ns > now_ns)
		return 0;
	uint64_t n = (now_ns - t->expires_ns) / interval_ns + 1;
	uint64_t slack = t->hard_ns > t->expires_ns ? t->hard_ns - t->expires_ns : 0;
	t->expires_ns += n * interval_ns;
	t->hard_ns = t->expires_ns + slack;     /* the window keeps its width */
	return n;
}

/* Each timer is taken off the heap before its callback runs, with the lock
 * dropped and interrupts back on, so the callback may start or cancel any
 * timer, itself included; and an interrupt arriving during a callback may
 * call us again safely: the nested call just takes the next expired
 * timer. */
unsigned hrtimer_run_expired(uint64_t now_ns)
{
	unsigned ran = 0;
	struct hrtimer_base *b = this_base();
	unsigned long flags = spin_lock_irqsave(&b->lock);
	struct hrtimer_run_frame frame = { .firing = NULL, .outer = b->runs };
	b->runs = &frame;
	while (b->size > 0 && b->heap[0]->expires_ns <= now_ns) {
		struct hrtimer *t = b->heap[0];
		heap_remove(b, t);
		frame.firing = t;
		spin_unlock_irqrestore(&b->lock, flags);
		path_stamp(PATH_HRTIMERS);
		enum hrtimer_restart restart = t->function(t);
		flags = spin_lock_irqsave(&b->lock);
		frame.firing = NULL;
		ran++;
		/* The callback may have queued t itself (here or on another
		 * CPU); then it already has its place. */
		if (restart == HRTIMER_RESTART && t->heap_index < 0 && t->base == b) {
			/* Re-queueing at or before now would run it again in
			 * this loop, forever: the callback forgot to forward. */
			const char *why = t->expires_ns <= now_ns ?
			        "restarted without moving its deadline" :
			        hrtimer_enqueue(b, t, t->expires_ns, t->hard_ns) != 0 ?
			        "no room to restart" : NULL;
			if (why) {
				b->runs = frame.outer;
				spin_unlock(&b->lock);  /* (a test catches the panic) */
				panic("hrtimer_run_expired: %s: %s", hrtimer_name(t), why);
			}
		}
	}
	b->runs = frame.outer;
	spin_unlock_irqrestore(&b->lock, flags);
	return ran;
}

#ifdef LULL_HOST
/* Host unit tests only (declared in tests/unit/time_test.h): empty every
 * heap and clear the hooks. */
void hrtimer_reset_for_test(void)
{
	hrtimer_bases_init();
	tick_ops = NULL;
}
#endif
