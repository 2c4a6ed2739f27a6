/* include/drivers/timer/acpi_pm.h — the ACPI power-management timer
 * (drivers/timer/acpi_pm.c). */
#ifndef LULL_DRIVERS_TIMER_ACPI_PM_H
#define LULL_DRIVERS_TIMER_ACPI_PM_H

/* If the FADT lists a PM timer: check that it counts forward at its rate
 * and register it as clocksource "acpi_pm" (flagged unstable if the check
 * failed).  Returns 0, or a negative error after one line saying why. */
int acpi_pm_init(void);

#endif
