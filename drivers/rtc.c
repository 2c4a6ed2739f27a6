/* drivers/rtc.c — placeholder until the driver lands. */
#include "timer_hw.h"
#include "errno.h"

int rtc_init(void) { return -ENODEV; }
#include "shell.h"
int rtc_read(struct rtc_time *t) { (void)t; return -ENODEV; }
int cmd_date(int argc, char **argv) { (void)argc; (void)argv; return -ENODEV; }
