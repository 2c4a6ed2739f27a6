/* kernel/time/calibrate_shared.c — several counters measured in the same
 * windows (include/time/calibrate.h, calibrate_offer).
 *
 * At boot the PM timer's rate check, the TSC and the local APIC timer all
 * need a calibration; one after another they cost three sets of windows.
 * Here their drivers' jobs share one set: the windows are timed on one
 * shared reference (the best continuous clocksource), and at both ends of
 * every window each job's counter is sampled against its own reference,
 * as calibrate_counter would (calibrate.c): the shared one, or the counter
 * of the job it follows (the LAPIC timer follows the TSC).  The windows
 * grow, as calibrate_counter's do, while any job's runs disagree by more
 * than it wants.  With no continuous clocksource to share, or for a
 * follower whose leader failed, a job is measured alone by
 * calibrate_counter.
 */
#include "errno.h"
#include "kstring.h"
#include "time/arch.h"
#include "calibrate_internal.h"

static struct calibration_job *offered;
static struct calibration_job **offered_end = &offered;

void calibrate_offer(struct calibration_job *job)
{
	for (struct calibration_job *j = offered; j; j = j->next)
		if (j == job)
			panic("calibrate_offer: %s offered twice", job->name);
	job->next = NULL;
	*offered_end = job;
	offered_end = &job->next;
}

/* What a job is sampled against: the counter it follows, else the shared
 * reference. */
static struct clocksource *job_ref(const struct calibration_job *j, struct clocksource *shared)
{
	return j->follows ? (struct clocksource *)j->follows->self : shared;
}

/* CALIBRATE_RUNS windows of window_us on the shared reference; every job
 * sampled against its own reference at both ends of each. */
static int shared_runs(struct calibration_job *jobs, struct clocksource *shared,
                       uint32_t window_us)
{
	uint64_t window = shared->freq_hz * window_us / USEC_PER_SEC;
	for (unsigned i = 0; i < CALIBRATE_RUNS; i++) {
		uint64_t start = shared->read(shared);
		for (struct calibration_job *j = jobs; j; j = j->next)
			calibrate_sample(job_ref(j, shared), j->read, j->mask, &j->ref_start, &j->count_start);
		for (uint32_t polls = 0; ((shared->read(shared) - start) & shared->mask) < window; polls++)
			if (polls == CALIBRATE_MAX_POLLS)
				return -ETIME;
		for (struct calibration_job *j = jobs; j; j = j->next) {
			struct clocksource *ref = job_ref(j, shared);
			uint64_t ref_end, count_end;
			calibrate_sample(ref, j->read, j->mask, &ref_end, &count_end);
			j->ref_ticks[i] = (ref_end - j->ref_start) & ref->mask;
			j->counts[i] = (count_end - j->count_start) & j->mask;
			j->cal.ref_mark = ref_end;
			j->cal.count_mark = count_end;
		}
	}
	return 0;
}

/* One job's runs into its cal, its reference counting at ref_hz (for a
 * follower, what its leader just measured). */
static int job_rates(struct calibration_job *j, uint64_t ref_hz, uint32_t window_us)
{
	uint64_t hz[CALIBRATE_RUNS];
	for (unsigned i = 0; i < CALIBRATE_RUNS; i++) {
		uint64_t ns = ref_hz && j->ref_ticks[i] <= UINT64_MAX / NSEC_PER_SEC
		              ? j->ref_ticks[i] * NSEC_PER_SEC / ref_hz : 0;
		if (ns == 0 || j->counts[i] > UINT64_MAX / NSEC_PER_SEC) {
			j->cal.error = "the reference gave an impossible window";
			return -EINVAL;
		}
		hz[i] = j->counts[i] * NSEC_PER_SEC / ns;
	}
	calibrate_median_and_spread(hz, window_us, &j->cal);
	return 0;
}

/* Every job alone, one after another (no reference to share). */
static void run_alone(struct calibration_job *jobs)
{
	for (struct calibration_job *j = jobs; j; j = j->next) {
		j->rc = calibrate_counter(j->read, j->mask, j->self, j->min_hz, j->max_hz,
		                          j->want_ppm, &j->cal);
		j->done(j);
	}
}

/* Who follows whom: one level (a leader measured against the shared
 * reference). */
static void link_followers(struct calibration_job *jobs)
{
	for (struct calibration_job *j = jobs; j; j = j->next) {
		j->follows = NULL;
		for (struct calibration_job *k = jobs; j->against && k; k = k->next)
			if (k != j && k->self && !k->against && strcmp(k->name, j->against) == 0)
				j->follows = k;
	}
}

/* Every job's runs in the same windows, growing from CALIBRATE_WINDOW_MIN_US
 * while any job's runs disagree by more than it wants; each job's rate
 * into its cal and rc.  0, or -ETIME if the shared reference stopped. */
static int measure_together(struct calibration_job *jobs, struct clocksource *shared)
{
	for (struct calibration_job *j = jobs; j; j = j->next) {
		struct clocksource *ref = job_ref(j, shared);
		j->cal = (struct calibration){ .ref = ref->name, .ref_cs = ref };
		j->rc = 0;
	}
	int rc;
	for (uint32_t window_us = CALIBRATE_WINDOW_MIN_US; ;
	     window_us = MIN(window_us * CALIBRATE_WINDOW_GROWTH, CALIBRATE_WINDOW_MAX_US)) {
		rc = shared_runs(jobs, shared, window_us);
		if (rc)
			break;
		/* Leaders first: a follower's rate is its ratio times its
		 * leader's. */
		bool agree = true;
		for (int followers = 0; followers <= 1; followers++)
			for (struct calibration_job *j = jobs; j; j = j->next) {
				if ((j->follows != NULL) != followers)
					continue;
				j->rc = job_rates(j, j->follows ? j->follows->cal.freq_hz
				                                : shared->freq_hz, window_us);
				agree &= j->rc != 0 || j->cal.spread_ppm <= j->want_ppm;
			}
		if (agree || window_us >= CALIBRATE_WINDOW_MAX_US)
			break;
	}
	return rc;
}

/* Each job's verdict (rc, what measure_together returned), then its
 * done(), in the order offered. */
static void finish_jobs(struct calibration_job *jobs, int rc)
{
	for (struct calibration_job *j = jobs; j; j = j->next) {
		if (rc == -ETIME) {
			j->cal.error = "the reference stopped counting";
			j->rc = rc;
		} else if (j->rc == 0) {
			j->rc = calibrate_check_result(j->min_hz, j->max_hz, &j->cal);
		}
	}
	for (struct calibration_job *j = jobs; j; j = j->next) {
		/* A follower whose leader failed: measured alone, against the
		 * best reference there is now. */
		if (j->follows && j->follows->rc)
			j->rc = calibrate_counter(j->read, j->mask, j->self, j->min_hz, j->max_hz,
			                          j->want_ppm, &j->cal);
		j->done(j);
	}
}

unsigned calibrate_offered(void)
{
	struct calibration_job *jobs = offered;
	offered = NULL;
	offered_end = &offered;
	unsigned n = 0;
	for (struct calibration_job *j = jobs; j; j = j->next)
		n++;
	/* No job's counter is registered yet (each registers in done()). */
	struct clocksource *shared = calibrate_best_reference(NULL);
	if (!shared) {
		run_alone(jobs);
		return n;
	}
	link_followers(jobs);
	finish_jobs(jobs, measure_together(jobs, shared));
	return n;
}
