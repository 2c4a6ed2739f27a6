/* include/histogram.h — the arithmetic behind `latency`'s percentiles and
 * its log2 histogram.  Portable (tests/unit/test_histogram.c).
 *
 * Samples are counted in unit buckets hist[0..top]; the last bucket also
 * holds every sample above top.  A figure that lands in that bucket is
 * clipped: the true value is top or more, and the shell prints it as ">=top"
 * rather than pretend it is exactly top.
 */
#ifndef LULL_HISTOGRAM_H
#define LULL_HISTOGRAM_H

#include "compiler.h"

/* The nearest-rank percentile (as cyclictest reports it): the smallest
 * bucket v such that at least pct percent of the n samples are <= v.
 * *clipped is set when v is top, the bucket of "top and over".  n must be
 * the sum of hist[0..top] and greater than 0; pct is 1..100. */
uint32_t hist_percentile(const uint32_t *hist, uint32_t top, uint64_t n, unsigned pct,
                         bool *clipped);

/* log2 bins of a value: bin 0 is [0, 1), bin b is [2^(b-1), 2^b), and the
 * last of nbins bins is open: [2^(nbins-2), and up).  nbins is 2..32. */
unsigned hist_log2_bin(uint32_t v, unsigned nbins);

/* The bounds [*lo, *hi) of log2 bin b.  Returns false for the last bin,
 * which has no upper bound (*hi is then left alone). */
bool hist_log2_bounds(unsigned b, unsigned nbins, uint32_t *lo, uint32_t *hi);

#endif
