/* kernel/programs.c — the built-in programs `spawn` can start
 * (include/task.h; docs/tasks.md, "Programs"). */
#include "task.h"

int hog_main(const char *args);
int fault_main(const char *args);
int regs_main(const char *args);
int cheat_main(const char *args);
int media_main(const char *args);
int interactive_main(const char *args);
int sysfuzz_main(const char *args);
int sysbench_main(const char *args);

const struct user_program user_programs[] = {
	{ "hog", "[SECONDS(1..3600)]", "a CPU-bound loop: iterations per second of its own CPU time", hog_main },
	{ "fault", "kernel-read|kernel-write|privileged|divide|stack|bad-syscall",
	  "misbehaves on purpose: killed with one line, or errors for bad system call arguments", fault_main },
	{ "regs", "[ROUNDS(1..1000000)]", "checks that every register survives its preemptions", regs_main },
	{ "cheat", "PERCENT(1..95) [SECONDS(1..3600)]",
	  "works PERCENT of each jiffy and sleeps across every tick: precise against tick-sampled", cheat_main },
	{ "media", "PERIOD_US WORK_US sleep|hrsleep|spin [FRAMES]",
	  "a frame every PERIOD_US: how late each frame starts, and the CPU waiting cost", media_main },
	{ "interactive", "[PERIOD_MS(1..10000)] [WAKES(1..1000)]",
	  "sleeps and is woken beside other tasks: how long each wake waits for the CPU", interactive_main },
	{ "sysfuzz", "[CALLS(1..100000)] [SEED]",
	  "random system calls with bad arguments: each answer an error the call may give", sysfuzz_main },
	{ "sysbench", "[CALLS(1..1000000)]", "what a system call costs by int 0x80 and by sysenter", sysbench_main },
};
const unsigned user_program_count = ARRAY_SIZE(user_programs);
