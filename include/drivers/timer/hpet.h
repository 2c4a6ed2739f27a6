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

/* Comparator 0's deadline is the counter plus the ticks asked for, modulo
 * 2^HPET_T0_CMP_WIDTH_BITS: so ticks of 2^32 - N write it N ticks behind
 * the counter (`inject hpet-past` does, through the injection seam, to set
 * the trap the QUIRK in hpet.c describes). */
#define HPET_T0_CMP_WIDTH_BITS 32

#endif
