/* include/user/syscall.h — the system call interface between tasks and the
 * kernel (kernel/syscall.c; docs/tasks.md, "System calls").
 *
 * A task asks with `int 0x80`: the call's number in EAX, its arguments in
 * EBX, ECX, EDX, ESI, EDI (as Linux on i386), the answer in EAX: >= 0, or
 * a negative errno (include/errno.h).  A 64-bit argument takes two
 * registers, low half first.  This header and errno.h (the numbers the
 * errors are) are the only kernel headers a user program includes
 * (kernel/user/); this one holds nothing but the numbers, the structures
 * the calls fill, and the inline stubs.
 */
#ifndef LULL_USER_SYSCALL_H
#define LULL_USER_SYSCALL_H

#include <stdint.h>

enum syscall_nr {
	SYS_WRITE,              /* (buf, len): write len bytes to the console; len or error */
	SYS_EXIT,               /* (code): end this task; never returns */
	SYS_YIELD,              /* (): let the next runnable task on this CPU run; 0 */
	SYS_GETCPU,             /* (): the CPU this task runs on */
	SYS_CLOCK,              /* (uint64_t *ns): CLOCK_MONOTONIC, ns since boot; 0 */
	SYS_SLEEP,              /* (ns lo, hi): sleep >= ns on the timer wheel, rounded up to jiffies */
	SYS_SLEEP_UNTIL,        /* (ns lo, hi): sleep until CLOCK_MONOTONIC >= ns, on an hrtimer */
	SYS_TIMES,              /* (struct task_times *): this task's CPU time so far; 0 */
	SYS_TICK_HZ,            /* (): HZ, the tick's rate now (a jiffy is 1 s / HZ) */
	SYS_COUNT
};

/* What SYS_TIMES fills: the two accountings (docs/tasks.md). */
struct task_times {
	uint64_t user_ns, system_ns;            /* precise: the clock read at every switch and entry */
	uint64_t user_ticks, system_ticks;      /* sampled: whole jiffies charged by the tick */
	uint64_t switches;                      /* times it was switched in */
};

#ifdef LULL_USER
static inline int32_t syscall5(uint32_t nr, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e)
{
	int32_t ret;
	__asm__ __volatile__("int $0x80" : "=a"(ret)
	                     : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e) : "memory");
	return ret;
}
static inline int32_t syscall2(uint32_t nr, uint32_t a, uint32_t b) { return syscall5(nr, a, b, 0, 0, 0); }

static inline int32_t sys_write(const char *buf, uint32_t len) { return syscall2(SYS_WRITE, (uint32_t)buf, len); }
static inline __attribute__((noreturn)) void sys_exit(int code)
{
	syscall2(SYS_EXIT, (uint32_t)code, 0);
	for (;;)
		;
}
static inline int32_t sys_yield(void) { return syscall2(SYS_YIELD, 0, 0); }
static inline int32_t sys_getcpu(void) { return syscall2(SYS_GETCPU, 0, 0); }
static inline uint64_t sys_clock(void)
{
	uint64_t ns = 0;
	syscall2(SYS_CLOCK, (uint32_t)&ns, 0);
	return ns;
}
static inline int32_t sys_sleep(uint64_t ns) { return syscall2(SYS_SLEEP, (uint32_t)ns, (uint32_t)(ns >> 32)); }
static inline int32_t sys_sleep_until(uint64_t ns)
{
	return syscall2(SYS_SLEEP_UNTIL, (uint32_t)ns, (uint32_t)(ns >> 32));
}
static inline int32_t sys_times(struct task_times *t) { return syscall2(SYS_TIMES, (uint32_t)t, 0); }
static inline int32_t sys_tick_hz(void) { return syscall2(SYS_TICK_HZ, 0, 0); }
#endif

#endif
