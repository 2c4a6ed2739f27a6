/* kernel/time/tick_jiffies.c — jiffies, counted in clocksource time, and
 * their rate (HZ).
 *
 * The rule (tick.c's header): on any interrupt, whole periods since the
 * boundary jiffies_64 last reached are added, and the boundary moves by
 * as many periods.  One CPU at a time owns jiffies and advances them; the
 * others only refresh their copy of the boundary.  A change of HZ catches
 * jiffies up at the old rate, remaps every wheel and counts new periods
 * from the last old boundary, all in one critical section
 * (tick_jiffies_change_rate; tick_set_hz in tick_switch.c around it).
 */
#include "errno.h"
#include "lab.h"
#include "kstring.h"
#include "spinlock.h"
#include "time/percpu.h"
#include "time/arch.h"
#include "time/clocksource.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "time/path.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"
#include "time/trace.h"
#include "time/wakeups.h"
#include "time/watchdog.h"
#include "tick_internal.h"

/* ------------------------------------------------------------ jiffies */

static spinlock_t jiffies_lock = SPINLOCK_INIT;
static uint64_t jiffies_last_ns;        /* the boundary jiffies_64 last reached */
static uint64_t jiffies_period_ns;      /* NSEC_PER_SEC / tick_hz */
static int jiffies_owner = TICK_OWNER_NONE;

/* jiffies_lock is held: count the periods ended by `now`; how many. */
static uint64_t jiffies_advance_locked(uint64_t now)
{
	uint64_t n = 0;
	/* LAB jiffies: BEGIN
	 * Advance jiffies_64 by every whole period (jiffies_period_ns) that
	 * has ended between the last boundary (jiffies_last_ns) and `now`,
	 * and move the boundary by as many periods, not to `now`: jiffies
	 * count the clock's periods, whenever the interrupt came.  After a
	 * skip that is many periods at once.  n: how many.
	 */
	if (now >= jiffies_last_ns + jiffies_period_ns) {
		uint64_t delta = now - jiffies_last_ns;
		/* The common case, one tick, without a 64-bit division. */
		n = delta < 2 * jiffies_period_ns ? 1 : delta / jiffies_period_ns;
		jiffies_64 += n;
		jiffies_last_ns += n * jiffies_period_ns;
	}
	/* LAB jiffies: STUB
	lab_not_implemented("jiffies");
	n = 1;
	jiffies_64 += n;
	jiffies_last_ns = now;
	   LAB jiffies: END */
	return n;
}

uint64_t tick_update_jiffies(struct tick_cpu *tc, uint64_t now)
{
	unsigned long f = spin_lock_irqsave(&jiffies_lock);
	uint64_t n = jiffies_advance_locked(now);
	tc->last_jiffy_ns = jiffies_last_ns;
	spin_unlock_irqrestore(&jiffies_lock, f);
	return n;
}

void tick_sync_jiffies(struct tick_cpu *tc)
{
	unsigned long f = spin_lock_irqsave(&jiffies_lock);
	tc->last_jiffy_ns = jiffies_last_ns;
	spin_unlock_irqrestore(&jiffies_lock, f);
}

void tick_jiffies_snapshot(uint32_t *j, uint64_t *boundary_ns)
{
	unsigned long f = spin_lock_irqsave(&jiffies_lock);
	*j = jiffies;
	*boundary_ns = jiffies_last_ns;
	spin_unlock_irqrestore(&jiffies_lock, f);
}

int tick_jiffies_owner(void)
{
	return __atomic_load_n(&jiffies_owner, __ATOMIC_RELAXED);
}

void tick_release_jiffies(void)
{
	int me = (int)arch_this_cpu_id();
	__atomic_compare_exchange_n(&jiffies_owner, &me, TICK_OWNER_NONE, false,
	                            __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* On this CPU's tick: take jiffies if nobody owns them; advance them if
 * this CPU owns them, else only refresh the copy of the boundary. */
void tick_do_jiffies(struct tick_cpu *tc, uint64_t now)
{
	int none = TICK_OWNER_NONE, me = (int)arch_this_cpu_id();
	__atomic_compare_exchange_n(&jiffies_owner, &none, me, false,
	                            __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	if (tick_jiffies_owner() == me)
		tick_update_jiffies(tc, now);
	else
		tick_sync_jiffies(tc);
}

/* Start jiffies' boundaries at `first`, every period_ns, owned by this
 * CPU (tick_start; a change of HZ keeps the boundary and changes the
 * period in tick_set_hz, in the same critical section as its catch-up). */
void tick_jiffies_start(uint64_t first, uint64_t period_ns)
{
	unsigned long f = spin_lock_irqsave(&jiffies_lock);
	jiffies_last_ns = first;
	jiffies_period_ns = period_ns;
	spin_unlock_irqrestore(&jiffies_lock, f);
	jiffies_owner = (int)arch_this_cpu_id();
}

/* Re-express a wheel timer's expiry at the new rate: the same deadline in
 * real time, rounded up to a whole new tick so it never fires early. */
struct remap_ctx { uint32_t now; uint64_t old_period, new_period; };

static uint32_t remap_expiry(uint32_t expires, void *p)
{
	struct remap_ctx *c = p;
	int32_t ahead = (int32_t)(expires - c->now);
	if (ahead <= 0)
		return expires;         /* due already: stays due */
	uint64_t ns = (uint64_t)ahead * c->old_period;
	uint64_t j = (ns + c->new_period - 1) / c->new_period;
	/* At a higher HZ a far timer may be more jiffies ahead than a wheel
	 * can say (2^31: 24.8 days at HZ=1000); wrapped, it would read as due
	 * and run at once.  It waits as long as a wheel can say instead (as
	 * Linux caps a timeout at MAX_JIFFY_OFFSET): early by the difference,
	 * never by the whole. */
	if (j > (uint64_t)INT32_MAX - 1)
		j = (uint64_t)INT32_MAX - 1;
	return c->now + (uint32_t)j;
}

/* A change of HZ on this CPU, interrupts off, as one step under
 * jiffies_lock: catch jiffies up at the old rate, remap every wheel to the
 * new one, and from the last old boundary count new periods.  jiffies
 * keeps its value and stays monotonic.  Another CPU catching jiffies up in
 * between would be counted twice (once at the old rate, then again from
 * the boundary restored here: jiffies ahead of the clocksource for good,
 * and wheel timers early), so none can: it waits for the lock.  The wheel
 * locks are taken inside this one; nothing takes jiffies_lock under a
 * wheel lock.  (tick_set_hz restarts the device and tells the others.) */
void tick_jiffies_change_rate(struct tick_cpu *tc, uint64_t now, unsigned hz)
{
	spin_lock(&jiffies_lock);
	jiffies_advance_locked(now);
	struct remap_ctx c = { jiffies, tc->period_ns, tick_period_for(hz) };
	timer_wheel_remap(jiffies, remap_expiry, &c);
	jiffies_period_ns = c.new_period;
	tc->last_jiffy_ns = jiffies_last_ns;
	WRITE_ONCE(tc->hz, hz);
	tick_hz = hz;
	tc->period_ns = c.new_period;
	spin_unlock(&jiffies_lock);
}

