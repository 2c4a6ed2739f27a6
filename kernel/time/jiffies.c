/* kernel/time/jiffies.c — the tick count and the tick rate.
 *
 * jiffies_64 starts shortly before the 32-bit view wraps (INITIAL_JIFFIES in
 * include/time/jiffies.h), so every boot crosses the wrap within seconds and
 * an unsafe comparison shows up at once.  Only the tick layer writes these.
 */
#include "time/jiffies.h"

volatile uint64_t jiffies_64 = INITIAL_JIFFIES(CONFIG_HZ);
unsigned tick_hz = CONFIG_HZ;

uint32_t ms_to_jiffies(uint32_t ms)
{
	return (uint32_t)(((uint64_t)ms * tick_hz + MSEC_PER_SEC - 1) / MSEC_PER_SEC);
}
