/* kernel/shell/shell.c — read a line, find the command, run it, repeat.
 *
 * Bytes come from the console's input ring (serial and keyboard alike) and go
 * through the line editor (kernel/shell/lineedit.c).  While waiting for a key
 * the CPU idles in wait_event(), so an idle shell costs no CPU time.
 *
 * The boot option run= gives commands to run at the first prompt, before
 * any input, and powers off after the last: a measurement that starts at an instant the guest alone
 * defines, which is what makes two runs under QEMU's -icount print the
 * same to the last digit (typed input arrives whenever the host sends it).
 */
#include "shell/shell.h"
#include "shell/args.h"
#include "console.h"
#include "idle.h"
#include "kprintf.h"
#include "kstring.h"
#include "shell/lineedit.h"
#include "cmdline.h"
#include "errno.h"
#include "power.h"

static struct lineedit editor;

/* run="CMD; CMD...": commands for the first prompt, then power off, so a
 * script gets one serial log per boot and QEMU exits by itself.  The boot
 * command line keeps spaces inside quotes (kernel/lib/cmdline.c); without
 * quotes, ',' stands for a space: run=latency,2000,1000;idle,10 */
#define RUN_SEPARATOR   ';'
#define RUN_SPACE       ','
static char autorun[CMDLINE_MAX];

static int run_option(const char *value)
{
	if (!value || strlen(value) >= sizeof(autorun))
		return -EINVAL;
	size_t i = 0;
	for (; value[i]; i++)
		autorun[i] = value[i] == RUN_SPACE ? ' ' : value[i];
	autorun[i] = '\0';
	return 0;
}
BOOT_OPTION("run", run_option, "commands to run at boot, then power off: run=\"idle 5; wakeups\"");

/* Each command of run=, shown after a prompt as if typed; then power off. */
static void run_boot_commands(void)
{
	static char line[LINEEDIT_MAX + 1];
	if (!autorun[0])
		return;
	for (char *cmd = autorun; *cmd;) {
		while (*cmd == ' ')
			cmd++;
		char *end = strchr(cmd, RUN_SEPARATOR);
		size_t n = end ? (size_t)(end - cmd) : strlen(cmd);
		if (n > LINEEDIT_MAX) {
			kprintf("error: run=: a command longer than %u characters, skipped\n", LINEEDIT_MAX);
		} else if (n > 0) {
			memcpy(line, cmd, n);
			line[n] = '\0';
			kprintf("%s%s\n", SHELL_PROMPT, line);
			shell_execute(line);
		}
		cmd += n + (end ? 1 : 0);
	}
	kprintf("run: done, powering off\n");
	machine_poweroff();
}

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
	run_boot_commands();
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
