/* kernel/runqueue.c — one CPU's run queue and the scheduler's rules
 * (include/runqueue.h; docs/tasks.md, "Who runs next" and "Two
 * accountings").  No hardware: the caller hands in cycle counts and
 * jiffies, and holds the queue's lock.
 */
#include "runqueue.h"

void rq_init(struct rq_core *rq, struct task *idle, uint64_t now, uint32_t jiffies_now)
{
	*rq = (struct rq_core){ .current = idle, .idle = idle, .stamp = now, .acct_jiffy = jiffies_now };
}

/* ------------------------------------------------------------ the queue */

void rq_enqueue(struct rq_core *rq, struct task *t, bool at_head)
{
	t->state = TASK_RUNNABLE;
	t->next = NULL;
	if (!rq->head) {
		rq->head = rq->tail = t;
	} else if (at_head) {
		t->next = rq->head;
		rq->head = t;
	} else {
		rq->tail->next = t;
		rq->tail = t;
	}
}

struct task *rq_dequeue(struct rq_core *rq)
{
	struct task *t = rq->head;
	if (t) {
		rq->head = t->next;
		if (!rq->head)
			rq->tail = NULL;
		if (rq->woken_tail == t)
			rq->woken_tail = NULL;
		t->next = NULL;
	}
	return t;
}

/* t runnable right behind the tasks woken since the last switch (at the
 * head if none): the woken run first, in the order they woke. */
static void enqueue_after_woken(struct rq_core *rq, struct task *t)
{
	struct task *w = rq->woken_tail;
	if (!w) {
		rq_enqueue(rq, t, true);
		return;
	}
	t->state = TASK_RUNNABLE;
	t->next = w->next;
	w->next = t;
	if (rq->tail == w)
		rq->tail = t;
}

void rq_unlink(struct task **list, struct task *t)
{
	for (; *list; list = &(*list)->next)
		if (*list == t) {
			*list = t->next;
			t->next = NULL;
			return;
		}
}

void rq_unqueue(struct rq_core *rq, struct task *t)
{
	struct task *prev = NULL;
	for (struct task *q = rq->head; q; prev = q, q = q->next)
		if (q == t) {
			*(prev ? &prev->next : &rq->head) = t->next;
			if (rq->tail == t)
				rq->tail = prev;
			if (rq->woken_tail == t)
				rq->woken_tail = prev;  /* the tasks before it woke too */
			t->next = NULL;
			return;
		}
}

/* ------------------------------------------------------------ who runs next */

struct task *rq_pick_next(struct rq_core *rq, unsigned slice_ticks)
{
	struct task *prev = rq->current;
	bool to_idle = rq->idle_wanted;
	rq->idle_wanted = false;
	struct task *next = to_idle ? NULL : rq_dequeue(rq);
	if (prev->state == TASK_RUNNING && prev != rq->idle) {
		/* A preempted task goes back right behind the tasks that woke,
		 * keeping what is left of its slice, as 2.6's O(1) scheduler kept
		 * it at the head of its list (the woken had a higher priority
		 * there); a used-up one to the tail with a new slice. */
		bool used_up = prev->slice_left <= 0;
		if (used_up)
			prev->slice_left = (int32_t)slice_ticks;
		if (!next && !to_idle)
			next = prev;
		else if (used_up)
			rq_enqueue(rq, prev, false);
		else
			enqueue_after_woken(rq, prev);
	}
	if (!next)
		next = rq->idle;
	next->state = TASK_RUNNING;
	rq->current = next;
	rq->need_resched = false;
	return next;
}

void rq_want_idle(struct rq_core *rq)
{
	if (rq->current == rq->idle)
		return;
	rq->idle_wanted = true;
	rq->need_resched = true;
}

/* The idle loop always gives way to a woken task.  With preempt, so does
 * a task in ring 3 (the kernel is not preemptible: a kernel task runs on
 * until it waits or yields), and the woken task goes first. */
static void woken(struct rq_core *rq, struct task *t, bool preempt)
{
	if (preempt) {
		enqueue_after_woken(rq, t);
		rq->woken_tail = t;
	} else {
		rq_enqueue(rq, t, false);
	}
	if ((preempt && rq->current->user) || rq->current == rq->idle)
		rq->need_resched = true;
}

bool rq_wake(struct rq_core *rq, struct task *t, bool preempt)
{
	if (t->state != TASK_SLEEPING && t->state != TASK_WAITING)
		return false;
	if (t->state == TASK_WAITING)
		rq_unlink(&rq->waiting, t);
	woken(rq, t, preempt);
	return true;
}

void rq_wake_waiters(struct rq_core *rq, bool preempt)
{
	while (rq->waiting) {
		struct task *t = rq->waiting;
		rq->waiting = t->next;
		woken(rq, t, preempt);
	}
}

/* ------------------------------------------------------------ accounting */

void rq_charge_switch(struct rq_core *rq, struct task *prev, uint64_t now, uint32_t jiffies_now)
{
	if (prev == rq->idle) {
		rq->idle_cycles += now - rq->stamp;
		/* The jiffies the CPU slept through were idle ones, not the next
		 * task's: the tick of a tickless CPU charges them late. */
		rq->idle_ticks += jiffies_now - rq->acct_jiffy;
		rq->acct_jiffy = jiffies_now;
	} else {
		prev->sys_cycles += now - rq->stamp;
	}
	rq->stamp = now;
}

void rq_charge_entry(struct rq_core *rq, uint64_t now)
{
	rq->current->user_cycles += now - rq->stamp;
	rq->stamp = now;
}

void rq_charge_exit(struct rq_core *rq, uint64_t now)
{
	rq->current->sys_cycles += now - rq->stamp;
	rq->stamp = now;
}

void rq_tick(struct rq_core *rq, uint32_t jiffies_now, bool from_user)
{
	uint32_t n = jiffies_now - rq->acct_jiffy;      /* wrap-safe: unsigned difference */
	rq->acct_jiffy = jiffies_now;
	struct task *t = rq->current;
	if (t == rq->idle) {
		rq->idle_ticks += n;
		return;
	}
	if (from_user)
		t->user_ticks += n;
	else
		t->sys_ticks += n;
	t->slice_left -= (int32_t)n;
	if (t->slice_left <= 0 && rq->head)
		rq->need_resched = true;
}
