/* kernel/shell/cmd_slack.c — `slack`: the default timer slack, the window
 * a timer that names no class gets (a PERCENT of how far ahead it is
 * armed, or exact: include/time/slack.h), and whether due timers ride on
 * any wakeup (piggybacking).  `timerload` (cmd_timerload.c) measures what
 * both buy.  A change ends with one line read back from the time core:
 * what it is now, and what it was (or that nothing changed). */
#include "kprintf.h"
#include "kstring.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "time/slack.h"

/* "exact" or "10%": a default slack of `pct` percent. */
static void say_percent(unsigned pct)
{
	if (pct)
		kprintf("%u%%", pct);
	else
		kprintf("exact");
}

/* slack piggyback on|off */
static int slack_piggyback(const char *word)
{
	bool was = timer_piggyback;
	if (strcmp(word, "on") == 0)
		timer_piggyback = true;
	else if (strcmp(word, "off") == 0)
		timer_piggyback = false;
	else
		return SHELL_USAGE;
	kprintf("slack: piggyback %s", timer_piggyback ? "on" : "off");
	if (timer_piggyback == was)
		kprintf(" (unchanged)\n");
	else
		kprintf(" (was %s)\n", was ? "on" : "off");
	return 0;
}

/* slack [exact|PERCENT|default|piggyback on|off] */
int cmd_slack(int argc, char **argv)
{
	if (argc == 1) {
		kprintf("slack: default ");
		say_percent(timer_slack_percent);
		kprintf(" (at boot ");
		say_percent(timer_slack_boot_percent);
		kprintf("), piggyback %s\n", timer_piggyback ? "on" : "off");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "piggyback") == 0)
		return slack_piggyback(argv[2]);
	if (argc != 2)
		return SHELL_USAGE;
	enum timer_class c;
	unsigned pct, was = timer_slack_percent;
	if (strcmp(argv[1], "default") == 0)
		pct = timer_slack_boot_percent;
	else if (timer_class_parse(argv[1], &c, &pct) != 0 ||
	         (c != TIMER_CLASS_EXACT && c != TIMER_CLASS_PERCENT))
		return SHELL_USAGE;
	timer_slack_percent = pct;
	kprintf("slack: default ");
	say_percent(timer_slack_percent);
	kprintf(" for timers armed from now on (");
	if (timer_slack_percent == was) {
		kprintf("unchanged)\n");
	} else {
		kprintf("was ");
		say_percent(was);
		kprintf(")\n");
	}
	return 0;
}
