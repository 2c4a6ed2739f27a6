/* include/time/trace.h — a fixed buffer of timer events for `trace`.
 *
 * While recording, the tick code notes every tick-device interrupt and every
 * idle entry (with the sleep it programmed) and exit (with what woke it).
 * `trace SECONDS` prints the buffer as CSV (bench/plots.py draws it).
 *
 * How big, and how long.  An idle CPU in periodic mode costs three events a
 * tick (idle entry, the tick's interrupt, idle exit), the densest trace the
 * timers make.  The buffer holds TRACE_MAX_S seconds of that at HZ=250, the
 * default, with room to spare for other interrupts.  At HZ=1000 it fills
 * after 2.7 s; later events are counted as dropped, and `trace` says when it
 * filled.  Why not a bigger buffer: each event is printed as a CSV line of
 * about 32 bytes over a 115200-baud serial port (11.5 KB/s), so a full
 * buffer already takes over 20 s to print on a real PC, and ten seconds of
 * timer events is more than anyone reads or plots (`make bench` traces 2 s).
 * With several CPUs the events of all of them share the buffer, each marked
 * with the CPU that added it: periodic on 4 CPUs fills it 4 times as fast
 * (2.7 s at HZ=250), still more than the 2 s `make bench` traces.
 */
#ifndef LULL_TIME_TRACE_H
#define LULL_TIME_TRACE_H

#include "wakeups.h"

#define TRACE_MAX_EVENTS      8192
#define TRACE_MAX_S           10        /* the longest `trace` accepted (no suffix:
                                           the shell's usage line spells it) */
#define TRACE_EVENTS_PER_TICK 3         /* periodic, idle: enter, interrupt, exit */
#define TRACE_SIZED_FOR_HZ    250       /* the default HZ, as in Linux 2.6.13 */
_Static_assert(TRACE_MAX_S * TRACE_EVENTS_PER_TICK * TRACE_SIZED_FOR_HZ <= TRACE_MAX_EVENTS,
               "a periodic trace of TRACE_MAX_S at the default HZ must fit the buffer");

/* TRACE_SWITCH: a CPU switched to another task (kernel/task.c), or, with
 * cause TRACE_SWITCH_AT_START, ran this task when recording started. */
enum trace_kind { TRACE_TIMER_IRQ, TRACE_IDLE_ENTER, TRACE_IDLE_EXIT, TRACE_SWITCH };
#define TRACE_SWITCH_AT_START 1

struct trace_event {
	uint64_t t_ns;
	uint8_t kind;           /* enum trace_kind */
	uint8_t cause;          /* enter: enum tick_limit; exit: enum wakeup_kind; switch: above */
	uint8_t cpu;            /* the CPU that added it (set by trace_add) */
	uint16_t vector;        /* exit by an IRQ: its vector */
	uint32_t skip;          /* enter: ticks programmed (0: tick kept running); switch: task id */
	uint64_t sleep_ns;      /* enter: how long the device was programmed for */
	const char *name;       /* the timer that chose or ended the sleep; switch: the task's */
};

/* Any CPU's tick code may add an event at any time, so the buffer has a
 * lock (kernel/time/trace.c); trace_on() alone is read without it. */
struct trace_buffer {
	bool on;
	bool switches;          /* TRACE_SWITCH events too (`trace SECONDS tasks`): set before
	                           trace_start; a switch on an idle CPU 0 comes twice a tick
	                           (the shell looks at its input after every interrupt) */
	unsigned count;
	unsigned dropped;       /* events that came after the buffer was full */
	uint64_t start_ns;      /* when recording started */
	uint64_t full_ns;       /* dropped > 0: the time of the first dropped event */
	struct trace_event ev[TRACE_MAX_EVENTS];
};

extern struct trace_buffer trace_buf;

/* Empty the buffer and record from `now` (the clocksource's time). */
void trace_start(uint64_t now);
/* Once it returns, no CPU adds to the buffer: it can be read unlocked. */
void trace_stop(void);
static inline bool trace_on(void) { return trace_buf.on; }
/* Record a copy of *e, marked with this CPU's index (arch_this_cpu_id). */
void trace_add(const struct trace_event *e);
/* The same, marked as CPU `cpu`'s: what another CPU was doing. */
void trace_add_on(const struct trace_event *e, unsigned cpu);

#endif
