/* kernel/user/interactive.c — `spawn interactive [PERIOD_MS] [WAKES]`: a
 * task that sleeps and is woken while others run on its CPU, and reports
 * how long each wake waited for the CPU (docs/tasks.md, "Programs").
 *
 * Each round it sleeps until an absolute time on an hrtimer
 * (SYS_SLEEP_UNTIL), PERIOD_MS after the last, and reads the clock as soon
 * as it runs again: the difference is the timer path (a few us alone) plus
 * the wait for the CPU (a wake before its time is counted as early).
 * With hogs beside it, that wait is the scheduler's
 * rule: a woken task takes the CPU from ring 3 at once (`preempt on`, the
 * default), or waits at the tail of its CPU's queue for every task ahead of
 * it to use its slice (`preempt off`): what a finer time slice buys.
 */
#include "ulib.h"

#define PERIOD_MS_DEFAULT 10
#define WAKES_DEFAULT     100
#define WAKES_MAX         1000

int interactive_main(const char *args);
int interactive_main(const char *args)
{
	int ok1 = 1, ok2 = 1;
	const char *rest = args;
	uint64_t period_ms = PERIOD_MS_DEFAULT, wakes = WAKES_DEFAULT;
	if (args[0])
		period_ms = u_parse_u64(args, &rest, &ok1);
	if (ok1 && rest[0])
		wakes = u_parse_u64(rest, &rest, &ok2);
	if (!ok1 || !ok2 || rest[0] || period_ms < 1 || period_ms > 10000 || wakes < 1 || wakes > WAKES_MAX) {
		u_puts("usage: spawn interactive [PERIOD_MS(1..10000)] [WAKES(1..1000)]\n");
		return 2;
	}
	uint32_t wait_ns[WAKES_MAX];            /* on its own stack: tasks share one address space */
	uint64_t due = sys_clock(), early = 0;
	for (unsigned k = 0; k < wakes; k++) {
		due += period_ms * 1000000;
		sys_sleep_until(due);
		uint64_t now = sys_clock();
		early += now < due;             /* a sleep must never end before it was asked to */
		wait_ns[k] = now > due ? (uint32_t)(now - due) : 0;
	}
	u_puts("interactive: ");
	u_put_u64(wakes);
	u_puts(" wakes every ");
	u_put_u64(period_ms);
	u_puts(" ms on CPU ");
	u_put_u64((uint64_t)sys_getcpu());
	u_puts(", timer to running: ");
	u_put_p50_p99_max(wait_ns, (unsigned)wakes);
	u_puts("; ");
	u_put_u64(early);
	u_puts(" early\n");
	return 0;
}
