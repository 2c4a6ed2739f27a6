// SOURCES: kernel/time/path.c tests/unit/host_arch.c kernel/time/percpu.c
/* Host tests for the timer interrupt's path stamps (kernel/time/path.c):
 * each stage gets the cycles from the stamp before it; a stage not passed
 * counts 0 and the next one takes its share; only paths in which an
 * hrtimer callback ran are counted; an interrupt nested in another stamps
 * nothing; the slowest path is the one slowest from entry to the
 * callback; off, nothing is stamped; reset starts from zero. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "time/path.h"

#include "host_test.h"

static void stamp_at(enum path_stage s, uint64_t cycles)
{
	host_cycles = cycles;
	path_stamp(s);
}

static int fresh(void **state)
{
	(void)state;
	path_on = false;
	path_reset();
	path_on = true;
	return 0;
}

static int off(void **state)
{
	(void)state;
	path_on = false;
	return 0;
}

/* One whole path from `t0`, each stage `step` cycles after the one before;
 * `skip` is a stage not passed (PATH_STAGES: none). */
static void one_path(uint64_t t0, uint64_t step, enum path_stage skip)
{
	uint64_t t = t0;
	for (unsigned s = PATH_ENTRY; s < PATH_STAGES; s++) {
		if (s == skip)
			continue;
		stamp_at(s, t);
		t += step;
	}
}

static void test_each_stage_from_the_stamp_before(void **state)
{
	(void)state;
	uint64_t c[PATH_STAGES], slow[PATH_STAGES];
	one_path(1000, 10, PATH_STAGES);
	one_path(5000, 30, PATH_WATCHDOG);     /* the watchdog stage not passed */
	assert_int_equal(path_totals(0, c, slow), 2);
	assert_int_equal(c[PATH_ENTRY], 0);
	for (unsigned s = PATH_GUARD; s < PATH_STAGES; s++) {
		if (s == PATH_WATCHDOG)
			assert_int_equal(c[s], 10);             /* the first path's only */
		else
			assert_int_equal(c[s], 10 + 30);
	}
	/* The second path is slower to the callback: its stages are kept. */
	assert_int_equal(slow[PATH_HRTIMERS], 30);
	assert_int_equal(slow[PATH_WATCHDOG], 0);
	assert_int_equal(slow[PATH_EXIT], 30);
}

static void test_only_paths_with_a_callback_count(void **state)
{
	(void)state;
	uint64_t c[PATH_STAGES], slow[PATH_STAGES];
	one_path(100, 5, PATH_HRTIMERS);        /* a keyboard interrupt: no callback */
	assert_int_equal(path_totals(0, c, slow), 0);
	for (unsigned s = 0; s < PATH_STAGES; s++)
		assert_int_equal(c[s], 0);
	one_path(1000, 7, PATH_STAGES);
	assert_int_equal(path_totals(0, c, slow), 1);
	assert_int_equal(c[PATH_EOI], 7);
}

static void test_a_nested_interrupt_stamps_nothing(void **state)
{
	(void)state;
	uint64_t c[PATH_STAGES], slow[PATH_STAGES];
	stamp_at(PATH_ENTRY, 0);
	stamp_at(PATH_GUARD, 10);
	stamp_at(PATH_IRQ_ENTER, 20);
	stamp_at(PATH_HANDLER, 30);
	stamp_at(PATH_EOI, 40);
	stamp_at(PATH_HRTIMERS, 50);
	/* An interrupt while the callbacks run with interrupts on: its whole
	 * path, callback and all, leaves the outer one's stamps alone. */
	one_path(60, 1000, PATH_STAGES);
	stamp_at(PATH_CALLBACKS, 10000);
	stamp_at(PATH_WHEEL, 10010);
	stamp_at(PATH_REPROGRAM, 10020);
	stamp_at(PATH_WATCHDOG, 10030);
	stamp_at(PATH_EXIT, 10040);
	assert_int_equal(path_totals(0, c, slow), 1);
	assert_int_equal(c[PATH_HRTIMERS], 10);
	assert_int_equal(c[PATH_CALLBACKS], 10000 - 50);
	assert_int_equal(c[PATH_EXIT], 10);
	/* The next path starts afresh at depth 0. */
	one_path(20000, 1, PATH_STAGES);
	assert_int_equal(path_totals(0, c, slow), 2);
}

static void test_off_stamps_nothing_and_reset_empties(void **state)
{
	(void)state;
	uint64_t c[PATH_STAGES], slow[PATH_STAGES];
	one_path(0, 3, PATH_STAGES);
	path_on = false;
	one_path(100, 50, PATH_STAGES);
	assert_int_equal(path_totals(0, c, slow), 1);
	assert_int_equal(c[PATH_EXIT], 3);
	path_reset();
	assert_int_equal(path_totals(0, c, slow), 0);
	assert_int_equal(c[PATH_EXIT], 0);
	assert_int_equal(slow[PATH_EXIT], 0);
}

static void test_stage_names(void **state)
{
	(void)state;
	for (unsigned s = 0; s < PATH_STAGES; s++) {
		assert_non_null(path_stage_name(s));
		for (unsigned t = 0; t < s; t++)
			assert_string_not_equal(path_stage_name(s), path_stage_name(t));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_each_stage_from_the_stamp_before, fresh, off),
		cmocka_unit_test_setup_teardown(test_only_paths_with_a_callback_count, fresh, off),
		cmocka_unit_test_setup_teardown(test_a_nested_interrupt_stamps_nothing, fresh, off),
		cmocka_unit_test_setup_teardown(test_off_stamps_nothing_and_reset_empties, fresh, off),
		cmocka_unit_test(test_stage_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
