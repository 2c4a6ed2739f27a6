/* include/drivers/timer/hpet.h — the High Precision Event Timer
 * (drivers/timer/hpet.c). */
#ifndef LULL_DRIVERS_TIMER_HPET_H
#define LULL_DRIVERS_TIMER_HPET_H

/* If the ACPI tables list an HPET: register its main counter as clocksource
 * "hpet" and comparator 0 as clock event device.  Returns 0, or a negative
 * error after one line saying why not. */
int hpet_init(void);

/* Halt the main counter and every comparator for good (the `floor` boot
 * option); nothing to do without an HPET. */
void hpet_stop(void);

/* `inject hpet-past`: the next one-shot deadline is written to comparator
 * 0 a little behind the counter, the trap the QUIRK in hpet.c describes;
 * the driver's check must still see it and the core retry.  Returns how
 * many counter ticks behind, or -ENODEV. */
int hpet_inject_past(void);

#endif
