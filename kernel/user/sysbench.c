/* kernel/user/sysbench.c — `spawn sysbench [CALLS]`: what a system call
 * costs by each way into the kernel (docs/tasks.md, "System calls").
 *
 * CALLS calls of getcpu, the cheapest call there is (the null system call
 * of lmbench, as getppid is on Linux), by `int 0x80` and then by SYSENTER
 * where the CPU has it, each timed by the clock around the whole batch:
 * ns per call, entry, the call itself and the way back included.  Under
 * -icount that is 16 ns an instruction, the same every run.
 */
#include "ulib.h"

#define CALLS_DEFAULT 10000
#define CALLS_MAX     1000000

static void say(const char *how, uint64_t ns, uint64_t calls)
{
	u_puts(how);
	u_put_u64(u_div64(ns, calls, 0));
	u_puts(" ns a call");
}

int sysbench_main(const char *args);
int sysbench_main(const char *args)
{
	int ok = 1;
	uint64_t calls = CALLS_DEFAULT;
	const char *rest = args;
	if (args[0])
		calls = u_parse_u64(args, &rest, &ok);
	if (!ok || rest[0] || calls < 1 || calls > CALLS_MAX) {
		u_puts("usage: spawn sysbench [CALLS(1..1000000)]\n");
		return 2;
	}
	uint64_t t0 = sys_clock();
	for (uint64_t i = 0; i < calls; i++)
		syscall5(SYS_GETCPU, 0, 0, 0, 0, 0);
	uint64_t t1 = sys_clock();
	u_puts("sysbench: ");
	u_put_u64(calls);
	u_puts(" getcpu calls: ");
	say("int 0x80 ", t1 - t0, calls);
	if (u_sysenter_ok) {
		/* The same answers by either way in, before timing it. */
		int32_t cpu = syscall5(SYS_GETCPU, 0, 0, 0, 0, 0);
		if (u_sysenter(SYS_GETCPU, 0, 0, 0, 0, 0) != cpu || u_sysenter(SYS_COUNT, 0, 0, 0, 0, 0) != -38 ||
		    u_sysenter(SYS_WRITE, (uint32_t)"", 0, 0, 0, 0) != 0) {
			u_puts("\nsysbench: sysenter's answers differ from int 0x80's\n");
			return 1;
		}
		t0 = sys_clock();
		for (uint64_t i = 0; i < calls; i++)
			u_sysenter(SYS_GETCPU, 0, 0, 0, 0, 0);
		t1 = sys_clock();
		say(", sysenter ", t1 - t0, calls);
	} else {
		u_puts(", sysenter: not on this CPU");
	}
	u_puts("\n");
	return 0;
}
