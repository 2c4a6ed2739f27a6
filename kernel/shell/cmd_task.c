/* kernel/shell/cmd_task.c — tasks from the shell: spawn, ps, kill, slice
 * (include/task.h; docs/tasks.md). */
#include "shell/commands.h"
#include "shell/args.h"
#include "shell/shell.h"
#include "arch/smp.h"
#include "kprintf.h"
#include "kstring.h"
#include "task.h"
#include "time/jiffies.h"

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
