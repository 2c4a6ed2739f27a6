/* kernel/syscall.c — the system calls tasks make with `int 0x80`
 * (include/user/syscall.h; docs/tasks.md, "System calls").
 *
 * Every argument comes from ring 3 and is checked before use: a pointer
 * must lie inside what the task may touch (the programs' pages and its
 * own stack: task_user_range_ok), a time must not be negative, a length
 * must be bounded.  A bad argument is an error code in EAX, never a fault
 * in the kernel.  The call runs with interrupts on, on the task's kernel
 * stack, and may sleep.
 */
#include "task.h"
#include "arch/smp.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include "console.h"
#include "errno.h"
#include "time/jiffies.h"
#include "time/timekeeping.h"

#define WRITE_MAX       4096            /* bytes per SYS_WRITE */
#define SLEEP_MAX_TICKS 0x7fffffffu     /* the wheel's range (include/time/timer.h) */

static uint64_t arg64(uint32_t lo, uint32_t hi) { return (uint64_t)hi << 32 | lo; }

static int32_t sys_write(uint32_t buf, uint32_t len)
{
	if (len > WRITE_MAX)
		return -EINVAL;
	if (!task_user_range_ok(buf, len))
		return -EFAULT;
	/* A line at a time, whole: another CPU's task's line never lands in
	 * the middle of this one (the programs write a line in pieces). */
	struct task *t = task_current();
	const char *s = (const char *)buf;
	for (uint32_t i = 0; i < len; i++) {
		t->out[t->out_len++] = s[i];
		if (s[i] == '\n' || t->out_len == sizeof(t->out))
			task_flush_output(t);
	}
	return (int32_t)len;
}

/* As Linux's msleep: whole jiffies, rounded up, and one more, because the
 * jiffy now running is already partly gone: never early. */
static int32_t sys_sleep(uint64_t ns)
{
	if ((int64_t)ns < 0)
		return -EINVAL;
	uint64_t period = NSEC_PER_SEC / tick_hz;
	uint64_t ticks = (ns + period - 1) / period + 1;
	if (ticks > SLEEP_MAX_TICKS)
		return -EINVAL;
	return task_sleep_ticks((uint32_t)ticks);
}

static int32_t sys_sleep_until(uint64_t ns)
{
	if ((int64_t)ns < 0)
		return -EINVAL;
	if (ns <= ktime_get_ns())
		return 0;
	return task_sleep_until_ns(ns);
}

static int32_t sys_clock(uint32_t ptr)
{
	if (!task_user_range_ok(ptr, sizeof(uint64_t)))
		return -EFAULT;
	*(uint64_t *)ptr = ktime_get_ns();
	return 0;
}

static int32_t sys_times(uint32_t ptr)
{
	if (!task_user_range_ok(ptr, sizeof(struct task_times)))
		return -EFAULT;
	task_times(task_current(), (struct task_times *)ptr);
	return 0;
}

void syscall_dispatch(struct trapframe *tf)
{
	int32_t ret;
	sti();
	switch (tf->eax) {
	case SYS_WRITE:       ret = sys_write(tf->ebx, tf->ecx); break;
	case SYS_EXIT:        task_exit((int)tf->ebx);
	case SYS_YIELD:       task_yield(); ret = 0; break;
	case SYS_GETCPU:      ret = (int32_t)this_cpu()->index; break;
	case SYS_CLOCK:       ret = sys_clock(tf->ebx); break;
	case SYS_SLEEP:       ret = sys_sleep(arg64(tf->ebx, tf->ecx)); break;
	case SYS_SLEEP_UNTIL: ret = sys_sleep_until(arg64(tf->ebx, tf->ecx)); break;
	case SYS_TIMES:       ret = sys_times(tf->ebx); break;
	case SYS_TICK_HZ:     ret = (int32_t)tick_hz; break;
	default:              ret = -ENOSYS; break;
	}
	cli();
	tf->eax = (uint32_t)ret;
}
