/* include/time/jiffies.h — the tick count, and how to compare it safely.
 *
 * jiffies_64 counts ticks since boot (plus an offset, below).  Code reads the
 * 32-bit view `jiffies`, as i386 Linux did, which wraps every 2^32 ticks
 * (49.7 days at HZ=1000).  Never compare two jiffies values with < or >:
 * use time_after() and friends, which stay right across the wrap as long as
 * the two values are less than 2^31 ticks apart.
 *
 * Like Linux's INITIAL_JIFFIES, lull starts jiffies shortly before the 32-bit
 * wrap — JIFFIES_WRAP_AFTER_S seconds — so that every boot, and nearly every
 * test, crosses it.  That alone does not show every unsafe comparison (a
 * periodic tick can step over one); the host tests compare across the wrap
 * on purpose (tests/unit/test_jiffies.c).
 */
#ifndef LULL_TIME_JIFFIES_H
#define LULL_TIME_JIFFIES_H

#include "../compiler.h"
#include "../lab.h"

#ifndef CONFIG_HZ
#define CONFIG_HZ 250
#endif

#define JIFFIES_WRAP_AFTER_S  2u
/* The 32-bit jiffies value at boot for a given tick rate. */
#define INITIAL_JIFFIES(hz)   ((uint32_t)(0u - JIFFIES_WRAP_AFTER_S * (uint32_t)(hz)))

extern volatile uint64_t jiffies_64;
/* The 32-bit view: a single aligned 32-bit load, so atomic on i386. */
#define jiffies ((uint32_t)jiffies_64)

/* The tick rate in force.  Starts at CONFIG_HZ (make HZ=...), may be changed
 * by the boot option hz= or at runtime. */
extern unsigned tick_hz;

/* a is after b, etc., for 32-bit jiffies (and any 32-bit wrapping counter). */
static inline bool time_after(uint32_t a, uint32_t b)
{
	/* LAB jiffies: BEGIN
	 * True when a is later than b, also when the counter wrapped between
	 * them: a - b is how far a is ahead, modulo 2^32.  Valid while the two
	 * are less than 2^31 apart.
	 */
	return (int32_t)(b - a) < 0;
	/* LAB jiffies: STUB
	lab_not_implemented("jiffies");
	return a > b;
	   LAB jiffies: END */
}

static inline bool time_after_eq(uint32_t a, uint32_t b)
{
	/* LAB jiffies: BEGIN
	 * As time_after, or equal.
	 */
	return (int32_t)(a - b) >= 0;
	/* LAB jiffies: STUB
	lab_not_implemented("jiffies");
	return a >= b;
	   LAB jiffies: END */
}

static inline bool time_before(uint32_t a, uint32_t b)    { return time_after(b, a); }
static inline bool time_before_eq(uint32_t a, uint32_t b) { return time_after_eq(b, a); }

static inline bool hz_is_valid(unsigned hz) { return hz == 100 || hz == 250 || hz == 1000; }

/* Milliseconds to ticks at the current tick_hz, rounded up: the ticks always
 * cover `ms`, never a tick less.  (A timer armed that far ahead of `jiffies`
 * still fires up to one tick sooner after arming than `ms`: it counts from
 * the start of the current tick.)  HZ is at most 1000, so the result is at
 * most `ms` and always fits. */
uint32_t ms_to_jiffies(uint32_t ms);

#endif
