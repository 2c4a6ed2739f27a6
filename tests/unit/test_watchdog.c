// SOURCES: kernel/time/watchdog.c kernel/time/inject.c kernel/time/clocksource.c kernel/time/clockevents.c kernel/time/timekeeping.c tests/unit/host_arch.c tests/unit/time_test.c kernel/time/mult_shift.c kernel/lib/format.c
/* tests/unit/test_watchdog.c — the clocksource watchdog against fake
 * counters that all follow one simulated real time, and the faults of
 * kernel/time/inject.c that it must catch.
 *
 * The machine: a TSC (1 GHz, 64 bits, rate measured against the HPET:
 * rate_ref "hpet", the one timekeeping reads), an HPET (100 MHz, 64 bits,
 * its own rate) and a PM timer (3.579545 MHz, 24 bits, its own rate).
 * Targets from the watchdog's design: 500 ppm caught within two checks, a
 * 10 ms step within one, no alarm in a fault-free run, with counters off
 * by their claimed precision, or across long sleeps that wrap the PM timer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdio.h>
#include <cmocka.h>

#include "time/clocksource.h"
#include "time/inject.h"
#include "time/timekeeping.h"
#include "time/watchdog.h"
#include "errno.h"
#include "time_test.h"
#include "host_test.h"

static struct fake_counter tsc, hpet, pm;
static uint64_t real_ns;                /* the simulated real time */
static int64_t tsc_error_ppm;           /* the TSC's true rate error */
static int64_t pm_error_ppm;            /* the PM timer's, from pm_error_from */
static uint64_t pm_error_from;
static uint64_t ref_read_cost_ns;       /* each HPET read lets time pass */

static uint64_t at(uint64_t ns, uint64_t freq, int64_t ppm)
{
	unsigned __int128 c = (unsigned __int128)ns * freq / NSEC_PER_SEC;
	return (uint64_t)(c + (__int128)c * ppm / 1000000);
}

/* Every counter shows real_ns, each at its own rate. */
static void set_all(void)
{
	tsc.value = at(real_ns, tsc.cs.freq_hz, tsc_error_ppm);
	hpet.value = at(real_ns, hpet.cs.freq_hz, 0);
	pm.value = (at(real_ns, pm.cs.freq_hz, 0) +
	            at(real_ns - pm_error_from, pm.cs.freq_hz, pm_error_ppm) -
	            at(real_ns - pm_error_from, pm.cs.freq_hz, 0)) & pm.cs.mask;
}

static uint64_t (*hpet_fake_read)(struct clocksource *cs);
static uint64_t slow_hpet_read(struct clocksource *cs)
{
	real_ns += ref_read_cost_ns;
	set_all();
	return hpet_fake_read(cs);
}

static void advance(uint64_t ns)
{
	real_ns += ns;
	set_all();
}

static int setup(void **state)
{
	(void)state;
	clock_registry_reset();
	inject_clocksource_clear();
	real_ns = 5 * NSEC_PER_SEC;
	tsc_error_ppm = pm_error_ppm = 0;
	ref_read_cost_ns = 0;
	fake_counter_init(&tsc, "tsc", 300, 1000000000, 64);
	fake_counter_init(&hpet, "hpet", 250, 100000000, 64);
	fake_counter_init(&pm, "acpi_pm", 200, 3579545, 24);
	tsc.cs.rate_ref = "hpet";
	pm.masked_read = true;
	hpet_fake_read = hpet.cs.read;
	hpet.cs.read = slow_hpet_read;
	set_all();
	assert_int_equal(clocksource_register(&hpet.cs), 0);
	assert_int_equal(clocksource_register(&pm.cs), 0);
	assert_int_equal(clocksource_register(&tsc.cs), 0);
	assert_ptr_equal(clocksource_current(), &tsc.cs);
	host_kprintf_log[0] = '\0';
	watchdog_start();
	return 0;
}

static struct watchdog_status status(void)
{
	struct watchdog_status st;
	watchdog_get_status(&st);
	return st;
}

/* `n` checks, `step` apart; returns the check that raised the first
 * alarm (1-based), 0 if none. */
static unsigned run_checks(unsigned n, uint64_t step)
{
	uint64_t before = status().alarms;
	for (unsigned i = 1; i <= n; i++) {
		advance(step);
		watchdog_check();
		if (status().alarms > before)
			return i;
	}
	return 0;
}

/* The HPET judges, and it never wraps: the watchdog costs no wakeup. */
static void test_reference_is_the_hpet_and_needs_no_wakeup(void **state)
{
	(void)state;
	struct watchdog_status st = status();
	assert_ptr_equal(st.ref, &hpet.cs);
	assert_true(st.bound_ns == UINT64_MAX);
	assert_true(watchdog_max_idle_ns(ktime_get_ns()) == UINT64_MAX);
	assert_non_null(strstr(host_kprintf_log, "no wakeups of its own"));
}

/* A fault-free hour in one-second checks, the TSC 80 ppm off (within
 * what the allowance covers), and sleeps of a minute between checks that
 * wrap the PM timer 12 times each: no alarm, no slow read. */
static void test_no_false_alarm(void **state)
{
	(void)state;
	tsc_error_ppm = 80;                 /* from boot on: start again */
	set_all();
	watchdog_reset_for_test();
	watchdog_start();
	assert_int_equal(run_checks(3600, NSEC_PER_SEC), 0);
	assert_int_equal(run_checks(60, 60 * NSEC_PER_SEC), 0);
	assert_int_equal(run_checks(1000, 1234567), 0);
	assert_true(status().slow_reads == 0);
	assert_true(status().checks >= 4660);
	assert_false(tsc.cs.flags & CLOCK_SOURCE_UNSTABLE);
	assert_null(strstr(host_kprintf_log, "unstable"));
}

/* +500 ppm is caught within two checks of a second; then timekeeping
 * moves to the HPET, the PM timer becomes the judge, and the idle path
 * must wake before it wraps. */
static void test_500ppm_caught_within_two_checks(void **state)
{
	(void)state;
	assert_int_equal(run_checks(3, NSEC_PER_SEC), 0);
	assert_int_equal(inject_clocksource_skew(&tsc.cs, 500), 0);
	unsigned n = run_checks(2, NSEC_PER_SEC);
	assert_true(n >= 1 && n <= 2);
	assert_true(tsc.cs.flags & CLOCK_SOURCE_UNSTABLE);
	assert_ptr_equal(clocksource_current(), &hpet.cs);
	assert_non_null(strstr(host_kprintf_log, "tsc marked unstable: watchdog: +"));
	assert_non_null(strstr(host_kprintf_log, "against hpet"));
	assert_non_null(strstr(host_kprintf_log, "switched to hpet"));
	/* The HPET is wider than the PM timer: the PM timer may wrap between
	 * checks as long as a 5% rate error stays under half its wrap. */
	struct watchdog_status st = status();
	assert_ptr_equal(st.ref, &pm.cs);
	uint64_t half_wrap = (pm.cs.mask / 2) * NSEC_PER_SEC / pm.cs.freq_hz;
	assert_true(st.bound_ns >= 19 * half_wrap && st.bound_ns <= 20 * half_wrap);
	assert_true(watchdog_max_idle_ns(ktime_get_ns()) <= st.bound_ns);
}

/* No HPET to judge with: the TSC against the PM timer, which wraps ten
 * times between checks 47 s apart; the TSC's count unwraps it.  No false
 * alarm; then 500 ppm is caught in one such check. */
static void test_tsc_against_a_wrapping_reference(void **state)
{
	(void)state;
	clocksource_mark_unstable(&hpet.cs, "test: gone");
	watchdog_check();                           /* picks the PM timer */
	struct watchdog_status st = status();
	assert_ptr_equal(st.ref, &pm.cs);
	assert_true(st.bound_ns > 46 * NSEC_PER_SEC && st.bound_ns < 47 * NSEC_PER_SEC);
	tsc_error_ppm = 0;
	assert_int_equal(run_checks(100, 46 * NSEC_PER_SEC), 0);
	assert_int_equal(run_checks(100, 1234567), 0);
	assert_int_equal(inject_clocksource_skew(&tsc.cs, 500), 0);
	assert_int_equal(run_checks(1, 46 * NSEC_PER_SEC), 1);
	assert_non_null(strstr(host_kprintf_log, "tsc marked unstable: watchdog: +"));
	assert_non_null(strstr(host_kprintf_log, "against acpi_pm"));
}

/* A 10 ms step either way is caught by the next check. */
static void check_step(int64_t step_ns)
{
	assert_int_equal(run_checks(2, NSEC_PER_SEC), 0);
	assert_int_equal(inject_clocksource_step(&tsc.cs, step_ns), 0);
	assert_int_equal(run_checks(1, NSEC_PER_SEC / 2), 1);
	char want[64];
	snprintf(want, sizeof(want), "watchdog: %+lld us", (long long)(step_ns / 1000));
	assert_non_null(strstr(host_kprintf_log, want));
}
static void test_step_forward_caught_in_one_check(void **state) { (void)state; check_step(10000000); }
static void test_step_back_caught_in_one_check(void **state) { (void)state; check_step(-10000000); }

/* A stalled TSC freezes time: the watchdog still runs, and switches. */
static void test_stall_caught(void **state)
{
	(void)state;
	assert_int_equal(run_checks(2, NSEC_PER_SEC), 0);
	uint64_t t0 = ktime_get_ns();
	assert_int_equal(inject_clocksource_stall(&tsc.cs), 0);
	advance(300 * NSEC_PER_MSEC);
	assert_true(ktime_get_ns() == t0);          /* time stands still ... */
	watchdog_poll();                            /* ... which the poll notices */
	assert_true(ktime_get_ns() - t0 < NSEC_PER_SEC);
	watchdog_poll();
	assert_true(tsc.cs.flags & CLOCK_SOURCE_UNSTABLE);
	assert_ptr_equal(clocksource_current(), &hpet.cs);
	advance(NSEC_PER_SEC);
	assert_true(ktime_get_ns() > t0);           /* and runs again, on the HPET */
}

/* A PM timer 500 ppm fast (a crystal off: the fake's own rate, since
 * inject.c skews only 64-bit counters) is caught across long sleeps that
 * wrap it. */
static void test_wrapping_counter_watched_across_wraps(void **state)
{
	(void)state;
	assert_int_equal(run_checks(2, 60 * NSEC_PER_SEC), 0);
	assert_int_equal(inject_clocksource_skew(&pm.cs, 500), -EINVAL);
	pm_error_from = real_ns;
	pm_error_ppm = 500;
	assert_int_equal(run_checks(1, 60 * NSEC_PER_SEC), 1);
	assert_true(pm.cs.flags & CLOCK_SOURCE_UNSTABLE);
	assert_ptr_equal(clocksource_current(), &tsc.cs);   /* it was not in use */
}

/* Reads stretched by a stalled host are retried, then skipped, never
 * judged: a stretched bracket is not a skew. */
static void test_slow_reads_skipped_not_judged(void **state)
{
	(void)state;
	assert_int_equal(run_checks(2, NSEC_PER_SEC), 0);
	ref_read_cost_ns = 150 * NSEC_PER_USEC;     /* each bracket 150 us wide */
	assert_int_equal(run_checks(5, NSEC_PER_SEC), 0);
	assert_true(status().slow_reads >= 5);
	ref_read_cost_ns = 0;
	assert_int_equal(run_checks(5, NSEC_PER_SEC), 0);
	assert_false(tsc.cs.flags & CLOCK_SOURCE_UNSTABLE);
}

/* The watchdog runs at most once per interval from the poll. */
static void test_poll_checks_once_a_second(void **state)
{
	(void)state;
	uint64_t c0 = status().checks;
	for (unsigned i = 0; i < 250; i++) {    /* 250 ticks of 4 ms */
		advance(4 * NSEC_PER_MSEC);
		watchdog_poll();
	}
	assert_true(status().checks - c0 == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_reference_is_the_hpet_and_needs_no_wakeup, setup),
		cmocka_unit_test_setup(test_no_false_alarm, setup),
		cmocka_unit_test_setup(test_500ppm_caught_within_two_checks, setup),
		cmocka_unit_test_setup(test_step_forward_caught_in_one_check, setup),
		cmocka_unit_test_setup(test_step_back_caught_in_one_check, setup),
		cmocka_unit_test_setup(test_stall_caught, setup),
		cmocka_unit_test_setup(test_wrapping_counter_watched_across_wraps, setup),
		cmocka_unit_test_setup(test_tsc_against_a_wrapping_reference, setup),
		cmocka_unit_test_setup(test_slow_reads_skipped_not_judged, setup),
		cmocka_unit_test_setup(test_poll_checks_once_a_second, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
