/* kernel/time/calibrate_internal.h — what the two calibration files share,
 * and nothing outside kernel/time/ needs (that is include/time/calibrate.h):
 *
 *   calibrate.c         one counter against the best reference there is:
 *                       picking it, sampling, the runs and their median,
 *                       and the later refinement;
 *   calibrate_shared.c  several counters offered by their drivers and
 *                       measured in the same windows.
 */
#ifndef LULL_KERNEL_TIME_CALIBRATE_INTERNAL_H
#define LULL_KERNEL_TIME_CALIBRATE_INTERNAL_H

#include "time/calibrate.h"
#include "time/clocksource.h"

/* Windows against a clocksource: start short, grow while the runs
 * disagree by more than the caller's want_ppm (see calibrate.c). */
#define CALIBRATE_WINDOW_MIN_US     1000
#define CALIBRATE_WINDOW_GROWTH     5
#define CALIBRATE_WINDOW_MAX_US     50000

/* A wait for the reference gives up after this many polls.  At 5 ns per
 * poll (a TSC read) 2^26 polls are 0.3 s, several windows; at 1 us (a port
 * read) about a minute, the price of a reference that stopped dead. */
#define CALIBRATE_MAX_POLLS (1u << 26)

typedef uint64_t (*counter_read_fn)(void);

/* The best continuous clocksource other than `self`, or NULL. */
struct clocksource *calibrate_best_reference(const struct clocksource *self);

/* The counter's value at the instant the reference is read, bracketed;
 * both into *ref_now and *count_now. */
void calibrate_sample(struct clocksource *ref, counter_read_fn read, uint64_t mask,
                      uint64_t *ref_now, uint64_t *count_now);

/* The runs' rates (sorted in place) into cal: median, spread, window. */
void calibrate_median_and_spread(uint64_t hz[CALIBRATE_RUNS], uint32_t window_us,
                                 struct calibration *cal);

/* A plausible rate and runs that agree: 0, or -EINVAL with cal->error. */
int calibrate_check_result(uint64_t min_hz, uint64_t max_hz, struct calibration *cal);

#endif
