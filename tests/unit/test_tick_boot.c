// SOURCES: kernel/time/tick.c kernel/time/tick_sched.c kernel/time/tick_boot.c kernel/time/tick_smp.c kernel/time/wakeups.c kernel/time/trace.c kernel/time/timer.c kernel/time/timer_bucket.c kernel/time/timer_cascade.c kernel/time/timer_expiry.c kernel/time/timer_base.c kernel/time/timer_level.c kernel/time/slack.c kernel/time/hrtimer.c kernel/time/hrtimer_base.c kernel/time/hrtimer_heap.c kernel/time/path.c kernel/time/clocksource.c kernel/time/watchdog.c kernel/time/timekeeping.c kernel/time/clockevents.c kernel/time/jiffies.c kernel/lib/cmdline.c kernel/lib/format.c tests/unit/host_arch.c tests/unit/time_test.c kernel/time/mult_shift.c kernel/time/tick_jiffies.c kernel/time/tick_switch.c kernel/time/percpu.c
/* Host tests for how the tick starts (kernel/time/tick_boot.c) and
 * which device each mode runs on: the 2005 patch's dyntick= option parsed
 * its way, its boot messages in its order and in the cases it printed them
 * (including "Init failed", which no emulator can show), and the device
 * rule on every mode switch.  Each test boots a fresh fake machine: a
 * clocksource and three clock event devices shaped like QEMU's PIT, local
 * APIC timer and TSC-deadline timer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "cmdline.h"
#include "errno.h"
#include "time/percpu.h"
#include "time/clockevent.h"
#include "time/clocksource.h"
#include "time/hrtimer.h"
#include "time/tick.h"
#include "host_test.h"
#include "time_test.h"

/* The machine's counters stand still: no test here lets time pass. */
static struct fake_counter continuous;
/* Counts only its own tick interrupts, like the PIT as a clocksource. */
static struct fake_counter tick_counting;

#define BOTH (CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT)

static struct fake_clockevent pit, lapic, deadline, periodic_only;

/* A driver that cannot program its chip (a lab's stub, or hardware
 * that went away): every mode fails. */
static struct fake_clockevent broken;
static int refuse_periodic(struct clock_event_device *d, unsigned hz) { (void)d, (void)hz; return -ENOSYS; }
static int refuse_oneshot(struct clock_event_device *d) { (void)d; return -ENOSYS; }
static int (*working_periodic)(struct clock_event_device *d, unsigned hz);  /* to mend it */

/* A device counting at 1 GHz (1 tick = 1 ns), from 1 us to 10 s. */
static void device_init(struct fake_clockevent *d, const char *name, int rating, uint32_t features)
{
	fake_clockevent_init(d, name, rating, features, NSEC_PER_SEC, 1000, 10000000000ull);
}

/* The parts, made once; boot() registers those a test names. */
static int make_parts(void **state)
{
	(void)state;
	fake_counter_init(&continuous, "tsc", 300, NSEC_PER_SEC, 64);
	fake_counter_init(&tick_counting, "pit", 110, NSEC_PER_SEC, 64);
	tick_counting.cs.flags = 0;
	device_init(&pit, "pit", 100, BOTH);
	device_init(&lapic, "lapic", 260, BOTH);
	device_init(&deadline, "tsc-deadline", 270, CLOCK_EVT_FEAT_ONESHOT);
	device_init(&periodic_only, "periodic-only", 50, CLOCK_EVT_FEAT_PERIODIC);
	device_init(&broken, "broken", 10, BOTH);
	working_periodic = broken.dev.set_periodic;
	broken.dev.set_periodic = refuse_periodic;
	broken.dev.set_oneshot = refuse_oneshot;
	return 0;
}

/* A fresh machine with these devices, booted with `options`. */
static void boot(struct clocksource *cs, struct clock_event_device **devs, const char *options)
{
	clock_registry_reset();
	hrtimer_reset_for_test();
	tick_reset_for_test();
	host_kprintf_log[0] = '\0';
	static struct cmdline cl;
	cmdline_parse(&cl, options);
	assert_int_equal(clocksource_register(cs), 0);
	for (; *devs; devs++)
		assert_int_equal(clockevents_register(*devs), 0);
	host_kprintf_log[0] = '\0';             /* from here on: tick_init's words */
	host_irqs_disabled = true;
	tick_init();
	host_irqs_disabled = false;
}

static struct clock_event_device *qemu_devices[] = { &pit.dev, &lapic.dev, NULL };
static struct clock_event_device *bochs_devices[] = { &pit.dev, &lapic.dev, &deadline.dev, NULL };

static void assert_running(enum tick_mode mode, const struct clock_event_device *dev)
{
	assert_int_equal(this_tick()->mode, mode);
	assert_ptr_equal(this_tick()->dev, dev);
}

/* `lines` (each ending in \n) stand in the log in this order. */
static void assert_log_in_order(const char *const *lines)
{
	const char *at = host_kprintf_log;
	for (; *lines; lines++) {
		const char *found = strstr(at, *lines);
		if (!found)
			fail_msg("'%s' not (in order) in:\n%s", *lines, host_kprintf_log);
		at = found + strlen(*lines);
	}
}

static void assert_logged(const char *text, bool want)
{
	if ((strstr(host_kprintf_log, text) != NULL) != want)
		fail_msg("'%s' %s in:\n%s", text, want ? "missing" : "unexpected", host_kprintf_log);
}

/* ------------------------------------------------------------ dyntick= */

struct option_case {
	const char *options;
	enum tick_mode mode;
	struct clock_event_device *dev;
};

static void test_dyntick_option_parsed_as_the_patch_did(void **state)
{
	(void)state;
	const struct option_case cases[] = {
		{ "", TICK_MODE_TICKLESS, &lapic.dev },                 /* lull's default */
		{ "dyntick=enable", TICK_MODE_DYNTICK, &pit.dev },
		{ "dyntick=enabled", TICK_MODE_DYNTICK, &pit.dev },      /* strncmp's prefix */
		{ "dyntick=enable,forceapic", TICK_MODE_DYNTICK, &lapic.dev },
		{ "dyntick=enable+forceapic!", TICK_MODE_DYNTICK, &lapic.dev },   /* strstr anywhere */
		{ "dyntick=forceapic,enable", TICK_MODE_PERIODIC, &lapic.dev },
		{ "dyntick=forceapic", TICK_MODE_PERIODIC, &lapic.dev },
		{ "dyntick=disable", TICK_MODE_PERIODIC, &pit.dev },
		{ "dyntick=sometimes", TICK_MODE_TICKLESS, &lapic.dev }, /* warned, ignored */
		{ "dyntick=enable tick=tickless", TICK_MODE_TICKLESS, &lapic.dev },
		{ "tick=tickless dyntick=enable", TICK_MODE_DYNTICK, &pit.dev },  /* the last word wins */
		{ "dyntick=enable clockevent=lapic", TICK_MODE_DYNTICK, &lapic.dev },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		boot(&continuous.cs, qemu_devices, cases[i].options);
		if (this_tick()->mode != cases[i].mode || this_tick()->dev != cases[i].dev)
			fail_msg("'%s': %s on %s, want %s on %s", cases[i].options,
			         tick_mode_name(this_tick()->mode), this_tick()->dev->name,
			         tick_mode_name(cases[i].mode), cases[i].dev->name);
	}
}

/* ------------------------------------------------------------ messages */

static void test_boot_lines_in_the_patchs_order(void **state)
{
	(void)state;
	boot(&continuous.cs, qemu_devices, "dyntick=enable");
	const char *const lines[] = {
		"Using tsc for high-res timesource\n",
		"dyn-tick: Found suitable timer: tsc\n",
		"dyn-tick: Registering dynamic tick timer v" TICK_DYNTICK_VERSION "\n",
		"dyn-tick: Maximum ticks to skip limited to",
		"dyn-tick: Timer using dynamic tick\n",
		"tick: dyntick on pit (rating 100; the device dyntick= asked for)",
		NULL,
	};
	assert_log_in_order(lines);
	assert_logged("Timer not enabled", false);

	boot(&continuous.cs, qemu_devices, "dyntick=disable");
	assert_logged("dyn-tick: Timer not enabled during boot\n", true);
	assert_logged("Timer using dynamic tick", false);

	/* Tickless is lull's, not the patch's: neither of its last words. */
	boot(&continuous.cs, qemu_devices, "");
	assert_logged("Timer using dynamic tick", false);
	assert_logged("Timer not enabled", false);
	assert_logged("tick: tickless on lapic (rating 260; the best-rated device that can run it)", true);
}

static void test_no_suitable_timer_stops_the_patch_early(void **state)
{
	(void)state;
	boot(&tick_counting.cs, qemu_devices, "dyntick=enable");
	const char *const lines[] = {
		"Using pit for high-res timesource\n",
		"dyn-tick: Cannot use timer pit\n",
		"dyn-tick: Registering dynamic tick timer",
		"dyn-tick: No suitable timer found\n",
		NULL,
	};
	assert_log_in_order(lines);
	assert_logged("Maximum ticks", false);
	assert_logged("Timer ", false);
	assert_running(TICK_MODE_PERIODIC, &pit.dev);
}

static void test_forceapic_without_an_apic(void **state)
{
	(void)state;
	struct clock_event_device *no_apic[] = { &pit.dev, NULL };
	boot(&continuous.cs, no_apic, "dyntick=enable,forceapic");
	assert_logged("dyn-tick: Cannot use local APIC\n", true);
	assert_running(TICK_MODE_DYNTICK, &pit.dev);
	/* Not asked for, not said. */
	boot(&continuous.cs, no_apic, "dyntick=enable");
	assert_logged("Cannot use local APIC", false);
}

static void test_init_failed_when_no_device_can_run_dyntick(void **state)
{
	(void)state;
	struct clock_event_device *no_both[] = { &periodic_only.dev, &deadline.dev, NULL };
	boot(&continuous.cs, no_both, "dyntick=enable");
	assert_logged("dyn-tick: Init failed\n", true);
	assert_logged("Timer using dynamic tick", false);
	assert_logged("dyn-tick: Timer not enabled during boot\n", true);
	assert_running(TICK_MODE_PERIODIC, &periodic_only.dev);
}

/* ------------------------------------------------------------ switches */

/* Which device a mode switch takes, and the reason the rule gives for it
 * (tick_choose_device), which the shell names when the tick moves.  A
 * switch itself says nothing: the shell reads the tick back and says what
 * it is now (kernel/shell/cmd_tick.c). */
static void assert_chosen(enum tick_mode mode, struct clock_event_device *dev, const char *why)
{
	const char *said = NULL;
	assert_ptr_equal(tick_choose_device(mode, &said), dev);
	assert_string_equal(said, why);
}

static void test_each_mode_takes_its_device_and_the_rule_says_why(void **state)
{
	(void)state;
	boot(&continuous.cs, bochs_devices, "");
	assert_running(TICK_MODE_TICKLESS, &deadline.dev);

	host_kprintf_log[0] = '\0';
	assert_int_equal(tick_set_mode(TICK_MODE_PERIODIC), 0);
	assert_running(TICK_MODE_PERIODIC, &lapic.dev);
	assert_chosen(TICK_MODE_PERIODIC, &lapic.dev, "the best-rated device that can run it");
	assert_int_equal(tick_set_mode(TICK_MODE_DYNTICK), 0);
	assert_running(TICK_MODE_DYNTICK, &lapic.dev);
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
	assert_running(TICK_MODE_TICKLESS, &deadline.dev);           /* back */
	assert_chosen(TICK_MODE_TICKLESS, &deadline.dev, "the best-rated device that can run it");
	assert_string_equal(host_kprintf_log, "");                  /* done: no word */

	/* A device the user names sticks across switches it can run. */
	assert_int_equal(tick_set_device("pit"), 0);
	assert_running(TICK_MODE_TICKLESS, &pit.dev);
	assert_int_equal(tick_set_mode(TICK_MODE_PERIODIC), 0);
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
	assert_running(TICK_MODE_TICKLESS, &pit.dev);
	assert_chosen(TICK_MODE_PERIODIC, &pit.dev, "the device chosen with clockevent");
	assert_string_equal(host_kprintf_log, "");
	/* Refused: it cannot run the mode; nothing changes. */
	assert_int_equal(tick_set_device("periodic-only"), -ENOENT);
	assert_int_equal(tick_set_mode(TICK_MODE_PERIODIC), 0);
	assert_int_equal(tick_set_device("tsc-deadline"), -EINVAL);
	assert_running(TICK_MODE_PERIODIC, &pit.dev);
}

static void test_dyntick_option_leaves_tickless_to_the_best(void **state)
{
	(void)state;
	boot(&continuous.cs, bochs_devices, "dyntick=enable");
	assert_running(TICK_MODE_DYNTICK, &pit.dev);
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), 0);
	assert_running(TICK_MODE_TICKLESS, &deadline.dev);
	assert_int_equal(tick_set_mode(TICK_MODE_PERIODIC), 0);
	assert_running(TICK_MODE_PERIODIC, &pit.dev);              /* the patch's tick */
}

/* A device that refuses the mode is not kept (the CPU would halt with no
 * tick to wake it): the tick stays where it was, the error says why, and
 * the refused device is not remembered as the user's choice. */
static void test_a_device_that_refuses_is_not_kept(void **state)
{
	(void)state;
	static struct clock_event_device *devs[] = { &pit.dev, &lapic.dev, &broken.dev, NULL };
	boot(&continuous.cs, devs, "");
	assert_running(TICK_MODE_TICKLESS, &lapic.dev);
	for (int mode = TICK_MODE_PERIODIC; mode <= TICK_MODE_TICKLESS; mode++) {
		assert_int_equal(tick_set_mode((enum tick_mode)mode), 0);
		const char *name = mode == TICK_MODE_PERIODIC ? "periodic" :
		                   mode == TICK_MODE_DYNTICK ? "dyntick" : "tickless";
		host_kprintf_log[0] = '\0';
		assert_int_equal(tick_set_device("broken"), -ENOSYS);
		assert_running((enum tick_mode)mode, &lapic.dev);
		char want[160];
		snprintf(want, sizeof(want), "error: broken refused the %s tick (ENOSYS, not implemented): "
		         "the tick stays %s on lapic\n", name, name);
		assert_string_equal(host_kprintf_log, want);
		assert_int_equal(lapic.dev.state, mode == TICK_MODE_TICKLESS ? CLOCK_EVT_STATE_ONESHOT
		                                                             : CLOCK_EVT_STATE_PERIODIC);
	}
	/* Not the user's choice: the next switch still takes the best. */
	assert_int_equal(tick_set_mode(TICK_MODE_PERIODIC), 0);
	assert_running(TICK_MODE_PERIODIC, &lapic.dev);
	/* The device works again: it is taken. */
	broken.dev.set_periodic = working_periodic;
	assert_int_equal(tick_set_device("broken"), 0);
	assert_running(TICK_MODE_PERIODIC, &broken.dev);
	/* A mode it cannot start goes back to the old mode on it. */
	host_kprintf_log[0] = '\0';
	assert_int_equal(tick_set_mode(TICK_MODE_TICKLESS), -ENOSYS);
	assert_running(TICK_MODE_PERIODIC, &broken.dev);
	assert_string_equal(host_kprintf_log, "error: broken refused the tickless tick (ENOSYS, not implemented): "
	                                      "the tick stays periodic on broken\n");
	broken.dev.set_periodic = refuse_periodic;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dyntick_option_parsed_as_the_patch_did),
		cmocka_unit_test(test_boot_lines_in_the_patchs_order),
		cmocka_unit_test(test_no_suitable_timer_stops_the_patch_early),
		cmocka_unit_test(test_forceapic_without_an_apic),
		cmocka_unit_test(test_init_failed_when_no_device_can_run_dyntick),
		cmocka_unit_test(test_each_mode_takes_its_device_and_the_rule_says_why),
		cmocka_unit_test(test_dyntick_option_leaves_tickless_to_the_best),
		cmocka_unit_test(test_a_device_that_refuses_is_not_kept),
	};
	return cmocka_run_group_tests(tests, make_parts, NULL);
}
