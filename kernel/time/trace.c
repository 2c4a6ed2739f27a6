/* kernel/time/trace.c — record timer events into a fixed buffer (no
 * allocation, safe from interrupt context: only the tick code, with
 * interrupts off, adds events). */
#include "time/arch.h"
#include "time/trace.h"

struct trace_buffer trace_buf;

void trace_start(void)
{
	unsigned long f = arch_irq_save();
	trace_buf.count = trace_buf.dropped = 0;
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
		trace_buf.dropped++;
		return;
	}
	trace_buf.ev[trace_buf.count++] = *e;
}
