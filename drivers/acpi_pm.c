/* drivers/acpi_pm.c — placeholder until the driver lands. */
#include "timer_hw.h"
#include "errno.h"

int acpi_pm_init(void) { return -ENODEV; }
