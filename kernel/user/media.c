/* kernel/user/media.c — `spawn media PERIOD_US WORK_US sleep|hrsleep|spin
 * [FRAMES]`: a frame loop that wants to run every PERIOD_US, the
 * "multimedia-oriented application" of the 2005 article (docs/tasks.md,
 * "Programs").
 *
 * Frame k is due at start + k * PERIOD_US.  It works WORK_US by the clock,
 * then waits for frame k + 1 in one of three ways:
 *   sleep    the jiffy-rounded sleep (SYS_SLEEP, as msleep): late by up to
 *            a jiffy or two, the tick's resolution;
 *   hrsleep  the absolute hrtimer sleep (SYS_SLEEP_UNTIL): late only by
 *            the timer path's latency;
 *   spin     sleeps the whole jiffies it can, then busy-waits the rest, as
 *            the article says such programs must below the tick's
 *            resolution: on time, for the CPU it burns.
 * At the end: each frame's lateness (when it started running, less when
 * it was due) as p50 / p99 / max in us, and the CPU share it used.
 */
#include "ulib.h"

#define FRAMES_DEFAULT  200
#define FRAMES_MAX      1000

/* Until the next frame is due, in the way `mode` says. */
static void wait_for(int mode, uint64_t next, uint64_t jiffy_ns)
{
	uint64_t now = sys_clock();
	if (now >= next)
		return;                 /* late already: the next frame at once */
	if (mode == 0) {
		sys_sleep(next - now);
	} else if (mode == 1) {
		sys_sleep_until(next);
	} else {
		/* Whole jiffies it can sleep and still wake before next:
		 * SYS_SLEEP adds one, for the jiffy already begun. */
		uint64_t whole = u_div64(next - now, jiffy_ns, 0);
		if (whole >= 2)
			sys_sleep((whole - 2) * jiffy_ns + 1);
		while (sys_clock() < next)
			;
	}
}

int media_main(const char *args);
int media_main(const char *args)
{
	int ok1, ok2, ok3;
	const char *rest;
	char how[16];
	uint64_t period = u_parse_u64(args, &rest, &ok1);
	uint64_t work = u_parse_u64(rest, &rest, &ok2);
	rest = u_word(rest, how, sizeof(how));
	uint64_t frames = u_parse_u64(rest, 0, &ok3);
	int mode = u_streq(how, "sleep") ? 0 : u_streq(how, "hrsleep") ? 1 : u_streq(how, "spin") ? 2 : -1;
	if (!ok1 || !ok2 || mode < 0 || period < 100 || period > 1000000 || work >= period ||
	    (rest[0] && (!ok3 || frames < 1 || frames > FRAMES_MAX))) {
		u_puts("usage: spawn media PERIOD_US(100..1000000) WORK_US(0..PERIOD_US-1) sleep|hrsleep|spin "
		       "[FRAMES(1..1000)]\n");
		return 2;
	}
	if (!ok3)
		frames = FRAMES_DEFAULT;
	uint32_t late_ns[FRAMES_MAX];           /* on its own stack: tasks share one address space */
	uint64_t jiffy_ns = u_div64(1000000000ull, (uint64_t)sys_tick_hz(), 0);
	uint64_t period_ns = period * 1000, work_ns = work * 1000;
	struct task_times before, after;
	sys_times(&before);
	uint64_t start = sys_clock() + period_ns;
	sys_sleep_until(start);
	for (unsigned k = 0; k < frames; k++) {
		uint64_t due = start + k * period_ns, now = sys_clock();
		late_ns[k] = now > due ? (uint32_t)(now - due) : 0;
		while (sys_clock() - now < work_ns)
			;
		wait_for(mode, due + period_ns, jiffy_ns);
	}
	sys_times(&after);
	uint64_t elapsed = sys_clock() - start;
	uint64_t cpu = after.user_ns + after.system_ns - before.user_ns - before.system_ns;
	u_puts("media ");
	u_put_u64(period);
	u_puts(" us ");
	u_puts(how);
	u_puts(": ");
	u_put_u64(frames);
	u_puts(" frames, late ");
	u_put_p50_p99_max(late_ns, (unsigned)frames);
	u_puts("; CPU ");
	u_put_u64(u_div64(cpu * 1000, elapsed, 0));
	u_puts(" permille\n");
	return 0;
}
