/* include/drivers/timer/tsc.h — the time stamp counter (drivers/timer/tsc.c). */
#ifndef LULL_DRIVERS_TIMER_TSC_H
#define LULL_DRIVERS_TIMER_TSC_H

/* If the CPU has a TSC: offer it to the boot's shared calibration windows
 * (calibrate_offered, include/time/calibrate.h: against the best reference
 * there is), after which it prints its line and registers clocksource
 * "tsc".  Returns 0, or -ENODEV after one line saying there is none. */
int tsc_init(void);

/* Measure the TSC's rate again over the second from now (a timer: needs
 * the tick running); nothing to do without a TSC or a readable reference. */
void tsc_refine_later(void);

#endif
