// SOURCES: kernel/sleep.c
/* tests/unit/test_sleep.c — host tests for kernel/sleep.c: how a sleeper is
 * armed and woken (sleeper_arm, and sleeper_wake through the timer it
 * gives the wheel), against a fake wheel that records every call, and the
 * interrupt flag each call found.
 *
 * sleep_ticks and sleep_ns halt in wait_event (include/idle.h), which the
 * host cannot run: the alarm lab's boots try those (`alarm sleep`, `alarm
 * interrupt`, kernel/shell/cmd_alarm.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "errno.h"
#include "sleep.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"

/* ------------------------------------------------ the fakes */

volatile uint64_t jiffies_64;
unsigned tick_hz = CONFIG_HZ;

static bool irqs_off;

unsigned long arch_irq_save(void)
{
	unsigned long was = irqs_off;
	irqs_off = true;
	return was;
}

void arch_irq_restore(unsigned long flags) { irqs_off = flags != 0; }
void arch_irq_enable(void) { irqs_off = false; }
void arch_irq_disable(void) { irqs_off = true; }

/* The wheel: what was asked of it, and in which state. */
static struct {
	void (*fn)(struct timer *t);    /* the callback timer_init was given */
	unsigned mods;                  /* timer_mod calls */
	struct timer *t;                /* the last one's timer */
	uint32_t expires;               /* ... expiry */
	bool irqs_off;                  /* ... and whether interrupts were off */
} wheel;

void timer_init(struct timer *t, void (*fn)(struct timer *), const char *name)
{
	memset(t, 0, sizeof(*t));
	t->function = fn;
	t->name = name;
	wheel.fn = fn;
}

int timer_mod(struct timer *t, uint32_t expires)
{
	int was = t->pprev != NULL;
	wheel.mods++;
	wheel.t = t;
	wheel.expires = expires;
	wheel.irqs_off = irqs_off;
	t->expires = expires;
	t->pprev = &t->next;    /* pending: anything but NULL */
	return was;
}

int timer_del_sync(struct timer *t)
{
	int was = t->pprev != NULL;
	t->pprev = NULL;
	return was;
}

/* What sleep_ticks and sleep_ns need to link; never reached here. */
void hrtimer_init(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *), const char *name)
{
	(void)t, (void)fn, (void)name;
	fail_msg("hrtimer_init: not expected in these tests");
}
int hrtimer_start(struct hrtimer *t, uint64_t expires_ns) { (void)t, (void)expires_ns; return -ENOSYS; }
int hrtimer_cancel(struct hrtimer *t) { (void)t; return 0; }
uint64_t ktime_get_ns(void) { return 0; }
bool console_interrupted(void) { return false; }
void cpu_idle(void) { fail_msg("cpu_idle: the host cannot halt"); }
void task_wait_irq(void) { fail_msg("task_wait_irq: the host cannot wait for an interrupt"); }

/* A sleeper's notify: how often, and what the sleeper said then. */
static struct {
	unsigned calls;
	bool woke, irqs_off;
	uint32_t woke_jiffy;
} told;

static void notify(struct sleeper *s)
{
	told.calls++;
	told.woke = s->woke;
	told.woke_jiffy = s->woke_jiffy;
	told.irqs_off = irqs_off;
}

static void fresh(struct sleeper *s, uint32_t now)
{
	memset(&wheel, 0, sizeof(wheel));
	memset(&told, 0, sizeof(told));
	jiffies_64 = 0x100000000ull + now;
	irqs_off = false;
	memset(s, 0xa5, sizeof(*s));    /* what a stack held before */
	sleeper_init(s, notify);
}

/* Where the sleeps start: the boot's own jiffies, just before the wrap. */
static const uint32_t starts[] = { 0, 1000, 0xfffffe0cu, 0xffffffffu, 0x7fffffffu };

/* ------------------------------------------------ the tests */

/* A sleep of n ticks: one timer_mod, with interrupts off (a tick between
 * reading jiffies and timer_mod would end the sleep a tick early), for the
 * jiffy armed_jiffy + n, the flag down; interrupts as they were after. */
static void test_arm_sets_the_timer_ticks_ahead(void **state)
{
	(void)state;
	static const int64_t ticks[] = { 1, 2, 10, 255, 256, 16384, 70000, 0x7fffffff };
	struct sleeper s;
	for (unsigned i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		for (unsigned k = 0; k < sizeof(ticks) / sizeof(ticks[0]); k++) {
			for (int off = 0; off < 2; off++) {
				uint32_t now = starts[i], want = now + (uint32_t)ticks[k];
				fresh(&s, now);
				s.woke = true;          /* from an earlier sleep */
				irqs_off = off;
				int rc = sleeper_arm(&s, ticks[k]);
				if (rc != 0)
					fail_msg("sleeper_arm(s, %lld) returned %d, want 0", (long long)ticks[k], rc);
				if (wheel.mods != 1 || wheel.t != &s.timer)
					fail_msg("sleeper_arm(s, %lld): %u timer_mod calls on s->timer, want 1",
					         (long long)ticks[k], wheel.mods);
				if (!wheel.irqs_off)
					fail_msg("sleeper_arm(s, %lld) called timer_mod with interrupts on: a tick between "
					         "reading jiffies and timer_mod ends the sleep a tick early "
					         "(arch_irq_save around both)", (long long)ticks[k]);
				if (s.armed_jiffy != now)
					fail_msg("sleeper_arm(s, %lld) at jiffy %u noted armed_jiffy %u",
					         (long long)ticks[k], now, s.armed_jiffy);
				int32_t off_by = (int32_t)(wheel.expires - want);
				if (off_by != 0)
					fail_msg("sleeper_arm(s, %lld) at jiffy %u armed the timer for jiffy %u, %d tick(s) "
					         "%s: a sleep of n ticks ends on jiffy armed_jiffy + n = %u",
					         (long long)ticks[k], now, wheel.expires,
					         off_by < 0 ? -off_by : off_by, off_by < 0 ? "early" : "late", want);
				if (s.woke || told.calls)
					fail_msg("sleeper_arm(s, %lld): woke %d and %u notify calls before the timer fired "
					         "(clear s->woke; only the timer wakes it)", (long long)ticks[k], s.woke,
					         told.calls);
				if (irqs_off != off)
					fail_msg("sleeper_arm(s, %lld) called with interrupts %s returned with them %s "
					         "(arch_irq_restore what arch_irq_save returned)", (long long)ticks[k],
					         off ? "off" : "on", irqs_off ? "off" : "on");
			}
		}
	}
}

/* The timer fires (interrupt context, interrupts off): sleeper_wake notes
 * the jiffy and raises the flag, and only then calls notify, once. */
static void test_wake_notes_the_jiffy_then_notifies(void **state)
{
	(void)state;
	struct sleeper s;
	for (unsigned i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		uint32_t now = starts[i], due = now + 10;
		fresh(&s, now);
		assert_int_equal(sleeper_arm(&s, 10), 0);
		assert_non_null(wheel.fn);
		jiffies_64 += 10;
		s.timer.pprev = NULL;           /* the wheel takes it off as it fires */
		irqs_off = true;
		wheel.fn(&s.timer);
		if (told.calls != 1)
			fail_msg("sleeper_wake called the sleeper's notify %u times, want once", told.calls);
		if (!s.woke || s.woke_jiffy != due)
			fail_msg("sleeper_wake at jiffy %u left woke %d, woke_jiffy %u: want 1 and the jiffy it "
			         "ran on (jiffies)", due, s.woke, s.woke_jiffy);
		if (!told.woke || told.woke_jiffy != due)
			fail_msg("sleeper_wake called notify before it set woke (%d) and woke_jiffy (%u, want %u): "
			         "whoever is told reads them", told.woke, told.woke_jiffy, due);
	}
	/* No notify: the flag alone (sleep_ticks' sleeper). */
	fresh(&s, 1000);
	sleeper_init(&s, NULL);
	assert_int_equal(sleeper_arm(&s, 3), 0);
	jiffies_64 += 3;
	irqs_off = true;
	wheel.fn(&s.timer);
	if (!s.woke || s.woke_jiffy != 1003)
		fail_msg("sleeper_wake without a notify at jiffy 1003 left woke %d, woke_jiffy %u", s.woke,
		         s.woke_jiffy);
}

/* Pintos: a sleep of zero or fewer ticks returns at once.  No timer: the
 * sleeper wakes inside sleeper_arm, as the wheel would wake it (interrupts
 * off, the flag and the jiffy first). */
static void test_zero_or_less_wakes_at_once_without_a_timer(void **state)
{
	(void)state;
	static const int64_t ticks[] = { 0, -1, -100, -0x80000000ll, INT64_MIN };
	struct sleeper s;
	for (unsigned k = 0; k < sizeof(ticks) / sizeof(ticks[0]); k++) {
		uint32_t now = 0xfffffe0cu;
		fresh(&s, now);
		int rc = sleeper_arm(&s, ticks[k]);
		if (rc != 0)
			fail_msg("sleeper_arm(s, %lld) returned %d, want 0", (long long)ticks[k], rc);
		if (wheel.mods)
			fail_msg("sleeper_arm(s, %lld) put a timer on the wheel (for jiffy %u): a sleep of <= 0 "
			         "ticks wakes at once, without one (call sleeper_wake)", (long long)ticks[k],
			         wheel.expires);
		if (!s.woke || s.woke_jiffy != now || s.armed_jiffy != now || told.calls != 1)
			fail_msg("sleeper_arm(s, %lld) at jiffy %u: woke %d, woke_jiffy %u, armed_jiffy %u, "
			         "%u notify calls; want woken at once: 1, %u, %u, 1", (long long)ticks[k], now,
			         s.woke, s.woke_jiffy, s.armed_jiffy, told.calls, now, now);
		if (!told.irqs_off)
			fail_msg("sleeper_arm(s, %lld) woke the sleeper with interrupts on: its notify runs in "
			         "interrupt context when the wheel wakes it, so here too", (long long)ticks[k]);
		if (irqs_off)
			fail_msg("sleeper_arm(s, %lld) returned with interrupts off", (long long)ticks[k]);
	}
}

/* The wheel's range is 2^31 - 1 jiffies: that is armed, anything more is
 * -EINVAL with no timer, also where the value's low 32 bits look small. */
static void test_beyond_the_wheels_range_is_refused(void **state)
{
	(void)state;
	static const int64_t refused[] = { 0x80000000ll, 0xffffffffll, 0x100000000ll, 0x100000005ll,
	                                   INT64_MAX };
	struct sleeper s;
	for (unsigned k = 0; k < sizeof(refused) / sizeof(refused[0]); k++) {
		fresh(&s, 1000);
		int rc = sleeper_arm(&s, refused[k]);
		if (rc != -EINVAL || wheel.mods)
			fail_msg("sleeper_arm(s, %lld) returned %d with %u timer_mod calls: beyond SLEEP_MAX_TICKS "
			         "(2^31 - 1) it is -EINVAL, no timer", (long long)refused[k], rc, wheel.mods);
		if (irqs_off)
			fail_msg("sleeper_arm(s, %lld) returned -EINVAL with interrupts off", (long long)refused[k]);
	}
	fresh(&s, 1000);
	int rc = sleeper_arm(&s, 0x7fffffff);
	if (rc != 0 || wheel.mods != 1)
		fail_msg("sleeper_arm(s, 2^31 - 1) returned %d with %u timer_mod calls: SLEEP_MAX_TICKS itself "
		         "is in range", rc, wheel.mods);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm_sets_the_timer_ticks_ahead),
		cmocka_unit_test(test_wake_notes_the_jiffy_then_notifies),
		cmocka_unit_test(test_zero_or_less_wakes_at_once_without_a_timer),
		cmocka_unit_test(test_beyond_the_wheels_range_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
