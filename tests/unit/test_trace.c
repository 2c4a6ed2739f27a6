// SOURCES: kernel/time/trace.c tests/unit/host_arch.c
// THREADS: also built and run under ThreadSanitizer (make unit)
/* Host tests for the trace buffer (kernel/time/trace.c): it keeps the first
 * TRACE_MAX_EVENTS events, counts every later one as dropped, remembers
 * when the first was dropped, and a new trace starts from nothing.  Each
 * event carries the CPU that added it, and CPUs adding at once (host
 * threads, as in test_spinlock.c) lose nothing and mix up nothing. */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "time/trace.h"
#include "host_test.h"

extern _Thread_local unsigned host_cpu_id;     /* tests/unit/host_arch.c */

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

static void test_event_says_which_cpu_added_it(void **state)
{
	(void)state;
	trace_start(0);
	add_at(1);                              /* this thread is CPU 0 */
	host_cpu_id = 3;
	add_at(2);
	host_cpu_id = 0;
	trace_stop();
	assert_int_equal(trace_buf.count, 2);
	assert_int_equal(trace_buf.ev[0].cpu, 0);
	assert_int_equal(trace_buf.ev[1].cpu, 3);
}

/* CPUS threads add ROUNDS events each, all at once, more than the buffer
 * holds.  Each event's time says who added it and its place in that
 * CPU's sequence (cpu << 32 | n), so a slot written by two CPUs at once,
 * or one counted twice, shows. */
/* Without the lock this failed in 5 of 6 runs on a 2-core host. */
#define CPUS   4
#define ROUNDS 100000
_Static_assert(CPUS * ROUNDS > TRACE_MAX_EVENTS, "the threads must overflow the buffer");
static pthread_barrier_t start;

static void *adder(void *arg)
{
	host_cpu_id = (unsigned)(uintptr_t)arg;
	pthread_barrier_wait(&start);
	for (uint64_t n = 0; n < ROUNDS; n++)
		add_at((uint64_t)host_cpu_id << 32 | n);
	return NULL;
}

static void test_cpus_adding_at_once_lose_nothing(void **state)
{
	(void)state;
	pthread_t t[CPUS];
	trace_start(0);
	assert_int_equal(pthread_barrier_init(&start, NULL, CPUS), 0);
	for (unsigned i = 0; i < CPUS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, adder, (void *)(uintptr_t)i), 0);
	for (unsigned i = 0; i < CPUS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	trace_stop();
	assert_int_equal(trace_buf.count, TRACE_MAX_EVENTS);
	assert_int_equal(trace_buf.count + trace_buf.dropped, CPUS * ROUNDS);
	/* Every kept event is whole, and each CPU's are in the order it added them. */
	uint64_t next[CPUS] = { 0 };
	for (unsigned i = 0; i < trace_buf.count; i++) {
		const struct trace_event *e = &trace_buf.ev[i];
		assert_int_equal(e->cpu, e->t_ns >> 32);
		assert_true(e->cpu < CPUS);
		assert_true((e->t_ns & 0xffffffffu) >= next[e->cpu]);
		next[e->cpu] = (e->t_ns & 0xffffffffu) + 1;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_only_while_on),
		cmocka_unit_test(test_full_buffer_counts_and_dates_the_drops),
		cmocka_unit_test(test_event_says_which_cpu_added_it),
		cmocka_unit_test(test_cpus_adding_at_once_lose_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
