/* drivers/acpi.c — placeholder until the driver lands. */
#include "acpi.h"
#include "errno.h"

struct acpi_info acpi;
int acpi_init(void) { return -ENODEV; }
int acpi_poweroff(void) { return -ENODEV; }
int acpi_reset(void) { return -ENODEV; }
int cmd_acpi(int argc, char **argv) { (void)argc; (void)argv; return -ENODEV; }
