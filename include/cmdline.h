/* include/cmdline.h — boot options.
 *
 * The loader passes one command line ("/boot/lull.elf hz=100 tick=dyntick").
 * Each option is declared once, next to the code it configures:
 *
 *     static int hz_option(const char *value) { ... return 0 or -EINVAL; }
 *     BOOT_OPTION("hz", hz_option, "tick rate: 100, 250 or 1000");
 *
 * The macro puts a struct boot_option into the `boot_options` section;
 * linker.ld gathers them all between __start_boot_options and
 * __stop_boot_options, so the parser finds every option without a central
 * list to keep in sync.  `value` is NULL for a bare `key`, else the text after
 * '='.  Handlers run early in kmain, before any timer driver, so they check
 * the value and set the subsystem's state, nothing that needs a device:
 * clocksource= and clockevent= copy the name (clocksource= also re-runs the
 * counter choice, which has nothing to choose from yet); dyntick= turns the
 * 2005 dyntick patch's words into a tick mode and a tick device; hz= sets the
 * rate and restarts jiffies near the wrap for it.  Each subsystem acts on
 * what was set at its own init step (kernel/main.c gives the order).
 */
#ifndef LULL_CMDLINE_H
#define LULL_CMDLINE_H

#include "compiler.h"
#include "errno.h"
#include "kstring.h"

struct boot_option {
	const char *name;
	int (*parse)(const char *value);    /* 0, or -EINVAL to warn and ignore */
	const char *help;
};

#define BOOT_OPTION(optname, fn, helptext)                                   \
	static const struct boot_option __boot_option_##fn                     \
	__attribute__((used, section("boot_options"), aligned(4))) =          \
		{ .name = optname, .parse = fn, .help = helptext }

/* A bare word that sets a bool (`floor`); a value (`floor=1`) is refused. */
#define BOOT_FLAG(optname, var, helptext)                                    \
	static int var##_flag(const char *value)                               \
	{                                                                      \
		if (value)                                                     \
			return -EINVAL;                                        \
		var = true;                                                    \
		return 0;                                                      \
	}                                                                      \
	BOOT_OPTION(optname, var##_flag, helptext)

/* A word with a value handed to setter (`clocksource=hpet`); a bare word
 * is refused. */
#define BOOT_VALUE(optname, setter, helptext)                                \
	static int setter##_option(const char *value)                          \
	{                                                                      \
		if (!value)                                                    \
			return -EINVAL;                                        \
		setter(value);                                                 \
		return 0;                                                      \
	}                                                                      \
	BOOT_OPTION(optname, setter##_option, helptext)

#define CMDLINE_MAX        512      /* longer command lines are cut here */
#define CMDLINE_MAX_ARGS    32

/* One parsed word of the command line. */
struct cmdline_arg {
	const char *key;
	const char *value;                  /* NULL for a bare key */
	enum { CMDLINE_OK, CMDLINE_UNKNOWN, CMDLINE_BAD_VALUE, CMDLINE_MALFORMED } status;
};

struct cmdline {
	char text[CMDLINE_MAX];             /* the line as given (cut to fit) */
	char words[CMDLINE_MAX];            /* the same, split in place */
	const char *image;                  /* the kernel path the loader put first */
	struct cmdline_arg args[CMDLINE_MAX_ARGS];
	unsigned nargs;
	unsigned warnings;
};

/* Split `line`, call each option's parser, and print one warning line per
 * unknown, malformed or rejected option.  Never fails. */
void cmdline_parse(struct cmdline *cl, const char *line);

/* An on|off option's value: 0 and *on set, or -EINVAL (also for a bare
 * key).  For the options that switch something (watchdog=, piggyback=). */
static inline int cmdline_on_off(const char *value, bool *on)
{
	if (value && strcmp(value, "on") == 0)
		*on = true;
	else if (value && strcmp(value, "off") == 0)
		*on = false;
	else
		return -EINVAL;
	return 0;
}

/* Look up a registered option by name. */
const struct boot_option *cmdline_find_option(const char *name);
/* Walk the registry. */
const struct boot_option *cmdline_options_begin(void);
const struct boot_option *cmdline_options_end(void);

extern struct cmdline boot_cmdline;

#endif
