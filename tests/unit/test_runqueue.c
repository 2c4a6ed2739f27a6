// SOURCES: kernel/runqueue.c
/* Host tests for the scheduler's rules (kernel/runqueue.c): round robin on
 * the tick, where a preempted, a used-up and a yielding task go back in
 * the queue, who a wake preempts, and the two accountings' arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "runqueue.h"

#define SLICE 25                /* jiffies: 100 ms at HZ=250 */

static struct task idle, shell, a, b, c;
static struct rq_core rq;

static void task_init(struct task *t, unsigned id, bool user)
{
	*t = (struct task){ .id = id, .user = user, .state = TASK_RUNNABLE, .slice_left = SLICE };
}

static int setup(void **state)
{
	(void)state;
	task_init(&idle, 0, false);
	idle.idle = true;
	idle.state = TASK_RUNNING;
	task_init(&shell, 1, false);
	task_init(&a, 2, true);
	task_init(&b, 3, true);
	task_init(&c, 4, true);
	rq_init(&rq, &idle, 0, 1000);
	return 0;
}

/* The ids on the queue, head first, as a number: 234 for a, b, c. */
static unsigned queue_ids(void)
{
	unsigned n = 0;
	for (struct task *t = rq.head; t; t = t->next)
		n = n * 10 + t->id;
	return n;
}

/* The tick at jiffy j, interrupting ring 3 or not. */
static void tick_at(uint32_t j, bool from_user) { rq_tick(&rq, j, from_user); }

static void test_round_robin_on_the_tick(void **state)
{
	(void)state;
	rq_enqueue(&rq, &a, false);
	rq_enqueue(&rq, &b, false);
	rq_enqueue(&rq, &c, false);
	assert_int_equal(queue_ids(), 234);
	assert_ptr_equal(rq_pick_next(&rq, SLICE), &a);
	assert_int_equal(a.state, TASK_RUNNING);
	uint32_t j = 1000;
	unsigned order = 0;
	for (int slice = 0; slice < 6; slice++) {
		/* The slice ends on the tick that brings slice_left to 0, not before. */
		for (int t = 1; t < SLICE; t++) {
			tick_at(++j, true);
			assert_false(rq.need_resched);
		}
		tick_at(++j, true);
		assert_true(rq.need_resched);
		order = order * 10 + rq.current->id;
		rq_pick_next(&rq, SLICE);
	}
	assert_int_equal(order, 234234);
	/* Each used-up slice went to the tail with a new one. */
	assert_int_equal(a.slice_left, SLICE);
	assert_int_equal(a.user_ticks + b.user_ticks + c.user_ticks, 6 * SLICE);
}

static void test_a_lone_task_keeps_the_cpu(void **state)
{
	(void)state;
	rq_enqueue(&rq, &a, false);
	rq_pick_next(&rq, SLICE);
	for (uint32_t j = 1001; j <= 1000 + 3 * SLICE; j++)
		tick_at(j, true);
	assert_false(rq.need_resched);          /* nobody else is runnable */
	assert_true(a.slice_left <= 0);
	assert_ptr_equal(rq_pick_next(&rq, SLICE), &a);
	assert_int_equal(a.slice_left, SLICE);
	assert_null(rq.head);
}

static void test_a_woken_task_preempts_ring_3_and_the_preempted_keeps_its_slice(void **state)
{
	(void)state;
	rq_enqueue(&rq, &a, false);
	rq_enqueue(&rq, &c, false);
	rq_pick_next(&rq, SLICE);               /* a runs, c waits */
	for (uint32_t j = 1001; j <= 1010; j++)
		tick_at(j, true);
	assert_int_equal(a.slice_left, SLICE - 10);
	b.state = TASK_SLEEPING;
	assert_true(rq_wake(&rq, &b, true));
	assert_true(rq.need_resched);
	assert_int_equal(queue_ids(), 34);      /* b at the head */
	assert_ptr_equal(rq_pick_next(&rq, SLICE), &b);
	assert_int_equal(queue_ids(), 24);      /* a next, before c */
	assert_int_equal(a.slice_left, SLICE - 10);
}

/* The shell and a woken program both preempt a hog: the hog goes back
 * behind both, so when the shell waits again the program runs, not the
 * hog (it had jumped ahead of the program, which then waited for the
 * hog's whole slice). */
static void test_a_preempted_task_goes_behind_every_woken_one(void **state)
{
	(void)state;
	rq_enqueue(&rq, &a, false);
	rq_enqueue(&rq, &c, false);
	rq_pick_next(&rq, SLICE);               /* a, the hog, runs */
	b.state = TASK_SLEEPING;
	assert_true(rq_wake(&rq, &b, true));    /* b's timer fired */
	shell.state = TASK_WAITING;
	shell.next = NULL;
	rq.waiting = &shell;
	rq_wake_waiters(&rq, true);             /* then the interrupt's waiters */
	assert_int_equal(queue_ids(), 314);
	assert_ptr_equal(rq_pick_next(&rq, SLICE), &b);
	assert_int_equal(queue_ids(), 124);
	b.state = TASK_SLEEPING;                /* b sleeps again */
	assert_ptr_equal(rq_pick_next(&rq, SLICE), &shell);
	assert_int_equal(queue_ids(), 24);
	/* One of the woken leaves the queue (killed): the lane keeps its end. */
	setup(NULL);
	rq_enqueue(&rq, &c, false);
	b.state = shell.state = TASK_SLEEPING;
	rq_wake(&rq, &b, true);
	rq_wake(&rq, &shell, true);
	rq_unqueue(&rq, &shell);
	a.state = TASK_SLEEPING;
	rq_wake(&rq, &a, true);
	assert_int_equal(queue_ids(), 324);
}

/* Another CPU's call for this one: its idle loop next, ahead of every
 * runnable task; the hog it preempts keeps its slice and runs first after. */
static void test_the_idle_loop_can_be_asked_for_ahead_of_the_tasks(void **state)
{
	(void)state;
	rq_enqueue(&rq, &a, false);
	rq_enqueue(&rq, &c, false);
	rq_pick_next(&rq, SLICE);               /* a runs, c waits */
	tick_at(1001, true);
	rq_want_idle(&rq);
	assert_true(rq.need_resched);
	assert_ptr_equal(rq_pick_next(&rq, SLICE), &idle);
	assert_int_equal(queue_ids(), 24);
	assert_int_equal(a.slice_left, SLICE - 1);
	assert_ptr_equal(rq_pick_next(&rq, SLICE), &a);         /* the call done */
	rq_want_idle(&rq);
	rq_pick_next(&rq, SLICE);
	rq_want_idle(&rq);                      /* the idle task runs already: nothing */
	assert_false(rq.idle_wanted);
}

static void test_a_wake_does_not_preempt_a_kernel_task(void **state)
{
	(void)state;
	rq_enqueue(&rq, &shell, false);
	rq_pick_next(&rq, SLICE);
	a.state = TASK_SLEEPING;
	assert_true(rq_wake(&rq, &a, true));
	assert_false(rq.need_resched);
	assert_int_equal(queue_ids(), 2);
}

static void test_a_wake_ends_idle(void **state)
{
	(void)state;
	a.state = TASK_WAITING;
	a.next = NULL;
	rq.waiting = &a;
	assert_true(rq_wake(&rq, &a, true));
	assert_true(rq.need_resched);
	assert_null(rq.waiting);
	assert_ptr_equal(rq_pick_next(&rq, SLICE), &a);
}

/* preempt off: the woken task waits its turn at the tail, and the task in
 * ring 3 keeps the CPU to the end of its slice; only idle gives way. */
static void test_without_preempt_a_woken_task_waits_its_turn(void **state)
{
	(void)state;
	rq_enqueue(&rq, &a, false);
	rq_enqueue(&rq, &c, false);
	rq_pick_next(&rq, SLICE);
	b.state = TASK_SLEEPING;
	assert_true(rq_wake(&rq, &b, false));
	assert_false(rq.need_resched);
	assert_int_equal(queue_ids(), 43);
	for (uint32_t j = 1001; j <= 1000 + SLICE; j++)
		tick_at(j, true);
	assert_true(rq.need_resched);
	assert_ptr_equal(rq_pick_next(&rq, SLICE), &c);
	assert_int_equal(queue_ids(), 32);
	/* The idle task gives way even so. */
	setup(NULL);
	a.state = TASK_SLEEPING;
	assert_true(rq_wake(&rq, &a, false));
	assert_true(rq.need_resched);
}

static void test_only_sleepers_and_waiters_wake(void **state)
{
	(void)state;
	rq_enqueue(&rq, &a, false);
	assert_false(rq_wake(&rq, &a, true));         /* runnable already */
	rq_pick_next(&rq, SLICE);
	assert_false(rq_wake(&rq, &a, true));         /* running */
	assert_false(rq.need_resched);
	assert_int_equal(queue_ids(), 0);
}

static void test_waiters_all_wake_at_the_head(void **state)
{
	(void)state;
	rq_enqueue(&rq, &c, false);
	a.state = b.state = TASK_WAITING;
	b.next = NULL;
	a.next = &b;
	rq.waiting = &a;
	rq_wake_waiters(&rq, true);
	assert_null(rq.waiting);
	assert_int_equal(queue_ids(), 234);     /* in the order they waited, before c */
	assert_true(rq.need_resched);           /* the idle task runs */
}

static void test_yield_goes_behind_the_others(void **state)
{
	(void)state;
	rq_enqueue(&rq, &a, false);
	rq_enqueue(&rq, &b, false);
	rq_pick_next(&rq, SLICE);
	a.slice_left = 0;                       /* task_yield */
	assert_ptr_equal(rq_pick_next(&rq, SLICE), &b);
	assert_int_equal(queue_ids(), 2);
	assert_int_equal(a.slice_left, SLICE);
}

static void test_a_task_that_stops_running_is_not_requeued(void **state)
{
	(void)state;
	rq_enqueue(&rq, &a, false);
	rq_pick_next(&rq, SLICE);
	a.state = TASK_SLEEPING;
	assert_ptr_equal(rq_pick_next(&rq, SLICE), &idle);
	assert_null(rq.head);
	assert_int_equal(a.state, TASK_SLEEPING);
}

static void test_unqueue_keeps_the_tail(void **state)
{
	(void)state;
	rq_enqueue(&rq, &a, false);
	rq_enqueue(&rq, &b, false);
	rq_enqueue(&rq, &c, false);
	rq_unqueue(&rq, &c);
	assert_ptr_equal(rq.tail, &b);
	rq_enqueue(&rq, &c, false);
	rq_unqueue(&rq, &a);
	assert_int_equal(queue_ids(), 34);
	rq_unqueue(&rq, &b);
	rq_unqueue(&rq, &c);
	assert_null(rq.head);
	assert_null(rq.tail);
	rq_unqueue(&rq, &c);                    /* not there: nothing happens */
	rq_enqueue(&rq, &a, true);
	assert_ptr_equal(rq.tail, &a);
}

/* Tick-sampled: each jiffy charged whole, to user, system or idle; the
 * jiffies a tickless CPU slept through are idle ones, even if the first
 * tick after comes with a task running; and across the jiffies' wrap. */
static void test_tick_sampled_charges(void **state)
{
	(void)state;
	rq_init(&rq, &idle, 0, 0xfffffff0u);
	tick_at(0xfffffff4u, false);
	assert_int_equal(rq.idle_ticks, 4);
	rq_enqueue(&rq, &a, false);
	/* Slept until jiffy 0x10 (past the wrap), then a became runnable. */
	rq_charge_switch(&rq, &idle, 500, 0x10);
	rq_pick_next(&rq, SLICE);
	assert_int_equal(rq.idle_ticks, 4 + 0x1c);
	tick_at(0x11, true);
	tick_at(0x13, false);
	assert_int_equal(a.user_ticks, 1);
	assert_int_equal(a.sys_ticks, 2);
	assert_int_equal(a.slice_left, SLICE - 3);
	/* A tick that itself crosses the wrap. */
	rq.acct_jiffy = 0xfffffffeu;
	tick_at(0x1, true);
	assert_int_equal(a.user_ticks, 1 + 3);
}

/* Precise: every cycle goes to exactly one of idle, user or system. */
static void test_precise_charges_add_up(void **state)
{
	(void)state;
	rq_enqueue(&rq, &a, false);
	rq_charge_switch(&rq, &idle, 100, 1000);        /* idle 0..100 */
	rq_pick_next(&rq, SLICE);
	rq_charge_exit(&rq, 130);                       /* a in the kernel until 130 */
	rq_charge_entry(&rq, 1130);                     /* ring 3 for 1000 */
	rq_charge_exit(&rq, 1150);
	rq_charge_switch(&rq, &a, 1160, 1000);
	assert_int_equal(rq.idle_cycles, 100);
	assert_int_equal(a.user_cycles, 1000);
	assert_int_equal(a.sys_cycles, 60);
	assert_int_equal(rq.idle_cycles + a.user_cycles + a.sys_cycles, 1160);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_round_robin_on_the_tick, setup),
		cmocka_unit_test_setup(test_a_lone_task_keeps_the_cpu, setup),
		cmocka_unit_test_setup(test_a_woken_task_preempts_ring_3_and_the_preempted_keeps_its_slice, setup),
		cmocka_unit_test_setup(test_a_preempted_task_goes_behind_every_woken_one, setup),
		cmocka_unit_test_setup(test_the_idle_loop_can_be_asked_for_ahead_of_the_tasks, setup),
		cmocka_unit_test_setup(test_a_wake_does_not_preempt_a_kernel_task, setup),
		cmocka_unit_test_setup(test_a_wake_ends_idle, setup),
		cmocka_unit_test_setup(test_without_preempt_a_woken_task_waits_its_turn, setup),
		cmocka_unit_test_setup(test_only_sleepers_and_waiters_wake, setup),
		cmocka_unit_test_setup(test_waiters_all_wake_at_the_head, setup),
		cmocka_unit_test_setup(test_yield_goes_behind_the_others, setup),
		cmocka_unit_test_setup(test_a_task_that_stops_running_is_not_requeued, setup),
		cmocka_unit_test_setup(test_unqueue_keeps_the_tail, setup),
		cmocka_unit_test_setup(test_tick_sampled_charges, setup),
		cmocka_unit_test_setup(test_precise_charges_add_up, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
