/* include/drivers/timer/acpi_pm.h — the ACPI power-management timer
 * (drivers/timer/acpi_pm.c). */
#ifndef LULL_DRIVERS_TIMER_ACPI_PM_H
#define LULL_DRIVERS_TIMER_ACPI_PM_H

#include "compiler.h"

/* If the FADT lists a PM timer: check that it counts forward, and offer
 * its rate check to the boot's shared calibration windows
 * (calibrate_offered, include/time/calibrate.h), after which it prints its
 * line and registers clocksource "acpi_pm" (flagged unstable if the check
 * failed).  Returns 0, or a negative error after one line saying why. */
int acpi_pm_init(void);

/* `inject pm-glitch`: one verified read of the counter in which the raw
 * read the check depends on (the middle one of three) comes back with a
 * high bit flipped, as a torn read on a PIIX4 does.  *bad is the value
 * that read gave, *good the value returned, *retries how many triples it
 * took.  0, or -ENODEV without a PM timer. */
int acpi_pm_inject_glitch(uint32_t *bad, uint32_t *good, unsigned *retries);

#endif
