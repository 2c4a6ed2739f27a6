/* include/drivers/timer/pit.h — the Intel 8254 PIT (drivers/timer/pit.c). */
#ifndef LULL_DRIVERS_TIMER_PIT_H
#define LULL_DRIVERS_TIMER_PIT_H

#include "compiler.h"

/* Stop the firmware's 18.2 Hz tick and check that the PIT counts; then
 * register channel 0 as clock event device and clocksource "pit", and offer
 * channel 2 to calibration as its stopwatch (include/time/calibrate.h).
 * Returns 0, or a negative error after one line saying why not. */
int pit_init(void);

/* Stop channel 0 for good (the `floor` boot option of the benchmarks). */
void pit_stop(void);

/* PIT channel 2 as a stopwatch: busy-wait `us` microseconds (1 to
 * PIT_CH2_MAX_US) counted by the PIT's own crystal.  Returns 0, -EINVAL
 * for a `us` out of range, or -ETIME if the PIT never finished (no PIT, or
 * a broken one).  kernel/selftest.c times other clocks with it. */
#define PIT_CH2_MAX_US 50000        /* of the 54.9 ms a 16-bit count allows */
int pit_ch2_wait_us(uint32_t us);

/* The same wait in three parts, for a caller that must know when it
 * started and ended to within one port access (the self-test brackets
 * each end between reads of the clock it checks): start the count (the
 * last port write starts it; 0 or -EINVAL), poll for its end, and stop
 * (gate closed, speaker off). */
int pit_ch2_start_us(uint32_t us);
/* After pit_ch2_start_us: 0 if channel 2 is set to count (its gate open,
 * the speaker off), else -EIO with a line saying which bit is wrong. */
int pit_ch2_started(void);
bool pit_ch2_ended(void);
void pit_ch2_stop(void);

/* Channel 2 as a counter that can be read at any instant: start it
 * running (0, or -ENODEV when it does not count), then pit_ch2_run_ns()
 * is the time since, by the PIT's crystal.  It must be read at least once
 * per turn of its 16-bit count (54.9 ms), or a turn is lost.  Safe to read
 * from an interrupt handler.  pit_ch2_stop() ends it. */
int pit_ch2_run_start(void);
uint64_t pit_ch2_run_ns(void);

#endif
