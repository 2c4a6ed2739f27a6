/* drivers/timer/hpet.c — the High Precision Event Timer: one up-counter of at
 * least 10 MHz and three or more comparators, in a memory-mapped block.
 *
 * Spec: IA-PC HPET (High Precision Event Timers) Specification 1.0a, Intel,
 * October 2004: 2.3 register map, 2.3.4 capabilities (COUNTER_CLK_PERIOD),
 * 2.3.5 configuration (ENABLE_CNF, LEG_RT_CNF), 2.3.7 main counter, 2.3.8
 * and 2.3.9 timer N configuration and comparator.  The ACPI "HPET" table
 * (3.2.4, read by drivers/platform/acpi_decode.c) says where the registers are.
 *
 * We use the main counter as clocksource "hpet", and comparator 0 as clock
 * event device "hpet".  lull has no I/O APIC driver, so comparator 0
 * interrupts through the LegacyReplacement route: it takes over IRQ0 on
 * the 8259 from the PIT's channel 0 (and comparator 1 would take IRQ8 from
 * the RTC, whose interrupts lull never uses).  Comparator 0 runs in 32-bit
 * mode, so each comparator value is one 32-bit write.  We do not use the
 * other comparators, FSB (MSI) delivery or I/O APIC routes.
 */
#include "drivers/timer/hpet.h"
#include "drivers/acpi.h"
#include "multiboot.h"
#include "errno.h"
#include "arch/irq.h"
#include "kprintf.h"
#include "arch/paging.h"
#include "time/clockevent.h"
#include "time/clocksource.h"
#include "arch/x86.h"

enum {                                  /* register offsets (2.3) */
	HPET_GCAP_ID        = 0x000,    /* capabilities; period in the high half */
	HPET_GEN_CONF       = 0x010,    /* HPET_CONF_* */
	HPET_MAIN_CNT       = 0x0F0,    /* main counter, 64 bits */
	HPET_T0_CONF        = 0x100,    /* timer 0 configuration: HPET_TN_* */
	HPET_T0_CMP         = 0x108,    /* timer 0 comparator */
	HPET_TIMER_STRIDE   = 0x20,     /* timer N's registers are N strides on */
	HPET_HIGH_HALF      = 4,        /* offset of a 64-bit register's upper half */
	HPET_BLOCK_LEN      = 0x400,    /* the whole register block */
};
#define HPET_CAP_NUM_TIM_SHIFT  8           /* bits 8-12: index of the last timer */
#define HPET_CAP_NUM_TIM_MASK   0x1Fu       /* ... five bits wide */
#define HPET_CAP_COUNT_SIZE     (1u << 13)  /* main counter is 64 bits */
#define HPET_CAP_LEG_RT         (1u << 15)  /* LegacyReplacement route exists */
#define HPET_PERIOD_MAX_FS      100000000u  /* 100 ns, i.e. at least 10 MHz (2.3.4) */
#define HPET_FS_PER_S           1000000000000000ULL /* femtoseconds per second */
#define HPET_CONF_ENABLE        (1u << 0)   /* main counter runs, timers may fire */
#define HPET_CONF_LEG_RT        (1u << 1)   /* timer 0 -> IRQ0, timer 1 -> IRQ8 */
#define HPET_TN_INT_ENB         (1u << 2)   /* comparator may interrupt */
#define HPET_TN_PERIODIC        (1u << 3)   /* TYPE_CNF: periodic, not one-shot */
#define HPET_TN_PER_INT_CAP     (1u << 4)   /* read-only: periodic mode exists */
#define HPET_TN_VAL_SET         (1u << 6)   /* next comparator write sets the time */
#define HPET_TN_32MODE          (1u << 8)   /* 64-bit comparator acts as 32-bit */
#define HPET_LEGACY_IRQ         0           /* where LEG_RT sends timer 0 */

/* Smallest one-shot delta: a comparator write and a counter read take 1-2
 * us on real chipsets (uncached MMIO, ~0.5-1 us each), so a shorter delta
 * is usually gone before we can check it and only costs an -ETIME retry.
 * Under QEMU (TCG) the write itself can take far longer, when the host
 * delays the emulator, and the core's retries with doubled deltas absorb
 * that. */
#define HPET_MIN_DELTA_NS       2000
/* Time that must be left after writing the comparator (see the QUIRK at
 * hpet_set_next_event): covers a write delayed by a few HPET clocks. */
#define HPET_GUARD_NS           300
/* Comparator 0 runs in 32-bit mode and matches the counter's low 32 bits;
 * deltas below 2^31 keep "has the counter passed it?" a signed compare. */
#define HPET_MAX_DELTA_TICKS    0x7fffffffu
/* Reads to wait for the main counter's first tick (it runs >= 10 MHz,
 * one read takes >= ~100 ns). */
#define HPET_ADVANCE_SPINS      100000

static uintptr_t regs;                  /* mapped register block, 0 if none */
static bool counter64;
static uint32_t t0_conf;                /* what we last wrote to HPET_T0_CONF */
static uint32_t guard_ticks;
static bool irq_owned;                  /* we hold IRQ0 and LEG_RT is set */

static uint32_t hpet_read(unsigned off) { return mmio_read32(regs + off); }
static void hpet_write(unsigned off, uint32_t v) { mmio_write32(regs + off, v); }

static void t0_conf_write(uint32_t v)
{
	t0_conf = v;
	hpet_write(HPET_T0_CONF, v);
}

/* The 64-bit counter in two 32-bit reads: if the high half changed between
 * them, the low half wrapped in between and we read again. */
static uint64_t hpet_counter(void)
{
	if (!counter64)
		return hpet_read(HPET_MAIN_CNT);
	uint32_t hi, lo;
	do {
		hi = hpet_read(HPET_MAIN_CNT + HPET_HIGH_HALF);
		lo = hpet_read(HPET_MAIN_CNT);
	} while (hi != hpet_read(HPET_MAIN_CNT + HPET_HIGH_HALF));
	return (uint64_t)hi << 32 | lo;
}

/* The low 32 bits, all a 32-bit comparator compares against. */
static uint32_t hpet_counter_lo(void) { return hpet_read(HPET_MAIN_CNT); }

static uint64_t hpet_cs_read(struct clocksource *cs)
{
	UNUSED(cs);
	return hpet_counter();
}

static void hpet_irq(void *ctx)
{
	struct clock_event_device *dev = ctx;
	if (dev->event_handler)
		clockevents_handle_event(dev);
}

/* Leaving SHUTDOWN: take IRQ0 (the PIT must have let go of it) and route
 * comparator 0 to it. */
static int hpet_claim_irq(struct clock_event_device *dev)
{
	if (irq_owned)
		return 0;
	int rc = irq_request(HPET_LEGACY_IRQ, hpet_irq, dev, "hpet");
	if (rc)
		return rc;
	hpet_write(HPET_GEN_CONF, hpet_read(HPET_GEN_CONF) | HPET_CONF_LEG_RT);
	irq_owned = true;
	return 0;
}

/* QUIRK: periodic mode needs the comparator written twice.
 * Symptom: the first interrupt comes on time, then the period is wrong
 * (or the timer never repeats).  Hardware: AMD-8111 hub and Xen's HPET
 * take the VAL_SET write as the next deadline only and the period from a
 * second write; QEMU, Bochs and Intel chipsets set both from the first.
 * Workaround: with VAL_SET write the first deadline, then write the period
 * again; hardware of the second kind simply sets it twice.  Reference:
 * HPET 1.0a 2.3.9 (Tn_VAL_SET_CNF); AMD-8111 data sheet #24674; Redox
 * kernel merge request 74 "Write hpet timer twice". */
static int hpet_set_periodic(struct clock_event_device *dev, unsigned hz)
{
	uint64_t period = clockevent_periodic_count(dev->freq_hz, hz);
	if (period < dev->min_delta_ticks || period > dev->max_delta_ticks || period < acpi.hpet_min_tick)
		return -EINVAL;
	int rc = hpet_claim_irq(dev);
	if (rc)
		return rc;
	/* Interrupts off: the first deadline must not slip by mid-sequence. */
	uint32_t flags = irq_save();
	uint32_t conf = (t0_conf & ~HPET_TN_INT_ENB) | HPET_TN_PERIODIC;
	t0_conf_write(conf | HPET_TN_VAL_SET);
	hpet_write(HPET_T0_CMP, hpet_counter_lo() + (uint32_t)period);    /* first deadline */
	hpet_write(HPET_T0_CMP, (uint32_t)period);                        /* the period */
	t0_conf_write(conf | HPET_TN_INT_ENB);
	irq_restore(flags);
	return 0;
}

/* One-shot: stay quiet until hpet_set_next_event writes a deadline. */
static int hpet_set_oneshot(struct clock_event_device *dev)
{
	int rc = hpet_claim_irq(dev);
	if (rc)
		return rc;
	t0_conf_write(t0_conf & ~(HPET_TN_INT_ENB | HPET_TN_PERIODIC));
	return 0;
}

/* QUIRK: a comparator written in the past never fires.
 * Symptom: a short one-shot deadline is lost and the system sleeps until
 * the 32-bit comparator comes round again (43 s at 100 MHz).  Hardware:
 * the comparator matches when the counter *equals* it (HPET 1.0a 2.3.9),
 * so a value the counter has already passed is never seen; ICH9/10 and
 * ATI chipsets also apply the write a few HPET clocks late.  (QEMU fires a
 * deadline in the recent past at once, so it hides the bug.)  Workaround:
 * after writing, read the counter again; if the deadline has passed or is
 * closer than guard_ticks, return -ETIME and the core retries with a larger
 * delta.  The check can report -ETIME for a deadline that still fires: an
 * extra event, which the tick code tolerates.  Reference: Linux
 * arch/x86/kernel/hpet.c, comment in hpet_clkevt_set_next_event. */
static int hpet_set_next_event(struct clock_event_device *dev, uint64_t ticks)
{
	UNUSED(dev);
	/* Comparator 0 is written 32 bits wide (HPET_T0_CMP_WIDTH_BITS):
	 * the deadline is the counter plus ticks, modulo 2^32. */
	uint32_t deadline = hpet_counter_lo() + (uint32_t)ticks;
	hpet_write(HPET_T0_CMP, deadline);
	if (!(t0_conf & HPET_TN_INT_ENB))
		t0_conf_write(t0_conf | HPET_TN_INT_ENB);
	int32_t left = (int32_t)(deadline - hpet_counter_lo());
	return left < (int32_t)guard_ticks ? -ETIME : 0;
}


/* Comparator 0 off, IRQ0 and the legacy route given back to the PIT.  The
 * main counter keeps running: it is the "hpet" clocksource. */
/* Twin of pit_shutdown (drivers/timer/pit.c): see there. */
static int hpet_shutdown(struct clock_event_device *dev)
{
	UNUSED(dev);
	uint32_t flags = irq_save();
	t0_conf_write(t0_conf & ~(HPET_TN_INT_ENB | HPET_TN_PERIODIC));
	if (irq_owned) {
		hpet_write(HPET_GEN_CONF, hpet_read(HPET_GEN_CONF) & ~HPET_CONF_LEG_RT);
		irq_free(HPET_LEGACY_IRQ);
		irq_owned = false;
	}
	irq_restore(flags);
	return 0;
}

/* Rating 250: correct, counts in halt, fine-grained; but every read is an
 * uncached MMIO access of ~1 us on real chipsets. */
/* Shaped like every clocksource table: one struct, each device its own values. */
static struct clocksource hpet_clocksource = {
	.name = "hpet",
	.rating = 250,
	.read = hpet_cs_read,
	.flags = CLOCK_SOURCE_CONTINUOUS,
};

/* Rating 200: seconds of range and sub-microsecond resolution (better than
 * the PIT's 16 bits), but slow MMIO to program, and IRQ0 by the legacy
 * route; a local APIC timer, per CPU and fast, should be preferred. */
/* Shaped like every clock event table: one struct, each device its own values. */
static struct clock_event_device hpet_clockevent = {
	.name = "hpet",
	.rating = 200,
	.max_delta_ticks = HPET_MAX_DELTA_TICKS,
	.irq = HPET_LEGACY_IRQ,
	.set_periodic = hpet_set_periodic,
	.set_oneshot = hpet_set_oneshot,
	.set_next_event = hpet_set_next_event,
	.shutdown = hpet_shutdown,
};

/* Stop the main counter for good (and with it every comparator). */
void hpet_stop(void)
{
	if (regs)
		hpet_write(HPET_GEN_CONF, 0);
}

/* Probe: the ACPI HPET table names a register block that is not RAM and
 * can be mapped; sets regs. */
static int hpet_map(void)
{
	if (!acpi.has_hpet) {
		kprintf("hpet: none (no ACPI HPET table)\n");
		return -ENODEV;
	}
	/* A table can name any address; writing "registers" that are RAM
	 * (the kernel's own, say) would corrupt it.  Usable RAM is never the
	 * HPET, so such an address is a bad table, not a device. */
	const struct boot_mmap_entry *ram = boot_memory_entry(&boot_info, acpi.hpet_base, HPET_BLOCK_LEN);
	if (ram && ram->type == MULTIBOOT_MEMORY_AVAILABLE) {
		kprintf("hpet: registers at 0x%llx would be RAM; not used\n",
		        (unsigned long long)acpi.hpet_base);
		return -EINVAL;
	}
	if (acpi.hpet_base > UINT32_MAX - HPET_BLOCK_LEN ||
	    !(regs = (uintptr_t)paging_map_mmio((uint32_t)acpi.hpet_base, HPET_BLOCK_LEN))) {
		kprintf("hpet: cannot map registers at 0x%llx\n", (unsigned long long)acpi.hpet_base);
		return -ENODEV;
	}
	return 0;
}

/* Verify: something answers in the block, with a plausible period.  Its
 * capabilities and period into *cap_out and *period_out; on failure the
 * block is forgotten. */
static int hpet_verify(uint32_t *cap_out, uint32_t *period_out)
{
	uint32_t cap = hpet_read(HPET_GCAP_ID);
	uint32_t period_fs = hpet_read(HPET_GCAP_ID + HPET_HIGH_HALF);
	if (cap == UINT32_MAX && period_fs == UINT32_MAX) {
		kprintf("hpet: nothing answers at 0x%08x (reads all ones)\n", (uint32_t)regs);
		regs = 0;
		return -ENODEV;
	}
	if (period_fs == 0 || period_fs > HPET_PERIOD_MAX_FS) {
		kprintf("hpet: implausible period %u fs at 0x%08x; not used\n", period_fs, (uint32_t)regs);
		regs = 0;
		return -EINVAL;
	}
	*cap_out = cap;
	*period_out = period_fs;
	return 0;
}

/* Halt, silence every comparator the firmware may have left on, reset
 * the counter to 0 and start it (2.3.7: write it only while halted); then
 * check that it counts.  On failure the block is stopped and forgotten. */
static int hpet_restart(unsigned timers)
{
	hpet_write(HPET_GEN_CONF, 0);
	for (unsigned n = 0; n < timers; n++) {
		unsigned conf = HPET_T0_CONF + n * HPET_TIMER_STRIDE;
		hpet_write(conf, hpet_read(conf) & ~(HPET_TN_INT_ENB | HPET_TN_PERIODIC));
	}
	hpet_write(HPET_MAIN_CNT, 0);
	hpet_write(HPET_MAIN_CNT + HPET_HIGH_HALF, 0);
	hpet_write(HPET_GEN_CONF, HPET_CONF_ENABLE);
	uint64_t start = hpet_counter();
	unsigned spins = 0;
	while (hpet_counter() == start && ++spins < HPET_ADVANCE_SPINS)
		;
	if (spins == HPET_ADVANCE_SPINS) {
		kprintf("hpet: main counter does not advance; not used\n");
		hpet_stop();
		regs = 0;
		return -EINVAL;
	}
	return 0;
}

/* Comparator 0: 32-bit mode, edge-triggered, interrupt off until a
 * mode is set; without the legacy route it has no IRQ we can use.
 * Returns its configuration register as the firmware left it (it says
 * whether periodic mode exists). */
static uint32_t hpet_setup_comparator0(bool legacy, uint64_t freq)
{
	uint32_t t0 = hpet_read(HPET_T0_CONF);
	if (legacy) {
		t0_conf_write(HPET_TN_32MODE);
		hpet_clockevent.features = CLOCK_EVT_FEAT_ONESHOT |
		                           ((t0 & HPET_TN_PER_INT_CAP) ? CLOCK_EVT_FEAT_PERIODIC : 0);
		hpet_clockevent.freq_hz = freq;
		hpet_clockevent.min_delta_ticks = MAX(1, freq * HPET_MIN_DELTA_NS / NSEC_PER_SEC);
		guard_ticks = (uint32_t)MAX(1, freq * HPET_GUARD_NS / NSEC_PER_SEC);
	}
	return t0;
}

/* Register the counter, then comparator 0 if it has an IRQ. */
static int hpet_register(bool legacy)
{
	int rc = clocksource_register(&hpet_clocksource);
	if (rc) {
		kprintf("hpet: not used: the time core refused it (error %d)\n", rc);
		hpet_stop();
		regs = 0;
		return rc;
	}
	if (legacy && (rc = clockevents_register(&hpet_clockevent)) != 0) {
		kprintf("hpet: comparator 0 not used: the time core refused it (error %d)\n", rc);
		return rc;
	}
	return 0;
}

/* Probe, verify, restart the counter, set up comparator 0, say what there
 * is in one line, and register. */
int hpet_init(void)
{
	int rc = hpet_map();
	if (rc)
		return rc;
	uint32_t cap, period_fs;
	rc = hpet_verify(&cap, &period_fs);
	if (rc)
		return rc;
	counter64 = cap & HPET_CAP_COUNT_SIZE;
	unsigned timers = ((cap >> HPET_CAP_NUM_TIM_SHIFT) & HPET_CAP_NUM_TIM_MASK) + 1;
	rc = hpet_restart(timers);
	if (rc)
		return rc;

	uint64_t freq = (HPET_FS_PER_S + period_fs / 2) / period_fs;
	hpet_clocksource.freq_hz = freq;
	hpet_clocksource.mask = counter64 ? UINT64_MAX : UINT32_MAX;
	bool legacy = cap & HPET_CAP_LEG_RT;
	uint32_t t0 = hpet_setup_comparator0(legacy, freq);
	char mhz[FMT_FIXED_SIZE];
	kprintf("hpet: %s MHz, %u-bit counter, %u timers at 0x%08x; %s\n",
	        fmt_mhz(mhz, sizeof(mhz), freq), counter64 ? 64 : 32,
	        timers, (uint32_t)regs, !legacy ? "no legacy route, so no clock event device"
	        : (t0 & HPET_TN_PER_INT_CAP) ? "comparator 0 one-shot/periodic on IRQ0"
	        : "comparator 0 one-shot on IRQ0");
	return hpet_register(legacy);
}
