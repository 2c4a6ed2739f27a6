/* include/shell/shell.h — the serial/keyboard shell and its command table.
 *
 * Every command is one entry in the table in kernel/shell/commands.c: its name,
 * its usage line, one line of help, and the function that runs it.  A
 * handler parses its arguments strictly and returns one of:
 *   0             done (a change of state ends with one line saying what
 *                 it is now and what it was, read back after the change);
 *   SHELL_USAGE   the words were malformed (wrong count, not a number, out
 *                 of range, unknown keyword): the shell prints
 *                 "usage: NAME USAGE" and the handler prints nothing;
 *   -errno        the request was well-formed but refused or failed: the
 *                 handler has printed its own "error: ..." line saying why
 *                 (shell_error() names the code where it has no better
 *                 words), and the shell adds no usage line (-EINTR: Ctrl-C,
 *                 the shell says so).
 */
#ifndef LULL_SHELL_H
#define LULL_SHELL_H

#include "compiler.h"
#include "errno.h"

#define SHELL_PROMPT "lull> "
/* Not an errno (errno.h's codes are all below 100), so that a refusal
 * returning -EINVAL is never mistaken for malformed words. */
#define SHELL_USAGE  (-1000)

struct shell_command {
	const char *name;
	const char *usage;          /* arguments, e.g. "[NAME]", or "MS(0..86400000)":
	                               each number's range, from RANGE() (commands.h) */
	const char *help;           /* one line */
	int (*run)(int argc, char **argv);
};

extern const struct shell_command shell_commands[];
extern const unsigned shell_command_count;

/* The table's entry named `name`, or NULL. */
const struct shell_command *shell_find_command(const char *name);
/* Run one line as if typed: split it into words and call its command. */
void shell_execute(char *line);

/* A handler's error line for a -errno it has no better words for, naming
 * the code, never its number: "error: WHAT: ENOSYS (not implemented)" (a
 * lab's stub).  Nothing for 0 or -EINTR (the shell says ^C).  Returns rc. */
int shell_error(const char *what, int rc);
/* The same after sleep_ns() failed, where -ENOSPC means no free hrtimer
 * slot, and says so. */
int shell_sleep_error(const char *what, int rc);
__noreturn void shell_run(void);
/* run=: its commands, then power off; returns at once without run=
 * (kernel/shell/run.c). */
void shell_run_boot_commands(void);

#endif
