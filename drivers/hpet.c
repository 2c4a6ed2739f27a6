/* drivers/hpet.c — placeholder until the driver lands. */
#include "timer_hw.h"
#include "errno.h"

int hpet_init(void) { return -ENODEV; }
