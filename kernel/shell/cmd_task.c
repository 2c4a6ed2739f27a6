/* kernel/shell/cmd_task.c — tasks from the shell: spawn, ps, top, kill,
 * slice, preempt (include/task.h; docs/tasks.md). */
#include "shell/commands.h"
#include "shell/args.h"
#include "shell/shell.h"
#include "arch/smp.h"
#include "kprintf.h"
#include "kstring.h"
#include "task.h"
#include "sleep.h"
#include "time/jiffies.h"
#include "time/timekeeping.h"

/* spawn PROGRAM [ARGS] [cpu N]: at most four words for the program (media
 * takes four), so a line of more words is a usage error, as for every
 * command. */
#define SPAWN_MAX_WORDS 8

int cmd_spawn(int argc, char **argv)
{
	if (argc < 2 || argc > SPAWN_MAX_WORDS)
		return SHELL_USAGE;
	const struct user_program *prog = user_program_find(argv[1]);
	if (!prog) {
		kprintf("error: spawn: no program '%s' (programs:", argv[1]);
		for (unsigned i = 0; i < user_program_count; i++)
			kprintf(" %s", user_programs[i].name);
		kprintf(")\n");
		return -ENOENT;
	}
	uint32_t cpu = 0;
	int last = argc;
	if (argc >= 4 && strcmp(argv[argc - 2], "cpu") == 0) {
		if (parse_u32(argv[argc - 1], 0, NR_CPUS - 1, &cpu) != 0)
			return SHELL_USAGE;
		if (cpu >= cpus_online) {
			kprintf("error: spawn: no CPU %u (%u online)\n", cpu, cpus_online);
			return -EINVAL;
		}
		last = argc - 2;
	}
	if (last - 2 > SPAWN_MAX_WORDS - 4)
		return SHELL_USAGE;
	char args[TASK_ARGS_MAX] = "";
	size_t used = 0;
	for (int i = 2; i < last; i++) {
		size_t n = strlen(argv[i]);
		if (used + n + (used ? 1 : 0) >= sizeof(args)) {
			kprintf("error: spawn: arguments longer than %u bytes\n", TASK_ARGS_MAX - 1);
			return -E2BIG;
		}
		if (used)
			args[used++] = ' ';
		memcpy(args + used, argv[i], n + 1);
		used += n;
	}
	int id = task_spawn(prog, args, cpu);
	if (id < 0)
		return shell_error("spawn", id);
	kprintf("task %d: %s%s%s on CPU %u\n", id, prog->name, args[0] ? " " : "", args, cpu);
	return 0;
}

int cmd_ps(int argc, char **argv)
{
	UNUSED(argv);
	if (argc != 1)
		return SHELL_USAGE;
	task_print_all();
	kprintf("(user/sys ms: precise, the clock read at each switch and kernel entry; "
	        "user/sys tk: jiffies the tick charged; slice %u jiffies at HZ=%u)\n",
	        sched_slice_ticks(), tick_hz);
	return 0;
}

int cmd_kill(int argc, char **argv)
{
	uint32_t id;
	if (argc != 2 || parse_u32(argv[1], 0, UINT32_MAX, &id) != 0)
		return SHELL_USAGE;
	int rc = task_kill(id);
	if (rc == -ESRCH) {
		kprintf("error: kill: no task %u (see ps)\n", id);
		return rc;
	}
	if (rc == -EPERM) {
		kprintf("error: kill: task %u is the kernel's (the shell or an idle task)\n", id);
		return rc;
	}
	if (rc < 0)
		return shell_error("kill", rc);
	kprintf("task %u: killed\n", id);
	return 0;
}

int cmd_slice(int argc, char **argv)
{
	uint32_t ms;
	if (argc == 1) {
		kprintf("slice: %u jiffies (%u ms at HZ=%u)\n", sched_slice_ticks(),
		        sched_slice_ticks() * 1000 / tick_hz, tick_hz);
		return 0;
	}
	if (argc != 2 || parse_u32(argv[1], SLICE_MIN_MS, SLICE_MAX_MS, &ms) != 0)
		return SHELL_USAGE;
	unsigned was = sched_slice_ticks();
	int rc = sched_set_slice_ms(ms);
	if (rc < 0) {
		kprintf("error: slice: %u ms is under one jiffy at HZ=%u\n", ms, tick_hz);
		return rc;
	}
	kprintf("slice: %u jiffies (%u ms at HZ=%u) ", sched_slice_ticks(),
	        sched_slice_ticks() * 1000 / tick_hz, tick_hz);
	if (was == sched_slice_ticks())
		kprintf("(unchanged)\n");
	else
		kprintf("(was %u jiffies)\n", was);
	return 0;
}

int cmd_preempt(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "on") != 0 && strcmp(argv[1], "off") != 0))
		return SHELL_USAGE;
	bool was = sched_wake_preempts();
	if (argc == 2)
		sched_set_wake_preempts(strcmp(argv[1], "on") == 0);
	bool on = sched_wake_preempts();
	kprintf("preempt: %s (%s)", on ? "on" : "off",
	        on ? "a woken task takes the CPU from a task in ring 3 at once"
	           : "a woken task waits at the tail of its CPU's queue");
	if (argc == 2)
		kprintf(" %s", was == on ? "(unchanged)" : on ? "(was off)" : "(was on)");
	kprintf("\n");
	return 0;
}

/* ------------------------------------------------------------ top */

#define TOP_MAX_ROWS    (TASK_MAX + NR_CPUS + 1)
#define TOP_INTERVAL_NS 1000000000ull

/* The percentage part/whole with one decimal, into s. */
static const char *percent(char *s, unsigned size, uint64_t part, uint64_t whole)
{
	return fmt_fixed(s, size, whole ? part * 1000 / whole : 0, 1);
}

static const struct task_sample *find_sample(const struct task_sample *v, unsigned n, unsigned id, unsigned cpu)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i].id == id && v[i].cpu == cpu)
			return &v[i];
	return NULL;
}

/* One table: each task's share of the interval, precise and as the tick
 * billed it (a task born during it counts from zero). */
static void top_table(const struct task_sample *a, unsigned na, const struct task_sample *b, unsigned nb,
                      uint64_t interval_ns, uint32_t interval_jiffies)
{
	char s1[FMT_FIXED_SIZE], s2[FMT_FIXED_SIZE], s3[FMT_FIXED_SIZE];
	kprintf("top: %s s at HZ=%u (CPU %%: precise, and as the tick billed it)\n",
	        fmt_fixed(s1, sizeof(s1), interval_ns / 10000000, 2), tick_hz);
	kprintf("  id  cpu  name         state     precise     tick\n");
	for (unsigned i = 0; i < nb; i++) {
		const struct task_sample *was = find_sample(a, na, b[i].id, b[i].cpu);
		/* Never below zero: a reading of the running task's time rounds
		 * to the nanosecond apart from the one at its next switch. */
		uint64_t ns = was && was->cpu_ns > b[i].cpu_ns ? 0 : b[i].cpu_ns - (was ? was->cpu_ns : 0);
		uint64_t ticks = was && was->ticks > b[i].ticks ? 0 : b[i].ticks - (was ? was->ticks : 0);
		kprintf("%4u  %3u  %-12s %-9s %7s  %7s\n", b[i].id, b[i].cpu, b[i].name,
		        task_state_name(b[i].state), percent(s2, sizeof(s2), ns, interval_ns),
		        percent(s3, sizeof(s3), ticks, interval_jiffies));
	}
}

int cmd_top(int argc, char **argv)
{
	uint32_t seconds = TOP_DEFAULT_S;
	if (argc > 2 || (argc == 2 && parse_u32(argv[1], 1, TOP_MAX_S, &seconds) != 0))
		return SHELL_USAGE;
	static struct task_sample rows[2][TOP_MAX_ROWS];       /* the shell's alone: one top at a time */
	unsigned n[2], cur = 0;
	n[cur] = task_sample_all(rows[cur], TOP_MAX_ROWS);
	uint64_t t0 = ktime_get_ns();
	uint32_t j0 = jiffies;
	for (uint32_t k = 0; k < seconds; k++) {
		int rc = sleep_ns(TOP_INTERVAL_NS);
		unsigned prev = cur;
		cur ^= 1;
		n[cur] = task_sample_all(rows[cur], TOP_MAX_ROWS);
		uint64_t t1 = ktime_get_ns();
		uint32_t j1 = jiffies;
		top_table(rows[prev], n[prev], rows[cur], n[cur], t1 - t0, j1 - j0);
		t0 = t1;
		j0 = j1;
		if (rc == -EINTR)
			break;                  /* Ctrl-C: the interval so far, then stop */
	}
	return 0;
}
