/* kernel/lib/power_model.c — the `power` command's model (include/power_model.h).
 * Portable: tests/unit/test_power_model.c checks it on the host against the
 * article's two points. */
#include "power_model.h"
#include "errno.h"
#include "lab.h"

#define BASIS_POINTS  10000

int64_t power_estimate_uw(uint64_t wakeups_milli, uint32_t busy_bp)
{
	/* LAB hz: BEGIN
	 * The straight line through (POWER_HZ_LOW wakeups/s, POWER_AT_HZ100_UW)
	 * and (POWER_HZ_HIGH, POWER_AT_HZ1000_UW), at wakeups_milli / 1000
	 * wakeups a second, plus POWER_BUSY_UW times the busy share.  Refuse a
	 * busy share over 100 % (-EINVAL).  Mind the units: all integers.
	 */
	if (busy_bp > BASIS_POINTS)
		return -EINVAL;
	int64_t slope_num = POWER_AT_HZ1000_UW - POWER_AT_HZ100_UW;     /* uW per ...   */
	int64_t slope_den = (POWER_HZ_HIGH - POWER_HZ_LOW) * 1000;      /* ... milli-wakeup/s */
	int64_t from_low = (int64_t)wakeups_milli - POWER_HZ_LOW * 1000;
	return POWER_AT_HZ100_UW + from_low * slope_num / slope_den +
	       (int64_t)POWER_BUSY_UW * busy_bp / BASIS_POINTS;
	/* LAB hz: STUB
	UNUSED(wakeups_milli);
	UNUSED(busy_bp);
	lab_not_implemented("hz");
	return -ENOSYS;
	   LAB hz: END */
}
