// SOURCES:
// THREADS: also built and run under ThreadSanitizer (make unit)
/* tests/unit/test_lab.c — the line a lab's stub prints (kernel/lib/lab.c):
 * the first call says "lab NAME: not implemented" at once; later calls
 * at most once a second by the clock it is handed (or once every
 * LAB_REPORT_CALLS calls without one), saying how many calls the line
 * stands for; each lab counted on its own; and on THREADS threads at once
 * (each a CPU), every call counted in exactly one line.  The lines go to
 * stderr on the host; each test reads them back from a file. */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lab.h"

#define THREADS 4
#define ROUNDS  20000

/* ------------------------------------------------ stderr, caught */

static FILE *caught;
static int saved_stderr;

static void catch_stderr(void)
{
	fflush(stderr);
	caught = tmpfile();
	assert_non_null(caught);
	saved_stderr = dup(2);
	dup2(fileno(caught), 2);
}

/* Everything printed since catch_stderr (a static buffer). */
static const char *caught_text(void)
{
	static char text[1 << 16];
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	rewind(caught);
	size_t n = fread(text, 1, sizeof(text) - 1, caught);
	text[n] = '\0';
	fclose(caught);
	return text;
}

/* Call NAME's stub n times; what they printed. */
static const char *calls(const char *name, unsigned n)
{
	catch_stderr();
	for (unsigned i = 0; i < n; i++)
		lab_not_implemented(name);
	return caught_text();
}

/* ------------------------------------------------ a clock to turn */

static uint32_t fake_ms;

static uint32_t fake_clock(void)
{
	return __atomic_load_n(&fake_ms, __ATOMIC_RELAXED);
}

/* ------------------------------------------------ the tests */

static void test_without_a_clock_one_line_per_thousand_calls(void **state)
{
	(void)state;
	lab_set_clock(NULL);
	assert_string_equal(calls("count", 1), "lab count: not implemented\n");
	assert_string_equal(calls("count", LAB_REPORT_CALLS - 1), "");
	assert_string_equal(calls("count", 1), "lab count: not implemented (1000 more calls)\n");
	assert_string_equal(calls("count", LAB_REPORT_CALLS - 1), "");
	assert_string_equal(calls("count", 2), "lab count: not implemented (1000 more calls)\n");
}

static void test_with_a_clock_one_line_a_second(void **state)
{
	(void)state;
	fake_ms = 5000;
	lab_set_clock(fake_clock);
	assert_string_equal(calls("clock", 1), "lab clock: not implemented\n");
	/* The next second: 999 calls, one a millisecond, unsaid... */
	for (unsigned ms = 1; ms < LAB_REPORT_MS; ms++) {
		fake_ms = 5000 + ms;
		assert_string_equal(calls("clock", 1), "");
	}
	/* ... until a second has passed: the line stands for all 1000. */
	fake_ms = 6000;
	assert_string_equal(calls("clock", 1), "lab clock: not implemented (1000 more calls)\n");
	/* With a clock, no count brings a line sooner. */
	assert_string_equal(calls("clock", 5 * LAB_REPORT_CALLS), "");
	fake_ms = 6999;
	assert_string_equal(calls("clock", 1), "");
	fake_ms = 7000;
	assert_string_equal(calls("clock", 1), "lab clock: not implemented (5002 more calls)\n");
	fake_ms = 9000;
	assert_string_equal(calls("clock", 1), "lab clock: not implemented (1 more call)\n");
	/* A clock a little behind (another CPU's) is not a wrap ahead. */
	fake_ms = 8990;
	assert_string_equal(calls("clock", 1), "");
	fake_ms = 10000;
	assert_string_equal(calls("clock", 1), "lab clock: not implemented (2 more calls)\n");
}

static void test_the_clock_may_wrap(void **state)
{
	(void)state;
	fake_ms = 0xffffff00u;
	lab_set_clock(fake_clock);
	assert_string_equal(calls("wrap", 1), "lab wrap: not implemented\n");
	fake_ms = 0xffu;                        /* 511 ms later */
	assert_string_equal(calls("wrap", 1), "");
	fake_ms = 0x300u;                       /* 1024 ms later */
	assert_string_equal(calls("wrap", 1), "lab wrap: not implemented (2 more calls)\n");
}

static void test_each_lab_has_its_own_count(void **state)
{
	(void)state;
	fake_ms = 0;
	lab_set_clock(fake_clock);
	assert_string_equal(calls("one", 1), "lab one: not implemented\n");
	assert_string_equal(calls("two", 3), "lab two: not implemented\n");
	fake_ms = LAB_REPORT_MS;
	assert_string_equal(calls("one", 1), "lab one: not implemented (1 more call)\n");
	/* The same name in another string is the same lab. */
	char two[] = "two";
	assert_string_equal(calls(two, 1), "lab two: not implemented (3 more calls)\n");
}

/* Every call is counted in exactly one line: the first, or a later one's
 * "(N more calls)", once a last call after the others says the rest. */
static pthread_barrier_t start;

static void *stub_caller(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (unsigned i = 0; i < ROUNDS; i++) {
		__atomic_fetch_add(&fake_ms, 1, __ATOMIC_RELAXED);     /* a millisecond a call */
		lab_not_implemented("threads");
	}
	return NULL;
}

static void test_on_several_cpus_every_call_is_counted_once(void **state)
{
	(void)state;
	fake_ms = 0;
	lab_set_clock(fake_clock);
	pthread_t t[THREADS];
	catch_stderr();
	assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (unsigned i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, stub_caller, NULL), 0);
	for (unsigned i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	fake_ms += LAB_REPORT_MS;
	lab_not_implemented("threads");         /* the rest */
	const char *text = caught_text();

	unsigned long counted = 0, lines = 0, firsts = 0;
	for (const char *p = text; *p; p = strchr(p, '\n') + 1, lines++) {
		unsigned long n;
		if (sscanf(p, "lab threads: not implemented (%lu more call", &n) == 1)
			counted += n;
		else if (strncmp(p, "lab threads: not implemented\n", 29) == 0)
			firsts++, counted++;
		else
			fail_msg("an odd line: %.60s", p);
	}
	assert_int_equal(firsts, 1);
	assert_int_equal(counted, (unsigned long)THREADS * ROUNDS + 1);
	/* 80 s of fake clock: about one line a second. */
	assert_in_range(lines, THREADS * ROUNDS / LAB_REPORT_MS / 2, THREADS * ROUNDS / LAB_REPORT_MS + 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_without_a_clock_one_line_per_thousand_calls),
		cmocka_unit_test(test_with_a_clock_one_line_a_second),
		cmocka_unit_test(test_the_clock_may_wrap),
		cmocka_unit_test(test_each_lab_has_its_own_count),
		cmocka_unit_test(test_on_several_cpus_every_call_is_counted_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
