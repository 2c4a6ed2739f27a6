/* drivers/lapic.c — placeholder until the driver lands. */
#include "timer_hw.h"
#include "errno.h"

int lapic_init(void) { return -ENODEV; }
bool lapic_present(void) { return false; }
void lapic_eoi(void) { }
