// SOURCES: kernel/time/wakeups.c kernel/time/trace.c tests/unit/host_arch.c kernel/time/percpu.c
/* Host tests for the wakeup accounting (kernel/time/wakeups.c).
 *
 * The accounting, driven as the tick code drives it (idle enter, the
 * interrupts and the skip noted while idle, idle exit): the time halted,
 * each wakeup charged to exactly one cause, the longest sleep overall and
 * in a window, reset, the causes table overflowing into "other", skips
 * counted by what chose their length, the sorted snapshot, the trace, and
 * two CPUs each counting their own, summed.
 *
 * The rate arithmetic: wakeups_rate_centi() against an exact 128-bit
 * reference, at the extremes of both inputs (count near 2^64, spans of 1 ns
 * and 2^64-1 ns) and at random, including where the naive
 * count * 100 * NSEC_PER_SEC overflows (from about 1.8e8 wakeups on). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "time/percpu.h"
#include "time/arch.h"
#include "time/trace.h"
#include "time/wakeups.h"

#include "host_test.h"

/* The boot CPU's counts, which every test but the SMP one looks at. */
#define boot_stats (time_wakeups_of(0)->stats)

/* ------------------------------------------------------------ accounting */

/* Interrupt vectors as the PIC delivers them (IRQ n at 0x20 + n). */
#define VEC_TICK  0x20          /* IRQ0: the PIT as the tick device */
#define VEC_KBD   0x21          /* IRQ1 */
#define VEC_UART  0x24          /* IRQ4: COM1 */

static int fresh(void **state)
{
	(void)state;
	wakeups_reset(0);
	trace_stop();
	return 0;
}

/* A sleep from `from` to `to` ns that the tick device ended, as the tick
 * code reports it: the device's vector first (tick_irq_enter), then its
 * handler.  `limit` and `name` are the skip that was programmed, or
 * TICK_LIMIT_NONE for a tick that kept running. */
static void sleep_until_tick(uint64_t from, uint64_t to, enum tick_limit limit, const char *name)
{
	wakeups_idle_enter(from);
	if (limit != TICK_LIMIT_NONE)
		wakeups_note_skip(SKIP_TICKLESS, limit, name);
	wakeups_note_irq(VEC_TICK);
	wakeups_note_tick_event();
	wakeups_idle_exit(to);
}

/* A sleep that another interrupt ended before the tick device fired. */
static void sleep_until_irq(uint64_t from, uint64_t to, unsigned vector)
{
	wakeups_idle_enter(from);
	wakeups_note_irq(vector);
	wakeups_idle_exit(to);
}

/* The entry for this cause in the (unsorted) table, or NULL. */
static const struct wakeup_cause *find_cause(enum wakeup_kind kind, const char *name,
                                             unsigned vector)
{
	for (unsigned i = 0; i < boot_stats.ncauses; i++) {
		const struct wakeup_cause *c = &boot_stats.causes[i];
		if (c->kind == kind && c->vector == vector &&
		    (c->name == name || (c->name && name && strcmp(c->name, name) == 0)))
			return c;
	}
	return NULL;
}

static uint64_t count_of(enum wakeup_kind kind, const char *name, unsigned vector)
{
	const struct wakeup_cause *c = find_cause(kind, name, vector);
	return c ? c->count : 0;
}

/* Every counted wakeup sits in exactly one place: a cause, or "other". */
static void assert_all_charged(void)
{
	uint64_t sum = boot_stats.other;
	for (unsigned i = 0; i < boot_stats.ncauses; i++)
		sum += boot_stats.causes[i].count;
	assert_int_equal(sum, boot_stats.wakeups);
}

static void test_idle_time_and_wakeups(void **state)
{
	(void)state;
	wakeups_reset(1000);
	assert_int_equal(boot_stats.since_ns, 1000);
	sleep_until_tick(2000, 6000, TICK_LIMIT_NONE, NULL);
	assert_int_equal(boot_stats.wakeups, 1);
	assert_int_equal(boot_stats.idle_ns, 4000);
	assert_int_equal(boot_stats.max_sleep_ns, 4000);

	/* Halted, but no interrupt came (one was already pending at the hlt):
	 * idle time, not a wakeup. */
	wakeups_idle_enter(10000);
	wakeups_idle_exit(10500);
	assert_int_equal(boot_stats.wakeups, 1);
	assert_int_equal(boot_stats.idle_ns, 4500);
	assert_int_equal(boot_stats.ncauses, 1);

	/* A second exit with no enter between counts nothing. */
	wakeups_idle_exit(20000);
	assert_int_equal(boot_stats.idle_ns, 4500);
	assert_int_equal(boot_stats.wakeups, 1);

	/* An exit stamped before its enter slept 0 ns; the wakeup counts. */
	sleep_until_tick(30000, 29000, TICK_LIMIT_NONE, NULL);
	assert_int_equal(boot_stats.wakeups, 2);
	assert_int_equal(boot_stats.idle_ns, 4500);
	assert_int_equal(boot_stats.max_sleep_ns, 4000);
	assert_all_charged();
}

static void test_each_wakeup_charged_to_one_cause(void **state)
{
	(void)state;
	/* The tick kept running and woke the CPU. */
	sleep_until_tick(0, 4000000, TICK_LIMIT_NONE, NULL);
	assert_int_equal(count_of(WAKE_TICK, NULL, 0), 1);
	/* A skip the tick device ended: what chose its length, by name. */
	sleep_until_tick(0, 100000000, TICK_LIMIT_TIMER, "blink");
	sleep_until_tick(0, 100000000, TICK_LIMIT_HRTIMER, "nanosleep");
	sleep_until_tick(0, 50000000, TICK_LIMIT_DEVICE, NULL);
	sleep_until_tick(0, 2000000000, TICK_LIMIT_WRAP, NULL);
	assert_int_equal(count_of(WAKE_TIMER, "blink", 0), 1);
	assert_int_equal(count_of(WAKE_HRTIMER, "nanosleep", 0), 1);
	assert_int_equal(count_of(WAKE_LIMIT_DEVICE, NULL, 0), 1);
	assert_int_equal(count_of(WAKE_LIMIT_WRAP, NULL, 0), 1);
	assert_int_equal(count_of(WAKE_TICK, NULL, 0), 1);      /* not the tick */

	/* A skip another interrupt cut short: that line, not the timer. */
	wakeups_idle_enter(0);
	wakeups_note_skip(SKIP_TICKLESS, TICK_LIMIT_TIMER, "blink");
	wakeups_note_irq(VEC_UART);
	wakeups_idle_exit(30000000);
	assert_int_equal(count_of(WAKE_IRQ, NULL, VEC_UART), 1);
	assert_int_equal(count_of(WAKE_TIMER, "blink", 0), 1);

	/* Two lines before the exit: the first one woke the CPU. */
	wakeups_idle_enter(0);
	wakeups_note_irq(VEC_KBD);
	wakeups_note_irq(VEC_UART);
	wakeups_idle_exit(1000);
	assert_int_equal(count_of(WAKE_IRQ, NULL, VEC_KBD), 1);
	assert_int_equal(count_of(WAKE_IRQ, NULL, VEC_UART), 1);

	/* The same timer's name from another string is the same cause. */
	char copy[] = "blink";
	sleep_until_tick(0, 100000000, TICK_LIMIT_TIMER, copy);
	assert_int_equal(count_of(WAKE_TIMER, "blink", 0), 2);
	sleep_until_irq(0, 1000, VEC_UART);
	assert_int_equal(count_of(WAKE_IRQ, NULL, VEC_UART), 2);

	assert_int_equal(boot_stats.ncauses, 7);
	assert_int_equal(boot_stats.wakeups, 9);
	assert_int_equal(boot_stats.other, 0);
	assert_all_charged();
}

static void test_window_max_sleep(void **state)
{
	(void)state;
	sleep_until_tick(0, 5000000, TICK_LIMIT_NONE, NULL);
	sleep_until_irq(10000000, 13000000, VEC_UART);
	assert_int_equal(boot_stats.max_sleep_ns, 5000000);
	assert_int_equal(boot_stats.window_max_sleep_ns, 5000000);

	/* A new window (the `idle` command) forgets its own maximum only. */
	wakeups_window_start(0);
	assert_int_equal(boot_stats.window_max_sleep_ns, 0);
	sleep_until_tick(20000000, 22000000, TICK_LIMIT_NONE, NULL);
	assert_int_equal(boot_stats.window_max_sleep_ns, 2000000);
	assert_int_equal(boot_stats.max_sleep_ns, 5000000);
	/* A halt no interrupt ended is no sleep to measure. */
	wakeups_idle_enter(30000000);
	wakeups_idle_exit(130000000);
	assert_int_equal(boot_stats.window_max_sleep_ns, 2000000);
	assert_int_equal(boot_stats.max_sleep_ns, 5000000);
	sleep_until_tick(200000000, 207000000, TICK_LIMIT_TIMER, "blink");
	assert_int_equal(boot_stats.window_max_sleep_ns, 7000000);
	assert_int_equal(boot_stats.max_sleep_ns, 7000000);
}

/* `halted` is the halts alone: their share of the idle time by the cycle
 * counter (arch_halt_cycles), not the whole idle path; with no cycle
 * counter it is the idle time itself. */
static void test_halted_is_the_halts_share(void **state)
{
	(void)state;
	static struct wakeup_stats snap;
	/* 10 ms idle, 1000 cycles from idle entry to exit, 900 of them halted. */
	host_cycles = 5000;
	wakeups_idle_enter(0);
	wakeups_note_irq(VEC_TICK);
	wakeups_note_tick_event();
	host_cycles = 6000;
	host_halt_cycles = 900;
	wakeups_idle_exit(10000000);
	wakeups_snapshot(0, 10000000, &snap);
	assert_int_equal(snap.idle_ns, 10000000);
	assert_int_equal(snap.halted_ns, 9000000);
	/* A halt longer than the stretch it sits in (clock trouble) is capped. */
	host_cycles = 7000;
	wakeups_idle_enter(20000000);
	wakeups_note_irq(VEC_UART);
	host_cycles = 7100;
	host_halt_cycles = 5000;
	wakeups_idle_exit(21000000);
	wakeups_snapshot(0, 21000000, &snap);
	assert_int_equal(snap.halted_ns, 10000000);      /* 11 ms x 1000 / 1100 cycles */
	/* No cycle counter: idle time is all there is to go by. */
	wakeups_reset(30000000);
	host_cycles = 0;
	sleep_until_irq(30000000, 34000000, VEC_UART);
	wakeups_snapshot(0, 34000000, &snap);
	assert_int_equal(snap.halted_ns, 4000000);
}

/* A window begun while a CPU sleeps counts only its own part of that
 * sleep as the window's longest (the `idle` command's max sleep). */
static void test_window_counts_from_its_start(void **state)
{
	(void)state;
	static struct wakeup_stats snap;
	wakeups_idle_enter(0);
	wakeups_window_start(8000000);          /* 8 ms into the sleep */
	wakeups_snapshot(0, 9000000, &snap);
	assert_int_equal(snap.window_max_sleep_ns, 1000000);
	assert_int_equal(snap.max_sleep_ns, 9000000);
	wakeups_note_irq(VEC_UART);
	wakeups_idle_exit(10000000);
	assert_int_equal(boot_stats.window_max_sleep_ns, 2000000);
	assert_int_equal(boot_stats.max_sleep_ns, 10000000);
}

/* Each skipping mode counts its own skips and catch-ups, the sum over
 * CPUs keeps the longest, and one reset clears them with the wakeups. */
static void test_skips_counted_per_mode_and_reset_together(void **state)
{
	(void)state;
	static struct wakeup_stats sum, each[TIME_MAX_CPUS];
	wakeups_note_skip(SKIP_DYNTICK, TICK_LIMIT_TIMER, "blink");
	wakeups_note_catchup(SKIP_DYNTICK, 13);
	wakeups_note_skip(SKIP_TICKLESS, TICK_LIMIT_DEVICE, NULL);
	wakeups_note_catchup(SKIP_TICKLESS, 250);
	wakeups_note_skip(SKIP_TICKLESS, TICK_LIMIT_DEVICE, NULL);
	wakeups_note_catchup(SKIP_TICKLESS, 3);
	wakeups_snapshot_each(1000, &sum, each);
	assert_int_equal(sum.by_mode[SKIP_DYNTICK].skips, 1);
	assert_int_equal(sum.by_mode[SKIP_DYNTICK].ticks_skipped, 13);
	assert_int_equal(sum.by_mode[SKIP_TICKLESS].skips, 2);
	assert_int_equal(sum.by_mode[SKIP_TICKLESS].catchups, 2);
	assert_int_equal(sum.by_mode[SKIP_TICKLESS].ticks_skipped, 253);
	assert_int_equal(sum.by_mode[SKIP_TICKLESS].longest_skip, 250);
	wakeups_reset(2000);
	wakeups_snapshot_each(3000, &sum, each);
	assert_int_equal(sum.by_mode[SKIP_DYNTICK].skips, 0);
	assert_int_equal(sum.by_mode[SKIP_TICKLESS].longest_skip, 0);
}

/* kernel/idle.c lets pending interrupts in between tick_idle_enter and
 * the halt; if one came, the CPU does not halt and the sleep is given up:
 * not a wakeup, no idle time, no cause; counted as abandoned. */
static void test_abandoned_sleep_is_no_wakeup(void **state)
{
	(void)state;
	/* Nothing came in the window: nothing to give up, the sleep goes on. */
	wakeups_idle_enter(1000);
	wakeups_note_skip(SKIP_TICKLESS, TICK_LIMIT_DEVICE, NULL);
	assert_false(wakeups_idle_abandon());
	wakeups_idle_exit(5000);                /* halted, woke for nothing */
	assert_int_equal(boot_stats.abandoned, 0);
	assert_int_equal(boot_stats.idle_ns, 4000);

	/* The old deadline's interrupt, pending at the halt, came in the
	 * window (judged stale: no tick event). */
	wakeups_idle_enter(10000);
	wakeups_note_skip(SKIP_TICKLESS, TICK_LIMIT_DEVICE, NULL);
	wakeups_note_irq(VEC_TICK);
	assert_true(wakeups_idle_abandon());
	assert_int_equal(boot_stats.abandoned, 1);
	/* Given up once only; a late exit finds no sleep in progress. */
	assert_false(wakeups_idle_abandon());
	wakeups_idle_exit(20000);
	assert_int_equal(boot_stats.wakeups, 0);
	assert_int_equal(boot_stats.ncauses, 0);
	assert_int_equal(boot_stats.idle_ns, 4000);
	assert_int_equal(boot_stats.max_sleep_ns, 0);

	/* A tick event in the window (the deadline was due): the same. */
	wakeups_idle_enter(30000);
	wakeups_note_irq(VEC_TICK);
	wakeups_note_tick_event();
	assert_true(wakeups_idle_abandon());
	assert_int_equal(boot_stats.abandoned, 2);
	assert_int_equal(boot_stats.wakeups, 0);

	/* The next sleep counts as usual; reset forgets the abandoned too. */
	sleep_until_irq(40000, 50000, VEC_UART);
	assert_int_equal(boot_stats.wakeups, 1);
	assert_int_equal(count_of(WAKE_IRQ, NULL, VEC_UART), 1);
	assert_all_charged();
	wakeups_reset(60000);
	assert_int_equal(boot_stats.abandoned, 0);
}

static void test_reset_forgets_everything(void **state)
{
	(void)state;
	static char names[WAKEUP_CAUSES_MAX + 1][8];
	for (unsigned i = 0; i <= WAKEUP_CAUSES_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "t%u", i);
		sleep_until_tick(0, 1000 + i, TICK_LIMIT_TIMER, names[i]);
	}
	sleep_until_tick(0, 1000, TICK_LIMIT_WRAP, NULL);
	wakeups_window_start(0);
	sleep_until_irq(0, 500, VEC_UART);
	assert_int_not_equal(boot_stats.other, 0);

	wakeups_reset(12345);
	static struct wakeup_stats want;
	memset(&want, 0, sizeof(want));
	want.since_ns = 12345;
	assert_memory_equal(&boot_stats, &want, sizeof(want));
	/* And counting starts afresh. */
	sleep_until_tick(20000, 21000, TICK_LIMIT_NONE, NULL);
	assert_int_equal(boot_stats.wakeups, 1);
	assert_int_equal(boot_stats.ncauses, 1);
	assert_int_equal(boot_stats.idle_ns, 1000);
}

static void test_causes_table_overflows_into_other(void **state)
{
	(void)state;
	static char names[WAKEUP_CAUSES_MAX + 1][8];
	for (unsigned i = 0; i < WAKEUP_CAUSES_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "t%u", i);
		sleep_until_tick(0, 1000, TICK_LIMIT_TIMER, names[i]);
	}
	assert_int_equal(boot_stats.ncauses, WAKEUP_CAUSES_MAX);
	assert_int_equal(boot_stats.other, 0);

	/* The table is full: a new timer, and a new line, go to "other". */
	snprintf(names[WAKEUP_CAUSES_MAX], sizeof(names[0]), "t%u", WAKEUP_CAUSES_MAX);
	sleep_until_tick(0, 1000, TICK_LIMIT_TIMER, names[WAKEUP_CAUSES_MAX]);
	sleep_until_irq(0, 1000, VEC_UART);
	assert_int_equal(boot_stats.ncauses, WAKEUP_CAUSES_MAX);
	assert_int_equal(boot_stats.other, 2);
	assert_null(find_cause(WAKE_IRQ, NULL, VEC_UART));
	/* A cause already in the table still counts there. */
	sleep_until_tick(0, 1000, TICK_LIMIT_TIMER, names[5]);
	assert_int_equal(count_of(WAKE_TIMER, names[5], 0), 2);
	assert_int_equal(boot_stats.other, 2);
	assert_int_equal(boot_stats.wakeups, WAKEUP_CAUSES_MAX + 3);
	assert_all_charged();
}

static void test_skips_counted_by_limit(void **state)
{
	(void)state;
	sleep_until_tick(0, 1000, TICK_LIMIT_TIMER, "blink");
	sleep_until_tick(0, 1000, TICK_LIMIT_TIMER, "every");
	sleep_until_tick(0, 1000, TICK_LIMIT_HRTIMER, "nanosleep");
	sleep_until_tick(0, 1000, TICK_LIMIT_DEVICE, NULL);
	sleep_until_tick(0, 1000, TICK_LIMIT_DEVICE, NULL);
	sleep_until_tick(0, 1000, TICK_LIMIT_WRAP, NULL);
	sleep_until_tick(0, 1000, TICK_LIMIT_NONE, NULL);        /* no skip */
	/* A skip counts by what chose its length even when another
	 * interrupt ended it early. */
	wakeups_idle_enter(0);
	wakeups_note_skip(SKIP_TICKLESS, TICK_LIMIT_TIMER, "blink");
	wakeups_note_irq(VEC_KBD);
	wakeups_idle_exit(1000);

	const uint64_t want[TICK_LIMIT_COUNT] = {
		[TICK_LIMIT_NONE] = 0, [TICK_LIMIT_TIMER] = 3, [TICK_LIMIT_HRTIMER] = 1,
		[TICK_LIMIT_DEVICE] = 2, [TICK_LIMIT_WRAP] = 1,
	};
	for (unsigned l = 0; l < TICK_LIMIT_COUNT; l++)
		if (boot_stats.skips_by_limit[l] != want[l])
			fail_msg("skips by limit %u: %llu, want %llu", l,
			         (unsigned long long)boot_stats.skips_by_limit[l],
			         (unsigned long long)want[l]);
}

static void test_snapshot_most_frequent_first(void **state)
{
	(void)state;
	sleep_until_irq(0, 1000, VEC_UART);
	for (unsigned i = 0; i < 3; i++)
		sleep_until_tick(0, 1000, TICK_LIMIT_TIMER, "blink");
	sleep_until_tick(0, 1000, TICK_LIMIT_NONE, NULL);
	sleep_until_tick(0, 1000, TICK_LIMIT_NONE, NULL);
	sleep_until_irq(0, 1000, VEC_KBD);

	static struct wakeup_stats snap;
	wakeups_snapshot(0, 0, &snap);
	assert_false(host_irqs_disabled);
	assert_int_equal(snap.ncauses, 4);
	assert_int_equal(snap.causes[0].kind, WAKE_TIMER);
	assert_int_equal(snap.causes[0].count, 3);
	assert_int_equal(snap.causes[1].kind, WAKE_TICK);
	/* Equal counts keep the order they were first seen in. */
	assert_int_equal(snap.causes[2].vector, VEC_UART);
	assert_int_equal(snap.causes[3].vector, VEC_KBD);
	assert_int_equal(snap.wakeups, boot_stats.wakeups);
	/* The live table is not reordered. */
	assert_int_equal(boot_stats.causes[0].vector, VEC_UART);
}

/* Two CPUs: each charges its own wakeups; a snapshot gives one CPU's or
 * the sum (the same cause on both CPUs is one line); a sleep in progress
 * counts up to the snapshot's `now`; a reset starts both afresh, a sleep
 * in progress from the reset on. */
static void test_each_cpu_counts_its_own(void **state)
{
	(void)state;
	host_nr_cpus = 2;
	wakeups_reset(0);
	sleep_until_tick(0, 4000, TICK_LIMIT_NONE, NULL);               /* CPU 0 */
	sleep_until_irq(5000, 6000, VEC_UART);
	host_cpu_id = 1;
	sleep_until_tick(0, 3000, TICK_LIMIT_NONE, NULL);
	sleep_until_tick(3000, 10000, TICK_LIMIT_TIMER, "blink");
	sleep_until_tick(10000, 11000, TICK_LIMIT_NONE, NULL);
	wakeups_idle_enter(20000);                      /* asleep from 20 us on */
	host_cpu_id = 0;

	static struct wakeup_stats one, all, each[2];
	wakeups_snapshot(0, 30000, &one);
	assert_int_equal(one.wakeups, 2);
	assert_int_equal(one.idle_ns, 5000);
	wakeups_snapshot(1, 30000, &one);
	assert_int_equal(one.wakeups, 3);
	assert_int_equal(one.idle_ns, 3000 + 7000 + 1000 + 10000);      /* 10 us so far */
	assert_int_equal(one.max_sleep_ns, 10000);
	assert_int_equal(one.asleep, 1);
	assert_int_equal(one.causes[0].kind, WAKE_TICK);
	assert_int_equal(one.causes[0].count, 2);
	wakeups_snapshot_each(30000, &all, each);
	assert_int_equal(all.wakeups, 5);
	assert_int_equal(all.idle_ns, 5000 + 21000);
	assert_int_equal(all.max_sleep_ns, 10000);
	assert_int_equal(all.asleep, 1);
	assert_int_equal(all.ncauses, 3);               /* tick, blink, uart */
	assert_int_equal(all.causes[0].kind, WAKE_TICK);
	assert_int_equal(all.causes[0].count, 3);
	assert_int_equal(all.skips_by_limit[TICK_LIMIT_TIMER], 1);
	/* CPU 0's table is CPU 0's alone. */
	assert_int_equal(boot_stats.wakeups, 2);
	/* The sum and each CPU's from the same copies. */
	static struct wakeup_stats sum;
	wakeups_snapshot_each(30000, &sum, each);
	assert_memory_equal(&sum, &all, sizeof(sum));
	assert_int_equal(each[0].wakeups, 2);
	assert_int_equal(each[1].wakeups, 3);
	assert_int_equal(each[1].causes[0].count, 2);           /* sorted */

	/* Reset while CPU 1 sleeps: its sleep counts from the reset. */
	wakeups_reset(50000);
	wakeups_snapshot(1, 50000, &one);
	assert_int_equal(one.wakeups, 0);
	assert_int_equal(one.idle_ns, 0);
	assert_int_equal(one.since_ns, 50000);
	host_cpu_id = 1;
	wakeups_note_irq(VEC_KBD);
	wakeups_idle_exit(60000);
	host_cpu_id = 0;
	wakeups_snapshot_each(70000, &all, each);
	assert_int_equal(all.wakeups, 1);
	assert_int_equal(all.idle_ns, 10000);
	assert_int_equal(all.since_ns, 50000);
	host_nr_cpus = 1;
}

/* The shell prints these words (`wakeups`). */
static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(wakeup_kind_name(WAKE_TICK), "tick");
	assert_string_equal(wakeup_kind_name(WAKE_TIMER), "timer");
	assert_string_equal(wakeup_kind_name(WAKE_HRTIMER), "hrtimer");
	assert_string_equal(wakeup_kind_name(WAKE_LIMIT_DEVICE), "limit: device max");
	assert_string_equal(wakeup_kind_name(WAKE_LIMIT_WRAP), "limit: clocksource wrap");
	assert_string_equal(wakeup_kind_name(WAKE_IRQ), "irq");
}

/* While `trace` records, each counted wakeup adds one idle-exit event. */
static void test_idle_exit_traced(void **state)
{
	(void)state;
	trace_start(0);
	sleep_until_irq(1000, 2000, VEC_UART);
	sleep_until_tick(3000, 9000, TICK_LIMIT_TIMER, "blink");
	wakeups_idle_enter(10000);                  /* no interrupt: no event */
	wakeups_idle_exit(11000);
	trace_stop();
	assert_int_equal(trace_buf.count, 2);
	const struct trace_event *e = &trace_buf.ev[0];
	assert_int_equal(e->kind, TRACE_IDLE_EXIT);
	assert_int_equal(e->t_ns, 2000);
	assert_int_equal(e->cause, WAKE_IRQ);
	assert_int_equal(e->vector, VEC_UART);
	e = &trace_buf.ev[1];
	assert_int_equal(e->cause, WAKE_TIMER);
	assert_int_equal(e->vector, 0);
	assert_string_equal(e->name, "blink");
}

/* ------------------------------------------------------------ rates */

typedef unsigned __int128 u128;

/* What the rate is: floor(count * 100 * 10^9 / span), or UINT64_MAX when
 * that does not fit (0 for an empty span). */
static uint64_t reference(uint64_t count, uint64_t span)
{
	if (!span)
		return 0;
	u128 q = (u128)count * 100 * NSEC_PER_SEC / span;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

static void check(uint64_t count, uint64_t span)
{
	uint64_t got = wakeups_rate_centi(count, span), want = reference(count, span);
	if (got != want)
		fail_msg("rate(%llu, %llu) = %llu, want %llu", (unsigned long long)count,
		         (unsigned long long)span, (unsigned long long)got, (unsigned long long)want);
}

static void test_everyday_rates(void **state)
{
	(void)state;
	assert_int_equal(wakeups_rate_centi(0, NSEC_PER_SEC), 0);
	assert_int_equal(wakeups_rate_centi(5, 0), 0);
	assert_int_equal(wakeups_rate_centi(1, NSEC_PER_SEC), 100);            /* 1.00/s */
	assert_int_equal(wakeups_rate_centi(1250, 5 * NSEC_PER_SEC), 25000);   /* 250.00/s */
	assert_int_equal(wakeups_rate_centi(11, 4 * NSEC_PER_SEC), 275);       /* 2.75/s */
	assert_int_equal(wakeups_rate_centi(2, 3 * NSEC_PER_SEC), 66);         /* 0.666: down */
}

/* Where the old arithmetic wrapped: 2e8 wakeups at 250/s is 9.3 days. */
static void test_past_the_old_overflow(void **state)
{
	(void)state;
	uint64_t span = 800000ull * NSEC_PER_SEC;
	assert_int_equal(wakeups_rate_centi(200000000ull, span), 25000);
	assert_int_equal(wakeups_rate_centi(UINT64_MAX / 100, 1000 * NSEC_PER_SEC),
	                 reference(UINT64_MAX / 100, 1000 * NSEC_PER_SEC));
	for (uint64_t c = 184000000ull; c < 186000000ull; c += 99991)
		check(c, 3600 * NSEC_PER_SEC);
}

static void test_extremes(void **state)
{
	(void)state;
	const uint64_t counts[] = { 0, 1, 2, 184467440ull, 184467441ull, 1ull << 32,
	                            (1ull << 32) + 1, 1ull << 63, UINT64_MAX - 1, UINT64_MAX };
	const uint64_t spans[] = { 1, 2, 3, 999999999, NSEC_PER_SEC, 100 * NSEC_PER_SEC - 1,
	                           100 * NSEC_PER_SEC, 1ull << 32, (1ull << 63) - 1, 1ull << 63,
	                           (1ull << 63) + 1, UINT64_MAX - 1, UINT64_MAX };
	for (unsigned i = 0; i < ARRAY_SIZE(counts); i++)
		for (unsigned j = 0; j < ARRAY_SIZE(spans); j++)
			check(counts[i], spans[j]);
	/* The largest rate that fits, exactly, and one past it. */
	assert_true(wakeups_rate_centi(UINT64_MAX, 100 * NSEC_PER_SEC) == UINT64_MAX);
	assert_true(wakeups_rate_centi(UINT64_MAX - 1, 100 * NSEC_PER_SEC) == UINT64_MAX - 1);
	assert_true(wakeups_rate_centi(UINT64_MAX, 1) == UINT64_MAX);              /* saturated */
	assert_true(wakeups_rate_centi(UINT64_MAX, UINT64_MAX) == 100 * NSEC_PER_SEC);
	assert_true(wakeups_rate_centi(UINT64_MAX - 1, UINT64_MAX) == 100 * NSEC_PER_SEC - 1);
}

/* Random inputs of random widths, so every bit length of both meets. */
static void test_random_against_reference(void **state)
{
	(void)state;
	rng_state = 0x7a7e5eedull;
	for (unsigned i = 0; i < 200000; i++) {
		uint64_t count = rnd64() >> (rnd32() % 64);
		uint64_t span = rnd64() >> (rnd32() % 64);
		check(count, span);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_idle_time_and_wakeups, fresh),
		cmocka_unit_test_setup(test_each_wakeup_charged_to_one_cause, fresh),
		cmocka_unit_test_setup(test_window_max_sleep, fresh),
		cmocka_unit_test_setup(test_halted_is_the_halts_share, fresh),
		cmocka_unit_test_setup(test_window_counts_from_its_start, fresh),
		cmocka_unit_test_setup(test_skips_counted_per_mode_and_reset_together, fresh),
		cmocka_unit_test_setup(test_abandoned_sleep_is_no_wakeup, fresh),
		cmocka_unit_test_setup(test_reset_forgets_everything, fresh),
		cmocka_unit_test_setup(test_causes_table_overflows_into_other, fresh),
		cmocka_unit_test_setup(test_skips_counted_by_limit, fresh),
		cmocka_unit_test_setup(test_snapshot_most_frequent_first, fresh),
		cmocka_unit_test_setup(test_each_cpu_counts_its_own, fresh),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test_setup(test_idle_exit_traced, fresh),
		cmocka_unit_test(test_everyday_rates),
		cmocka_unit_test(test_past_the_old_overflow),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_random_against_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
