/* drivers/timer/acpi_pm.c — the ACPI power-management timer as clocksource
 * "acpi_pm": a free-running up-counter in the chipset, read from one I/O
 * port.
 *
 * Spec: ACPI 6.5, 4.8.3.3 (Power Management Timer): it counts at 3.579545
 * MHz (the NTSC colour-burst crystal, 3 times the PIT's 1.193182 MHz),
 * keeps counting while the CPU halts, and is 24 bits wide, or 32 when the
 * FADT sets TMR_VAL_EXT.  It cannot interrupt usefully (only an overflow
 * event through the SCI), so it is a clocksource only.
 * drivers/platform/acpi_decode.c finds its port in the FADT.
 *
 * Before registering we check that it counts, that it never runs
 * backwards, and that its rate agrees with another clock (measured by
 * kernel/time/calibrate.c).  A 24-bit timer
 * wraps every 4.7 s; the time core reads it often enough (max_idle_ns).
 */
#include "drivers/timer/acpi_pm.h"
#include "time/calibrate.h"
#include "drivers/acpi.h"
#include "errno.h"
#include "kprintf.h"
#include "time/clocksource.h"
#include "arch/x86.h"

#define ACPI_PM_FREQ_HZ         3579545     /* ACPI 6.5, 4.8.3.3 */
#define ACPI_PM_MASK_24         0xFFFFFFu   /* the usual width */
#define ACPI_PM_MASK_32         0xFFFFFFFFu /* with the FADT's TMR_VAL_EXT */
#define ACPI_PM_CHECK_READS     2000        /* reads in the monotonic check */
#define ACPI_PM_TOLERANCE_DIV   100         /* off by more than 1/100: not usable */
#define ACPI_PM_CHECK_PPM       1000        /* the check's precision: 0.1% decides 1% */
#define PPM_PER_BASIS_POINT     100         /* 0.01%, the verdict's last digit */

static uint16_t port;
static uint32_t mask;

/* QUIRK: PIIX4 PM timer reads taken while the counter increments.
 * Symptom: now and then a read returns garbage, bits of the old and the
 * new value mixed; timekeeping sees the counter jump back and then counts
 * a whole wrap, a leap of 4.7 s.  Hardware: Intel PIIX4 and PIIX4E south
 * bridges (82371AB/EB): "there is a 3 ns window every 69.8 ns where the
 * timer value is indeterminate (a 4.2% chance that the data will be
 * incorrect when read)"; fixed in the PIIX4M.  QEMU's -machine pc
 * emulates this very chip, without the bug.  Workaround: read three times
 * and return the middle value only if it lies between the other two
 * (counting modulo the wrap), else read again.  A torn middle value lands
 * outside its neighbours' window; a torn first or last one at worst
 * costs a retry.  We apply it always: lull has no PCI scan to recognise the chip,
 * and it costs two extra port reads (~2 us), paid only when acpi_pm is the
 * clocksource in use, i.e. on machines with nothing better.  Reference:
 * Intel 82371AB PIIX4 Specification Update, erratum 20 "ACPI Timer
 * Errata"; FreeBSD sys/i386/i386/mp_clock.c. */
static struct clocksource acpi_pm_clocksource;

static uint64_t acpi_pm_read_raw(struct clocksource *cs)
{
	UNUSED(cs);
	return inl(port) & mask;
}

/* Through the clocksource's read_raw op, which a fault may wrap. */
static uint64_t acpi_pm_counter(void)
{
	struct clocksource *cs = &acpi_pm_clocksource;
	uint32_t a, b, c;
	do {
		a = (uint32_t)cs->read_raw(cs) & mask;
		b = (uint32_t)cs->read_raw(cs) & mask;
		c = (uint32_t)cs->read_raw(cs) & mask;
	} while (((b - a) & mask) > ((c - a) & mask));
	return b;
}

static uint64_t acpi_pm_read(struct clocksource *cs)
{
	UNUSED(cs);
	return acpi_pm_counter();
}

/* Rating 200: correct and counts in halt, but each read is a slow port
 * access (three of them, see the QUIRK above). */
/* Shaped like every clocksource table: one struct, each device its own values. */
static struct clocksource acpi_pm_clocksource = {
	.name = "acpi_pm",
	.rating = 200,
	.read = acpi_pm_read,
	.read_raw = acpi_pm_read_raw,
	.freq_hz = ACPI_PM_FREQ_HZ,
	.flags = CLOCK_SOURCE_CONTINUOUS,
};

/* Many reads in a row: the counter must move, and never backwards (a step
 * of more than half the range is a step back).  0 or -EINVAL. */
static int acpi_pm_check_monotonic(void)
{
	uint32_t first = (uint32_t)acpi_pm_counter(), prev = first;
	for (unsigned i = 0; i < ACPI_PM_CHECK_READS; i++) {
		uint32_t now = (uint32_t)acpi_pm_counter();
		if (((now - prev) & mask) > mask / 2) {
			kprintf("acpi_pm: counter went backwards (0x%x -> 0x%x); not used\n", prev, now);
			return -EINVAL;
		}
		prev = now;
	}
	if (prev == first) {
		kprintf("acpi_pm: counter at port 0x%x does not advance; not used\n", port);
		return -EINVAL;
	}
	return 0;
}

static void acpi_pm_checked(struct calibration_job *job);

/* The rate check: the nominal rate within the tolerance, mask set at init. */
static struct calibration_job rate_check = {
	.name = "acpi_pm",
	.read = acpi_pm_counter,
	.self = &acpi_pm_clocksource,
	.min_hz = ACPI_PM_FREQ_HZ - ACPI_PM_FREQ_HZ / ACPI_PM_TOLERANCE_DIV,
	.max_hz = ACPI_PM_FREQ_HZ + ACPI_PM_FREQ_HZ / ACPI_PM_TOLERANCE_DIV,
	.want_ppm = ACPI_PM_CHECK_PPM,
	.done = acpi_pm_checked,
};

int acpi_pm_init(void)
{
	if (!acpi.pm_timer_port) {
		kprintf("acpi_pm: none (%s)\n", acpi.has_fadt ? "the FADT lists no PM timer" : "no ACPI FADT");
		return -ENODEV;
	}
	port = acpi.pm_timer_port;
	mask = acpi.pm_timer_32bit ? ACPI_PM_MASK_32 : ACPI_PM_MASK_24;
	acpi_pm_clocksource.mask = mask;
	rate_check.mask = mask;
	int rc = acpi_pm_check_monotonic();
	if (rc)
		return rc;
	/* The rate, against the HPET if it registered (it initialises first),
	 * else PIT channel 2 (kernel/time/calibrate.c picks the best
	 * reference), in the same windows as the TSC and the LAPIC timer. */
	calibrate_offer(&rate_check);
	return 0;
}

/* The rate check is in: say what it found and register the timer. */
static void acpi_pm_checked(struct calibration_job *job)
{
	struct calibration *cal = &job->cal;
	int rc = job->rc;
	char verdict[80], pct[FMT_FIXED_SIZE], mhz[FMT_FIXED_SIZE];
	if (rc == -ETIME || rc == -ENODEV) {
		ksnprintf(verdict, sizeof(verdict), "rate not checked (no reference)");
		rc = 0;
	} else if (cal->freq_hz == 0) {
		ksnprintf(verdict, sizeof(verdict), "rate check against %s failed: %s", cal->ref, cal->error);
	} else {
		int64_t ppm = ppm_diff(cal->freq_hz, ACPI_PM_FREQ_HZ);
		uint64_t mag = (uint64_t)(ppm < 0 ? -ppm : ppm) / PPM_PER_BASIS_POINT;
		ksnprintf(verdict, sizeof(verdict), "checked against %s: %c%s%%%s%s", cal->ref,
		          mag == 0 ? '+' : ppm < 0 ? '-' : '+', fmt_fixed(pct, sizeof(pct), mag, 2),
		          rc ? "; " : "", rc ? cal->error : "");
	}
	if (rc)
		acpi_pm_clocksource.flags |= CLOCK_SOURCE_UNSTABLE;
	kprintf("acpi_pm: %u-bit PM timer at port 0x%x, %s MHz (%s)%s\n",
	        mask == ACPI_PM_MASK_32 ? 32 : 24, port,
	        fmt_mhz(mhz, sizeof(mhz), ACPI_PM_FREQ_HZ), verdict, rc ? "; not usable" : "");
	/* Registered even when unusable, so `clocksource` lists it and why. */
	int refused = clocksource_register(&acpi_pm_clocksource);
	if (refused)
		kprintf("acpi_pm: not used: the time core refused it (error %d)\n", refused);
}
