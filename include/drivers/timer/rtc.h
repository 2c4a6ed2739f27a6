/* include/drivers/timer/rtc.h — the CMOS real-time clock (drivers/timer/rtc.c). */
#ifndef LULL_DRIVERS_TIMER_RTC_H
#define LULL_DRIVERS_TIMER_RTC_H

/* Check that the CMOS clock answers, turn its interrupts off, and print
 * the date it holds.  Returns 0, or the error of rtc_read. */
int rtc_init(void);

/* Wall-clock time, read from the CMOS clock.  rtc_read returns 0,
 * -ENODEV (no answer), -EAGAIN (kept changing) or -EINVAL (an impossible
 * date); rtc_error_text says which in words ("holds an impossible date"). */
struct rtc_time { unsigned year, month, day, hour, minute, second; };
int rtc_read(struct rtc_time *t);
const char *rtc_error_text(int rc);

/* Register A's UIP bit: 1 from 244 us before each second begins until the
 * update that follows has ended, else 0; -ENODEV with no RTC.  Its rising
 * edge is the one to time whole seconds by: it comes from the crystal
 * alone, on the chip (datasheet, "Update Cycle") and in QEMU (computed from
 * its clock at the read), while QEMU clears the bit only when a host-side
 * timer runs, which a busy host runs late.  A single read, no waiting: the
 * caller polls it. */
int rtc_update_in_progress(void);

#endif
