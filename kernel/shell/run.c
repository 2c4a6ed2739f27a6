/* kernel/shell/run.c — scripted boots: run= and its guest-time deadline.
 *
 * The boot option run= gives commands to run at the first prompt, before
 * any input, and powers off after the last: a measurement that starts at
 * an instant the guest alone defines, which is what makes two runs under
 * QEMU's -icount print the same to the last digit (typed input arrives
 * whenever the host sends it).
 *
 * deadline=S bounds such a boot in guest time: if the commands have not
 * all finished S seconds after boot (ktime), an hrtimer prints which
 * command was running and powers off.  A test or a grader then reports a
 * hang by what the kernel was doing, in the same guest seconds on every
 * host, instead of waiting out a host-time limit whose meaning depends on
 * how busy the host is (tests/labs/conftest.py: GUEST_DEADLINE_S).  A
 * kernel hung with interrupts off cannot take the timer: the host's limit
 * stays behind this one as a backstop.
 */
#include "shell/shell.h"
#include "shell/args.h"
#include "cmdline.h"
#include "kprintf.h"
#include "kstring.h"
#include "power.h"
#include "shell/lineedit.h"
#include "time/hrtimer.h"
#include "time/timekeeping.h"

/* run="CMD; CMD...": commands for the first prompt, then power off, so a
 * script gets one serial log per boot and QEMU exits by itself.  The boot
 * command line keeps spaces inside quotes (kernel/lib/cmdline.c); without
 * quotes, ',' stands for a space: run=latency,2000,1000;idle,10 */
#define RUN_SEPARATOR   ';'
#define RUN_SPACE       ','
#define RUN_DEADLINE_MAX_S 3600         /* deadline=S: at most an hour */

static char autorun[CMDLINE_MAX];
static uint32_t deadline_s;             /* 0: none */
static char running[LINEEDIT_MAX + 1];  /* the command deadline_passed names */

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

static int deadline_option(const char *value)
{
	if (!value || parse_u32(value, 1, RUN_DEADLINE_MAX_S, &deadline_s) != 0)
		return -EINVAL;
	return 0;
}
BOOT_OPTION("deadline", deadline_option, "with run=: power off if the commands still run S s (guest time) after boot");

static enum hrtimer_restart deadline_passed(struct hrtimer *t)
{
	UNUSED(t);
	kprintf("\nrun: deadline of %u s (guest time) passed while running '%s'; powering off\n",
	        deadline_s, running[0] ? running : "(between commands)");
	machine_poweroff();
}

/* Each command of run=, shown after a prompt as if typed; then power off. */
void shell_run_boot_commands(void)
{
	static char line[LINEEDIT_MAX + 1];
	static struct hrtimer deadline;
	if (!autorun[0])
		return;
	if (deadline_s) {
		hrtimer_init(&deadline, deadline_passed, "run-deadline");
		hrtimer_start(&deadline, (uint64_t)deadline_s * NSEC_PER_SEC);
	}
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
			memcpy(running, line, n + 1);
			shell_execute(line);
			running[0] = '\0';
		}
		cmd += n + (end ? 1 : 0);
	}
	kprintf("run: done, powering off\n");
	machine_poweroff();
}
