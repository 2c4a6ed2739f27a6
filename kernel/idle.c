/* kernel/idle.c — the one idle path (include/idle.h).
 *
 * Everything lull does to save wakeups happens in the two tick calls around
 * the halt: tick_idle_enter() decides how long the CPU may sleep and programs
 * the timer for it; the interrupt that ends the sleep catches time up
 * (tick_irq_enter in kernel/arch/irq.c); tick_idle_exit() accounts for it.
 */
#include "idle.h"
#include "arch/smp.h"
#include "time/tick.h"
#include "time/timekeeping.h"

/* `inject late-wakeup`: which CPU, how late, and what happened. */
static struct {
	volatile int cpu;               /* -1: none armed */
	uint64_t late_ns;
	int stage;                      /* 0 armed, 1 late sleep done (then disarmed
	                                   when the next skip is recorded) */
	struct idle_late_report r;
} late = { .cpu = -1 };

void idle_inject_late(unsigned cpu, uint64_t late_ns)
{
	uint32_t f = irq_save();
	late.late_ns = late_ns;
	late.stage = 0;
	late.r = (struct idle_late_report){ 0 };
	late.cpu = late_ns ? (int)cpu : -1;     /* 0 disarms */
	irq_restore(f);
}

void idle_late_report(struct idle_late_report *out)
{
	uint32_t f = irq_save();
	*out = late.r;
	irq_restore(f);
}

/* Interrupts off, the sleep just programmed: play the descheduled vCPU for
 * the armed CPU's first sleep, and note the length of the sleep after. */
static void idle_late_hook(struct cpu *c)
{
	if (late.cpu != (int)c->index)
		return;
	bool skipping;
	uint64_t wake = tick_idle_wake_ns(&skipping);
	if (late.stage == 0) {
		late.r.deadline_ns = wake;
		while (ktime_get_ns() < wake + late.late_ns)
			;               /* away: the device fires, nobody answers */
		late.r.woke_ns = ktime_get_ns();
		late.stage = 1;
	} else if (skipping) {
		late.r.next_wake_ns = wake;
		late.r.done = true;
		late.cpu = -1;
	} else {
		late.r.ticks_between++;  /* a tick-long sleep first (dyntick's rule) */
	}
}

void cpu_idle(void)
{
	struct cpu *c = this_cpu();
	tick_idle_enter();      /* interrupts are off: nothing can slip in */
	idle_late_hook(c);
	c->state = CPU_IDLE;
	sti_hlt();              /* sleep until an interrupt (handled inside) */
	cli();
	c->state = CPU_BUSY;
	tick_idle_exit();
	sti();
}
