/* kernel/task.c — tasks, per-CPU run queues and the scheduler the tick
 * drives (include/task.h; docs/tasks.md).
 *
 * Every CPU has a run queue, a current task and an idle task.  The idle
 * task is the context the CPU booted in (CPU 0's kmain, an AP's ap_main):
 * it runs the idle loop, and the idle loop runs the queue's tasks whenever
 * there are any (sched_run_others), so "idle" keeps its meaning: the CPU
 * halts only when no task is runnable.  The shell is a kernel task on
 * CPU 0; programs are user tasks.
 *
 * When a task switches:
 *   - it waits (wait_event, include/idle.h): runnable again after the
 *     next interrupt on its CPU, which re-checks what it waits for, as the
 *     idle loop's halt did before tasks (sched_irq_exit);
 *   - it sleeps on a timer (the sleep system calls): the timer's callback
 *     wakes it;
 *   - it yields, exits, is killed or faults;
 *   - its time slice ended: each tick takes the jiffies that passed off
 *     the current task's slice (slice_left), and once it is used up and
 *     another task is runnable sets need_resched; the switch happens on
 *     the interrupt's way back to ring 3, and the task goes to the tail
 *     with a new slice.  A task preempted before its slice ended (by a
 *     woken task) goes back to the head, keeping what is left, as 2.6's
 *     O(1) scheduler kept a preempted task at the head of its list.  The kernel is
 *     not preemptible (as Linux 2.6 without CONFIG_PREEMPT): a task in
 *     the kernel runs until it waits, yields or returns to ring 3.
 *   - a woken task preempts a running user task: it goes to the head of
 *     its queue and need_resched is set (the rule 2.6's interactivity
 *     bonus approximated; docs/tasks.md, "Who runs next").
 *
 * The two accountings (docs/tasks.md): precise, the cycle counter read at
 * every switch and at every entry from and return to ring 3; and
 * tick-sampled, each tick charging the jiffies that passed to whatever it
 * interrupted, user or system, as 2.6-era Linux did.
 *
 * Longer than 400 lines: the run queues are private to this file, and the
 * switch, waiting, sleeping, accounting and a task's birth and death all
 * work on them under their lock.
 */
#include "task.h"
#include "runqueue.h"
#include "arch/paging.h"
#include "arch/smp.h"
#include "arch/switch.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include "cmdline.h"
#include "console.h"
#include "errno.h"
#include "idle.h"
#include "kprintf.h"
#include "kstring.h"
#include "panic.h"
#include "spinlock.h"
#include "time/clocksource.h"
#include "time/hrtimer.h"
#include "time/jiffies.h"
#include "time/tick.h"
#include "time/timekeeping.h"
#include "time/timer.h"
#include "time/trace.h"

#define SHELL_STACK_SIZE 16384          /* as the boot stack */
#define BOOT_STACK_SIZE 16384           /* boot/entry.asm KERNEL_STACK_SIZE: CPU 0's idle task's */
#define TASK_ID_SHELL   1
#define TASK_ID_FIRST   2

/* A CPU's queue: the rules on it are kernel/runqueue.c's (the host tests
 * run them); the lock, the idle task and the switch are here.  Each queue
 * is written under its lock by its own CPU and by CPUs that wake or kill
 * its tasks (task_wake, task_kill, task_spawn). */
struct runqueue {
	spinlock_t lock;
	struct rq_core q;
	struct task *dead;              /* exited, its stack still in use until the switch ends */
	struct task idle;
};

static struct runqueue rqs[NR_CPUS];
static struct task tasks[TASK_MAX];
static struct task shell_task;
static uint8_t shell_stack[SHELL_STACK_SIZE] __attribute__((aligned(16)));
static uint8_t kstacks[TASK_MAX][TASK_KSTACK_SIZE] __attribute__((aligned(16)));
/* Each slot: one guard page (kernel-only: a task that runs off its stack
 * faults there), then TASK_USTACK_PAGES the task may use. */
static uint8_t ustacks[TASK_MAX][(TASK_USTACK_PAGES + 1) * PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static spinlock_t tasks_lock = SPINLOCK_INIT;
static unsigned next_id = TASK_ID_FIRST;
static unsigned slice_ticks;
/* `preempt on|off` (rq_wake): written by the shell, read by every CPU's wakes. */
static bool wake_preempt = true;
static bool started;

extern char __user_start[], __user_end[];       /* linker.ld: the programs */
extern char user_entry[];                       /* kernel/user/start.c */

static struct runqueue *this_rq(void) { return &rqs[this_cpu()->index]; }

struct task *task_current(void) { return started ? this_rq()->q.current : NULL; }

/* ------------------------------------------------------------ switching */

/* The context that was switched away from has left its stack: a task that
 * died there can be reused. */
static void finish_switch(void)
{
	struct runqueue *rq = this_rq();
	if (rq->dead) {
		rq->dead->state = TASK_FREE;
		rq->dead = NULL;
	}
}

/* A new user task's first code (kernel/arch/switch.c's arch_user_first). */
void task_first_user(void) { finish_switch(); }

static void switch_to(struct runqueue *rq, struct task *prev, struct task *next)
{
	rq_charge_switch(&rq->q, prev, tsc_or_zero(), jiffies);
	next->switches++;
	struct cpu *c = this_cpu();
	c->stack_guard = next->guard;
	c->stack_top = (uint32_t)next->kstack + next->kstack_size;
	tss_set_kernel_stack(c->index, (uint32_t)next->kstack + next->kstack_size);
	if (next->user)
		tick_work_starts();     /* dyntick: a busy CPU means every CPU ticks */
	if (trace_on() && trace_buf.switches) {
		struct trace_event e = { .t_ns = ktime_get_ns(), .kind = TRACE_SWITCH, .skip = next->id,
		                         .name = next->name };
		trace_add(&e);
	}
	arch_switch(&prev->kesp, next->kesp);
	finish_switch();
}

/* Pick the next task on this CPU and switch to it; interrupts off.  The
 * current task, if still running, goes to the tail of the queue. */
static void schedule(void)
{
	struct runqueue *rq = this_rq();
	struct task *prev = rq->q.current;
	spin_lock(&rq->lock);
	struct task *next = rq_pick_next(&rq->q, slice_ticks);
	spin_unlock(&rq->lock);
	if (next != prev)
		switch_to(rq, prev, next);
}

bool sched_run_others(void)
{
	if (!started || !__atomic_load_n(&this_rq()->q.head, __ATOMIC_RELAXED))
		return false;
	schedule();
	return true;
}

static void task_wake(struct task *t)
{
	struct runqueue *rq = &rqs[t->cpu];
	uint32_t f = irq_save();
	spin_lock(&rq->lock);
	bool woke = rq_wake(&rq->q, t, __atomic_load_n(&wake_preempt, __ATOMIC_RELAXED));
	spin_unlock(&rq->lock);
	irq_restore(f);
	if (woke && t->cpu != this_cpu()->index)
		smp_kick(t->cpu);       /* its idle loop, or its task's return to ring 3, looks */
}

/* From trap_dispatch after every interrupt: this CPU's waiters look again. */
static void sched_irq_exit(void)
{
	if (!started)
		return;
	struct runqueue *rq = this_rq();
	if (!__atomic_load_n(&rq->q.waiting, __ATOMIC_RELAXED))
		return;
	spin_lock(&rq->lock);
	rq_wake_waiters(&rq->q, __atomic_load_n(&wake_preempt, __ATOMIC_RELAXED));
	spin_unlock(&rq->lock);
}

void sched_want_idle(void)
{
	if (!started)
		return;
	struct runqueue *rq = this_rq();
	uint32_t f = irq_save();
	spin_lock(&rq->lock);
	rq_want_idle(&rq->q);
	spin_unlock(&rq->lock);
	irq_restore(f);
}

void task_wait_irq(void)
{
	struct task *t = task_current();
	if (!t || t->idle) {
		cpu_idle();
		return;
	}
	struct runqueue *rq = this_rq();
	spin_lock(&rq->lock);
	t->state = TASK_WAITING;
	t->next = rq->q.waiting;
	rq->q.waiting = t;
	spin_unlock(&rq->lock);
	schedule();
	sti();
}

void task_yield(void)
{
	uint32_t f = irq_save();
	this_rq()->q.current->slice_left = 0;     /* to the tail, behind the others */
	schedule();
	irq_restore(f);
}

/* ------------------------------------------------------------ sleeping */

struct task_sleeper {
	struct timer timer;
	struct hrtimer hr;
	struct task *task;
	volatile bool done;
};

static void sleeper_timer_fired(struct timer *t)
{
	struct task_sleeper *s = container_of(t, struct task_sleeper, timer);
	s->done = true;
	task_wake(s->task);
}

static enum hrtimer_restart sleeper_hr_fired(struct hrtimer *t)
{
	struct task_sleeper *s = container_of(t, struct task_sleeper, hr);
	s->done = true;
	task_wake(s->task);
	return HRTIMER_NORESTART;
}

/* Sleep until s->done or a kill; interrupts off on entry and exit.  The
 * timer was armed on this CPU with interrupts off, so its callback cannot
 * run before the task is marked sleeping. */
static void sleep_until_done(struct task_sleeper *s)
{
	struct runqueue *rq = this_rq();
	while (!s->done && !s->task->killed) {
		spin_lock(&rq->lock);
		s->task->state = TASK_SLEEPING;
		spin_unlock(&rq->lock);
		schedule();
	}
}

int task_sleep_ticks(uint32_t ticks)
{
	struct task_sleeper s = { .task = task_current(), .done = false };
	timer_init(&s.timer, sleeper_timer_fired, "task-sleep");
	uint32_t f = irq_save();
	int rc = timer_mod(&s.timer, jiffies + ticks);
	if (rc == 0)
		sleep_until_done(&s);
	irq_restore(f);
	timer_del_sync(&s.timer);       /* a kill: the frame goes, the timer with it */
	return rc < 0 ? rc : s.done ? 0 : -EINTR;
}

int task_sleep_until_ns(uint64_t ns)
{
	struct task_sleeper s = { .task = task_current(), .done = false };
	hrtimer_init(&s.hr, sleeper_hr_fired, "task-sleep");
	uint32_t f = irq_save();
	int rc = hrtimer_start(&s.hr, ns);
	if (rc == 0)
		sleep_until_done(&s);
	irq_restore(f);
	hrtimer_cancel(&s.hr);
	return rc < 0 ? rc : s.done ? 0 : -EINTR;
}

/* ------------------------------------------------------------ accounting */

void task_enter_from_user(void)
{
	rq_charge_entry(&this_rq()->q, tsc_or_zero());
}

void task_return_to_user(void)
{
	struct runqueue *rq = this_rq();
	if (rq->q.current->killed)
		task_exit(-EINTR);
	if (__atomic_load_n(&rq->q.need_resched, __ATOMIC_RELAXED))     /* a wake on another CPU sets it */
		schedule();
	if (rq->q.current->killed)      /* killed while it waited for the CPU */
		task_exit(-EINTR);
	rq_charge_exit(&rq->q, tsc_or_zero());
}

void task_tick(void)
{
	if (started)
		rq_tick(&this_rq()->q, jiffies, this_cpu()->trap_from_user);
}

static uint64_t cycles_to_ns(uint64_t cycles)
{
	const struct clocksource *tsc = clocksource_lookup("tsc");
	return tsc && tsc->freq_hz ? clocksource_cycles_to_ns(cycles, tsc->freq_hz) : 0;
}

void task_times(const struct task *t, struct task_times *out)
{
	out->user_ns = cycles_to_ns(t->user_cycles);
	out->system_ns = cycles_to_ns(t->sys_cycles);
	out->user_ticks = t->user_ticks;
	out->system_ticks = t->sys_ticks;
	out->switches = t->switches;
}

/* ------------------------------------------------------------ life and death */

static void idle_task_init(struct runqueue *rq, unsigned cpu, uint8_t *stack, uint32_t size)
{
	struct task *t = &rq->idle;
	*t = (struct task){ .id = 0, .idle = true, .cpu = cpu, .state = TASK_RUNNING,
	                    .kstack = stack, .kstack_size = size, .guard = this_cpu()->stack_guard };
	ksnprintf(t->name, sizeof(t->name), "idle%u", cpu);
	rq_init(&rq->q, t, tsc_or_zero(), jiffies);
}

/* A kernel task's first code. */
static __noreturn void kernel_task_start(void)
{
	finish_switch();
	struct task *t = this_rq()->q.current;
	sti();
	t->kfn(t->karg);
	task_exit(0);
}

extern char kernel_stack_bottom[];

/* slice=MS: the time slice from boot, turned into jiffies when the
 * scheduler starts, once every option is read (hz= may come after it). */
static unsigned slice_boot_ms = SLICE_DEFAULT_MS;

static int slice_option(const char *value)
{
	unsigned ms = 0;
	if (!value || !*value)
		return -EINVAL;
	for (const char *p = value; *p; p++) {
		if (*p < '0' || *p > '9' || ms > SLICE_MAX_MS)
			return -EINVAL;
		ms = ms * 10 + (unsigned)(*p - '0');
	}
	if (ms < 1 || ms > SLICE_MAX_MS)
		return -EINVAL;
	slice_boot_ms = ms;
	return 0;
}
BOOT_OPTION("slice", slice_option, "time slice in ms, 1..1000 and at least a jiffy (default 100)");

__noreturn void sched_start(void (*fn)(void *arg), void *arg)
{
	slice_ticks = SLICE_DEFAULT_MS * tick_hz / 1000 ? SLICE_DEFAULT_MS * tick_hz / 1000 : 1;
	if (slice_boot_ms != SLICE_DEFAULT_MS && sched_set_slice_ms(slice_boot_ms) != 0)
		kprintf("slice: %u ms is under one jiffy at HZ=%u: %u ms it is\n", slice_boot_ms, tick_hz,
		        SLICE_DEFAULT_MS);
	if (!paging_allow_user((uint32_t)__user_start, (uint32_t)(__user_end - __user_start)))
		panic("sched_start: the programs at %p..%p are not in 4 KiB pages", __user_start, __user_end);
	for (unsigned i = 0; i < TASK_MAX; i++)
		if (!paging_allow_user((uint32_t)ustacks[i] + PAGE_SIZE, TASK_USTACK_PAGES * PAGE_SIZE))
			panic("sched_start: task stacks are not in 4 KiB pages");
	uint32_t f = irq_save();
	struct runqueue *rq = this_rq();
	idle_task_init(rq, 0, (uint8_t *)kernel_stack_bottom, BOOT_STACK_SIZE);
	struct task *s = &shell_task;
	*s = (struct task){ .id = TASK_ID_SHELL, .cpu = 0, .kfn = fn, .karg = arg,
	                    .kstack = shell_stack, .kstack_size = sizeof(shell_stack),
	                    .started_ns = ktime_get_ns() };
	ksnprintf(s->name, sizeof(s->name), "shell");
	s->guard = stack_guard_init(shell_stack);
	s->slice_left = (int32_t)slice_ticks;
	s->kesp = arch_first_frame_kernel(shell_stack + sizeof(shell_stack), kernel_task_start);
	rq_enqueue(&rq->q, s, false);
	static const struct trap_task_ops ops = {
		.enter_from_user = task_enter_from_user,
		.return_to_user = task_return_to_user, .fault = task_fault,
		.syscall = syscall_dispatch, .irq_exit = sched_irq_exit,
	};
	trap_set_task_ops(&ops);
	tick_set_account_hook(task_tick);
	started = true;
	irq_restore(f);
	for (;;) {
		cli();
		if (!sched_run_others())
			cpu_idle();
		else
			sti();
	}
}

void sched_init_ap(void)
{
	struct cpu *c = this_cpu();
	idle_task_init(&rqs[c->index], c->index, c->stack, CPU_STACK_SIZE);
}

int task_spawn(const struct user_program *prog, const char *args, unsigned cpu)
{
	if (cpu >= cpus_online)
		return -EINVAL;
	size_t len = strlen(args);
	if (len >= TASK_ARGS_MAX)
		return -E2BIG;
	uint32_t f = irq_save();
	spin_lock(&tasks_lock);
	struct task *t = NULL;
	for (unsigned i = 0; i < TASK_MAX && !t; i++)
		if (tasks[i].state == TASK_FREE)
			t = &tasks[i];
	if (t)
		t->state = TASK_DEAD;   /* claimed; not on any queue yet */
	unsigned id = t ? next_id++ : 0;
	spin_unlock(&tasks_lock);
	irq_restore(f);
	if (!t)
		return -EAGAIN;
	unsigned slot = (unsigned)(t - tasks);
	*t = (struct task){ .id = id, .user = true, .cpu = cpu, .state = TASK_DEAD, .ufn = prog->main,
	                    .kstack = kstacks[slot], .kstack_size = TASK_KSTACK_SIZE,
	                    .started_ns = ktime_get_ns() };
	ksnprintf(t->name, sizeof(t->name), "%s", prog->name);
	memcpy(t->args, args, len + 1);
	t->guard = stack_guard_init(t->kstack);
	t->slice_left = (int32_t)slice_ticks;
	t->ustack_lo = (uint32_t)ustacks[slot] + PAGE_SIZE;
	t->ustack_hi = t->ustack_lo + TASK_USTACK_PAGES * PAGE_SIZE;
	/* The arguments at the top of its stack, where it may read them. */
	char *uargs = (char *)t->ustack_hi - TASK_ARGS_MAX;
	memcpy(uargs, args, len + 1);
	uint32_t esp = ((uint32_t)uargs - 16) & ~15u;
	/* kernel/user/start.c's entry takes the program and its arguments in
	 * EAX and EBX. */
	t->kesp = arch_first_frame_user(t->kstack + t->kstack_size, (uint32_t)user_entry, esp,
	                                (uint32_t)prog->main, (uint32_t)uargs);
	struct runqueue *rq = &rqs[cpu];
	f = irq_save();
	spin_lock(&rq->lock);
	rq_enqueue(&rq->q, t, false);
	spin_unlock(&rq->lock);
	irq_restore(f);
	smp_kick(cpu);                  /* (nothing for this CPU: the shell waits next) */
	return (int)id;
}

static struct task *find(unsigned id)
{
	if (shell_task.id == id)
		return &shell_task;
	for (unsigned i = 0; i < TASK_MAX; i++)
		if (tasks[i].state != TASK_FREE && tasks[i].state != TASK_DEAD && tasks[i].id == id)
			return &tasks[i];
	return NULL;
}

int task_kill(unsigned id)
{
	struct task *t = find(id);
	if (!t)
		return -ESRCH;
	if (!t->user)
		return -EPERM;
	struct runqueue *rq = &rqs[t->cpu];
	uint32_t f = irq_save();
	spin_lock(&rq->lock);
	if (t->killed) {
		/* Killed already, and on its way out: a task woken from its
		 * sleep by the first kill still has the sleep's timer armed on
		 * its stack until it runs, so it must not be freed here. */
		spin_unlock(&rq->lock);
		irq_restore(f);
		return 0;
	}
	t->killed = true;
	if (rq_wake(&rq->q, t, true)) {
		/* asleep or waiting: it runs first, and dies on its way out */
	} else if (t->state == TASK_RUNNABLE) {
		/* Off the queue and gone now: it holds nothing. */
		rq_unqueue(&rq->q, t);
		t->state = TASK_FREE;
	}
	spin_unlock(&rq->lock);
	irq_restore(f);
	if (t->cpu != this_cpu()->index)
		smp_kick(t->cpu);       /* running there: its next interrupt ends it */
	return 0;
}

void task_flush_output(struct task *t)
{
	if (t->out_len)
		console_write_whole(t->out, t->out_len);
	t->out_len = 0;
}

__noreturn void task_exit(int code)
{
	cli();
	struct runqueue *rq = this_rq();
	struct task *t = rq->q.current;
	if (t->idle)
		panic("task_exit: CPU %u's idle task cannot exit", t->cpu);
	t->exit_code = code;
	task_flush_output(t);
	rq_charge_exit(&rq->q, tsc_or_zero());
	spin_lock(&rq->lock);
	t->state = TASK_DEAD;
	rq->dead = t;
	spin_unlock(&rq->lock);
	schedule();
	panic("task_exit: task %u ran again after its exit", t->id);
}

static const char *const fault_causes[VEC_EXCEPTIONS] = {
	[0] = "divide error", [1] = "debug trap", [3] = "breakpoint", [4] = "overflow",
	[5] = "bound range", [6] = "invalid opcode", [7] = "no FPU", [11] = "segment not present",
	[12] = "stack segment", [13] = "general protection (a privileged instruction?)",
	[14] = "page fault", [16] = "x87 error", [17] = "alignment check", [19] = "SIMD error",
};

__noreturn void task_fault(unsigned vector, uint32_t eip, uint32_t error, uint32_t addr)
{
	struct task *t = this_rq()->q.current;
	if (t->out_len) {               /* its unfinished line first, ended */
		t->out[t->out_len < sizeof(t->out) ? t->out_len++ : t->out_len - 1] = '\n';
		task_flush_output(t);
	}
	const char *cause = vector < VEC_EXCEPTIONS && fault_causes[vector] ? fault_causes[vector] : "exception";
	if (vector == 14 && addr < t->ustack_lo && addr >= t->ustack_lo - PAGE_SIZE)
		kprintf("task %u (%s): killed: stack overflow (%s at %p, below its stack), EIP %p\n",
		        t->id, t->name, error & 2 ? "write" : "read", (void *)addr, (void *)eip);
	else if (vector == 14)
		kprintf("task %u (%s): killed: page fault (%s of %s memory at %p), EIP %p\n", t->id, t->name,
		        error & 2 ? "write" : "read", error & 1 ? "kernel" : "unmapped", (void *)addr,
		        (void *)eip);
	else
		kprintf("task %u (%s): killed: %s (vector %u), EIP %p\n", t->id, t->name, cause, vector,
		        (void *)eip);
	task_exit(-EFAULT);
}

/* ------------------------------------------------------------ questions */

bool task_user_range_ok(uint32_t addr, uint32_t len)
{
	uint32_t end = addr + len;
	if (end < addr)
		return false;
	if (addr >= (uint32_t)__user_start && end <= (uint32_t)__user_end)
		return true;
	struct task *t = task_current();
	return t && addr >= t->ustack_lo && end <= t->ustack_hi;
}

unsigned sched_slice_ticks(void) { return slice_ticks; }

bool sched_wake_preempts(void) { return __atomic_load_n(&wake_preempt, __ATOMIC_RELAXED); }

void sched_set_wake_preempts(bool on) { __atomic_store_n(&wake_preempt, on, __ATOMIC_RELAXED); }

int sched_set_slice_ms(unsigned ms)
{
	unsigned ticks = ms * tick_hz / 1000;
	if (ticks < SLICE_MIN_TICKS || ticks > SLICE_MAX_TICKS)
		return -ERANGE;
	slice_ticks = ticks;
	return 0;
}

const struct user_program *user_program_find(const char *name)
{
	for (unsigned i = 0; i < user_program_count; i++)
		if (strcmp(user_programs[i].name, name) == 0)
			return &user_programs[i];
	return NULL;
}

/* A 64-bit counter another CPU may be adding to, whole: on i386 its two
 * halves are two loads, so read until two readings agree. */
static uint64_t read_u64(const volatile uint64_t *p)
{
	uint64_t a, b;
	do {
		a = *p;
		b = *p;
	} while (a != b);
	return a;
}

/* One row of `top`: t's CPU time up to now, precise and billed by the
 * tick.  The task a CPU runs (its idle task too) has the time since that
 * CPU's last charge added: a tickless idle CPU charges nothing for as long
 * as it sleeps. */
static void sample(struct task_sample *out, const struct task *t, const struct runqueue *rq,
                   uint64_t cycles, uint64_t ticks)
{
	out->id = t->id;
	out->cpu = t->cpu;
	out->state = t->idle && rq->q.current != t ? TASK_RUNNABLE : t->state;
	memcpy(out->name, t->name, sizeof(out->name));
	if (rq->q.current == t) {
		uint64_t since = tsc_or_zero() - read_u64(&rq->q.stamp);
		cycles += (int64_t)since > 0 ? since : 0;
		ticks += (uint32_t)(jiffies - rq->q.acct_jiffy);
	}
	out->cpu_ns = cycles_to_ns(cycles);
	out->ticks = ticks;
}

static void sample_task(struct task_sample *out, const struct task *t)
{
	sample(out, t, &rqs[t->cpu], read_u64(&t->user_cycles) + read_u64(&t->sys_cycles),
	       read_u64(&t->user_ticks) + read_u64(&t->sys_ticks));
}

const struct task *task_running_on(unsigned cpu)
{
	return cpu < cpus_online ? rqs[cpu].q.current : NULL;
}

unsigned task_sample_all(struct task_sample *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned c = 0; c < cpus_online && n < max; c++) {
		const struct runqueue *rq = &rqs[c];
		if (rq->q.current)
			sample(&out[n++], &rq->idle, rq, read_u64(&rq->q.idle_cycles), read_u64(&rq->q.idle_ticks));
	}
	if (started && n < max)
		sample_task(&out[n++], &shell_task);
	for (unsigned i = 0; i < TASK_MAX && n < max; i++)
		if (tasks[i].state != TASK_FREE && tasks[i].state != TASK_DEAD)
			sample_task(&out[n++], &tasks[i]);
	return n;
}

static const char *const state_names[] = {
	[TASK_FREE] = "free", [TASK_RUNNABLE] = "ready", [TASK_RUNNING] = "running",
	[TASK_WAITING] = "waiting", [TASK_SLEEPING] = "sleeping", [TASK_DEAD] = "dead",
};

const char *task_state_name(enum task_state st) { return state_names[st]; }

static void print_ms(uint64_t ns)
{
	char s[FMT_FIXED_SIZE];
	fmt_fixed(s, sizeof(s), ns / 100000, 1);
	kprintf(" %9s", s);
}

static void print_task(const struct task *t)
{
	struct task_times tt;
	task_times(t, &tt);
	kprintf("%4u  %3u  %-8s %-9s", t->id, t->cpu, t->name, state_names[t->state]);
	print_ms(tt.user_ns);
	print_ms(tt.system_ns);
	kprintf(" %9llu %9llu %8llu  %s\n", (unsigned long long)tt.user_ticks,
	        (unsigned long long)tt.system_ticks, (unsigned long long)t->switches, t->args);
}

void task_print_all(void)
{
	kprintf("  id  cpu  name     state       user ms    sys ms  user tk   sys tk  switches  args\n");
	for (unsigned c = 0; c < cpus_online; c++) {
		struct runqueue *rq = &rqs[c];
		if (!rq->q.current)
			continue;
		kprintf("%4u  %3u  %-8s %-9s", 0u, c, rq->idle.name, rq->q.current == &rq->idle ? "running" : "ready");
		print_ms(cycles_to_ns(rq->q.idle_cycles));
		kprintf(" %9s %9llu %9s %8llu\n", "-", (unsigned long long)rq->q.idle_ticks, "-",
		        (unsigned long long)rq->idle.switches);
	}
	if (started)
		print_task(&shell_task);
	for (unsigned i = 0; i < TASK_MAX; i++)
		if (tasks[i].state != TASK_FREE && tasks[i].state != TASK_DEAD)
			print_task(&tasks[i]);
}
