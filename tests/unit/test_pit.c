// SOURCES: tests/unit/host_pit.c
/* Host tests for the 8254 PIT driver (drivers/timer/pit.c) on a fake chip
 * (tests/unit/host_pit.c): what each function left in channel 0, channel 2
 * and port B — mode, count, byte order, gate and speaker bits, interrupts
 * off while writing — and the state the driver keeps for its interrupt
 * and clocksource.  A booted kernel cannot show all of it: QEMU counts
 * with channel 2's gate closed, and a count one clock short, or a
 * one-shot left in the periodic mode, goes unseen in the timing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "errno.h"
#include "drivers/timer/pit.h"
#include "host_pit.h"

#define MODE_TERMINAL   0       /* mode 0: interrupt on terminal count */
#define MODE_RATE       2       /* mode 2: rate generator */
#define ACCESS_LOHI     3
#define GATE2           0x01    /* port B bit 0 */
#define SPEAKER         0x02    /* port B bit 1 */
#define PORT_B_OTHERS   0x0c    /* bits 2, 3: parity and I/O check off, left as found */

/* A check that says in words what the driver did wrong. */
#define expect(cond, ...) do { if (!(cond)) fail_msg(__VA_ARGS__); } while (0)

static struct clock_event_device *dev;

static int setup(void **state)
{
	(void)state;
	if (!fake_pit_dev) {
		assert_int_equal(pit_init(), 0);
		dev = fake_pit_dev;
	}
	dev->shutdown(dev);
	fake_pit_reset_log();
	return 0;
}

static const char *mode_name(int mode)
{
	switch (mode) {
	case -1: return "none: no control word";
	case 0: return "mode 0, interrupt on terminal count";
	case 1: return "mode 1, hardware one-shot";
	case 2: return "mode 2, rate generator";
	case 3: return "mode 3, square wave";
	default: return "mode 4 or 5, strobes";
	}
}

/* Channel c holds `count` in `mode`, loaded low byte then high byte, in
 * binary, with interrupts off; `who` wrote it. */
static void expect_channel(unsigned c, int mode, uint16_t count, const char *who, const char *why)
{
	const struct fake_pit_channel *ch = &fake_pit[c];
	expect(ch->loads > 0, "%s: no count loaded into channel %u (a control word, then the "
	       "count's low and high bytes)", who, c);
	expect(ch->mode == mode, "%s: channel %u left in %s; expected %s", who, c,
	       mode_name(ch->mode), mode_name(mode));
	expect(ch->access == ACCESS_LOHI && !ch->bcd, "%s: channel %u's control word says access %u%s; "
	       "expected low byte then high byte (PIT_RW_LOHI), binary", who, c, ch->access,
	       ch->bcd ? ", BCD" : "");
	uint16_t swapped = (uint16_t)(count >> 8 | count << 8);
	expect(ch->count == count, "%s: channel %u counts %u (0x%04x); expected %u (0x%04x), %s%s", who,
	       c, ch->count, ch->count, count, count, why,
	       ch->count == swapped ? ": the same bytes in the wrong order (the low byte goes first)" : "");
	expect(!ch->loaded_with_irqs_on, "%s: channel %u written with interrupts on; an interrupt "
	       "between the bytes would program half a count (irq_save/irq_restore)", who, c);
	expect(!fake_irqs_off, "%s returned with interrupts still off (irq_restore)", who);
}

static void test_pit_set_periodic_programs_mode_2(void **state)
{
	(void)state;
	static const struct { unsigned hz; uint16_t count; } rates[] = {
		{ 250, 4773 }, { 100, 11932 }, { 1000, 1193 }, { 19, 62799 },
	};
	for (unsigned i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		fake_pit_reset_log();
		int rc = dev->set_periodic(dev, rates[i].hz);
		expect(rc == 0, "pit_set_periodic(%u Hz) returned %d; expected 0", rates[i].hz, rc);
		expect(fake_irq0_requested && host_pit_irq_held(), "pit_set_periodic: IRQ0 not claimed "
		       "(pit_claim_irq): no tick would reach the handler");
		expect_channel(0, MODE_RATE, rates[i].count, "pit_set_periodic",
		               "1193182 Hz / HZ rounded to nearest (clockevent_periodic_count)");
		expect(host_pit_periodic_count() == rates[i].count, "pit_set_periodic(%u Hz): periodic_count "
		       "is %u; expected the count, %u: pit_irq and the clocksource read it", rates[i].hz,
		       host_pit_periodic_count(), rates[i].count);
	}
	/* Counts the 16-bit counter cannot hold, or too short to program. */
	static const unsigned refused[] = { 18, 1, 80000 };
	for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		fake_pit_reset_log();
		int rc = dev->set_periodic(dev, refused[i]);
		expect(rc == -EINVAL, "pit_set_periodic(%u Hz) returned %d; expected -EINVAL: its count, "
		       "%u, is outside PIT_MIN_DELTA..0xffff", refused[i], rc,
		       (unsigned)((1193182 + refused[i] / 2) / refused[i]));
		expect(fake_pit[0].loads == 0, "pit_set_periodic(%u Hz) refused, but it loaded channel 0",
		       refused[i]);
	}
}

static void test_pit_set_oneshot_programs_mode_0(void **state)
{
	(void)state;
	assert_int_equal(dev->set_periodic(dev, 250), 0);
	fake_pit_reset_log();
	int rc = dev->set_oneshot(dev);
	expect(rc == 0, "pit_set_oneshot returned %d; expected 0", rc);
	expect(fake_irq0_requested && host_pit_irq_held(), "pit_set_oneshot: IRQ0 not claimed "
	       "(pit_claim_irq)");
	expect_channel(0, MODE_TERMINAL, 0xffff, "pit_set_oneshot",
	               "PIT_MAX_DELTA: parked at the longest count until set_next_event");
	expect(host_pit_periodic_count() == 0, "pit_set_oneshot after pit_set_periodic: periodic_count "
	       "is still %u, so pit_irq takes one-shot interrupts for periodic ticks (no stale one "
	       "dropped) and the clocksource counts reloads that never happen: pit_cs_freeze clears it",
	       host_pit_periodic_count());
	/* From a shut-down device too. */
	dev->shutdown(dev);
	fake_pit_reset_log();
	rc = dev->set_oneshot(dev);
	expect(rc == 0 && host_pit_irq_held(), "pit_set_oneshot after shutdown returned %d%s", rc,
	       host_pit_irq_held() ? "" : " without claiming IRQ0");
	expect_channel(0, MODE_TERMINAL, 0xffff, "pit_set_oneshot", "PIT_MAX_DELTA");
}

static void test_pit_set_next_event_writes_a_mode_0_count(void **state)
{
	(void)state;
	assert_int_equal(dev->set_oneshot(dev), 0);
	static const uint16_t ticks[] = { 16, 1000, 4773, 0xffff };
	for (unsigned i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++) {
		fake_pit_reset_log();
		int rc = dev->set_next_event(dev, ticks[i]);
		expect(rc == 0, "pit_set_next_event(%u ticks) returned %d; expected 0 (mode 0 never "
		       "misses: never -ETIME)", ticks[i], rc);
		expect_channel(0, MODE_TERMINAL, ticks[i], "pit_set_next_event",
		               "the ticks asked for, exactly (the core converted and clamped them)");
		expect(host_pit_periodic_count() == 0, "pit_set_next_event: periodic_count is %u in "
		       "one-shot mode; expected 0", host_pit_periodic_count());
	}
	/* Not ours: refused, and the chip left alone. */
	dev->shutdown(dev);
	fake_pit_reset_log();
	int rc = dev->set_next_event(dev, 1000);
	expect(rc == -EINVAL, "pit_set_next_event after shutdown (IRQ0 not held) returned %d; "
	       "expected -EINVAL (irq_held)", rc);
	expect(fake_pit[0].loads == 0 && fake_pit[0].control_words == 0, "pit_set_next_event "
	       "refused, but it wrote channel 0: the IRQ0 line may be the HPET's now");
}

/* Port B as the firmware might leave it: speaker on, gate closed, the two
 * check-disable bits set. */
#define PORT_B_FOUND    (SPEAKER | PORT_B_OTHERS)

static void test_pit_ch2_start_us_counts_and_gates(void **state)
{
	(void)state;
	/* Microseconds to input clocks (1.193182 per us), rounded to nearest. */
	static const struct { uint32_t us; uint16_t count; } waits[] = {
		{ 1, 1 }, { 3, 4 }, { 10, 12 }, { 1000, 1193 }, { 5000, 5966 }, { 50000, 59659 },
	};
	for (unsigned i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
		fake_port_b = PORT_B_FOUND;
		fake_pit_reset_log();
		int rc = pit_ch2_start_us(waits[i].us);
		expect(rc == 0, "pit_ch2_start_us(%u) returned %d; expected 0", waits[i].us, rc);
		expect(fake_port_b & GATE2, "pit_ch2_start_us(%u): channel 2's gate (port B 0x61 bit 0) "
		       "left closed: a real 8254 does not count with its gate low (QEMU's does)",
		       waits[i].us);
		expect(!(fake_port_b & SPEAKER), "pit_ch2_start_us(%u): the speaker (port B 0x61 bit 1) "
		       "is on: a real PC would beep; clear it in port_b_saved", waits[i].us);
		expect((fake_port_b & PORT_B_OTHERS) == PORT_B_OTHERS, "pit_ch2_start_us(%u): port B's "
		       "bits 2 and 3 (0x%02x found) changed to 0x%02x: keep what was there", waits[i].us,
		       PORT_B_FOUND, fake_port_b);
		expect(!fake_port_b_written_with_irqs_on, "pit_ch2_start_us: port B written with "
		       "interrupts on (irq_save first)");
		char why[96];
		snprintf(why, sizeof(why), "%u us x 1.193182 clocks/us rounded to nearest", waits[i].us);
		expect_channel(2, MODE_TERMINAL, waits[i].count, "pit_ch2_start_us", why);
		expect(host_pit_port_b_saved() == (PORT_B_FOUND & ~SPEAKER), "pit_ch2_start_us: "
		       "port_b_saved is 0x%02x; expected port B as found (0x%02x) with the speaker bit "
		       "cleared: 0x%02x (pit_ch2_stop writes it back)", host_pit_port_b_saved(),
		       PORT_B_FOUND, PORT_B_FOUND & ~SPEAKER);
		pit_ch2_stop();
		expect(fake_port_b == (PORT_B_FOUND & ~SPEAKER & ~GATE2), "pit_ch2_stop left port B "
		       "0x%02x; expected 0x%02x", fake_port_b, PORT_B_FOUND & ~SPEAKER & ~GATE2);
	}
	static const uint32_t refused[] = { 0, PIT_CH2_MAX_US + 1, 100000 };
	for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		fake_pit_reset_log();
		int rc = pit_ch2_start_us(refused[i]);
		expect(rc == -EINVAL, "pit_ch2_start_us(%u) returned %d; expected -EINVAL (1 to "
		       "PIT_CH2_MAX_US)", refused[i], rc);
		expect(fake_pit[2].loads == 0 && fake_port_b_writes == 0, "pit_ch2_start_us(%u) "
		       "refused, but it wrote the chip", refused[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_pit_set_periodic_programs_mode_2, setup),
		cmocka_unit_test_setup(test_pit_set_oneshot_programs_mode_0, setup),
		cmocka_unit_test_setup(test_pit_set_next_event_writes_a_mode_0_count, setup),
		cmocka_unit_test_setup(test_pit_ch2_start_us_counts_and_gates, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
