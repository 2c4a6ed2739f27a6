/* kernel/lib/histogram.c — percentiles and log2 bins for `latency`
 * (include/histogram.h). */
#include "histogram.h"

uint32_t hist_percentile(const uint32_t *hist, uint32_t top, uint64_t n, unsigned pct,
                         bool *clipped)
{
	/* Rank ceil(n * pct / 100): the sample at least pct percent of all
	 * samples are at or below.  n < 2^32 in practice; n * 100 fits. */
	uint64_t need = (n * pct + 99) / 100, seen = 0;
	uint32_t v = 0;
	for (; v < top; v++) {
		seen += hist[v];
		if (seen >= need)
			break;
	}
	*clipped = v == top;
	return v;
}

unsigned hist_log2_bin(uint32_t v, unsigned nbins)
{
	unsigned b = 0;
	while (b < nbins - 1 && v >= (1u << b))
		b++;
	return b;
}

bool hist_log2_bounds(unsigned b, unsigned nbins, uint32_t *lo, uint32_t *hi)
{
	*lo = b ? 1u << (b - 1) : 0;
	if (b == nbins - 1)
		return false;
	*hi = 1u << b;
	return true;
}
