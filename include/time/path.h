/* include/time/path.h — where the time goes between a timer's deadline
 * and its callback: the timer interrupt's path, stage by stage.
 *
 * Each stage ends with a stamp of the CPU's cycle counter (arch_cycles(),
 * the TSC on x86) at a fixed point of the path:
 *
 *   stage           ends when                     where
 *   entry           the first C code runs         kernel/arch/trap.c
 *   guard           the stack guard is checked    kernel/arch/trap.c
 *   irq enter       a stopped tick is restarted   kernel/arch/irq.c
 *   handler         the device's handler is done  kernel/arch/irq.c
 *                   (tick: clocksource, timekeeping, jiffies)
 *   eoi             the interrupt is acknowledged kernel/arch/irq.c
 *   hrtimers        an hrtimer's callback starts  kernel/time/hrtimer.c
 *   callbacks       every due hrtimer has run     kernel/time/tick.c
 *   wheel           the timer wheel ran           kernel/time/tick.c
 *   reprogram       the next event is programmed  kernel/time/tick.c
 *   watchdog        the clocksource watchdog ran  kernel/time/tick.c
 *   exit            the guard is checked again    kernel/arch/trap.c
 *
 * A path is counted only when an hrtimer callback ran in it (the latency a
 * waiter sees ends at "hrtimers"), and only at the outermost interrupt: an
 * interrupt taken while timers run with interrupts on stamps nothing.  A
 * stage the path did not pass (no watchdog on another CPU) counts 0.
 * Under QEMU's -icount shift=4 the TSC counts 1 GHz of guest time, 16 ns
 * per instruction, so each stage's figure is its instruction count x 16.
 *
 * Off (the default) every stamp is one load and a branch.  The shell's
 * `latency COUNT PERIOD_US breakdown` turns it on around a run.
 */
#ifndef LULL_TIME_PATH_H
#define LULL_TIME_PATH_H

#include "../compiler.h"

enum path_stage {
	PATH_ENTRY, PATH_GUARD, PATH_IRQ_ENTER, PATH_HANDLER, PATH_EOI, PATH_HRTIMERS,
	PATH_CALLBACKS, PATH_WHEEL, PATH_REPROGRAM, PATH_WATCHDOG, PATH_EXIT, PATH_STAGES
};

/* One CPU's stamps of the path in progress (in struct tick_cpu). */
struct path_cpu {
	uint64_t stamp[PATH_STAGES];    /* 0: not passed */
	unsigned depth;                 /* interrupts nested on this CPU */
	bool callback;                  /* an hrtimer callback ran in this path */
	/* Completed paths: how many, and each stage's cycles summed; and the
	 * stages of the slowest from entry to the callback. */
	uint64_t paths, cycles[PATH_STAGES];
	uint64_t slowest[PATH_STAGES], slowest_to_callback;
};

extern bool path_on;

void path_record(enum path_stage s);
static inline void path_stamp(enum path_stage s)
{
	if (unlikely(path_on))
		path_record(s);
}

/* Start counting on every CPU from zero (path_on must be off). */
void path_reset(void);
/* The name a stage is printed with. */
const char *path_stage_name(enum path_stage s);
/* CPU `cpu`'s completed paths, each stage's summed cycles, and each stage's
 * cycles in the path slowest from entry to the callback. */
uint64_t path_totals(unsigned cpu, uint64_t cycles[PATH_STAGES], uint64_t slowest[PATH_STAGES]);

#endif
