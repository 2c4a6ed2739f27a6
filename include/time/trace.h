/* include/time/trace.h — a fixed buffer of timer events for `trace`.
 *
 * While recording, the tick code notes every tick-device interrupt and every
 * idle entry (with the sleep it programmed) and exit (with what woke it).
 * `trace SECONDS` prints the buffer as CSV for tools/plot. */
#ifndef LULL_TIME_TRACE_H
#define LULL_TIME_TRACE_H

#include "wakeups.h"

#define TRACE_MAX_EVENTS 8192

enum trace_kind { TRACE_TIMER_IRQ, TRACE_IDLE_ENTER, TRACE_IDLE_EXIT };

struct trace_event {
	uint64_t t_ns;
	uint8_t kind;           /* enum trace_kind */
	uint8_t cause;          /* enter: enum tick_limit; exit: enum wakeup_kind */
	uint16_t vector;        /* exit by an IRQ: its vector */
	uint32_t skip;          /* enter: ticks programmed (0: tick kept running) */
	uint64_t sleep_ns;      /* enter: how long the device was programmed for */
	const char *name;       /* the timer that chose or ended the sleep */
};

struct trace_buffer {
	bool on;
	unsigned count;
	unsigned dropped;
	struct trace_event ev[TRACE_MAX_EVENTS];
};

extern struct trace_buffer trace_buf;

void trace_start(void);
void trace_stop(void);
static inline bool trace_on(void) { return trace_buf.on; }
void trace_add(const struct trace_event *e);

#endif
