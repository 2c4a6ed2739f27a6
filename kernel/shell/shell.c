/* kernel/shell/shell.c — read a line, find the command, run it, repeat.
 *
 * Bytes come from the console's input ring (serial and keyboard alike) and go
 * through the line editor (kernel/shell/lineedit.c).  While waiting for a key
 * the CPU idles in wait_event(), so an idle shell costs no CPU time.
 *
 * Before the first prompt, kmain runs the boot option run='s commands
 * (kernel/shell/run.c), which power off after the last.
 */
#include "shell/shell.h"
#include "shell/args.h"
#include "console.h"
#include "idle.h"
#include "kprintf.h"
#include "kstring.h"
#include "shell/lineedit.h"
#include "errno.h"

static struct lineedit editor;

static void echo(const char *s, size_t n, void *ctx)
{
	UNUSED(ctx);
	console_write(s, n);
}

const struct shell_command *shell_find_command(const char *name)
{
	for (unsigned i = 0; i < shell_command_count; i++)
		if (strcmp(shell_commands[i].name, name) == 0)
			return &shell_commands[i];
	return NULL;
}

void shell_execute(char *line)
{
	char *argv[ARGS_MAX];
	int argc = args_split(line, argv, ARGS_MAX);
	if (argc < 0) {
		kprintf("error: too many arguments (max %d words)\n", ARGS_MAX);
		return;
	}
	if (argc == 0)
		return;
	const struct shell_command *cmd = shell_find_command(argv[0]);
	if (!cmd) {
		kprintf("unknown command: %s (try 'help')\n", argv[0]);
		return;
	}
	console_set_command_running(true);
	int rc = cmd->run(argc, argv);
	bool interrupted = console_interrupted();
	console_set_command_running(false);
	if (rc == SHELL_USAGE)
		kprintf("usage: %s%s%s\n", cmd->name, cmd->usage[0] ? " " : "", cmd->usage);
	else if (rc == -EINTR || interrupted)
		kprintf("^C (interrupted)\n");
}

int shell_error(const char *what, int rc)
{
	if (rc < 0 && rc != -EINTR)
		kprintf("error: %s: %s (%s)\n", what, errno_name(rc), errno_text(rc));
	return rc;
}

int shell_sleep_error(const char *what, int rc)
{
	if (rc == -ENOSPC) {
		kprintf("error: %s: no free hrtimer slot (%s)\n", what, errno_name(rc));
		return rc;
	}
	return shell_error(what, rc);
}

__noreturn void shell_run(void)
{
	static char line[LINEEDIT_MAX + 1];
	lineedit_init(&editor, echo, NULL);
	for (;;) {
		console_puts(SHELL_PROMPT);
		enum lineedit_result r = LE_NONE;
		while (r == LE_NONE) {
			wait_event(console_has_input());
			int c = console_getc();
			if (c >= 0)
				r = lineedit_feed(&editor, (char)c, line);
		}
		if (r == LE_LINE)
			shell_execute(line);
		else if (r == LE_TOO_LONG)
			kprintf("error: line too long (max %u)\n", LINEEDIT_MAX);
	}
}
