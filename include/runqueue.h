/* include/runqueue.h — one CPU's run queue and the scheduler's rules,
 * without the hardware (kernel/runqueue.c; docs/tasks.md).
 *
 * kernel/task.c owns the run queues, their locks and the switch itself;
 * what to run next, where a task goes back in the queue, when the tick
 * ends a slice and how the two accountings charge time are decided here,
 * on plain numbers (cycle counts and jiffies handed in), so that the host
 * tests (tests/unit/test_runqueue.c) check the rules on the same code the
 * kernel runs.  The caller holds the queue's lock, interrupts off.
 */
#ifndef LULL_RUNQUEUE_H
#define LULL_RUNQUEUE_H

#include "task.h"

struct rq_core {
	struct task *head, *tail;       /* runnable, not running, in the order they will run */
	struct task *woken_tail;        /* the last of the tasks at the head that woke (with preempt) */
	struct task *waiting;           /* in wait_event, linked through next */
	struct task *current;
	struct task *idle;              /* the CPU's idle task: runs when nothing else can */
	bool need_resched;              /* switch on the way back to ring 3 */
	bool idle_wanted;               /* the idle task next, whatever is runnable (rq_want_idle) */
	uint32_t acct_jiffy;            /* tick-sampled: jiffies charged up to */
	uint64_t stamp;                 /* precise: the cycle count at the last switch, entry or exit */
	uint64_t idle_cycles, idle_ticks;
};

/* An empty queue whose current task is its idle task, charged from now. */
void rq_init(struct rq_core *rq, struct task *idle, uint64_t now, uint32_t jiffies_now);

/* t runnable: at the head (it runs next) or at the tail. */
void rq_enqueue(struct rq_core *rq, struct task *t, bool at_head);
/* The head, off the queue; NULL if empty. */
struct task *rq_dequeue(struct rq_core *rq);
/* t, runnable on rq, off it (the tail kept right). */
void rq_unqueue(struct rq_core *rq, struct task *t);
/* t off a list linked through next (the waiting list); absent is fine. */
void rq_unlink(struct task **list, struct task *t);

/* The scheduler's choice: the next task to run, now current and marked
 * running.  The current task, if it still runs and is not the idle task,
 * goes back on the queue: at the tail with a new slice of `slice_ticks`
 * if its slice is used up (or it yielded: slice_left 0), else (it was
 * preempted) behind the tasks that woke, keeping what is left; if no
 * other task is runnable it keeps the CPU.  The idle task runs when the
 * queue is empty. */
struct task *rq_pick_next(struct rq_core *rq, unsigned slice_ticks);

/* The idle task next, once, ahead of every runnable task: the kernel has
 * work for this CPU's idle loop (another CPU's call, a change of the tick
 * to follow).  The task it preempts goes back as a preempted one. */
void rq_want_idle(struct rq_core *rq);

/* A sleeping or waiting task made runnable.  With preempt (`preempt on`,
 * the default) it goes to the head, behind the tasks that woke before it,
 * and takes the CPU from a task in ring 3 (need_resched), never from a
 * kernel task, which is not preemptible;
 * without, it waits at the tail, as plain round robin.  Either way it ends
 * the idle task's turn.  False if t was neither asleep nor waiting. */
bool rq_wake(struct rq_core *rq, struct task *t, bool preempt);
/* wait_event's waiters runnable again (after every interrupt on this CPU). */
void rq_wake_waiters(struct rq_core *rq, bool preempt);

/* Precise accounting: the cycles since the last stamp to prev at a switch
 * (the idle task's to the queue, with the jiffies it slept through as
 * idle ticks), to the current task's user time at an entry from ring 3,
 * to its system time at the return. */
void rq_charge_switch(struct rq_core *rq, struct task *prev, uint64_t now, uint32_t jiffies_now);
void rq_charge_entry(struct rq_core *rq, uint64_t now);
void rq_charge_exit(struct rq_core *rq, uint64_t now);

/* The tick: the jiffies since the last charge, whole, to what it
 * interrupted (user or system time, or idle), as 2.6-era Linux did; they
 * come off a task's slice, and a used-up slice asks for a switch when
 * another task is runnable. */
void rq_tick(struct rq_core *rq, uint32_t jiffies_now, bool from_user);

#endif
