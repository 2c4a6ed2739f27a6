/* kernel/time/trace.c — record timer events into a fixed buffer (no
 * allocation, safe from interrupt context: the tick code adds events with
 * interrupts off).  A full buffer keeps the oldest events and counts the
 * rest, remembering when it filled, so `trace` can say how much of the
 * window it holds.
 *
 * Every CPU's tick code adds to the one buffer, and two CPUs may add at the
 * same moment: without the lock both would read the same count and write
 * the same slot, losing an event.  The lock is taken with interrupts off
 * (include/spinlock.h says why). */
#include "spinlock.h"
#include "time/arch.h"
#include "time/trace.h"

struct trace_buffer trace_buf;
static spinlock_t trace_lock = SPINLOCK_INIT;

void trace_start(uint64_t now)
{
	unsigned long f = spin_lock_irqsave(&trace_lock);
	trace_buf.count = trace_buf.dropped = 0;
	trace_buf.start_ns = now;
	trace_buf.full_ns = 0;
	trace_buf.on = true;
	spin_unlock_irqrestore(&trace_lock, f);
}

void trace_stop(void)
{
	/* Under the lock: a CPU inside trace_add() finishes first. */
	unsigned long f = spin_lock_irqsave(&trace_lock);
	trace_buf.on = false;
	spin_unlock_irqrestore(&trace_lock, f);
}

/* The buffer's lock held: keep the event, or count it as dropped. */
static void trace_add_locked(const struct trace_event *e, unsigned cpu)
{
	if (trace_buf.count == TRACE_MAX_EVENTS) {
		if (trace_buf.dropped++ == 0)
			trace_buf.full_ns = e->t_ns;
		return;
	}
	struct trace_event *slot = &trace_buf.ev[trace_buf.count++];
	*slot = *e;
	slot->cpu = (uint8_t)cpu;
}

void trace_add_on(const struct trace_event *e, unsigned cpu)
{
	unsigned long f = spin_lock_irqsave(&trace_lock);
	if (trace_buf.on)
		trace_add_locked(e, cpu);
	spin_unlock_irqrestore(&trace_lock, f);
}

void trace_add(const struct trace_event *e) { trace_add_on(e, arch_this_cpu_id()); }
