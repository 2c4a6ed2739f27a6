/* kernel/user/cheat.c — `spawn cheat PERCENT [SECONDS]`: the attack of
 * Tsafrir, Etsion and Feitelson, "Secretly Monopolizing the CPU Without
 * Superuser Privileges" (USENIX Security 2007), against tick-sampled
 * accounting (docs/tasks.md, "Two accountings").
 *
 * Each jiffy it wakes on the tick (a sleep of zero: until the next jiffy),
 * works until PERCENT of the jiffy has passed by the clock, and sleeps
 * again before the next tick, so the tick, which bills whatever it interrupts, never finds
 * it running.  At the end it prints the share of the CPU it took (its
 * precise time) against the share the tick billed it.
 */
#include "ulib.h"

int cheat_main(const char *args);
int cheat_main(const char *args)
{
	int ok, ok2;
	const char *rest;
	uint64_t percent = u_parse_u64(args, &rest, &ok);
	uint64_t seconds = u_parse_u64(rest, 0, &ok2);
	if (!ok || percent < 1 || percent > 95 || (rest[0] && (!ok2 || seconds < 1 || seconds > 3600))) {
		u_puts("usage: spawn cheat PERCENT(1..95) [SECONDS(1..3600)]\n");
		return 2;
	}
	if (!ok2)
		seconds = 5;
	uint64_t hz = (uint64_t)sys_tick_hz();
	uint64_t jiffy_ns = u_div64(1000000000ull, hz, 0);
	uint64_t work_ns = u_div64(jiffy_ns * percent, 100, 0);
	/* Where the jiffies begin: jiffies are whole periods of the clock
	 * (docs/time.md), so their boundaries keep one phase.  A wake after a
	 * sleep to the next jiffy comes a little after a boundary; the
	 * earliest of a few wakes, modulo the period, is the phase. */
	uint64_t phase = jiffy_ns, rem;
	for (int i = 0; i < 8; i++) {
		sys_sleep(0);
		u_div64(sys_clock(), jiffy_ns, &rem);
		if (rem < phase)
			phase = rem;
	}
	struct task_times before, after;
	sys_sleep(0);                           /* to the tick */
	sys_times(&before);
	uint64_t start = sys_clock(), end = start + seconds * 1000000000ull;
	for (;;) {
		uint64_t woke = sys_clock();
		if (woke >= end)
			break;
		/* Work until PERCENT of this jiffy has gone, counted from its
		 * boundary, not from the wake: the wake is late by the timer
		 * path, and work past the next boundary would meet the tick. */
		u_div64(woke - phase, jiffy_ns, &rem);
		uint64_t until = woke - rem + work_ns;
		while (sys_clock() < until)
			;
		sys_sleep(0);                   /* until the next jiffy begins */
	}
	sys_times(&after);
	uint64_t elapsed = sys_clock() - start;
	uint64_t took = after.user_ns + after.system_ns - before.user_ns - before.system_ns;
	uint64_t billed = (after.user_ticks + after.system_ticks - before.user_ticks - before.system_ticks) *
	                  jiffy_ns;
	u_puts("cheat ");
	u_put_u64(percent);
	u_puts("%: took ");
	u_put_u64(u_div64(took * 1000, elapsed, 0));
	u_puts(" permille of the CPU, billed ");
	u_put_u64(u_div64(billed * 1000, elapsed, 0));
	u_puts(" permille by the tick\n");
	return 0;
}
