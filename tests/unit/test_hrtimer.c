// SOURCES: kernel/time/hrtimer.c kernel/time/hrtimer_base.c kernel/time/hrtimer_heap.c kernel/time/path.c kernel/time/slack.c tests/unit/host_arch.c kernel/time/percpu.c
/* tests/unit/test_hrtimer.c — the min-heap of nanosecond timers.
 *
 * Randomized runs are checked against a plain array of deadlines: timers
 * come out in non-descending deadline order, each exactly once, none
 * cancelled or early.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "time/hrtimer.h"
#include "errno.h"

#include "host_test.h"
#include "time_test.h"          /* hrtimer_reset_for_test */

static uint64_t rnd_below(uint64_t n) { return rnd64() % n; }

struct tt {
	struct hrtimer t;
	bool armed;             /* the model's view */
	uint64_t expires;
	unsigned fired;
	enum hrtimer_restart (*then)(struct tt *x);   /* extra work in the callback */
	uint64_t period;
};

static struct tt T[HRTIMER_MAX + 1];
static char names[HRTIMER_MAX + 1][8];     /* what hrtimer_next_name returns */
static uint64_t run_now;        /* now_ns of the run in progress */
static uint64_t last_fired;     /* deadline of the previous callback in this run */
static unsigned fired_total;

static enum hrtimer_restart cb(struct hrtimer *t)
{
	struct tt *x = container_of(t, struct tt, t);
	assert_false(host_irqs_disabled);
	assert_false(hrtimer_is_queued(t));
	assert_true(x->armed);
	assert_true(t->expires_ns == x->expires);
	assert_true(t->expires_ns <= run_now);          /* never early */
	assert_true(t->expires_ns >= last_fired);       /* in deadline order */
	last_fired = t->expires_ns;
	x->armed = false;
	x->fired++;
	fired_total++;
	return x->then ? x->then(x) : HRTIMER_NORESTART;
}

static void model_start(struct tt *x, uint64_t expires)
{
	assert_int_equal(hrtimer_start(&x->t, expires), x->armed ? 1 : 0);     /* was it queued */
	x->armed = true;
	x->expires = expires;
}

static unsigned model_armed(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < HRTIMER_MAX + 1; i++)
		n += T[i].armed;
	return n;
}

static bool model_min(uint64_t *min)
{
	bool any = false;
	for (unsigned i = 0; i < HRTIMER_MAX + 1; i++)
		if (T[i].armed && (!any || T[i].expires < *min)) {
			*min = T[i].expires;
			any = true;
		}
	return any;
}

static void check_model(void)
{
	uint64_t want = 0, got = 0;
	bool any = model_min(&want);
	assert_int_equal(hrtimer_next_expiry(&got), any);
	if (any)
		assert_true(got == want);
	/* The name is that of a queued timer with the earliest deadline. */
	const char *name = hrtimer_next_name();
	if (!any) {
		assert_null(name);
	} else {
		unsigned i = (unsigned)(name - names[0]) / sizeof(names[0]);
		assert_true(i < HRTIMER_MAX + 1 && name == names[i]);
		assert_true(T[i].armed && T[i].expires == want);
	}
	assert_int_equal(hrtimer_count(), model_armed());
	for (unsigned i = 0; i < HRTIMER_MAX + 1; i++)
		assert_int_equal(hrtimer_is_queued(&T[i].t), T[i].armed);
}

static unsigned run(uint64_t now)
{
	run_now = now;
	last_fired = 0;
	unsigned before = fired_total;
	unsigned ran = hrtimer_run_expired(now);
	assert_int_equal(ran, fired_total - before);
	assert_false(host_irqs_disabled);
	/* Nothing due is left behind. */
	for (unsigned i = 0; i < HRTIMER_MAX + 1; i++)
		if (T[i].armed)
			assert_true(T[i].expires > now);
	check_model();
	return ran;
}

static int reset(void **state)
{
	(void)state;
	hrtimer_reset_for_test();
	memset(T, 0, sizeof(T));
	for (unsigned i = 0; i < HRTIMER_MAX + 1; i++) {
		snprintf(names[i], sizeof(names[i]), "h%u", i);
		hrtimer_init(&T[i].t, cb, names[i]);
	}
	fired_total = 0;
	return 0;
}

/* Random deadlines (with many ties) pop in order, each once. */
static void test_random_order(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		reset(NULL);
		rng_state = seed;
		uint64_t now = 1000;
		for (int op = 0; op < 20000; op++) {
			struct tt *x = &T[rnd_below(HRTIMER_MAX)];
			unsigned r = (unsigned)rnd_below(10);
			if (r < 5) {
				/* Small ranges make ties common. */
				uint64_t span = rnd_below(2) ? 50 : 5000000;
				model_start(x, now + rnd_below(span));
			} else if (r < 7) {
				assert_int_equal(hrtimer_cancel(&x->t), x->armed);
				x->armed = false;
			} else {
				now += rnd_below(r == 9 ? 3000000 : 40);
				run(now);
			}
			check_model();
		}
		run(UINT64_MAX);
		assert_int_equal(hrtimer_count(), 0);
	}
}

static void test_equal_deadlines_all_fire(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 10; i++)
		model_start(&T[i], 777);
	assert_int_equal(run(776), 0);
	assert_int_equal(run(777), 10);
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(T[i].fired, 1);
}

static void test_cancel_from_middle(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 100; i++)
		model_start(&T[i], 1000 + (i * 37) % 100);
	/* Cancel every third, wherever it sits in the heap. */
	for (unsigned i = 0; i < 100; i += 3) {
		assert_int_equal(hrtimer_cancel(&T[i].t), 1);
		T[i].armed = false;
		check_model();
	}
	assert_int_equal(hrtimer_cancel(&T[0].t), 0);     /* twice: not queued */
	run(2000);
	for (unsigned i = 0; i < 100; i++)
		assert_int_equal(T[i].fired, i % 3 ? 1 : 0);
}

/* Re-starting a queued timer moves it, both earlier and later. */
static void test_restart_queued_moves_it(void **state)
{
	(void)state;
	model_start(&T[0], 100);
	model_start(&T[1], 200);
	model_start(&T[2], 300);
	model_start(&T[2], 50);
	check_model();
	model_start(&T[2], 400);
	model_start(&T[0], 250);
	check_model();
	run(260);
	assert_int_equal(T[1].fired, 1);
	assert_int_equal(T[0].fired, 1);
	assert_int_equal(T[2].fired, 0);
}

static enum hrtimer_restart periodic(struct tt *x)
{
	uint64_t n = hrtimer_forward(&x->t, run_now, x->period);
	assert_true(n >= 1);
	x->expires = x->t.expires_ns;
	x->armed = true;
	return HRTIMER_RESTART;
}

/* Forwarding keeps a periodic timer on its grid even when runs are late. */
static void test_periodic_forward_restart(void **state)
{
	(void)state;
	rng_state = 42;
	T[0].then = periodic;
	T[0].period = 1000000;          /* 1 ms */
	model_start(&T[0], 1500000);
	uint64_t now = 0;
	for (int i = 0; i < 5000; i++) {
		now += rnd_below(i % 100 == 0 ? 10000000 : 1500000);
		unsigned ran = run(now);
		assert_true(ran <= 1);      /* overruns collapse into one call */
		assert_true(T[0].armed);
		assert_true(T[0].t.expires_ns % 1000000 == 500000);    /* on the grid */
		assert_true(T[0].t.expires_ns > now);
		assert_true(T[0].t.expires_ns <= now + 1000000);
	}
}

static void test_forward_counts_intervals(void **state)
{
	(void)state;
	hrtimer_init(&T[0].t, cb, "f");
	T[0].t.expires_ns = 1000;
	assert_true(hrtimer_forward(&T[0].t, 999, 100) == 0);    /* already after now */
	assert_true(T[0].t.expires_ns == 1000);
	assert_true(hrtimer_forward(&T[0].t, 1000, 100) == 1);   /* "after", not "at" */
	assert_true(T[0].t.expires_ns == 1100);
	assert_true(hrtimer_forward(&T[0].t, 1555, 100) == 5);
	assert_true(T[0].t.expires_ns == 1600);
}

static void test_forward_misuse_panics(void **state)
{
	(void)state;
	jmp_buf catch;
	hrtimer_init(&T[0].t, cb, "z");
	if (setjmp(catch) == 0) {
		host_panic_catch = &catch;
		hrtimer_forward(&T[0].t, 10, 0);
		fail_msg("zero interval did not panic");
	}
	assert_non_null(strstr(host_last_panic, "zero interval"));
	model_start(&T[0], 5);
	if (setjmp(catch) == 0) {
		host_panic_catch = &catch;
		hrtimer_forward(&T[0].t, 10, 3);
		fail_msg("forwarding a queued timer did not panic");
	}
	assert_non_null(strstr(host_last_panic, "queued"));
	host_irqs_disabled = false;
}

static enum hrtimer_restart restart_in_place(struct tt *x)
{
	(void)x;
	return HRTIMER_RESTART;         /* forgot hrtimer_forward */
}

static void test_restart_without_forward_panics(void **state)
{
	(void)state;
	jmp_buf catch;
	T[0].then = restart_in_place;
	model_start(&T[0], 5);
	if (setjmp(catch) == 0) {
		host_panic_catch = &catch;
		run_now = 10;
		hrtimer_run_expired(10);
		fail_msg("a restart in the past did not panic");
	}
	assert_non_null(strstr(host_last_panic, "without moving"));
	host_irqs_disabled = false;
}

static void test_full_heap_enospc(void **state)
{
	(void)state;
	for (unsigned i = 0; i < HRTIMER_MAX; i++)
		model_start(&T[i], 1000 + i);
	assert_int_equal(hrtimer_start(&T[HRTIMER_MAX].t, 5), -ENOSPC);
	assert_false(hrtimer_is_queued(&T[HRTIMER_MAX].t));
	/* Moving a queued timer needs no room. */
	model_start(&T[7], 1);
	check_model();
	run(UINT64_MAX);
	assert_int_equal(fired_total, HRTIMER_MAX);
}

/* A callback may start and cancel others: a cancelled one due in the same
 * run does not fire; one started already due fires in the same run. */
static enum hrtimer_restart meddle(struct tt *x)
{
	(void)x;
	assert_int_equal(hrtimer_cancel(&T[1].t), 1);
	T[1].armed = false;
	model_start(&T[2], run_now - 1);        /* due already */
	model_start(&T[3], run_now + 1);        /* due after this run */
	return HRTIMER_NORESTART;
}

static void test_callback_starts_and_cancels(void **state)
{
	(void)state;
	T[0].then = meddle;
	model_start(&T[0], 100);
	model_start(&T[1], 150);
	assert_int_equal(run(200), 2);
	assert_int_equal(T[0].fired, 1);
	assert_int_equal(T[1].fired, 0);
	assert_int_equal(T[2].fired, 1);
	assert_int_equal(T[3].fired, 0);
	assert_true(T[3].armed);
}

/* A callback that restarts itself with hrtimer_start and also returns
 * RESTART is queued once, where it asked. */
static enum hrtimer_restart start_and_restart(struct tt *x)
{
	model_start(x, run_now + 1000);
	return HRTIMER_RESTART;
}

static void test_start_inside_and_restart(void **state)
{
	(void)state;
	T[0].then = start_and_restart;
	model_start(&T[0], 10);
	assert_int_equal(run(10), 1);
	assert_int_equal(hrtimer_count(), 1);
	assert_true(T[0].t.expires_ns == 1010);
}

/* ------------------------------------------------------------ misuse */

/* After a refused call the heap must be as it was: the model agrees, and
 * x (queued) fires once, at its deadline, not before. */
static void check_fires_once_on_time(struct tt *x)
{
	check_model();
	unsigned fired = x->fired;
	uint64_t due = x->expires;
	run(due - 1);
	assert_int_equal(x->fired, fired);
	run(due);
	assert_int_equal(x->fired, fired + 1);
	run(UINT64_MAX);
	assert_int_equal(x->fired, fired + 1);
}

/* hrtimer_init on a queued timer panics naming it, at the root, in the
 * middle and at a leaf of the heap, and leaves it queued. */
static void init_queued_case(unsigned victim)
{
	reset(NULL);
	for (unsigned i = 0; i < 31; i++)
		model_start(&T[i], 1000 + 10 * i);
	char want[48];
	snprintf(want, sizeof(want), "hrtimer_init: %s is queued", names[victim]);
	expect_panic(hrtimer_init(&T[victim].t, cb, names[victim]), want);
	assert_true(hrtimer_is_queued(&T[victim].t));
	check_fires_once_on_time(&T[victim]);
	assert_int_equal(fired_total, 31);
	/* Fired, or cancelled, it may be set up again. */
	hrtimer_init(&T[victim].t, cb, names[victim]);
	model_start(&T[victim], 5000);
	assert_int_equal(hrtimer_cancel(&T[victim].t), 1);
	T[victim].armed = false;
	hrtimer_init(&T[victim].t, cb, names[victim]);
	check_model();
}

static void test_init_queued_panics(void **state)
{
	(void)state;
	init_queued_case(0);            /* the earliest: the root */
	init_queued_case(5);
	init_queued_case(30);           /* the latest: a leaf */
}

/* Whatever a timer's memory holds, hrtimer_init only checks it against the
 * heap: an index out of range (negative, past the end of the array) or
 * naming a slot that holds another timer.  (Out of range, ASan would catch
 * a read of hrtimer_heap[] past its end.) */
static void test_init_never_trusts_garbage(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 10; i++)
		model_start(&T[i], 100 + i);
	static const int indexes[] = { -1, INT32_MIN, 0, 3, 9, 10, HRTIMER_MAX, 100000 };
	for (size_t i = 0; i < ARRAY_SIZE(indexes); i++) {
		struct hrtimer garbage;
		memset(&garbage, 0xA5, sizeof(garbage));
		garbage.heap_index = indexes[i];
		hrtimer_init(&garbage, cb, "garbage");
		assert_false(hrtimer_is_queued(&garbage));
		check_model();
	}
	run(200);
	assert_int_equal(fired_total, 10);
}

/* Re-initialising a timer from its own callback panics naming it, and so
 * does re-initialising the callback's timer from a run nested inside it
 * (an interrupt during the callback).  Other timers may be set up there;
 * the timer itself once its callback is done. */
static enum hrtimer_restart reinit_self(struct tt *x)
{
	unsigned i = (unsigned)(x - T);
	char want[48];
	snprintf(want, sizeof(want), "hrtimer_init: %s is running", names[i]);
	expect_panic(hrtimer_init(&x->t, cb, names[i]), want);
	assert_false(hrtimer_is_queued(&x->t));
	hrtimer_init(&T[9].t, cb, names[9]);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart reinit_outer(struct tt *x)
{
	expect_panic(hrtimer_init(&T[0].t, cb, names[0]), "hrtimer_init: h0 is running");
	return reinit_self(x);
}

static enum hrtimer_restart nested_run(struct tt *x)
{
	hrtimer_run_expired(run_now);           /* runs T[1], due already */
	assert_int_equal(T[1].fired, 1);
	return reinit_self(x);
}

static void test_init_from_own_callback_panics(void **state)
{
	(void)state;
	T[0].then = reinit_self;
	model_start(&T[0], 10);
	model_start(&T[2], 30);
	assert_int_equal(run(20), 1);
	check_fires_once_on_time(&T[2]);
	hrtimer_init(&T[0].t, cb, names[0]);    /* not running any more */

	reset(NULL);
	T[0].then = nested_run;
	T[1].then = reinit_outer;
	model_start(&T[0], 10);
	model_start(&T[1], 11);
	model_start(&T[2], 30);
	run_now = 20;
	last_fired = 0;
	assert_int_equal(hrtimer_run_expired(20), 1);   /* T[1] is the nested run's */
	assert_int_equal(T[0].fired, 1);
	check_fires_once_on_time(&T[2]);
	hrtimer_init(&T[0].t, cb, names[0]);
	hrtimer_init(&T[1].t, cb, names[1]);
}

static unsigned hook_calls;
static uint64_t hook_value;
static void hook(uint64_t expires)
{
	assert_true(host_irqs_disabled);
	hook_calls++;
	hook_value = expires;
}

/* The hook fires exactly when a start makes the earliest deadline earlier
 * (or queues the first timer). */
static void test_first_changed_hook(void **state)
{
	(void)state;
	static const struct hrtimer_tick_ops ops = { .first_changed = hook };
	hrtimer_set_tick_ops(&ops);
	rng_state = 7;
	for (int op = 0; op < 20000; op++) {
		struct tt *x = &T[rnd_below(64)];
		uint64_t old_min = 0;
		bool had = model_min(&old_min);
		unsigned calls = hook_calls;
		unsigned r = (unsigned)rnd_below(4);
		if (r < 3) {
			model_start(x, rnd_below(100000));
			uint64_t new_min = 0;
			model_min(&new_min);
			bool expect = !had || new_min < old_min;
			assert_int_equal(hook_calls - calls, expect);
			if (expect)
				assert_true(hook_value == new_min);
		} else {
			hrtimer_cancel(&x->t);
			x->armed = false;
			assert_int_equal(hook_calls, calls);    /* never for cancels */
		}
		check_model();
	}
	assert_true(hook_calls > 100);
	hrtimer_set_tick_ops(NULL);
}

/* A static hrtimer never started is all zeros: cancelling it is a quiet
 * no-op, as for wheel timers. */
/* ------------------------------------------------------------ windows */

static uint64_t fake_now;
static uint64_t fake_clock(void) { return fake_now; }
static uint64_t win_soft[HRTIMER_MAX], win_hard[HRTIMER_MAX];
static bool win_armed[HRTIMER_MAX];
static unsigned win_fired;

static enum hrtimer_restart window_cb(struct hrtimer *t)
{
	unsigned i = (unsigned)(container_of(t, struct tt, t) - T);
	assert_true(win_armed[i]);
	assert_true(fake_now >= win_soft[i]);           /* never before its window */
	assert_true(fake_now <= win_hard[i]);           /* never after it */
	win_armed[i] = false;
	win_fired++;
	return HRTIMER_NORESTART;
}

/* Random windows, by class and by hrtimer_start_range_ns: waking at
 * hrtimer_next_expiry (the earliest hard end), or earlier at random (an
 * interrupt: piggybacking), every timer runs inside its window, once; and
 * the next expiry is always the model's earliest hard end. */
static void test_windows_never_violated(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		reset(NULL);
		memset(win_armed, 0, sizeof(win_armed));
		win_fired = 0;
		rng_state = seed;
		fake_now = 1000000;
		static const struct hrtimer_tick_ops ops = { .clock_ns = fake_clock };
		hrtimer_set_tick_ops(&ops);
		unsigned armed = 0;
		for (unsigned i = 0; i < HRTIMER_MAX; i++)
			hrtimer_init(&T[i].t, window_cb, names[i]);
		for (int op = 0; op < 20000; op++) {
			unsigned i = (unsigned)rnd_below(HRTIMER_MAX);
			if (rnd_below(3) == 0 && !win_armed[i]) {
				uint64_t soft = fake_now + rnd_below(10000000);
				if (rnd_below(2)) {
					uint64_t slack = rnd_below(5000000);
					hrtimer_start_range_ns(&T[i].t, soft, slack);
					win_hard[i] = soft + slack;
				} else {
					enum timer_class c = (enum timer_class)rnd_below(TIMER_CLASS_COUNT);
					unsigned pct = (unsigned)rnd_below(101);
					hrtimer_set_class(&T[i].t, c, pct);
					hrtimer_start(&T[i].t, soft);
					win_hard[i] = soft + timer_slack(c, pct, soft - fake_now, NSEC_PER_SEC);
				}
				win_soft[i] = soft;
				win_armed[i] = true;
				armed++;
				assert_true(T[i].t.hard_ns == win_hard[i]);
			}
			uint64_t next, want = UINT64_MAX;
			for (unsigned k = 0; k < HRTIMER_MAX; k++)
				if (win_armed[k] && win_hard[k] < want)
					want = win_hard[k];
			bool any = hrtimer_next_expiry(&next);
			assert_int_equal(any, want != UINT64_MAX);
			if (!any || rnd_below(4))
				continue;
			assert_true(next == want);
			/* Wake at the hard end, or somewhere before it. */
			uint64_t at = rnd_below(3) ? next : fake_now + rnd_below(next - fake_now + 1);
			if (at > fake_now)
				fake_now = at;
			hrtimer_run_expired(fake_now);
			for (unsigned k = 0; k < HRTIMER_MAX; k++)      /* everything due ran */
				assert_false(win_armed[k] && win_soft[k] <= fake_now);
		}
		uint64_t next;
		while (hrtimer_next_expiry(&next)) {     /* the rest, each in its window */
			fake_now = next;
			hrtimer_run_expired(fake_now);
		}
		assert_int_equal(win_fired, armed);
		assert_int_equal(hrtimer_count(), 0);
	}
}

/* A periodic timer forwarded keeps its window's width. */
static void test_forward_keeps_window(void **state)
{
	(void)state;
	hrtimer_start_range_ns(&T[0].t, 1000, 300);
	assert_int_equal(hrtimer_cancel(&T[0].t), 1);
	assert_int_equal(hrtimer_forward(&T[0].t, 2500, 1000), 2);
	assert_true(T[0].t.expires_ns == 3000 && T[0].t.hard_ns == 3300);
}

static void test_cancel_of_a_never_started_static_hrtimer(void **state)
{
	(void)state;
	static struct hrtimer never;
	assert_int_equal(hrtimer_cancel(&never), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cancel_of_a_never_started_static_hrtimer),
		cmocka_unit_test_setup(test_random_order, reset),
		cmocka_unit_test_setup(test_windows_never_violated, reset),
		cmocka_unit_test_setup(test_forward_keeps_window, reset),
		cmocka_unit_test_setup(test_equal_deadlines_all_fire, reset),
		cmocka_unit_test_setup(test_cancel_from_middle, reset),
		cmocka_unit_test_setup(test_restart_queued_moves_it, reset),
		cmocka_unit_test_setup(test_periodic_forward_restart, reset),
		cmocka_unit_test_setup(test_forward_counts_intervals, reset),
		cmocka_unit_test_setup(test_forward_misuse_panics, reset),
		cmocka_unit_test_setup(test_restart_without_forward_panics, reset),
		cmocka_unit_test_setup(test_full_heap_enospc, reset),
		cmocka_unit_test_setup(test_callback_starts_and_cancels, reset),
		cmocka_unit_test_setup(test_start_inside_and_restart, reset),
		cmocka_unit_test_setup(test_first_changed_hook, reset),
		cmocka_unit_test_setup(test_init_queued_panics, reset),
		cmocka_unit_test_setup(test_init_never_trusts_garbage, reset),
		cmocka_unit_test_setup(test_init_from_own_callback_panics, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
