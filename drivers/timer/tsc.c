/* drivers/timer/tsc.c — the time stamp counter: a 64-bit register that counts up
 * once per CPU clock (on older CPUs) or at a fixed rate (on newer ones),
 * read with one instruction.
 *
 * Spec: Intel SDM Vol. 3B, chapter 17, "Time-Stamp Counter" and its
 * subsection "Invariant TSC" (numbered 17.13 to 17.17 depending on the
 * edition); Vol. 2B, RDTSC; CPUID.1:EDX[4] (TSC present) and
 * CPUID.80000007H:EDX[8] (invariant TSC).  Present since the Pentium; a 486
 * has none.
 *
 * What lull uses it for: the clocksource "tsc", the cheapest to read by far
 * (~20 cycles, where a port or MMIO read of the PM timer or HPET costs
 * ~1 us), and the rate the TSC-deadline timer counts at (drivers/timer/lapic.c
 * finds it in the clocksource registry; neither driver calls the other).
 * Its rate is not written anywhere we can read, so we measure it
 * (kernel/time/calibrate.c).  Not used: RDTSCP, the TSC_ADJUST MSR, CPUID leaf
 * 0x15 (the rate, on CPUs far newer than lull's floor).
 */
#include "drivers/timer/tsc.h"
#include "time/calibrate.h"
#include "errno.h"
#include "kprintf.h"
#include "time/clocksource.h"
#include "time/jiffies.h"
#include "time/timer.h"
#include "arch/x86.h"

/* The plausible range: no x86 CPU has run slower than 1 MHz or faster
 * than 20 GHz.  A result outside it means the measurement went wrong. */
#define TSC_MIN_HZ  1000000ULL
#define TSC_MAX_HZ  20000000000ULL

/* The boot calibration takes a few ms (kernel/time/calibrate.c); one second
 * later we measure again over the whole second, as Linux does ("Refined TSC
 * clocksource calibration").  One second: 500 times the boot window, so
 * ~1 ppm of the reference, and short enough that the 24-bit PM timer
 * (4.7 s per wrap) can still be the reference. */
#define TSC_REFINE_AFTER_S      1
/* Good enough until then: 100 ppm is 100 us in that first second. */
#define TSC_BOOT_CALIBRATE_PPM  100

/* Ratings (scale in include/time/clocksource.h).
 * Invariant, 300: fast and precise, "desired".  Its rate is fixed by the
 *   hardware whatever the power state ("Invariant TSC").
 * Not invariant, 280: the top of "good".  Its rate follows the core clock,
 *   so a P-state change (firmware-driven SpeedStep on a laptop) would make
 *   time run fast or slow, and on some old CPUs it stops in idle (QUIRK
 *   below).  lull never changes P-states and idles only with hlt, so it is
 *   still right here, and still worth more than the HPET or the PM timer:
 *   reading it costs 50 times less. */
#define TSC_RATING_INVARIANT    300
#define TSC_RATING_VARIANT      280

static uint64_t tsc_read(struct clocksource *cs)
{
	UNUSED(cs);
	return rdtsc();
}

/* The same, in the form kernel/time/calibrate.c reads counters. */
static uint64_t tsc_read_for_calibration(void)
{
	return rdtsc();
}

/* QUIRK: the TSC stops or slows down while the CPU is idle.
 * Symptom: time falls behind while the machine is idle, and more the longer
 * it sleeps.  Hardware: Intel CPUs before Nehalem stop the TSC in C3 and
 * deeper; AMD K8 (Athlon 64, Turion) slows it in C1E, which the firmware
 * enters on a plain hlt.  A TSC that is invariant (CPUID.80000007H:EDX[8])
 * runs on in every C-state.  Workaround: lull idles only with hlt (C1),
 * where Intel CPUs keep counting, and we still mark the TSC CONTINUOUS —
 * under QEMU TCG it is the host's TSC and counts while the guest halts.
 * On a K8 with C1E, boot with clocksource=hpet or acpi_pm.  Reference:
 * SDM Vol. 3B, "Invariant TSC"; Linux arch/x86/kernel/tsc.c ("TSC halts in idle")
 * and process.c (AMD C1E). */
static struct clocksource tsc_clocksource = {
	.name = "tsc",
	.rating = TSC_RATING_INVARIANT,     /* lowered at init if not invariant */
	.read = tsc_read,
	.mask = UINT64_MAX,                 /* 64 bits: wraps after a century */
	.flags = CLOCK_SOURCE_CONTINUOUS,
};

static void tsc_calibrated(struct calibration_job *job);

/* The boot calibration; its result (cal) is kept for the refinement. */
static struct calibration_job boot_job = {
	.name = "tsc",
	.read = tsc_read_for_calibration,
	.mask = UINT64_MAX,
	.self = &tsc_clocksource,
	.min_hz = TSC_MIN_HZ,
	.max_hz = TSC_MAX_HZ,
	.want_ppm = TSC_BOOT_CALIBRATE_PPM,
	.done = tsc_calibrated,
};
static struct timer refine_timer;
static char about[CLOCKSOURCE_ABOUT_MAX];  /* for the `clocksource` listing */

int tsc_init(void)
{
	if (!cpu.has_cpuid || !(cpu.feat_edx & CPUID_1_EDX_TSC)) {
		kprintf("tsc: none (CPU has no time stamp counter)\n");
		return -ENODEV;
	}
	/* Measured in the boot's shared windows; tsc_calibrated follows. */
	calibrate_offer(&boot_job);
	return 0;
}

static void tsc_calibrated(struct calibration_job *job)
{
	struct calibration *cal = &job->cal;
	bool invariant = cpu.ext_feat_edx & CPUID_8000_0007_EDX_INVARIANT_TSC;
	if (job->rc) {
		kprintf("tsc: not used: calibration against %s failed (%s, %llu Hz)\n",
		        cal->ref, cal->error, (unsigned long long)cal->freq_hz);
		return;
	}
	char mhz[FMT_FIXED_SIZE];
	kprintf("tsc: %s MHz (calibrated against %s, %u x %u ms, spread %u ppm), %s\n",
	        fmt_mhz(mhz, sizeof(mhz), cal->freq_hz), cal->ref, CALIBRATE_RUNS,
	        cal->window_us / 1000, cal->spread_ppm, invariant ? "invariant" : "not invariant");
	ksnprintf(about, sizeof(about), "calibrated at boot against %s in %u ms (spread %u ppm)",
	          cal->ref, cal->spent_us / 1000, cal->spread_ppm);
	tsc_clocksource.about = about;
	tsc_clocksource.freq_hz = cal->freq_hz;
	tsc_clocksource.rate_ref = cal->ref;
	tsc_clocksource.rate_spread_ppm = cal->spread_ppm;
	tsc_clocksource.rating = invariant ? TSC_RATING_INVARIANT : TSC_RATING_VARIANT;
	int rc = clocksource_register(&tsc_clocksource);
	if (rc)
		kprintf("tsc: not used: the time core refused it (error %d)\n", rc);
}

/* A second after boot: the whole second as one calibration window.  No
 * message on the console (it would land in the middle of whatever the
 * user is typing); `clocksource` shows the outcome. */
static void tsc_refine(struct timer *t)
{
	UNUSED(t);
	struct refinement r;
	int rc = calibrate_refine(tsc_read_for_calibration, tsc_clocksource.mask, &boot_job.cal, &r);
	/* The core moves the clock event devices that count TSC cycles or were
	 * calibrated against it (their rate_source) along with it. */
	if (rc == 0 && clocksource_change_rate(&tsc_clocksource, r.freq_hz) == 0) {
		ksnprintf(about, sizeof(about), "refined against %s over %llu ms: %+d ppm from boot's",
		          boot_job.cal.ref, (unsigned long long)(r.span_ns / NSEC_PER_MSEC), r.change_ppm);
	} else if (rc == -EINVAL) {
		/* Moved more than 1%: not seen on any machine tried; a TSC that
		 * changed speed (a P-state change) would land here. */
		char mhz[FMT_FIXED_SIZE];
		ksnprintf(about, sizeof(about), "boot calibration kept: refinement against %s "
		          "measured %s MHz (%+d ppm)", boot_job.cal.ref,
		          fmt_mhz(mhz, sizeof(mhz), r.freq_hz), r.change_ppm);
	} else {
		ksnprintf(about, sizeof(about), "boot calibration kept: refinement against %s "
		          "impossible (error %d)", boot_job.cal.ref, rc);
	}
}

void tsc_refine_later(void)
{
	if (tsc_clocksource.freq_hz == 0 || boot_job.cal.ref_cs == NULL)
		return;     /* no TSC, or calibrated against the PIT */
	timer_init(&refine_timer, tsc_refine, "tsc-refine");
	timer_add(&refine_timer, jiffies + TSC_REFINE_AFTER_S * tick_hz);
}
