/* kernel/user/hog.c — `spawn hog [SECONDS]`: a CPU-bound loop, the work a
 * tick steals from (docs/tasks.md, "Programs").
 *
 * It counts iterations of a loop that touches nothing but registers.
 * With SECONDS it stops once it has had that much CPU time (user and
 * system, precise) and prints its iterations per second of its own CPU
 * time: the throughput left after the tick's interrupts and the other
 * tasks' slices.  Without, it runs until killed and says nothing.
 */
#include "ulib.h"

#define CHECK_EVERY (1u << 20)          /* iterations between looks at its own CPU time */

int hog_main(const char *args);
int hog_main(const char *args)
{
	int ok;
	uint64_t seconds = u_parse_u64(args, 0, &ok);
	if (args[0] && (!ok || seconds == 0 || seconds > 3600)) {
		u_puts("usage: spawn hog [SECONDS(1..3600)]\n");
		return 2;
	}
	uint64_t want_ns = seconds * 1000000000ull, iterations = 0;
	struct task_times t;
	for (;;) {
		for (volatile uint32_t i = 0; i < CHECK_EVERY; i++)
			;
		iterations += CHECK_EVERY;
		if (!seconds)
			continue;
		sys_times(&t);
		uint64_t cpu = t.user_ns + t.system_ns;
		if (cpu >= want_ns) {
			uint64_t ms = u_div64(cpu, 1000000, 0);
			u_puts("hog: ");
			u_put_u64(iterations);
			u_puts(" iterations in ");
			u_put_u64(ms);
			u_puts(" ms of CPU: ");
			u_put_u64(u_div64(iterations * 1000, ms ? ms : 1, 0));
			u_puts(" per s\n");
			return 0;
		}
	}
}
