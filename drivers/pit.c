/* drivers/pit.c — placeholder until the driver lands. */
#include "timer_hw.h"
#include "errno.h"

int pit_init(void) { return -ENODEV; }
int pit_ch2_wait_us(uint32_t us) { (void)us; return -ETIME; }
void pit_stop(void) { }
