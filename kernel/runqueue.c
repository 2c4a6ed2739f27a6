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
		t->next = NULL;
	}
	return t;
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
			t->next = NULL;
			return;
		}
}

/* ------------------------------------------------------------ who runs next */

struct task *rq_pick_next(struct rq_core *rq, unsigned slice_ticks)
{
	struct task *prev = rq->current;
	struct task *next = rq_dequeue(rq);
	if (prev->state == TASK_RUNNING && prev != rq->idle) {
		/* A preempted task goes back to the head keeping what is left of
		 * its slice, as 2.6's O(1) scheduler kept it at the head of its
		 * list; a used-up one to the tail with a new slice. */
		bool used_up = prev->slice_left <= 0;
		if (used_up)
			prev->slice_left = (int32_t)slice_ticks;
		if (!next)
			next = prev;
		else
			rq_enqueue(rq, prev, !used_up);
	}
	if (!next)
		next = rq->idle;
	next->state = TASK_RUNNING;
	rq->current = next;
	rq->need_resched = false;
	return next;
}

/* The kernel is not preemptible: only a task in ring 3, or the idle loop,
 * gives way to a woken task at once. */
static void wake_preempts(struct rq_core *rq)
{
	if (rq->current->user || rq->current == rq->idle)
		rq->need_resched = true;
}

bool rq_wake(struct rq_core *rq, struct task *t)
{
	if (t->state != TASK_SLEEPING && t->state != TASK_WAITING)
		return false;
	if (t->state == TASK_WAITING)
		rq_unlink(&rq->waiting, t);
	rq_enqueue(rq, t, true);
	wake_preempts(rq);
	return true;
}

void rq_wake_waiters(struct rq_core *rq)
{
	if (!rq->waiting)
		return;
	while (rq->waiting) {
		struct task *t = rq->waiting;
		rq->waiting = t->next;
		rq_enqueue(rq, t, true);
	}
	wake_preempts(rq);
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
