/* include/drivers/timer/lapic.h — the local APIC and its timer
 * (drivers/timer/lapic.c). */
#ifndef LULL_DRIVERS_TIMER_LAPIC_H
#define LULL_DRIVERS_TIMER_LAPIC_H

/* If the CPU has a local APIC: put it in virtual wire mode, calibrate its
 * timer and register the clock event devices "lapic" and, where the CPU can,
 * "tsc-deadline".  Returns 0, or a negative error after one line saying why
 * not. */
int lapic_init(void);

/* Mask the timer and stop its count for good (the `floor` boot option). */
void lapic_timer_stop(void);

#endif
