/* drivers/timer/pit.c — the Intel 8254 programmable interval timer (PIT).
 *
 * Spec: Intel 8254 datasheet (order 231164): "Control Word Format",
 * "Counter Latch Command", "Read-Back Command", "Mode 0: Interrupt on
 * Terminal Count", "Mode 2: Rate Generator".  Three 16-bit down-counters
 * share one 1.193182 MHz clock.  On the PC, channel 0 drives IRQ0, channel
 * 1 once refreshed DRAM (left alone), channel 2 feeds the speaker through a
 * gate in port 0x61.  We use channel 0 as the clock event device "pit" (the
 * only timer interrupt an isapc 486 has) and, with its interrupts counted,
 * as the clocksource "pit" (the worst there is); channel 2 as a stopwatch
 * for calibration when nothing better exists.  Not used: BCD, modes 1, 3,
 * 4, 5.  The firmware leaves channel 0 ticking at 18.2 Hz; we stop it first
 * thing, since an unused timer must not keep running (QUIRK below).
 *
 * Longer than a driver's usual ~300 lines because it is the whole of the
 * 8254's datasheet section as the PC wires it: channel 0's clock event
 * device and clocksource, and channel 2, which calibration, SMP start-up
 * (kernel/arch/smp.c) and the self-test use as stopwatch and counter.  The
 * two channels share the ports, the control word and port B, and lab pit
 * (docs/labs/pit.md) has students write in both.
 */
#include "delay.h"
#include "lab.h"
#include "drivers/timer/pit.h"
#include "time/calibrate.h"
#include "errno.h"
#include "arch/irq.h"
#include "kprintf.h"
#include "time/clockevent.h"
#include "time/clocksource.h"
#include "arch/x86.h"

#define PIT_INPUT_HZ    1193182u    /* the PC's 14.31818 MHz crystal / 12 */
#define PIT_COUNT_MAX   0xffffu     /* 16-bit counters (0 would mean 65536) */
#define PIT_IRQ         0

enum {
	PIT_CH0     = 0x40,     /* channel 0 counter: drives IRQ0 */
	PIT_CH2     = 0x42,     /* channel 2 counter: speaker, gated by port B */
	PIT_CMD     = 0x43,     /* control word register (write only) */
	PIT_PORT_B  = 0x61,     /* PC/AT system control port B */
};

/* Control word, bits SC1 SC0 | RW1 RW0 | M2 M1 M0 | BCD. */
#define PIT_SEL_CH0         (0u << 6)   /* select counter 0 */
#define PIT_SEL_CH2         (2u << 6)   /* select counter 2 */
#define PIT_SEL_READBACK    (3u << 6)   /* read-back command */
#define PIT_RW_LATCH        (0u << 4)   /* counter latch command */
#define PIT_RW_LOHI         (3u << 4)   /* low byte, then high byte */
#define PIT_MODE_TERMINAL   (0u << 1)   /* mode 0: OUT rises once when the count runs out */
#define PIT_MODE_RATE       (2u << 1)   /* mode 2: OUT pulses low once per count, reloads */
#define PIT_BINARY          0u          /* count in binary, not BCD */

/* Read-back command and the status byte it latches (8254 only, not 8253). */
#define PIT_RB_NO_COUNT     (1u << 5)   /* COUNT# = 1: latch the status only */
#define PIT_RB_CH0          (1u << 1)   /* ... of counter 0 */
#define PIT_STATUS_OUT      (1u << 7)   /* the counter's OUT pin */

/* Port B (IBM PC/AT Technical Reference, "System Control Port B"). */
#define PORT_B_GATE2        (1u << 0)   /* channel 2 counts while this is 1 */
#define PORT_B_SPEAKER      (1u << 1)   /* speaker data enable: 0 keeps it silent */
#define PORT_B_OUT2         (1u << 5)   /* channel 2's OUT pin (read only) */

#define PIT_STOP_COUNT      1   /* shortest mode 0 count: a stop is over in 2 clocks */

/* Smallest one-shot count: 16 ticks, 13.4 us.  Mode 0 cannot miss (OUT
 * rises when the count runs out, even before we return), but programming
 * takes three ~1 us ISA port writes: a shorter count only interrupts us
 * before we have finished asking. */
#define PIT_MIN_DELTA       16

#define PIT_MAX_DELTA       PIT_COUNT_MAX   /* largest: 65535 ticks = 54.9 ms */

/* Every polling loop gives up after this many port reads.  2^24 reads
 * outlast the longest wait we ask for (50 ms) unless a read took under
 * 3 ns, which no port read does, emulated or not; at an ISA bus's ~1 us a
 * read they end after 17 s on a dead chip. */
#define PIT_MAX_POLLS       (1u << 24)
#define PIT_RUN_PROBE_READS 100

static bool irq_held;               /* we own IRQ0 (not the HPET) */
static bool stopped_for_good;       /* pit_stop() was called */
static uint16_t periodic_count;     /* channel 0's count while periodic, else 0 */
static uint64_t cs_base;            /* clocksource: ticks up to the last reload handled */
static uint64_t cs_last;            /* clocksource: the last value returned */

/* --- accessors; callers keep interrupts off around each one --- */

static void ch0_program(uint8_t mode, uint16_t count)
{
	outb(PIT_CMD, PIT_SEL_CH0 | PIT_RW_LOHI | mode | PIT_BINARY);
	outb(PIT_CH0, count & 0xff);
	outb(PIT_CH0, count >> 8);
}

static uint16_t ch0_read_count(void)
{
	outb(PIT_CMD, PIT_SEL_CH0 | PIT_RW_LATCH);     /* ch0: latch the count */
	uint8_t lo = inb(PIT_CH0);
	uint8_t hi = inb(PIT_CH0);
	return (uint16_t)(lo | hi << 8);
}

static bool ch0_out_is_high(void)
{
	outb(PIT_CMD, PIT_SEL_READBACK | PIT_RB_NO_COUNT | PIT_RB_CH0);   /* ch0: latch status */
	return inb(PIT_CH0) & PIT_STATUS_OUT;
}

/* QUIRK: a masked PIT keeps the host busy.
 * Symptom: an idle guest with IRQ0 masked at the PIC still costs the host
 * CPU: lull on -machine pc, with the firmware's tick left running, cost
 * many times what it costs once the tick is stopped (that cost is `make
 * bench`'s row "floor").  Emulator: QEMU's i8254 keeps a host timer armed
 * for every transition of channel 0's OUT; masking IRQ0 does not stop it,
 * and a control word alone does not reschedule it ("XXX: update irq
 * timer ?").  Workaround: load a count in mode 0.  Loading
 * re-evaluates the timer (pit_load_count), and mode 0 has one transition,
 * OUT rising when the count runs out; then pit_get_next_transition_time()
 * returns -1 and the timer is deleted.  Real 8254s just leave OUT high.
 * Reference: QEMU hw/timer/i8254.c, i8254_common.c; 8254 datasheet, Mode 0. */
static void ch0_stop(void)
{
	ch0_program(PIT_MODE_TERMINAL, PIT_STOP_COUNT);   /* ch0, lo/hi byte, mode 0, binary, count 1 */
}

/* --- the clocksource: interrupts counted, plus the counter between them --- */

/* QUIRK: the counter reloads before its interrupt is handled.
 * Symptom: PIT time jumps back by up to one period.  Hardware: every 8254
 * in mode 2 — the counter reloads and raises IRQ0, but with interrupts off
 * the handler that adds the period to cs_base runs later; some chipsets'
 * counters also jump up briefly on their own (Intel "Neptun", c't 10/1995).
 * Workaround: never return less than last time.  Time stands still until
 * the interrupt is handled, then continues exactly.  (Checking the PIC's
 * IRR for a pending IRQ0 is the other classic fix; Linux dropped it as too
 * easy to get wrong.)  Reference: Linux drivers/clocksource/i8253.c. */
static uint64_t pit_cs_value(void)
{
	uint64_t now = cs_base;
	if (periodic_count) {
		uint16_t left = ch0_read_count();
		if (left <= periodic_count)     /* else: read mid-reload, count nothing */
			now += periodic_count - left;
	}
	if (now < cs_last)
		now = cs_last;
	cs_last = now;
	return now;
}

static uint64_t pit_cs_read(struct clocksource *cs)
{
	UNUSED(cs);
	uint32_t flags = irq_save();
	uint64_t now = pit_cs_value();
	irq_restore(flags);
	return now;
}

/* Leaving periodic mode: the counter no longer means anything, so the
 * clocksource holds its value until periodic mode starts again. */
static void pit_cs_freeze(void)
{
	cs_base = pit_cs_value();
	periodic_count = 0;
}

/* Rating 110: coarse, slow to read (four port accesses), and built on the
 * PIT's own interrupts, so it loses time across skipped or missed ticks:
 * not CONTINUOUS.  (Under QEMU TCG a host that delays QEMU by more than a
 * period makes the PIT fire back to back and the 8259 merge the edges: a
 * tick is lost now and then.)  Only an isapc 486, with nothing else, uses it. */
static struct clocksource pit_clocksource = {
	.name = "pit",
	.rating = 110,
	.read = pit_cs_read,
	.mask = UINT64_MAX,         /* a 64-bit software count: never wraps */
	.freq_hz = PIT_INPUT_HZ,
	.flags = 0,
	.driven_by = "pit",         /* pit_clockevent's periodic interrupts */
};

/* --- the clock event device --- */

/* QUIRK: an IRQ0 from before channel 0 was armed.
 * Symptom: a one-shot event arrives at once, not after its delta.
 * Hardware: every 8259A, and QEMU's i8259 — an edge latched in the IRR while
 * IRQ0 was masked or interrupts were off (the firmware's tick, our stop
 * count, the last periodic tick) is delivered as soon as it can be.
 * Workaround: in mode 0 OUT stays high from the moment the count runs out
 * until a new count is written, so a one-shot interrupt that finds OUT low
 * is stale: drop it.  The core can judge early events only by a continuous
 * clocksource (kernel/time/clockevents.c), which a 486 lacks.  In periodic
 * mode an early tick is harmless, but the clocksource may start one period
 * ahead; we accept that.  Reference: 8259A datasheet, "Edge and Level
 * Triggered Modes"; 8254 datasheet, Mode 0 and Read-Back Command. */
static void pit_irq(void *ctx)
{
	struct clock_event_device *dev = ctx;
	if (periodic_count)
		cs_base += periodic_count;      /* one more reload behind us */
	else if (!ch0_out_is_high())
		return;                         /* stale: the count has not run out */
	if (dev->event_handler)
		clockevents_handle_event(dev);
}

/* IRQ0 is shared with the HPET's legacy-replacement route, so we hold the
 * line only while channel 0 is in use.  -EBUSY if the HPET has it. */
static int pit_claim_irq(struct clock_event_device *dev)
{
	if (stopped_for_good)
		return -ENODEV;
	if (irq_held)
		return 0;
	int rc = irq_request(PIT_IRQ, pit_irq, dev, "pit");
	irq_held = (rc == 0);
	return rc;
}

static int pit_set_periodic(struct clock_event_device *dev, unsigned hz)
{
	/* LAB pit: BEGIN
	 * The count for `hz` interrupts a second from the 1.193182 MHz input
	 * (clockevent_periodic_count); refuse one the 16-bit counter cannot
	 * hold.  With interrupts off: claim IRQ0 (pit_claim_irq), freeze the
	 * clocksource view (pit_cs_freeze), program channel 0 in mode 2 (rate
	 * generator) with that count, and remember it in periodic_count.
	 */
	uint64_t latch = clockevent_periodic_count(PIT_INPUT_HZ, hz);
	if (latch < PIT_MIN_DELTA || latch > PIT_COUNT_MAX)
		return -EINVAL;         /* outside 19 Hz .. 74 kHz */
	uint32_t flags = irq_save();
	int rc = pit_claim_irq(dev);
	if (rc == 0) {
		pit_cs_freeze();
		ch0_program(PIT_MODE_RATE, (uint16_t)latch);   /* ch0, lo/hi byte, mode 2 (rate generator), binary */
		periodic_count = (uint16_t)latch;
	}
	irq_restore(flags);
	return rc;
	/* LAB pit: STUB
	UNUSED(dev);
	UNUSED(hz);
	UNUSED(pit_claim_irq);
	lab_not_implemented("pit");
	return -ENOSYS;
	   LAB pit: END */
}

/* One-shot is mode 0, not mode 1: mode 1 (hardware-retriggerable one-shot)
 * starts on a rising edge of GATE, and channel 0's gate is wired high on
 * the PC, so it would never start; mode 0 starts when the count is
 * written.  Until set_next_event we park the counter at its longest count:
 * if no deadline follows, one event comes 55 ms later, like any other. */
static int pit_set_oneshot(struct clock_event_device *dev)
{
	/* LAB pit: BEGIN
	 * As pit_set_periodic, but mode 0 (interrupt on terminal count),
	 * parked at the longest count until set_next_event says more.
	 */
	uint32_t flags = irq_save();
	int rc = pit_claim_irq(dev);
	if (rc == 0) {
		pit_cs_freeze();
		ch0_program(PIT_MODE_TERMINAL, PIT_MAX_DELTA);  /* ch0, lo/hi byte, mode 0 (interrupt on terminal count), binary */
	}
	irq_restore(flags);
	return rc;
	/* LAB pit: STUB
	UNUSED(dev);
	lab_not_implemented("pit");
	return -ENOSYS;
	   LAB pit: END */
}

/* A count written in mode 0 restarts it; OUT rises (IRQ0) ticks + 1 clocks
 * later, even if that is before we return: never -ETIME. */
static int pit_set_next_event(struct clock_event_device *dev, uint64_t ticks)
{
	UNUSED(dev);
	/* LAB pit: BEGIN
	 * Refuse unless IRQ0 is ours (irq_held); then write `ticks` as a
	 * new mode-0 count on channel 0, interrupts off.
	 */
	if (!irq_held)
		return -EINVAL;         /* not in one-shot mode, or pit_stop() */
	uint32_t flags = irq_save();
	ch0_program(PIT_MODE_TERMINAL, (uint16_t)ticks);    /* ch0, lo/hi byte, mode 0, binary */
	irq_restore(flags);
	return 0;
	/* LAB pit: STUB
	UNUSED(ticks);
	lab_not_implemented("pit");
	return -ENOSYS;
	   LAB pit: END */
}

/* Twin of hpet_shutdown (drivers/timer/hpet.c): the order of the steps is
 * shared, the registers and the IRQ are each device's own. */
static int pit_shutdown(struct clock_event_device *dev)
{
	UNUSED(dev);
	uint32_t flags = irq_save();
	pit_cs_freeze();
	ch0_stop();
	if (irq_held)
		irq_free(PIT_IRQ);
	irq_held = false;
	irq_restore(flags);
	return 0;
}

/* Rating 100: it works everywhere, but its range is short (54.9 ms, so a
 * tickless idle wakes at least 18 times a second), and every programming
 * is three slow port writes.  Every other timer beats it. */
/* Shaped like every clock event table: one struct, each device its own values. */
static struct clock_event_device pit_clockevent = {
	.name = "pit",
	.rating = 100,
	.features = CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT,
	.freq_hz = PIT_INPUT_HZ,
	.min_delta_ticks = PIT_MIN_DELTA,
	.max_delta_ticks = PIT_MAX_DELTA,
	.irq = PIT_IRQ,
	.set_periodic = pit_set_periodic,
	.set_oneshot = pit_set_oneshot,
	.set_next_event = pit_set_next_event,
	.shutdown = pit_shutdown,
};

/* --- channel 2: the calibration stopwatch --- */

/* Mode 0 on channel 2, gate open, speaker off: OUT2 rises count + 1 clocks
 * after the count is written (rounding to whole ticks: <= 0.42 us).  The
 * count starts at the last of the four port writes. */
static uint8_t port_b_saved;

/* Shaped like pit_set_next_event (above) at its end: both are lab answers,
 * and every lab stub ends alike (tools/lab.py). */
int pit_ch2_start_us(uint32_t us)
{
	/* LAB pit: BEGIN
	 * The calibration stopwatch: `us` microseconds as a count of input
	 * clocks, rounded; refuse 0 and more than PIT_CH2_MAX_US.  With
	 * interrupts off: save port B with the speaker off (port_b_saved),
	 * open channel 2's gate, then program channel 2 in mode 0 with the
	 * count, low byte first.  pit_ch2_ended() watches OUT2 rise.
	 */
	if (us == 0 || us > PIT_CH2_MAX_US)
		return -EINVAL;
	uint16_t count = (uint16_t)(((uint64_t)us * PIT_INPUT_HZ + USEC_PER_SEC / 2) / USEC_PER_SEC);

	uint32_t flags = irq_save();
	port_b_saved = inb(PIT_PORT_B) & ~PORT_B_SPEAKER;
	outb(PIT_PORT_B, port_b_saved | PORT_B_GATE2);
	outb(PIT_CMD, PIT_SEL_CH2 | PIT_RW_LOHI | PIT_MODE_TERMINAL | PIT_BINARY);  /* ch2, lo/hi byte, mode 0, binary */
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	irq_restore(flags);
	return 0;
	/* LAB pit: STUB
	UNUSED(us);
	lab_not_implemented("pit");
	return -ENOSYS;
	   LAB pit: END */
}

/* QUIRK: QEMU's channel 2 counts with its gate closed.
 * Symptom: a pit_ch2_start_us that never opens the gate (port B bit 0)
 * times every window correctly under QEMU, and on real hardware never
 * ends.  Emulator: QEMU 7.2's i8254 computes channel 2's count from the
 * time since it was written whatever the gate, in mode 0 (real 8254:
 * "GATE = 0 disables counting" in modes 0, 2, 3 and 4).  Workaround: after
 * the count is written, port B is read back (the chip returns the gate
 * and speaker bits as written, on hardware and in QEMU) and a closed gate
 * or a speaker left on is an error here, where QEMU would not show it.
 * Reference: 8254 datasheet, "GATE" in each mode's description; IBM PC/AT
 * Technical Reference, port 61h. */
int pit_ch2_started(void)
{
	uint8_t b = inb(PIT_PORT_B);
	if (!(b & PORT_B_GATE2)) {
		kprintf("pit: channel 2's gate is closed after pit_ch2_start_us (port 0x61 bit 0 "
		        "clear): a real 8254 would never count\n");
		return -EIO;
	}
	if (b & PORT_B_SPEAKER) {
		kprintf("pit: the speaker is on after pit_ch2_start_us (port 0x61 bit 1 set): a real "
		        "PC would beep\n");
		return -EIO;
	}
	return 0;
}

bool pit_ch2_ended(void)
{
	return inb(PIT_PORT_B) & PORT_B_OUT2;
}

void pit_ch2_stop(void)
{
	outb(PIT_PORT_B, port_b_saved & ~PORT_B_GATE2);
}

int pit_ch2_wait_us(uint32_t us)
{
	int rc = pit_ch2_start_us(us);
	if (rc == 0)
		rc = pit_ch2_started();
	if (rc) {
		pit_ch2_stop();
		return rc;
	}
	rc = -ETIME;
	for (uint32_t polls = 0; polls < PIT_MAX_POLLS && rc; polls++)
		if (pit_ch2_ended())
			rc = 0;
	pit_ch2_stop();
	return rc;
}

/* Channel 2 free-running: mode 2 with the full count (0 = 65536) wraps
 * every 54.9 ms; each read latches the count and adds the ticks since the
 * last read to a running total.  The 8254 latches the count in one clock,
 * so the two byte reads never tear. */
#define PIT_CH2_TURN        0x10000u

static uint16_t run_last;
static uint64_t run_ticks;

static uint16_t ch2_latched_count(void)
{
	outb(PIT_CMD, PIT_SEL_CH2 | PIT_RW_LATCH);
	uint8_t lo = inb(PIT_CH2);
	return (uint16_t)(lo | inb(PIT_CH2) << 8);
}

int pit_ch2_run_start(void)
{
	uint32_t flags = irq_save();
	port_b_saved = inb(PIT_PORT_B) & ~PORT_B_SPEAKER;
	outb(PIT_PORT_B, port_b_saved | PORT_B_GATE2);
	outb(PIT_CMD, PIT_SEL_CH2 | PIT_RW_LOHI | PIT_MODE_RATE | PIT_BINARY);
	outb(PIT_CH2, 0);
	outb(PIT_CH2, 0);
	run_ticks = 0;
	run_last = ch2_latched_count();
	irq_restore(flags);
	/* A chip that counts moves within a few port reads (each takes over
	 * one 0.84 us tick); a missing one reads back 0xffff forever. */
	for (unsigned i = 0; i < PIT_RUN_PROBE_READS; i++)
		if (pit_ch2_run_ns() != 0)
			return 0;
	pit_ch2_stop();
	return -ENODEV;
}

uint64_t pit_ch2_run_ns(void)
{
	uint32_t flags = irq_save();
	uint16_t now = ch2_latched_count();
	run_ticks += (uint16_t)(run_last - now);        /* it counts down, mod 2^16 */
	run_last = now;
	uint64_t ticks = run_ticks;
	irq_restore(flags);
	return ticks * NSEC_PER_SEC / PIT_INPUT_HZ;
}

/* Channel 2 as kernel/time/calibrate.c sees it: a reference it can only
 * wait on, used where no continuous clocksource exists. */
static const struct calibration_stopwatch pit_ch2_stopwatch = {
	.name = "pit",
	.max_us = PIT_CH2_MAX_US,
	.wait_us = pit_ch2_wait_us,
};

void pit_stop(void)
{
	pit_shutdown(&pit_clockevent);
	stopped_for_good = true;
}

/* Stop the firmware's tick, check that the stop took (OUT rose, so there is
 * an 8254 that counts), then offer channel 2 to calibration and channel 0
 * to the time core. */
int pit_init(void)
{
	uint32_t flags = irq_save();
	ch0_stop();
	bool counted = false;
	for (uint32_t polls = 0; polls < PIT_MAX_POLLS && !counted; polls++)
		counted = ch0_out_is_high();
	irq_restore(flags);
	if (!counted) {
		kprintf("pit: none (channel 0 never finished counting)\n");
		return -ENODEV;
	}
	kprintf("pit: stopped the firmware's 18.2 Hz tick\n");
	calibrate_set_stopwatch(&pit_ch2_stopwatch);
	delay_set_fallback(pit_ch2_wait_us);    /* waits before a clocksource runs */
	int rc = clocksource_register(&pit_clocksource);
	if (rc) {
		kprintf("pit: not used: the time core refused it (error %d)\n", rc);
		return rc;
	}
	rc = clockevents_register(&pit_clockevent);
	if (rc) {
		kprintf("pit: channel 0 not used: the time core refused it (error %d)\n", rc);
		return rc;
	}
	return 0;
}
