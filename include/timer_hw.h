/* include/timer_hw.h — the timer hardware drivers in drivers/, and the
 * calibration helper they share (kernel/calibrate.c).
 *
 * Each init probes, checks, registers a clocksource and/or clock event
 * device with the time core (include/time/), or prints one line saying why
 * not and returns -ENODEV.  Every device is left stopped unless the tick code
 * starts it: an unused timer must not interrupt or keep counting for
 * nothing. */
#ifndef LULL_TIMER_HW_H
#define LULL_TIMER_HW_H

#include "compiler.h"

int pit_init(void);         /* drivers/pit.c: i8254, clockevent + "pit" clocksource */
int hpet_init(void);        /* drivers/hpet.c: main counter + comparator 0 */
int acpi_pm_init(void);     /* drivers/acpi_pm.c: ACPI PM timer clocksource */
int tsc_init(void);         /* drivers/tsc.c: time stamp counter clocksource */
int lapic_init(void);       /* drivers/lapic.c: local APIC + its timer */
int rtc_init(void);         /* drivers/rtc.c: CMOS real-time clock */

/* PIT channel 2 as a calibration reference: busy-wait `us` microseconds
 * (at most PIT_CH2_MAX_US) counted by the PIT's own crystal.  Returns 0, or
 * -ETIME if the PIT never finished (no PIT, or a broken one). */
#define PIT_CH2_MAX_US 50000
int pit_ch2_wait_us(uint32_t us);

/* drivers/lapic.c */
bool lapic_present(void);
void lapic_eoi(void);

/* drivers/rtc.c: wall-clock time, and the `date` command. */
struct rtc_time { unsigned year, month, day, hour, minute, second; };
int rtc_read(struct rtc_time *t);
int cmd_date(int argc, char **argv);

/* drivers/pit.c, drivers/hpet.c, drivers/lapic.c: stop every timer device
 * for good (the `floor` boot option of the benchmarks). */
void pit_stop(void);

#endif
