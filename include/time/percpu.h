/* include/time/percpu.h — the time core's state on each CPU.
 *
 * Each CPU has its own tick, its own timer wheel and hrtimer heap (the
 * timers that fire there) and its own wakeup counts.  The time core keeps
 * them itself, one struct time_cpu per CPU, found by CPU number
 * (arch_this_cpu_id() for this one): the CPU's own structure (struct cpu,
 * include/arch/smp.h) knows nothing of timers, and the host unit tests
 * use these very arrays with threads standing for CPUs.
 *
 * Who writes which field is said at each structure (tick.h, timer.h,
 * hrtimer.h, wakeups.h): mostly the CPU itself, and other CPUs only
 * under the structure's lock or with atomic operations.
 */
#ifndef LULL_TIME_PERCPU_H
#define LULL_TIME_PERCPU_H

#include "arch.h"
#include "hrtimer.h"
#include "tick.h"
#include "timer.h"
#include "wakeups.h"

/* As many CPUs as any machine lull runs on (include/arch/smp.h's NR_CPUS
 * may not be more; kernel/arch/time.c checks). */
#define TIME_MAX_CPUS 8

struct time_cpu {
	struct tick_cpu tick;           /* its tick (tick.h) */
	struct timer_base timers;       /* its timer wheel: timers that fire here */
	struct hrtimer_base hrtimers;   /* its hrtimer heap */
	struct wakeup_cpu wakeups;      /* why it woke (`wakeups`, `idle`, `cpus`) */
};

/* CPU `cpu`'s.  Inline, and unchecked: the interrupt path asks for this
 * CPU's several times per interrupt, and every caller has a CPU number
 * below arch_nr_cpus() (kernel/arch/time.c asserts NR_CPUS fits). */
extern struct time_cpu time_cpus[TIME_MAX_CPUS];
static inline struct time_cpu *time_cpu(unsigned cpu) { return &time_cpus[cpu]; }

static inline struct tick_cpu *time_tick_of(unsigned cpu) { return &time_cpu(cpu)->tick; }
static inline struct timer_base *time_timer_base(unsigned cpu) { return &time_cpu(cpu)->timers; }
static inline struct hrtimer_base *time_hrtimer_base(unsigned cpu) { return &time_cpu(cpu)->hrtimers; }
static inline struct wakeup_cpu *time_wakeups_of(unsigned cpu) { return &time_cpu(cpu)->wakeups; }

/* This CPU's tick (declared in tick.h). */
static inline struct tick_cpu *this_tick(void) { return time_tick_of(arch_this_cpu_id()); }

#endif
