/* kernel/time/trace.c — record timer events into a fixed buffer (no
 * allocation, safe from interrupt context: only the tick code, with
 * interrupts off, adds events).  A full buffer keeps the oldest events and
 * counts the rest, remembering when it filled, so `trace` can say how much
 * of the window it holds. */
#include "time/arch.h"
#include "time/trace.h"

struct trace_buffer trace_buf;

void trace_start(uint64_t now)
{
	unsigned long f = arch_irq_save();
	trace_buf.count = trace_buf.dropped = 0;
	trace_buf.start_ns = now;
	trace_buf.full_ns = 0;
	trace_buf.on = true;
	arch_irq_restore(f);
}

void trace_stop(void)
{
	trace_buf.on = false;
}

void trace_add(const struct trace_event *e)
{
	if (!trace_buf.on)
		return;
	if (trace_buf.count == TRACE_MAX_EVENTS) {
		if (trace_buf.dropped++ == 0)
			trace_buf.full_ns = e->t_ns;
		return;
	}
	trace_buf.ev[trace_buf.count++] = *e;
}
