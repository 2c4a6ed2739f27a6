/* include/drivers/timer/lapic.h — the local APIC's timer
 * (drivers/timer/lapic.c; the APIC itself: include/drivers/platform.h). */
#ifndef LULL_DRIVERS_TIMER_LAPIC_H
#define LULL_DRIVERS_TIMER_LAPIC_H

/* If lapic_init found an APIC: start its timer counting and offer it to
 * the boot's shared calibration windows (against the TSC;
 * calibrate_offered, include/time/calibrate.h), after which it prints one
 * line and registers the clock event devices "lapic" and, where the CPU
 * can, "tsc-deadline".  Returns 0, or -ENODEV if there is no APIC
 * (lapic_init said so). */
int lapic_timer_init(void);

/* On an AP: its own timer as its tick device (NULL without a calibrated
 * timer).  kernel/smp_boot.c hands it to tick_secondary_follow. */
struct clock_event_device;
struct clock_event_device *lapic_timer_this_ap(void);

/* Mask the timer and stop its count for good (the `floor` boot option). */
void lapic_timer_stop(void);

#endif
