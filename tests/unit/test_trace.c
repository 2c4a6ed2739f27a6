// SOURCES: kernel/time/trace.c tests/unit/host_arch.c
/* Host tests for the trace buffer (kernel/time/trace.c): it keeps the first
 * TRACE_MAX_EVENTS events, counts every later one as dropped, remembers
 * when the first was dropped, and a new trace starts from nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "time/trace.h"

static void add_at(uint64_t t_ns)
{
	struct trace_event e = { .t_ns = t_ns, .kind = TRACE_TIMER_IRQ };
	trace_add(&e);
}

static void test_records_only_while_on(void **state)
{
	(void)state;
	trace_stop();
	add_at(1);
	trace_start(1000);
	assert_true(trace_on());
	assert_int_equal(trace_buf.count, 0);
	add_at(1500);
	add_at(2500);
	trace_stop();
	add_at(3500);
	assert_int_equal(trace_buf.count, 2);
	assert_int_equal(trace_buf.dropped, 0);
	assert_int_equal(trace_buf.start_ns, 1000);
	assert_int_equal(trace_buf.ev[1].t_ns, 2500);
}

/* Periodic HZ=1000 for longer than the buffer lasts: three events a tick. */
static void test_full_buffer_counts_and_dates_the_drops(void **state)
{
	(void)state;
	const uint64_t start = 5 * NSEC_PER_SEC, step = NSEC_PER_MSEC / TRACE_EVENTS_PER_TICK;
	const unsigned total = TRACE_MAX_EVENTS + 1234;
	trace_start(start);
	for (unsigned i = 0; i < total; i++)
		add_at(start + (i + 1) * step);
	trace_stop();
	assert_int_equal(trace_buf.count, TRACE_MAX_EVENTS);
	assert_int_equal(trace_buf.dropped, 1234);
	/* The oldest events are kept; the first one past the end dates the drop. */
	assert_int_equal(trace_buf.ev[0].t_ns, start + step);
	assert_int_equal(trace_buf.ev[TRACE_MAX_EVENTS - 1].t_ns, start + TRACE_MAX_EVENTS * step);
	assert_int_equal(trace_buf.full_ns, start + (TRACE_MAX_EVENTS + 1) * step);

	trace_start(100 * NSEC_PER_SEC);        /* a new trace forgets it all */
	assert_int_equal(trace_buf.count, 0);
	assert_int_equal(trace_buf.dropped, 0);
	assert_int_equal(trace_buf.full_ns, 0);
	add_at(100 * NSEC_PER_SEC + 1);
	assert_int_equal(trace_buf.count, 1);
	trace_stop();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_only_while_on),
		cmocka_unit_test(test_full_buffer_counts_and_dates_the_drops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
