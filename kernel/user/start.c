/* kernel/user/start.c — where every user task starts, in ring 3: the
 * scheduler's first frame (kernel/task.c, task_spawn) puts the program's
 * main in EAX and its argument string in EBX; main's return value is the
 * task's exit code. */
#include "ulib.h"

void user_start(int (*main)(const char *args), const char *args);
__attribute__((noreturn, used)) void user_start(int (*main)(const char *args), const char *args)
{
	sys_exit(main(args));
}

__asm__(".text\n"
	".globl user_entry\n"
	"user_entry:\n\t"
	"push %ebx\n\t"
	"push %eax\n\t"
	"call user_start\n");
