/* include/drivers/timer.h — the timer hardware drivers in drivers/, and the
 * calibration helper they share (kernel/time/calibrate.c).
 *
 * Each init probes, checks, registers a clocksource and/or clock event
 * device with the time core (include/time/), or prints one line saying why
 * not and returns -ENODEV.  Every device is left stopped unless the tick code
 * starts it: an unused timer must not interrupt or keep counting for
 * nothing. */
#ifndef LULL_TIMER_HW_H
#define LULL_TIMER_HW_H

#include "compiler.h"

int pit_init(void);         /* drivers/timer/pit.c: i8254, clockevent + "pit" clocksource */
int hpet_init(void);        /* drivers/timer/hpet.c: main counter + comparator 0 */
int acpi_pm_init(void);     /* drivers/timer/acpi_pm.c: ACPI PM timer clocksource */
int tsc_init(void);         /* drivers/timer/tsc.c: time stamp counter clocksource */
int lapic_init(void);       /* drivers/timer/lapic.c: local APIC + its timer */
int rtc_init(void);         /* drivers/timer/rtc.c: CMOS real-time clock */

/* PIT channel 2 as a calibration reference: busy-wait `us` microseconds
 * (at most PIT_CH2_MAX_US) counted by the PIT's own crystal.  Returns 0, or
 * -ETIME if the PIT never finished (no PIT, or a broken one). */
#define PIT_CH2_MAX_US 50000
int pit_ch2_wait_us(uint32_t us);

/* drivers/timer/lapic.c */
bool lapic_present(void);
void lapic_eoi(void);

/* drivers/timer/rtc.c: wall-clock time, and the `date` command. */
struct rtc_time { unsigned year, month, day, hour, minute, second; };
int rtc_read(struct rtc_time *t);
int cmd_date(int argc, char **argv);

/* drivers/timer/pit.c, drivers/timer/hpet.c, drivers/timer/lapic.c: stop every timer device
 * for good (the `floor` boot option of the benchmarks). */
void pit_stop(void);

/* --- drivers/timer/hpet.c, drivers/timer/acpi_pm.c, drivers/timer/rtc.c --- */
void hpet_stop(void);       /* halt the HPET main counter (no-op without one) */

/* --- drivers/timer/pit.c, drivers/timer/tsc.c, drivers/timer/lapic.c, kernel/time/calibrate.c --- */

/* The longest tickless idle each one-shot timer allows, in ticks of 1/hz:
 * its counter's width over one tick's count (0 if the device is absent). */

uint64_t tsc_freq_hz(void);     /* calibrated TSC rate, 0 if none */
void tsc_refine_later(void);    /* measure it again 1 s from now (needs the tick) */
void lapic_tsc_rate_changed(uint64_t old_hz, uint64_t new_hz);  /* its timers follow */
void lapic_timer_stop(void);    /* the local APIC timer, for good (`floor`) */

/* kernel/time/calibrate.c: measure how fast a counter counts, against the best
 * reference there is: the highest-rated registered clocksource that keeps
 * counting on its own (CLOCK_SOURCE_CONTINUOUS) other than `self`, else PIT
 * channel 2.  read() returns the counter, counting up, `mask` wide.  Five
 * runs of a 1 ms window, five times longer while the middle three disagree
 * by more than want_ppm (up to 50 ms; always 50 ms on the PIT); the median
 * must lie in [min_hz, max_hz] and those three agree within
 * CALIBRATE_MAX_SPREAD_PPM.  Returns 0, or -EINVAL (implausible or
 * unstable result) / -ETIME (the reference stopped), with cal->error saying
 * which.  cal->ref is set either way. */
#define CALIBRATE_RUNS              5
#define CALIBRATE_MAX_SPREAD_PPM    10000   /* 1%: further apart, a counter changed speed */
struct clocksource;
struct calibration {
	uint64_t freq_hz;           /* median of the runs */
	uint32_t spread_ppm;        /* (fastest - slowest of the middle three) / median */
	uint32_t window_us;         /* the window of the runs that counted */
	uint32_t spent_us;          /* time spent in windows, all tries */
	const char *ref;            /* the reference's name: "hpet", "pit", ... */
	const char *error;          /* why it failed, NULL on success */
	/* For calibrate_refine: the reference (NULL for the PIT) and both
	 * counters at the end of the last run. */
	struct clocksource *ref_cs;
	uint64_t ref_mark, count_mark;
};
int calibrate_counter(uint64_t (*read)(void), uint64_t mask,
                      const struct clocksource *self,
                      uint64_t min_hz, uint64_t max_hz, uint32_t want_ppm,
                      struct calibration *cal);

/* Measure the same counter again, from the end of its calibration to now,
 * against the same reference: one window as long as the time since (0.1 to
 * 10 s), no waiting.  Returns 0 with *out filled, -ENODEV (the reference
 * was the PIT), -ERANGE (too soon, too late, or the reference may have
 * wrapped), or -EINVAL (moved more than 1%: out->freq_hz says to what). */
struct refinement {
	uint64_t freq_hz;
	uint64_t span_ns;           /* the window, by the reference */
	int32_t change_ppm;         /* against cal->freq_hz */
};
int calibrate_refine(uint64_t (*read)(void), uint64_t mask,
                     const struct calibration *cal, struct refinement *out);

#endif
