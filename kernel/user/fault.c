/* kernel/user/fault.c — `spawn fault KIND`: a task that misbehaves on
 * purpose, so that isolation can be seen and tested (docs/tasks.md).
 * Each kind but bad-syscall is killed by the kernel with one line naming
 * the task, the cause and the EIP; bad-syscall makes calls with bad
 * arguments and prints what each returned (an error, never a crash). */
#include "ulib.h"

extern char __kernel_start[];           /* linker.ld: kernel memory, not ours */

static void say(const char *what, int32_t rc)
{
	u_puts("fault bad-syscall: ");
	u_puts(what);
	u_puts(rc < 0 ? " -> -" : " -> ");
	u_put_u64((uint64_t)(rc < 0 ? -(int64_t)rc : rc));
	u_puts("\n");
}

/* Deeper until the stack runs into its guard page (the depth comes from
 * the caller, so the compiler cannot see that it never ends). */
static int recurse(int n, int limit)
{
	volatile char pad[256];
	pad[0] = (char)n;
	return n == limit ? pad[0] : recurse(n + 1, limit) + pad[0];
}

int fault_main(const char *args);
int fault_main(const char *args)
{
	char kind[24];
	u_word(args, kind, sizeof(kind));
	volatile uint32_t *kernel = (volatile uint32_t *)(uint32_t)__kernel_start;
	if (u_streq(kind, "kernel-read")) {
		return (int)*kernel;
	} else if (u_streq(kind, "kernel-write")) {
		*kernel = 0;
	} else if (u_streq(kind, "privileged")) {
		__asm__ __volatile__("cli");
	} else if (u_streq(kind, "divide")) {
		/* DIV itself: GCC turns `1 / x` into a comparison, no division. */
		uint32_t lo = 1, hi = 0, zero = 0;
		__asm__ __volatile__("divl %2" : "+a"(lo), "+d"(hi) : "r"(zero));
		return (int)lo;
	} else if (u_streq(kind, "stack")) {
		return recurse(0, -1);
	} else if (u_streq(kind, "bad-syscall")) {
		say("unknown number 999", syscall2(999, 0, 0));
		say("write from kernel memory", sys_write((const char *)kernel, 16));
		say("write of 1 GiB", sys_write("x", 1u << 30));
		say("clock into kernel memory", syscall2(SYS_CLOCK, (uint32_t)kernel, 0));
		say("clock at a wrapping address", syscall2(SYS_CLOCK, 0xfffffffcu, 0));
		say("sleep for a negative time", syscall2(SYS_SLEEP, 0, 0x80000000u));
		say("sleep until a negative time", syscall2(SYS_SLEEP_UNTIL, 0, 0xffffffffu));
		say("times into kernel memory", syscall2(SYS_TIMES, (uint32_t)kernel, 0));
		return 0;
	} else {
		u_puts("usage: spawn fault kernel-read|kernel-write|privileged|divide|stack|bad-syscall\n");
		return 2;
	}
	u_puts("fault: still alive after misbehaving: the kernel missed it\n");
	return 1;
}
