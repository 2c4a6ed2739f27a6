/* include/time/calibrate.h — how fast does a counter count?  Measured
 * against a reference whose rate is known (kernel/time/calibrate.c), for
 * the counters no register describes: the TSC and the local APIC timer,
 * and, as a check, the ACPI PM timer.
 *
 * Two kinds of reference, both handed in by drivers, neither touched here:
 *   - a registered clocksource that keeps counting on its own
 *     (CLOCK_SOURCE_CONTINUOUS): the HPET, the ACPI PM timer, a TSC that
 *     was itself calibrated.  It can be read at any instant, so the counter
 *     is read around it and windows can be short.  calibrate_counter finds
 *     the best one in the clocksource registry itself.
 *   - a stopwatch: something that can only be asked to wait a given time,
 *     like PIT channel 2.  It is the fallback on machines with no
 *     continuous clocksource (an isapc 486).  Its driver offers it with
 *     calibrate_set_stopwatch().
 */
#ifndef LULL_TIME_CALIBRATE_H
#define LULL_TIME_CALIBRATE_H

#include "../compiler.h"

struct clocksource;

/* A reference that cannot be read, only waited on. */
struct calibration_stopwatch {
	const char *name;       /* what the counter was "calibrated against" */
	uint32_t max_us;        /* the longest wait it can time; at least
	                           CALIBRATE_STOPWATCH_SHORT_DIV */
	/* Busy-wait `us` microseconds (1..max_us) by the stopwatch's own
	 * crystal.  Returns 0, or -ETIME if the wait never ended (no chip, or
	 * a dead one).  It may overrun by a fixed cost (setting it up, noticing
	 * the end): calibration times a long and a short wait and keeps the
	 * difference, so that cost cancels. */
	int (*wait_us)(uint32_t us);
};

/* The short wait of each stopwatch run: max_us / this. */
#define CALIBRATE_STOPWATCH_SHORT_DIV   10

/* Offer the stopwatch for calibrations with no continuous clocksource to
 * measure against (drivers/timer/pit.c, once it knows the PIT counts);
 * NULL withdraws it.  One at a time: a second offer replaces the first.
 * Panics on a stopwatch without wait_us or with max_us too short. */
void calibrate_set_stopwatch(const struct calibration_stopwatch *sw);

/* Measure how fast a counter counts, against the best reference there is:
 * the highest-rated registered continuous clocksource, not flagged
 * unstable, other than `self` (the counter's own clocksource, or NULL);
 * else the stopwatch.  read() returns the counter, counting up, `mask`
 * wide.  Five runs of a 1 ms window, five times longer while the middle
 * three disagree by more than want_ppm (up to 50 ms); on a stopwatch every
 * run is one wait of max_us minus one of a tenth of it.  The median must
 * lie in [min_hz, max_hz] and the middle three agree within
 * CALIBRATE_MAX_SPREAD_PPM.
 * Returns 0, or with cal->error saying why:
 *   -ENODEV  no reference at all (cal->ref is "none");
 *   -ETIME   the reference stopped counting, or the stopwatch never ended;
 *   -EINVAL  an impossible window, a rate outside [min_hz, max_hz]
 *            (cal->freq_hz says which), or runs that disagree.
 * cal->ref names the reference either way. */
#define CALIBRATE_RUNS              5
#define CALIBRATE_MAX_SPREAD_PPM    10000   /* 1%: further apart, a counter changed speed */
struct calibration {
	uint64_t freq_hz;           /* median of the runs */
	uint32_t spread_ppm;        /* (fastest - slowest of the middle three) / median */
	uint32_t window_us;         /* the window of the runs that counted */
	uint32_t spent_us;          /* time spent in windows, all tries */
	const char *ref;            /* the reference's name: "hpet", "pit", ... */
	const char *error;          /* why it failed, NULL on success */
	/* For calibrate_refine: the reference clocksource (NULL for a
	 * stopwatch) and both counters at the end of the last run. */
	struct clocksource *ref_cs;
	uint64_t ref_mark, count_mark;
};
int calibrate_counter(uint64_t (*read)(void), uint64_t mask,
                      const struct clocksource *self,
                      uint64_t min_hz, uint64_t max_hz, uint32_t want_ppm,
                      struct calibration *cal);

/* Several counters measured in the same windows
 * (kernel/time/calibrate_shared.c).  A boot measures the
 * PM timer's rate, the TSC and the local APIC timer: one after another
 * that is three sets of five windows of at least 1 ms, together one set,
 * a third of the time, each counter as accurate as alone, because each is
 * sampled against its own reference at each end of every window (the
 * reference read between two reads of the counter, as calibrate_counter
 * does).
 *
 * A driver fills a job and offers it (calibrate_offer); kmain runs every
 * offered job at once (calibrate_offered), which then calls each job's
 * done() in the order offered: the driver prints its line and registers
 * its device there.
 *
 * `against`: NULL measures against the reference calibrate_counter would
 * pick (the best registered continuous clocksource; no job's counter is
 * registered before its done()).  The name of another offered job, which
 * is measured against that reference and has a `self`, measures the ratio
 * of the two counters, and the rate follows from that job's: the LAPIC
 * timer against the TSC, so that it follows the TSC's later refinement
 * (the timer's rate_source; cal.ref_cs is that job's `self`).  If that job
 * fails, this one is measured again, alone, by calibrate_counter.
 *
 * The windows start at 1 ms and grow fivefold while any job's runs
 * disagree by more than it wants.  With no continuous clocksource to share
 * (a stopwatch only, or nothing), each job runs alone by calibrate_counter
 * and its done() is called before the next starts, so a counter registered
 * by one done() is the next job's reference.
 *
 * Each job's cal and rc come out as calibrate_counter's would. */
struct calibration_job {
	const char *name;               /* the driver's, for messages */
	uint64_t (*read)(void);         /* counting up, `mask` wide */
	uint64_t mask;
	const struct clocksource *self; /* the counter's own clocksource, or NULL */
	const char *against;            /* another job's name, or NULL */
	uint64_t min_hz, max_hz;
	uint32_t want_ppm;
	void (*done)(struct calibration_job *job);
	struct calibration cal;         /* out */
	int rc;                         /* out */
	/* Kept by kernel/time/calibrate_shared.c. */
	struct calibration_job *next;
	struct calibration_job *follows;        /* the job whose counter is `against` */
	uint64_t counts[CALIBRATE_RUNS], ref_ticks[CALIBRATE_RUNS];
	uint64_t ref_start, count_start;
};
/* Queue a job for calibrate_offered (a job offered twice panics). */
void calibrate_offer(struct calibration_job *job);
/* Run every offered job, call each done(), forget them.  Returns how many
 * ran. */
unsigned calibrate_offered(void);

/* Measure the same counter again, from the end of its calibration to now,
 * against the same reference: one window as long as the time since (0.1 to
 * 10 s), no waiting.  Returns 0 with *out filled, -ENODEV (the reference
 * was a stopwatch: nothing to read now), -ERANGE (too soon, too late, or
 * the reference may have wrapped), or -EINVAL (moved more than 1%:
 * out->freq_hz says to what). */
struct refinement {
	uint64_t freq_hz;
	uint64_t span_ns;           /* the window, by the reference */
	int32_t change_ppm;         /* against cal->freq_hz */
};
int calibrate_refine(uint64_t (*read)(void), uint64_t mask,
                     const struct calibration *cal, struct refinement *out);

#endif
