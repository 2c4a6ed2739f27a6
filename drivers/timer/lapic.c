/* drivers/timer/lapic.c — the local APIC: the CPU's own interrupt controller,
 * and the timer inside it.
 *
 * Spec: Intel SDM Vol. 3A, chapter 10 "Advanced Programmable Interrupt
 * Controller (APIC)", numbered as in the 2011-2021 editions (chapter 11 in
 * later ones): 10.4.3-10.4.4 enabling and finding it, Table 10-1 registers,
 * 10.5.1 local vector table, 10.5.4 timer, 10.5.4.1 TSC-deadline mode,
 * 10.8.5 EOI, 10.9 spurious interrupts; virtual wire mode: Intel
 * MultiProcessor Specification 1.4, 3.6.2.2.  lull runs on one CPU and
 * keeps the 8259 PIC, so the APIC stays in virtual wire mode: LINT0 passes
 * the PIC's INTR through (ExtINT), LINT1 carries NMI, and legacy IRQs reach
 * the CPU as before, acknowledged at the PIC alone.  We add the clock event
 * devices "lapic" (the APIC timer, one-shot or periodic) and, where the CPU
 * has it, "tsc-deadline" (the same timer firing when the TSC reaches a
 * value).  Not used: IPIs, the I/O APIC, x2APIC, the error, thermal and
 * performance LVT entries (left masked).
 */
#include "drivers/timer/lapic.h"
#include "time/calibrate.h"
#include "drivers/acpi.h"
#include "errno.h"
#include "arch/irq.h"
#include "kprintf.h"
#include "arch/paging.h"
#include "panic.h"
#include "time/clockevent.h"
#include "time/clocksource.h"
#include "arch/trap.h"
#include "arch/x86.h"

#define LAPIC_DEFAULT_BASE  0xFEE00000u     /* where every APIC starts (10.4.1) */

/* Registers: offsets from the base, 32 bits each (Table 10-1). */
enum {
	LAPIC_ID            = 0x020,    /* this APIC's ID in bits 24-31 */
	LAPIC_VERSION       = 0x030,    /* version in bits 0-7 */
	LAPIC_TPR           = 0x080,    /* task priority */
	LAPIC_EOI           = 0x0B0,    /* end of interrupt: write 0 */
	LAPIC_SVR           = 0x0F0,    /* spurious vector, software enable */
	LAPIC_ICR_LO        = 0x300,    /* interrupt command: writing it sends */
	LAPIC_ICR_HI        = 0x310,    /* ... the destination, bits 24-31 */
	LAPIC_LVT_TIMER     = 0x320,    /* local vector table: the timer */
	LAPIC_LVT_LINT0     = 0x350,    /* ... pin LINT0 (the PIC's INTR) */
	LAPIC_LVT_LINT1     = 0x360,    /* ... pin LINT1 (NMI) */
	LAPIC_LVT_ERROR     = 0x370,    /* ... APIC internal errors */
	LAPIC_TIMER_INITIAL = 0x380,    /* initial count: writing it starts the timer */
	LAPIC_TIMER_CURRENT = 0x390,    /* current count, counting down (read only) */
	LAPIC_TIMER_DIVIDE  = 0x3E0,    /* divide configuration */
};

#define LAPIC_VERSION_FIELD     0xFFu       /* bits 0-7 of LAPIC_VERSION */
#define LAPIC_VERSION_KIND      0xF0u       /* its high nibble ... */
#define LAPIC_VERSION_INTEGRATED 0x10u      /* ... is 1 for an APIC inside the CPU */
#define LAPIC_SVR_ENABLE        (1u << 8)   /* APIC software enable */
#define LVT_DELIVERY_NMI        (4u << 8)   /* deliver as NMI */
#define LVT_DELIVERY_EXTINT     (7u << 8)   /* take the vector from the 8259 */
#define LVT_MASKED              (1u << 16)  /* no interrupts from this entry */
#define LVT_TIMER_ONESHOT       (0u << 17)  /* count down once, stop at 0 */
#define LVT_TIMER_PERIODIC      (1u << 17)  /* reload the initial count at 0 */
#define LVT_TIMER_TSC_DEADLINE  (2u << 17)  /* fire when TSC >= IA32_TSC_DEADLINE */
#define LAPIC_COUNT_MAX         0xFFFFFFFFu /* the timer's counters are 32 bits */

/* Divide by 16: the timer counts the bus clock / 16, 62.5 MHz under QEMU
 * (1 GHz bus), 6-12 MHz on real 100-200 MHz buses: 16-160 ns per count,
 * far finer than a tick, while 32 bits last 68 s to 11 min, longer than
 * any tickless sleep needs.  Linux chose 16 too. */
#define LAPIC_DIVIDE_BY_16      0x3u        /* divide configuration bits 3,1,0 = 0,1,1 */
#define LAPIC_TIMER_DIVISOR     16          /* ... the same, as a number */

#define MSR_IA32_APIC_BASE      0x1B        /* P6 and later: the APIC's address */
#define APIC_BASE_ADDRESS       0xFFFFF000u /* its bits 12-31 (32-35 are 0 here) */
#define MSR_IA32_TSC_DEADLINE   0x6E0       /* absolute TSC deadline; 0 disarms */
#define CPU_FAMILY_P6           6           /* first family with IA32_APIC_BASE */

#define LAPIC_TIMER_MIN_HZ      1000000ULL      /* plausible rates after the divider: */
#define LAPIC_TIMER_MAX_HZ      1000000000ULL   /* outside, the measurement went wrong */
/* 100 ppm: a timer 1 s ahead fires within 100 us of its time; earlier is
 * caught by the clockevents core, and one calibrated against the TSC follows
 * the TSC's later refinement (rate_source). */
#define LAPIC_TIMER_CALIBRATE_PPM   100

/* Smallest count, 16 (0.26 us under QEMU, ~2.5 us at a 100 MHz bus): the
 * timer cannot miss (writing the initial count starts a full countdown),
 * but a shorter count would interrupt before the tick code has returned. */
#define LAPIC_TIMER_MIN_DELTA   16

/* TSC-deadline: 1000 TSC cycles (under 1 us on any CPU with the mode) is
 * about what the interrupt costs.  The deadline is a 64-bit absolute value;
 * a delta below 2^62 cannot make rdtsc() + delta wrap for decades. */
#define TSC_DEADLINE_MIN_DELTA  1000
#define TSC_DEADLINE_MAX_DELTA  (1ULL << 62)

static uintptr_t lapic_regs;        /* mapped registers, 0 if no APIC */
static bool timer_stopped_for_good; /* lapic_timer_stop() was called */
/* "lapic" and "tsc-deadline" share the LVT timer entry and its vector:
 * the one that programmed it last gets the interrupts, and only it may
 * stop it (the tick code may start the new device before stopping the old). */
static struct clock_event_device *timer_owner;

static uint32_t lapic_read(unsigned reg) { return mmio_read32(lapic_regs + reg); }
static void lapic_write(unsigned reg, uint32_t v) { mmio_write32(lapic_regs + reg, v); }

/* 10.8.5: tell the APIC the interrupt it delivered is handled.  Only for
 * vectors the APIC delivers itself: ExtINT ones are the PIC's business. */
static void lapic_eoi(void)
{
	if (lapic_regs)
		lapic_write(LAPIC_EOI, 0);
}

/* 10.9: a spurious-vector interrupt is not in service, so it must not get
 * an EOI (we register it with none).  irq_dispatch has already counted it
 * for `irqs`; there is nothing else to do. */
static void lapic_spurious_irq(void *ctx)
{
	UNUSED(ctx);
}

static void lapic_timer_irq(void *ctx)
{
	UNUSED(ctx);
	struct clock_event_device *dev = timer_owner;
	if (dev && dev->event_handler)
		clockevents_handle_event(dev);
}

/* --- "lapic": the timer counting the bus clock --- */

/* 10.5.4: the LVT entry picks the mode; writing the initial count starts
 * the countdown, and writing 0 stops it. */
static void timer_program(struct clock_event_device *dev, uint32_t lvt_mode, uint32_t count)
{
	timer_owner = dev;
	lapic_write(LAPIC_LVT_TIMER, lvt_mode | VEC_LAPIC_TIMER);
	lapic_write(LAPIC_TIMER_INITIAL, count);
}

static int lapic_timer_set_periodic(struct clock_event_device *dev, unsigned hz)
{
	if (timer_stopped_for_good)
		return -ENODEV;
	uint64_t count = clockevent_periodic_count(dev->freq_hz, hz);
	if (count < LAPIC_TIMER_MIN_DELTA || count > LAPIC_COUNT_MAX)
		return -EINVAL;
	timer_program(dev, LVT_TIMER_PERIODIC, (uint32_t)count);
	return 0;
}

static int lapic_timer_set_oneshot(struct clock_event_device *dev)
{
	if (timer_stopped_for_good)
		return -ENODEV;
	timer_program(dev, LVT_TIMER_ONESHOT, 0);   /* armed by set_next_event */
	return 0;
}

static int lapic_timer_set_next_event(struct clock_event_device *dev, uint64_t ticks)
{
	if (timer_owner != dev)
		return -EINVAL;
	lapic_write(LAPIC_TIMER_INITIAL, (uint32_t)ticks);
	return 0;
}

static int lapic_timer_shutdown(struct clock_event_device *dev)
{
	if (timer_owner == dev) {
		lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VEC_LAPIC_TIMER);
		lapic_write(LAPIC_TIMER_INITIAL, 0);
		timer_owner = NULL;
	}
	return 0;
}

/* Rating 260: above the HPET comparator's 200, so it drives the tick on
 * -machine pc.  Programming it is one register write inside the CPU, with
 * no PIC or shared IRQ line, and it reaches 68 s or more.  Below
 * "tsc-deadline", which needs no conversion to bus counts.
 *
 * QUIRK: the APIC timer stops in deep C-states.
 * Symptom: the next tick never comes while the CPU idles; the machine sleeps
 * until some other interrupt.  Hardware: Intel CPUs from before about
 * 2010, and many AMD ones, stop the timer in C3 and deeper; those with ARAT
 * ("always running APIC timer", CPUID.06H:EAX[2]) do not.  Workaround: lull
 * idles only with hlt (C1), where the timer runs; a kernel that uses deeper
 * C-states needs ARAT or a broadcast timer (HPET, PIT) for those.
 * Reference: SDM 10.5.4; Linux arch/x86/kernel/apic/apic.c
 * (CLOCK_EVT_FEAT_C3STOP). */
static struct clock_event_device lapic_clockevent = {
	.name = "lapic",
	.rating = 260,
	.features = CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT,
	.min_delta_ticks = LAPIC_TIMER_MIN_DELTA,
	.max_delta_ticks = LAPIC_COUNT_MAX,
	.irq = -1,                  /* a vector of its own, not a PIC line */
	.set_periodic = lapic_timer_set_periodic,
	.set_oneshot = lapic_timer_set_oneshot,
	.set_next_event = lapic_timer_set_next_event,
	.shutdown = lapic_timer_shutdown,
};

/* --- "tsc-deadline": the same timer, comparing against the TSC --- */

/* 10.5.4.1: "in xAPIC mode ... software must serialize between the
 * memory-mapped write to the LVT entry and the WRMSR to IA32_TSC_DEADLINE",
 * or the WRMSR may arrive before deadline mode and be ignored.  MFENCE
 * does that: a 486 has none, but every CPU with TSC-deadline mode has SSE2.
 * (CPUID also serializes, but is a VM exit under virtualization.)
 * Untested: QEMU TCG does not offer the mode. */
static int tsc_deadline_set_oneshot(struct clock_event_device *dev)
{
	if (timer_stopped_for_good)
		return -ENODEV;
	timer_owner = dev;
	lapic_write(LAPIC_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | VEC_LAPIC_TIMER);
	__asm__ __volatile__("mfence" ::: "memory");
	return 0;
}

/* A deadline already passed fires at once: never -ETIME. */
static int tsc_deadline_set_next_event(struct clock_event_device *dev, uint64_t ticks)
{
	if (timer_owner != dev)
		return -EINVAL;
	wrmsr(MSR_IA32_TSC_DEADLINE, rdtsc() + ticks);
	return 0;
}

static int tsc_deadline_shutdown(struct clock_event_device *dev)
{
	if (timer_owner == dev) {
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
		lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VEC_LAPIC_TIMER);
		timer_owner = NULL;
	}
	return 0;
}

/* Rating 270: above "lapic".  The deadline is absolute, in TSC counts, so
 * nothing is lost converting to bus counts or to a relative delay, and
 * there is no divider to pick. */
static struct clock_event_device tsc_deadline_clockevent = {
	.name = "tsc-deadline",
	.rating = 270,
	.features = CLOCK_EVT_FEAT_ONESHOT,
	.min_delta_ticks = TSC_DEADLINE_MIN_DELTA,
	.max_delta_ticks = TSC_DEADLINE_MAX_DELTA,
	.irq = -1,
	.set_oneshot = tsc_deadline_set_oneshot,
	.set_next_event = tsc_deadline_set_next_event,
	.shutdown = tsc_deadline_shutdown,
};

/* --- limits, stop, init --- */

/* Whoever owns the timer stops it; with no owner it is stopped already. */
void lapic_timer_stop(void)
{
	if (timer_owner)
		timer_owner->shutdown(timer_owner);
	timer_stopped_for_good = true;
}

/* 10.4.4: IA32_APIC_BASE holds the address on P6 and later (its enable
 * bit is set, or CPUID would not report an APIC: 10.4.3); a Pentium has no
 * such MSR, so we take the MADT's word, or the reset default. */
static uint32_t lapic_phys_base(void)
{
	if (cpu.family >= CPU_FAMILY_P6 && (cpu.feat_edx & CPUID_1_EDX_MSR))
		return (uint32_t)rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_ADDRESS;
	if (acpi.has_madt && acpi.lapic_base)
		return acpi.lapic_base;
	return LAPIC_DEFAULT_BASE;
}

/* Software-enable first: while the APIC is software-disabled every LVT
 * entry stays masked whatever we write (10.4.7.2). */
static void lapic_setup_virtual_wire(void)
{
	lapic_write(LAPIC_SVR, LAPIC_SVR_ENABLE | VEC_LAPIC_SPURIOUS);
	lapic_write(LAPIC_TPR, 0);                              /* accept all priorities */
	lapic_write(LAPIC_LVT_LINT0, LVT_DELIVERY_EXTINT);      /* unmasked: the PIC's INTR */
	lapic_write(LAPIC_LVT_LINT1, LVT_DELIVERY_NMI);         /* unmasked: NMI */
	lapic_write(LAPIC_LVT_ERROR, LVT_MASKED | VEC_LAPIC_ERROR);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VEC_LAPIC_TIMER);
}

/* --- IDs and inter-processor interrupts (10.6), for kernel/arch/smp.c --- */

#define LAPIC_ID_SHIFT          24
#define ICR_DELIVERY_INIT       (5u << 8)   /* 10.6.1: delivery mode INIT */
#define ICR_DELIVERY_STARTUP    (6u << 8)   /* ... start-up: vector = page */
#define ICR_SEND_PENDING        (1u << 12)  /* delivery status: not yet taken */
#define ICR_LEVEL_ASSERT        (1u << 14)
#define ICR_DEST_SHIFT          24          /* physical destination: an APIC ID */
/* The APIC takes an IPI within a few bus cycles; 100,000 reads (over 10 ms
 * even under emulation) only run out on a broken one. */
#define ICR_SEND_POLLS          100000

bool lapic_present(void)
{
	return lapic_regs != 0;
}

unsigned lapic_id(void)
{
	return lapic_read(LAPIC_ID) >> LAPIC_ID_SHIFT;
}

static int lapic_send(unsigned apic_id, uint32_t command)
{
	lapic_write(LAPIC_ICR_HI, apic_id << ICR_DEST_SHIFT);
	lapic_write(LAPIC_ICR_LO, command);         /* this write sends it */
	for (unsigned i = 0; i < ICR_SEND_POLLS; i++)
		if (!(lapic_read(LAPIC_ICR_LO) & ICR_SEND_PENDING))
			return 0;
	return -ETIME;
}

#define ICR_DELIVERY_FIXED      (0u << 8)   /* the vector, to the one APIC named */

int lapic_send_ipi(unsigned apic_id, unsigned vector)
{
	return lapic_send(apic_id, ICR_DELIVERY_FIXED | ICR_LEVEL_ASSERT | vector);
}

/* An IPI is delivered by the APIC: it needs its EOI like any APIC vector. */
void lapic_eoi_for_ipi(void)
{
	lapic_eoi();
}

int lapic_send_init(unsigned apic_id)
{
	return lapic_send(apic_id, ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT);
}

int lapic_send_startup(unsigned apic_id, uint32_t page_phys)
{
	return lapic_send(apic_id, ICR_DELIVERY_STARTUP | (page_phys >> PAGE_SHIFT));
}

/* An AP's own APIC, after INIT: software-enable it with the spurious
 * vector; its LINT pins stay masked (the PIC's interrupts and NMI go to
 * the boot CPU only) and so does its timer, until it has a tick. */
void lapic_ap_setup(void)
{
	lapic_write(LAPIC_SVR, LAPIC_SVR_ENABLE | VEC_LAPIC_SPURIOUS);
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_LVT_LINT0, LVT_MASKED);
	lapic_write(LAPIC_LVT_LINT1, LVT_MASKED);
	lapic_write(LAPIC_LVT_ERROR, LVT_MASKED | VEC_LAPIC_ERROR);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VEC_LAPIC_TIMER);
}

/* The timer counts down; kernel/time/calibrate.c wants a counter that counts up. */
static uint64_t lapic_timer_elapsed(void)
{
	return LAPIC_COUNT_MAX - lapic_read(LAPIC_TIMER_CURRENT);
}

/* Let the masked timer count down from the top while we measure it: even
 * at LAPIC_TIMER_MAX_HZ it takes 4 s to reach 0, and we need 0.15 s. */
static int lapic_timer_calibrate(struct calibration *cal)
{
	lapic_write(LAPIC_TIMER_DIVIDE, LAPIC_DIVIDE_BY_16);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | LVT_TIMER_ONESHOT | VEC_LAPIC_TIMER);
	lapic_write(LAPIC_TIMER_INITIAL, LAPIC_COUNT_MAX);
	int rc = calibrate_counter(lapic_timer_elapsed, LAPIC_COUNT_MAX, NULL,
	                           LAPIC_TIMER_MIN_HZ, LAPIC_TIMER_MAX_HZ,
	                           LAPIC_TIMER_CALIBRATE_PPM, cal);
	lapic_write(LAPIC_TIMER_INITIAL, 0);
	return rc;
}

/* TSC-deadline counts TSC cycles: it takes the rate of the registered "tsc"
 * clocksource (absent if the TSC could not be calibrated), and follows it
 * when that rate is refined (rate_source). */
static void tsc_deadline_init(void)
{
	if (!(cpu.feat_ecx & CPUID_1_ECX_TSC_DEADLINE)) {
		kprintf("lapic: no TSC-deadline mode (CPUID.1:ECX[24] clear)\n");
		return;
	}
	struct clocksource *tsc = clocksource_lookup("tsc");
	if (!tsc) {
		kprintf("lapic: TSC-deadline mode not used (the TSC was not calibrated)\n");
		return;
	}
	tsc_deadline_clockevent.freq_hz = tsc->freq_hz;
	tsc_deadline_clockevent.rate_source = tsc;
	tsc_deadline_clockevent.rate_ref = tsc->name;
	int rc = clockevents_register(&tsc_deadline_clockevent);
	if (rc)
		kprintf("lapic: TSC-deadline mode not used: the time core refused it (error %d)\n", rc);
}

int lapic_init(void)
{
	if (!cpu.has_cpuid || !(cpu.feat_edx & CPUID_1_EDX_APIC)) {
		kprintf("lapic: none (CPUID reports no local APIC)\n");
		return -ENODEV;
	}
	uint32_t phys = lapic_phys_base();
	void *regs = paging_map_mmio(phys, PAGE_SIZE);
	if (!regs) {
		kprintf("lapic: not used: cannot map its registers at 0x%08x\n", phys);
		return -ENODEV;
	}
	lapic_regs = (uintptr_t)regs;
	uint32_t version = lapic_read(LAPIC_VERSION) & LAPIC_VERSION_FIELD;
	if ((version & LAPIC_VERSION_KIND) != LAPIC_VERSION_INTEGRATED) {
		kprintf("lapic: none at 0x%08x (version register reads 0x%02x)\n", phys, version);
		lapic_regs = 0;
		return -ENODEV;
	}

	lapic_setup_virtual_wire();
	if (irq_request_vector(VEC_LAPIC_SPURIOUS, lapic_spurious_irq, NULL, "spurious", NULL) ||
	    irq_request_vector(VEC_LAPIC_TIMER, lapic_timer_irq, NULL, "lapic-timer", lapic_eoi))
		panic("lapic_init: APIC vectors already taken");

	struct calibration cal;
	int rc = lapic_timer_calibrate(&cal);
	if (rc) {
		kprintf("lapic: at 0x%08x, timer not used: calibration against %s failed (%s)\n",
		        phys, cal.ref, cal.error);
		return rc;
	}
	char mhz[FMT_FIXED_SIZE];
	kprintf("lapic: at 0x%08x (version 0x%02x), timer %s MHz "
	        "(bus / %u, calibrated against %s, spread %u ppm)\n",
	        phys, version, fmt_mhz(mhz, sizeof(mhz), cal.freq_hz),
	        LAPIC_TIMER_DIVISOR, cal.ref, cal.spread_ppm);
	/* What calibration measured is the timer's ratio to the reference
	 * clocksource (none for PIT channel 2): if that counter's rate is
	 * measured again, the timer's rate moves with it. */
	lapic_clockevent.freq_hz = cal.freq_hz;
	lapic_clockevent.rate_source = cal.ref_cs;
	lapic_clockevent.rate_ref = cal.ref;
	rc = clockevents_register(&lapic_clockevent);
	if (rc) {
		kprintf("lapic: timer not used: the time core refused it (error %d)\n", rc);
		return rc;
	}
	tsc_deadline_init();
	return 0;
}
