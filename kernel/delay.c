/* kernel/delay.c — busy-waits (include/delay.h).
 *
 * A wait reads the clocksource timekeeping runs on until the time has
 * passed: the counter lull trusts most, calibrated by then, and the same
 * on every CPU.  Each read is followed by a PAUSE: the spin-wait hint on
 * hardware, and under QEMU's round robin of virtual CPUs the point where
 * another CPU gets its turn (kernel/smp_boot.c's QUIRK), so a CPU being
 * waited for can run.  Before any clocksource is registered the wait is
 * the fallback a driver handed over; with neither, there is no way to
 * count and the caller is told.
 */
#include "delay.h"
#include "errno.h"
#include "spinlock.h"
#include "time/clocksource.h"
#include "time/timekeeping.h"

static int (*fallback)(uint32_t us);

void delay_set_fallback(int (*wait_us)(uint32_t us))
{
	fallback = wait_us;
}

int delay_us(uint32_t us)
{
	if (!clocksource_current())
		return fallback ? fallback(us) : -ENODEV;
	uint64_t start = ktime_get_ns(), wait = (uint64_t)us * NSEC_PER_USEC;
	while (ktime_get_ns() - start < wait)
		cpu_relax();
	return 0;
}
