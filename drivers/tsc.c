/* drivers/tsc.c — placeholder until the driver lands. */
#include "timer_hw.h"
#include "errno.h"

int tsc_init(void) { return -ENODEV; }
