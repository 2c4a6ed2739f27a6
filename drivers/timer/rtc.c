/* drivers/timer/rtc.c — the CMOS real-time clock: the PC/AT's battery-backed
 * calendar clock, read for `date`.
 *
 * Spec: Motorola MC146818A datasheet: "Address Map" (registers 0-9 hold the
 * time and date, A-D control the chip), "Update Cycle" (the UIP bit), and
 * register B's DM (binary or BCD) and 24/12 bits.  On the PC the chip sits
 * behind an index port and a data port (IBM PC/AT Technical Reference,
 * "CMOS RAM Address Map").  The century is not in the chip: the BIOS keeps
 * it in a CMOS byte whose index the FADT's CENTURY field gives (0x32 on
 * PC/AT compatibles and QEMU); without ACPI we assume 20xx.
 *
 * We only read the clock: we never set it, and we switch its interrupts
 * (periodic, alarm, update-ended) off at init, since lull uses none of
 * them.  The RTC keeps whatever zone the firmware set; QEMU's follows the
 * host's UTC by default.
 *
 * The self-test times whole seconds with it (rtc_update_in_progress): the RTC
 * runs from its own 32.768 kHz crystal, so it is the one reference whose
 * rate nothing in lull was calibrated against.
 */
#include "drivers/timer/rtc.h"
#include "drivers/acpi.h"
#include "errno.h"
#include "kprintf.h"
#include "kstring.h"
#include "arch/x86.h"

#define CMOS_INDEX          0x70    /* write: register number | CMOS_NMI_MASK */
#define CMOS_DATA           0x71    /* the selected register */

/* Bit 7 of the index byte masks NMI on the PC/AT for as long as it stays
 * written.  Port 0x70 is write-only, so the previous state cannot be read
 * back and restored.  SeaBIOS (QEMU's firmware, src/hw/rtc.c) writes every
 * index with this bit set, so NMI is already masked when lull boots, and
 * we keep it that way: lull has no NMI source it wants to hear from. */
#define CMOS_NMI_MASK       0x80

enum {                              /* MC146818A address map */
	RTC_SECONDS     = 0x00,
	RTC_MINUTES     = 0x02,
	RTC_HOURS       = 0x04,     /* bit 7 is PM in 12-hour mode */
	RTC_DAY         = 0x07,     /* day of the month, 1-31 */
	RTC_MONTH       = 0x08,     /* 1-12 */
	RTC_YEAR        = 0x09,     /* 0-99 */
	RTC_REG_A       = 0x0A,     /* RTC_A_* */
	RTC_REG_B       = 0x0B,     /* RTC_B_* */
	RTC_REG_C       = 0x0C,     /* interrupt flags; reading clears them */
	RTC_REG_D       = 0x0D,     /* RTC_D_* */
};
#define RTC_A_UIP           0x80    /* update in progress: do not read now */
#define RTC_B_PIE           0x40    /* periodic interrupt enable */
#define RTC_B_AIE           0x20    /* alarm interrupt enable */
#define RTC_B_UIE           0x10    /* update-ended interrupt enable */
#define RTC_B_DM_BINARY     0x04    /* data mode: 1 binary, 0 BCD */
#define RTC_B_24H           0x02    /* 1: 24-hour; 0: 12-hour with RTC_HOUR_PM */
#define RTC_HOUR_PM         0x80
#define RTC_D_VRT           0x80    /* valid RAM and time: the battery held */
/* QUIRK: no century register in the FADT.
 * Symptom: "rtc: ... century assumed 20" where QEMU's boot says "century
 * from CMOS".  Emulator: Bochs 2.7, whose BIOS (BIOS-bochs-latest) leaves
 * the FADT's CENTURY field 0.  ACPI defines 0 as "no century register", so
 * lull reads no CMOS byte for it and takes the years 2000-2099; right
 * until 2100, and never a byte the firmware did not promise.  Reference:
 * ACPI 6.x Table 5.9, CENTURY. */
#define RTC_DEFAULT_CENTURY 20      /* no century byte: 2000-2099 */

/* UIP stays set for at most 244 us + the 1984 us update cycle (datasheet,
 * "Update Cycle"); each poll is two port accesses, ~2 us on real hardware,
 * so this bound (~0.2 s) is generous, and only an absent RTC reaches it. */
#define RTC_UIP_SPINS       100000
/* Two snapshots must agree; an update between them changes a value, so a
 * few attempts always suffice on a working clock. */
#define RTC_READ_TRIES      5

/* The registers as the chip holds them. */
struct rtc_raw { uint8_t sec, min, hour, day, month, year, century; };

static uint8_t cmos_read(uint8_t reg)
{
	outb(CMOS_INDEX, CMOS_NMI_MASK | reg);
	return inb(CMOS_DATA);
}

static void cmos_write(uint8_t reg, uint8_t v)
{
	outb(CMOS_INDEX, CMOS_NMI_MASK | reg);
	outb(CMOS_DATA, v);
}

/* Once UIP reads 0, no update starts for at least 244 us: time enough to
 * read every register.  false if UIP never clears. */
static bool rtc_snapshot(struct rtc_raw *r)
{
	for (unsigned i = 0; cmos_read(RTC_REG_A) & RTC_A_UIP; i++)
		if (i == RTC_UIP_SPINS)
			return false;
	r->sec = cmos_read(RTC_SECONDS);
	r->min = cmos_read(RTC_MINUTES);
	r->hour = cmos_read(RTC_HOURS);
	r->day = cmos_read(RTC_DAY);
	r->month = cmos_read(RTC_MONTH);
	r->year = cmos_read(RTC_YEAR);
	r->century = acpi.century_reg ? cmos_read(acpi.century_reg) : 0;
	return true;
}

/* A register's value: BCD (two decimal digits, one per nibble) unless
 * register B says binary. */
static unsigned rtc_value(uint8_t v, bool binary)
{
	return binary ? v : (v >> 4) * 10 + (v & 0x0F);
}

int rtc_read(struct rtc_time *t)
{
	/* An interrupt or SMI may hold us past the 244 us: read until two
	 * snapshots agree. */
	struct rtc_raw a, b;
	unsigned tries = 0;
	if (!rtc_snapshot(&a))
		return -ENODEV;
	do {
		if (++tries > RTC_READ_TRIES)
			return -EAGAIN;
		b = a;
		if (!rtc_snapshot(&a))
			return -ENODEV;
	} while (memcmp(&a, &b, sizeof(a)) != 0);

	uint8_t regb = cmos_read(RTC_REG_B);
	bool bin = regb & RTC_B_DM_BINARY;
	unsigned hour = rtc_value(a.hour & ~RTC_HOUR_PM, bin);
	if (!(regb & RTC_B_24H))        /* 12 AM is hour 0, 12 PM is hour 12 */
		hour = hour % 12 + ((a.hour & RTC_HOUR_PM) ? 12 : 0);
	unsigned century = acpi.century_reg ? rtc_value(a.century, bin) : RTC_DEFAULT_CENTURY;
	*t = (struct rtc_time){
		.year = century * 100 + rtc_value(a.year, bin), .month = rtc_value(a.month, bin),
		.day = rtc_value(a.day, bin), .hour = hour, .minute = rtc_value(a.min, bin),
		.second = rtc_value(a.sec, bin),
	};
	if (t->second > 59 || t->minute > 59 || t->hour > 23 || t->day < 1 || t->day > 31 ||
	    t->month < 1 || t->month > 12 || century < 19 || century > 99)
		return -EINVAL;
	return 0;
}

const char *rtc_error_text(int rc)
{
	return rc == -ENODEV ? "does not answer (update-in-progress never cleared)"
	     : rc == -EINVAL ? "holds an impossible date"
	     : "kept changing while read";
}

static bool rtc_answers;

int rtc_update_in_progress(void)
{
	if (!rtc_answers)
		return -ENODEV;
	return !!(cmos_read(RTC_REG_A) & RTC_A_UIP);
}

int rtc_init(void)
{
	struct rtc_time t;
	int rc = rtc_read(&t);
	if (rc == -ENODEV) {
		kprintf("rtc: none: the CMOS clock %s\n", rtc_error_text(rc));
		return -ENODEV;
	}
	rtc_answers = true;
	/* It answered: make sure it cannot interrupt, and drop any flag the
	 * firmware left raised (reading register C clears them). */
	uint8_t regb = cmos_read(RTC_REG_B);
	cmos_write(RTC_REG_B, regb & ~(RTC_B_PIE | RTC_B_AIE | RTC_B_UIE));
	(void)cmos_read(RTC_REG_C);
	bool battery_ok = cmos_read(RTC_REG_D) & RTC_D_VRT;

	if (rc)
		kprintf("rtc: the CMOS clock %s%s\n", rtc_error_text(rc), battery_ok ? "" : " (battery dead)");
	else
		kprintf("rtc: %04u-%02u-%02uT%02u:%02u:%02u (%s, %u-hour, century %s)%s\n",
		        t.year, t.month, t.day, t.hour, t.minute, t.second,
		        (regb & RTC_B_DM_BINARY) ? "binary" : "BCD", (regb & RTC_B_24H) ? 24 : 12,
		        acpi.century_reg ? "from CMOS" : "assumed 20", battery_ok ? "" : "; battery dead");
	return rc;
}
