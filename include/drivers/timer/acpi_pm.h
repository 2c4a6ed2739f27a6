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

/* Each read of the "acpi_pm" clocksource is three raw reads (read_raw)
 * until the middle one lies between the other two: the erratum's
 * workaround, and the raw read the check depends on is the second. */
#define ACPI_PM_READS_PER_TRY 3
#define ACPI_PM_CHECKED_READ  2

#endif
