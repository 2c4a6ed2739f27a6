/* include/idle.h — how code waits: by idling the CPU until something
 * happens, never by spinning.
 *
 * wait_event(cond) returns once cond is true.  It checks cond with
 * interrupts off, and only then halts (cpu_idle() re-enables interrupts and
 * halts in one step), so a wakeup that sets cond between the check and the
 * halt cannot be missed.  cpu_idle() is the single idle path: the tick code
 * decides there how long the CPU may sleep (kernel/idle.c).
 */
#ifndef LULL_IDLE_H
#define LULL_IDLE_H

#include "compiler.h"
#include "arch/x86.h"

/* Called with interrupts off; returns with them on, after at least one
 * interrupt has been handled (or at once if one was pending). */
void cpu_idle(void);

/* `inject late-wakeup`: (late_ns 0 disarms) CPU `cpu`'s next sleep ends `late_ns` after its
 * device's deadline, as when a host deschedules the virtual CPU: it stays
 * away with interrupts off until then, and the interrupt waiting for it is
 * taken late.  The next skip after that one is recorded (idle_late_report);
 * in periodic mode there is none, and only the late wakeup is. */
void idle_inject_late(unsigned cpu, uint64_t late_ns);
struct idle_late_report {
	bool done;              /* both sleeps happened */
	uint64_t deadline_ns;   /* the late sleep's deadline */
	uint64_t woke_ns;       /* when it was let go */
	uint64_t next_wake_ns;  /* when the next skip was programmed to end */
	unsigned ticks_between; /* tick-long sleeps before that skip */
};
void idle_late_report(struct idle_late_report *out);

/* `inject idle-race`: CPU `cpu`'s next idle entry first waits, interrupts
 * off, until its tick device's current deadline has passed, and only then
 * programs its sleep: the race an idle entry loses when the deadline falls
 * inside it.  The old deadline's interrupt is then pending at the halt;
 * cpu_idle must take it before halting and give the sleep up rather than
 * halt and wake at once.  The report (which disarms) says what happened. */
void idle_inject_race(unsigned cpu);
struct idle_race_report {
	bool done;              /* the armed idle entry happened */
	bool given_up;          /* an interrupt came before the halt: no halt */
};
void idle_race_report(struct idle_race_report *out);

#define wait_event(cond)                                \
	do {                                            \
		for (;;) {                              \
			cli();                          \
			if (cond) {                     \
				sti();                  \
				break;                  \
			}                               \
			cpu_idle();                     \
		}                                       \
	} while (0)

#endif
