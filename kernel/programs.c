/* kernel/programs.c — the built-in programs `spawn` can start
 * (include/task.h; docs/tasks.md, "Programs"). */
#include "task.h"

int hog_main(const char *args);
int fault_main(const char *args);

const struct user_program user_programs[] = {
	{ "hog", "[SECONDS(1..3600)]", "a CPU-bound loop: iterations per second of its own CPU time", hog_main },
	{ "fault", "kernel-read|kernel-write|privileged|divide|stack|bad-syscall",
	  "misbehaves on purpose: killed with one line, or errors for bad system call arguments", fault_main },
};
const unsigned user_program_count = ARRAY_SIZE(user_programs);
