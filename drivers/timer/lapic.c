/* drivers/timer/lapic.c — the timer inside the local APIC (the APIC
 * itself is drivers/platform/lapic.c).
 *
 * Spec: Intel SDM Vol. 3A, chapter 10, numbered as in the 2011-2021
 * editions: 10.5.1 local vector table, 10.5.4 timer, 10.5.4.1 TSC-deadline
 * mode.  Two clock event devices: "lapic" (the APIC timer, one-shot or
 * periodic, counting the bus clock) and, where the CPU has it,
 * "tsc-deadline" (the same timer firing when the TSC reaches a value).
 * So far they serve the boot CPU only (docs/smp.md).
 */
#include "drivers/timer/lapic.h"
#include "drivers/platform.h"
#include "arch/smp.h"
#include "time/calibrate.h"
#include "errno.h"
#include "arch/irq.h"
#include "kprintf.h"
#include "panic.h"
#include "time/clockevent.h"
#include "time/clocksource.h"
#include "arch/trap.h"
#include "arch/x86.h"

#define LVT_TIMER_ONESHOT       (0u << 17)  /* count down once, stop at 0 */
#define LVT_TIMER_PERIODIC      (1u << 17)  /* reload the initial count at 0 */
#define LVT_TIMER_TSC_DEADLINE  (2u << 17)  /* fire when TSC >= IA32_TSC_DEADLINE */
#define LAPIC_COUNT_MAX         0xFFFFFFFFu /* the timer's counters are 32 bits */

/* Divide by 16: the timer counts the bus clock / 16, 62.5 MHz under QEMU
 * (1 GHz bus), 6-12 MHz on real 100-200 MHz buses: 16-160 ns per count,
 * far finer than a tick, while 32 bits last 68 s to 11 min, longer than
 * any tickless sleep needs.  Linux chose 16 too. */
#define LAPIC_DIVIDE_BY_16      0x3u        /* divide configuration bits 3,1,0 = 0,1,1 */
#define LAPIC_DIVIDE_BY_1       0xBu        /* divide configuration bits 3,1,0 = 1,1,1 */

#define MSR_IA32_TSC_DEADLINE   0x6E0       /* absolute TSC deadline; 0 disarms */
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

static bool timer_stopped_for_good; /* lapic_timer_stop() was called */
/* Each CPU has its own local APIC timer: its owner (below) and, on an AP,
 * its own clock event device (lapic_timer_this_ap), indexed by the CPU's
 * number and touched only by that CPU. */
struct lapic_timer_cpu {
	struct clock_event_device *owner;
	struct clock_event_device ap_dev;
};
static struct lapic_timer_cpu timer_cpus[NR_CPUS];

/* "lapic" and "tsc-deadline" share the LVT timer entry and its vector:
 * the one that programmed it last gets the interrupts, and only it may
 * stop it (the tick code may start the new device before stopping the old).
 * Each CPU has its own timer, so each its own owner. */
#define timer_owner (timer_cpus[this_cpu()->index].owner)

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

/* Twin of tsc_deadline_shutdown (below): the two modes stop different registers. */
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
/* Shaped like every clock event table: one struct, each device its own values. */
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
/* Shaped like every clock event table: one struct, each device its own values. */
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

/* The timer counts down; kernel/time/calibrate.c wants a counter that counts up. */
static uint64_t lapic_timer_elapsed(void)
{
	return LAPIC_COUNT_MAX - lapic_read(LAPIC_TIMER_CURRENT);
}

/* The divider every CPU's timer runs with: by 16, unless the bus is too
 * slow for that (lapic_timer_calibrated). */
static struct { uint32_t config; unsigned divisor; } divider = { LAPIC_DIVIDE_BY_16, 16 };

/* Let the masked timer count down from the top while we measure it: even
 * at LAPIC_TIMER_MAX_HZ it takes 4 s to reach 0, and we need 0.15 s. */
static void lapic_timer_count_freely(void)
{
	lapic_write(LAPIC_TIMER_DIVIDE, divider.config);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | LVT_TIMER_ONESHOT | VEC_LAPIC_TIMER);
	lapic_write(LAPIC_TIMER_INITIAL, LAPIC_COUNT_MAX);
}

static void lapic_timer_calibrated(struct calibration_job *job);

/* Measured in the boot's shared windows against the TSC (the best
 * reference there is once the TSC is calibrated, and the one whose later
 * refinement the timer follows); against the best reference if the TSC
 * fails. */
static struct calibration_job timer_job = {
	.name = "lapic",
	.read = lapic_timer_elapsed,
	.mask = LAPIC_COUNT_MAX,
	.against = "tsc",
	.min_hz = LAPIC_TIMER_MIN_HZ,
	.max_hz = LAPIC_TIMER_MAX_HZ,
	.want_ppm = LAPIC_TIMER_CALIBRATE_PPM,
	.done = lapic_timer_calibrated,
};

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

/* An AP's own timer, as its tick device: the same device as the boot
 * CPU's (the bus clock, so the rate, is the same for every CPU; measured
 * once, at boot, and refined with it), but not in the registry: it serves
 * this CPU's tick only.
 * NULL if the boot CPU's timer was not registered. */
struct clock_event_device *lapic_timer_this_ap(void)
{
	if (!lapic_clockevent.mult)
		return NULL;
	struct clock_event_device *dev = &timer_cpus[this_cpu()->index].ap_dev;
	if (!dev->mult) {
		/* Divide as on the boot CPU: after INIT the divider is 2
		 * (divide configuration 0, SDM 10.5.4), eight times faster
		 * than by 16. */
		lapic_write(LAPIC_TIMER_DIVIDE, divider.config);
		*dev = lapic_clockevent;
		dev->next = NULL;
		dev->event_handler = NULL;
		dev->state = CLOCK_EVT_STATE_SHUTDOWN;
		dev->events = dev->stale_events = 0;
		/* Its rate follows the boot CPU's refinements (the TSC's, a
		 * second after boot), taken on this CPU. */
		clockevents_add_cpu_device(dev);
	}
	return dev;
}

int lapic_timer_init(void)
{
	if (!lapic_present())
		return -ENODEV;         /* drivers/platform/lapic.c said why */
	if (irq_request_vector(VEC_LAPIC_TIMER, lapic_timer_irq, NULL, "lapic-timer", lapic_eoi))
		panic("lapic_timer_init: the timer vector is taken");
	lapic_timer_count_freely();
	calibrate_offer(&timer_job);    /* lapic_timer_calibrated follows */
	return 0;
}

/* QUIRK: a bus clock too slow to divide by 16.
 * Symptom: "lapic: ... timer not used: calibration against tsc failed
 * (rate outside the plausible range)", and no tsc-deadline either.
 * Emulator: Bochs 2.7, whose APIC timer counts the CPU's instructions:
 * its bus clock is the bochsrc's `ips`, 4,000,000 unless set, which is
 * 250 kHz after the divider, under LAPIC_TIMER_MIN_HZ (real buses run
 * 66 MHz and up; QEMU's 1 GHz).  Workaround: measured below the floor
 * with 16, measure again dividing by 1, alone; the floor still catches a
 * broken measurement.  Reference: SDM 10.5.4 (divide configuration
 * register); Bochs 2.7 bochsrc "cpu: ips", and its log line "IPS is set
 * to 4000000". */
static void lapic_timer_calibrated(struct calibration_job *job)
{
	struct calibration *cal = &job->cal;
	int rc = job->rc;
	if (rc == -EINVAL && cal->freq_hz && cal->freq_hz < LAPIC_TIMER_MIN_HZ) {
		divider.config = LAPIC_DIVIDE_BY_1;
		divider.divisor = 1;
		lapic_timer_count_freely();
		rc = calibrate_counter(lapic_timer_elapsed, LAPIC_COUNT_MAX, NULL,
		                       LAPIC_TIMER_MIN_HZ, LAPIC_TIMER_MAX_HZ,
		                       LAPIC_TIMER_CALIBRATE_PPM, cal);
	}
	lapic_write(LAPIC_TIMER_INITIAL, 0);
	uint32_t phys = lapic_phys();
	if (rc) {
		kprintf("lapic: at 0x%08x, timer not used: calibration against %s failed (%s)\n",
		        phys, cal->ref, cal->error);
		return;
	}
	char mhz[FMT_FIXED_SIZE];
	kprintf("lapic: at 0x%08x (version 0x%02x), timer %s MHz "
	        "(bus / %u, calibrated against %s, spread %u ppm)\n",
	        phys, lapic_version(), fmt_mhz(mhz, sizeof(mhz), cal->freq_hz),
	        divider.divisor, cal->ref, cal->spread_ppm);
	/* What calibration measured is the timer's ratio to the reference
	 * clocksource (none for PIT channel 2): if that counter's rate is
	 * measured again, the timer's rate moves with it. */
	lapic_clockevent.freq_hz = cal->freq_hz;
	lapic_clockevent.rate_source = cal->ref_cs;
	lapic_clockevent.rate_ref = cal->ref;
	rc = clockevents_register(&lapic_clockevent);
	if (rc) {
		kprintf("lapic: timer not used: the time core refused it (error %d)\n", rc);
		return;
	}
	tsc_deadline_init();
}
