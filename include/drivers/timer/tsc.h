/* include/drivers/timer/tsc.h — the time stamp counter (drivers/timer/tsc.c). */
#ifndef LULL_DRIVERS_TIMER_TSC_H
#define LULL_DRIVERS_TIMER_TSC_H

/* If the CPU has a TSC: calibrate it against the best reference so far and
 * register it as clocksource "tsc".  Returns 0, or a negative error after
 * one line saying why not. */
int tsc_init(void);

/* Measure the TSC's rate again over the second from now (a timer: needs
 * the tick running); nothing to do without a TSC or a readable reference. */
void tsc_refine_later(void);

#endif
