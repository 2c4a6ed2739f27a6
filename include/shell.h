/* include/shell.h — the serial/keyboard shell and its command table.
 *
 * Every command is one entry in the table in kernel/commands.c: its name,
 * its usage line, one line of help, and the function that runs it.  A
 * handler parses its arguments strictly and returns 0, SHELL_USAGE (the
 * shell prints "usage: NAME USAGE"), or another negative errno after printing
 * its own "error: ..." line.
 */
#ifndef LULL_SHELL_H
#define LULL_SHELL_H

#include "compiler.h"
#include "errno.h"

#define SHELL_PROMPT "lull> "
#define SHELL_USAGE  (-EINVAL)

struct shell_command {
	const char *name;
	const char *usage;          /* arguments, e.g. "MS" or "[NAME]" */
	const char *help;           /* one line */
	int (*run)(int argc, char **argv);
};

extern const struct shell_command shell_commands[];
extern const unsigned shell_command_count;

/* Run one line as if typed (used by the shell loop and boot option run=). */
void shell_execute(char *line);
__noreturn void shell_run(void);

#endif
