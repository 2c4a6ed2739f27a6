/* include/delay.h — busy-waits of a given length (kernel/delay.c).
 *
 * For the few waits that come before any timer can run, such as the pauses
 * between the start-up IPIs that wake the other CPUs.  Counted on the
 * clocksource timekeeping runs on, once one is registered; before that on
 * the fallback a driver hands over (the PIT's channel 2).
 */
#ifndef LULL_DELAY_H
#define LULL_DELAY_H

#include "compiler.h"

/* Spin for at least `us` microseconds.  0, or -ENODEV: nothing to count
 * them with. */
int delay_us(uint32_t us);

/* The wait to use while no clocksource runs: a driver's, returning 0 or
 * a negative errno as delay_us does. */
void delay_set_fallback(int (*wait_us)(uint32_t us));

#endif
