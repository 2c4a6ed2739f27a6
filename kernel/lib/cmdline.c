/* kernel/lib/cmdline.c — split the boot command line and hand each
 * `key=value` or `key` to the option that declared it (include/cmdline.h).
 *
 * Portable: tests/unit/test_cmdline.c runs it on the host, and
 * tests/fuzz/fuzz_cmdline.c fuzzes it.  Words are separated by spaces or
 * tabs, except inside double quotes, which are dropped: run="idle 5; wakeups"
 * is the one word run=idle 5; wakeups (as Linux's parse_args reads quotes).
 * A quote left open runs to the end of the line, with a warning.  Any other
 * byte outside
 * printable ASCII becomes '?' before the line is split: warnings and the
 * `cmdline` command print words back, and a stray ESC must not reach the
 * terminal as the start of a control sequence.
 */
#include "cmdline.h"
#include "kprintf.h"
#include "kstring.h"

extern const struct boot_option __start_boot_options[];
extern const struct boot_option __stop_boot_options[];

struct cmdline boot_cmdline;

const struct boot_option *cmdline_options_begin(void) { return __start_boot_options; }
const struct boot_option *cmdline_options_end(void) { return __stop_boot_options; }

const struct boot_option *cmdline_find_option(const char *name)
{
	for (const struct boot_option *o = __start_boot_options; o < __stop_boot_options; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static bool is_printable(char c) { return c >= ' ' && c <= '~'; }

static void handle_word(struct cmdline *cl, char *word, bool first)
{
	char *eq = strchr(word, '=');
	const char *key = word, *value = NULL;

	if (eq) {
		*eq = '\0';
		value = eq + 1;
	}
	const struct boot_option *opt = key[0] ? cmdline_find_option(key) : NULL;

	/* Multiboot loaders (GRUB, QEMU -kernel) put the kernel's path first. */
	if (first && !eq && !opt) {
		cl->image = key;
		return;
	}
	if (cl->nargs == CMDLINE_MAX_ARGS) {
		kprintf("cmdline: too many options, ignoring '%s' and the rest\n", key);
		cl->warnings++;
		return;
	}
	struct cmdline_arg *a = &cl->args[cl->nargs++];
	a->key = key;
	a->value = value;
	if (!key[0] || (eq && !value[0])) {
		a->status = CMDLINE_MALFORMED;
		kprintf("cmdline: malformed option '%s%s%s' (ignored)\n",
		        key, eq ? "=" : "", value ? value : "");
	} else if (!opt) {
		a->status = CMDLINE_UNKNOWN;
		kprintf("cmdline: unknown option '%s' (ignored)\n", key);
	} else if (opt->parse(value) != 0) {
		a->status = CMDLINE_BAD_VALUE;
		if (value)
			kprintf("cmdline: bad value '%s' for option '%s' (ignored; %s)\n",
			        value, key, opt->help);
		else
			kprintf("cmdline: option '%s' needs a value (ignored; %s)\n", key, opt->help);
	} else {
		a->status = CMDLINE_OK;
	}
	if (a->status != CMDLINE_OK)
		cl->warnings++;
}

void cmdline_parse(struct cmdline *cl, const char *line)
{
	memset(cl, 0, sizeof(*cl));
	if (!line)
		line = "";
	size_t n = strlen(line);
	if (n >= CMDLINE_MAX) {
		kprintf("cmdline: longer than %u characters, cut\n", CMDLINE_MAX - 1);
		n = CMDLINE_MAX - 1;
		cl->warnings++;
	}
	bool unprintable = false;
	for (size_t i = 0; i < n; i++) {
		char c = line[i];
		if (!is_space(c) && !is_printable(c)) {
			c = '?';
			unprintable = true;
		}
		cl->text[i] = c;
		/* A tab or newline inside quotes stays in a word, which a
		 * warning may print: as a space. */
		cl->words[i] = is_space(c) ? ' ' : c;
	}
	if (unprintable) {
		kprintf("cmdline: unprintable bytes, shown as '?'\n");
		cl->warnings++;
	}

	bool first = true;
	char *p = cl->words;
	while (*p) {
		while (is_space(*p))
			*p++ = '\0';
		if (!*p)
			break;
		/* Copy the word onto itself without its quotes: w trails p. */
		char *word = p, *w = p;
		bool quoted = false;
		while (*p && (quoted || !is_space(*p))) {
			if (*p == '"')
				quoted = !quoted;
			else
				*w++ = *p;
			p++;
		}
		bool more = *p != '\0';
		*w = '\0';
		if (more)
			p++;
		if (quoted) {
			kprintf("cmdline: a quote is never closed (it runs to the end of the line)\n");
			cl->warnings++;
		}
		handle_word(cl, word, first);
		first = false;
	}
}
