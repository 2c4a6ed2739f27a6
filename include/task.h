/* include/task.h — tasks and the scheduler the tick drives (kernel/task.c;
 * docs/tasks.md).
 *
 * A task is a thread of execution with its own kernel stack: a user task
 * runs a built-in program (kernel/user/) in ring 3 and enters the kernel
 * only by interrupts and system calls; a kernel task (the shell) runs a
 * kernel function.  Each CPU has its own run queue and its own idle task
 * (the context the CPU booted in), which runs the idle loop whenever the
 * queue is empty.  Scheduling is round robin with a time slice counted in
 * jiffies, ended by the tick; the kernel is not preemptible: a task in the
 * kernel runs until it returns to ring 3, waits or yields.
 */
#ifndef LULL_TASK_H
#define LULL_TASK_H

#include "compiler.h"
#include "user/syscall.h"

#define TASK_MAX            16          /* tasks at once, the shell and every CPU's idle task excluded */
#define TASK_NAME_MAX       16
#define TASK_ARGS_MAX       48
#define TASK_LINE_MAX       160         /* a task's output, held until its line ends */
#define TASK_KSTACK_SIZE    8192        /* a user task's kernel stack (its guard at the bottom) */
#define TASK_USTACK_PAGES   4           /* a user task's stack, 16 KiB, above one guard page */
#define SLICE_DEFAULT_MS    100         /* docs/tasks.md, "The time slice": 2.6's DEF_TIMESLICE */
#define SLICE_MIN_TICKS     1
#define SLICE_MAX_TICKS     1000
#define SLICE_MAX_MS        1000        /* `slice MS` and slice=MS */

enum task_state {
	TASK_FREE,
	TASK_RUNNABLE,          /* on its CPU's run queue */
	TASK_RUNNING,           /* its CPU's current task */
	TASK_WAITING,           /* in wait_event: runnable again at its CPU's next interrupt */
	TASK_SLEEPING,          /* on a timer: its callback makes it runnable */
	TASK_DEAD,              /* exited or killed; its slot is freed once it is off its stack */
};

struct task {
	unsigned id;                    /* 0: a CPU's idle task; 1: the shell; then 2, 3 ... */
	char name[TASK_NAME_MAX];
	char args[TASK_ARGS_MAX];
	volatile enum task_state state;
	bool user;                      /* ring 3 */
	bool idle;                      /* a CPU's idle task */
	volatile bool killed;           /* `kill`: dies at its next way out of the kernel */
	unsigned cpu;
	uint32_t kesp;                  /* its kernel stack pointer while switched out */
	uint8_t *kstack;                /* bottom of its kernel stack */
	uint32_t kstack_size;
	uint32_t *guard;                /* its kernel stack's guard (include/arch/trap.h) */
	uint32_t ustack_lo, ustack_hi;  /* its ring-3 stack; the guard page below ustack_lo */
	struct task *next;              /* on a run queue */
	void (*kfn)(void *arg);         /* a kernel task's function */
	void *karg;
	int (*ufn)(const char *args);   /* a user task's program */
	/* Precise accounting, in TSC cycles; tick-sampled, in jiffies. */
	uint64_t user_cycles, sys_cycles;
	uint64_t user_ticks, sys_ticks;
	uint64_t switches;              /* times it was switched in */
	int32_t slice_left;             /* jiffies left of its time slice */
	uint64_t started_ns;
	int exit_code;
	/* What it wrote since its last line end (sys_write): printed a line
	 * at a time, so lines of tasks on several CPUs do not mix. */
	char out[TASK_LINE_MAX];
	unsigned out_len;
};

/* A user program built into the kernel image (kernel/user/). */
struct user_program {
	const char *name;
	const char *usage;              /* its arguments, for `spawn` and `help spawn` */
	const char *what;               /* one line: what it shows */
	int (*main)(const char *args);  /* runs in ring 3; its return value ends the task */
};
extern const struct user_program user_programs[];
extern const unsigned user_program_count;

/* kmain, once the time core runs: make the boot context CPU 0's idle task,
 * start `fn` as the shell's kernel task, and run CPU 0's idle loop. */
__noreturn void sched_start(void (*fn)(void *arg), void *arg);
/* An AP, once up: its boot context becomes its idle task. */
void sched_init_ap(void);
/* The idle task's question each time round its loop (interrupts off):
 * if this CPU has a runnable task, run them until none is; true if it did. */
bool sched_run_others(void);
/* From an interrupt: this CPU's idle loop has work (a call from another
 * CPU, a tick to follow): run it next, ahead of the tasks. */
void sched_want_idle(void);

/* A user task running prog with args on CPU `cpu`: its id, or -EINVAL (no
 * such CPU), -EAGAIN (TASK_MAX tasks already), -E2BIG (args too long). */
int task_spawn(const struct user_program *prog, const char *args, unsigned cpu);
/* Stop task `id`: 0, -ESRCH (none), -EPERM (the shell or an idle task). */
int task_kill(unsigned id);
const struct user_program *user_program_find(const char *name);

/* The running task's side of a wait (include/idle.h): interrupts off,
 * returns with them off after the next interrupt on this CPU.  The idle
 * task (and a CPU before sched_start) halts instead. */
void task_wait_irq(void);
/* Sleep on the wheel for `ticks` jiffies, or on an hrtimer until `ns` of
 * CLOCK_MONOTONIC: 0, or -EINTR if the task was killed meanwhile. */
int task_sleep_ticks(uint32_t ticks);
int task_sleep_until_ns(uint64_t ns);
void task_yield(void);
__noreturn void task_exit(int code);

/* The scheduler's trap ops (struct trap_task_ops, include/arch/trap.h): a
 * trap from ring 3 arrived / is about to return to ring 3 (precise
 * accounting, preemption, kill). */
void task_enter_from_user(void);
void task_return_to_user(void);
/* A CPU exception in ring 3: one report line, and the task is gone. */
__noreturn void task_fault(unsigned vector, uint32_t eip, uint32_t error, uint32_t addr);
/* The tick on this CPU (tick_set_account_hook): charge the jiffies that
 * passed to what runs; end a time slice. */
void task_tick(void);

struct task *task_current(void);
bool task_user_range_ok(uint32_t addr, uint32_t len);
void task_times(const struct task *t, struct task_times *out);
/* Print what the current task wrote since its last line end (at its exit). */
void task_flush_output(struct task *t);
/* `ps`: one line per task, with both accountings. */
void task_print_all(void);
/* `top`: every task (each CPU's idle task first), its CPU time so far
 * both ways; how many rows were written (at most max). */
struct task_sample {
	unsigned id, cpu;
	char name[TASK_NAME_MAX];
	enum task_state state;
	uint64_t cpu_ns;                /* precise, user and system */
	uint64_t ticks;                 /* jiffies the tick billed it, user and system */
};
unsigned task_sample_all(struct task_sample *out, unsigned max);
/* The task CPU `cpu` runs now (its idle task when idle; NULL before the
 * scheduler starts there): read without its lock, for `trace`. */
const struct task *task_running_on(unsigned cpu);
const char *task_state_name(enum task_state st);
/* kernel/syscall.c: `int 0x80` from ring 3. */
struct trapframe;
void syscall_dispatch(struct trapframe *tf);
unsigned sched_slice_ticks(void);
int sched_set_slice_ms(unsigned ms);
/* `preempt on|off`: whether a woken task takes the CPU from a task in
 * ring 3 at once (kernel/runqueue.c, rq_wake); on at boot. */
bool sched_wake_preempts(void);
void sched_set_wake_preempts(bool on);

#endif
