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
/* The same, for whoever waits: the idle task halts (cpu_idle); any other
 * task gives the CPU up until the next interrupt on it (task_wait_irq,
 * kernel/task.c), so other tasks run while it waits. */
void task_wait_irq(void);

#define wait_event(cond)                                \
	do {                                            \
		for (;;) {                              \
			cli();                          \
			if (cond) {                     \
				sti();                  \
				break;                  \
			}                               \
			task_wait_irq();                \
		}                                       \
	} while (0)

#endif
