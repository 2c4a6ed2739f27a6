// SOURCES: kernel/lib/cmdline.c kernel/shell/args.c kernel/lib/format.c
/* tests/fuzz/fuzz_cmdline.c — libFuzzer harness for the boot command line
 * parser (kernel/lib/cmdline.c, cmdline_parse).
 *
 * The input, cut at its first NUL, is the line a Multiboot loader hands
 * over.  Three options are declared here with BOOT_OPTION, as kernel code
 * declares them (the host linker gathers them into __start_boot_options ..
 * __stop_boot_options, as tests/unit/test_cmdline.c relies on too): one
 * takes a number, one is a flag, one takes any word.  Checked: every
 * argument's key and value lie inside the parser's own copy of the line,
 * no more than CMDLINE_MAX_ARGS are kept, and each status agrees with what
 * the option's handler said. */
#include <stdlib.h>
#include <string.h>
#include "cmdline.h"
#include "errno.h"
#include "shell/args.h"
#include "fuzz_host.h"

static int hz_option(const char *v)
{
	uint32_t hz;
	return v && parse_u32(v, 100, 1000, &hz) == 0 ? 0 : -EINVAL;
}
BOOT_OPTION("hz", hz_option, "tick rate");

static int flag_option(const char *v)
{
	return v ? -EINVAL : 0;
}
BOOT_OPTION("selftest", flag_option, "a flag");

static int word_option(const char *v)
{
	return v ? 0 : -EINVAL;
}
BOOT_OPTION("clocksource", word_option, "a name");

static bool inside(const struct cmdline *cl, const char *p)
{
	return p >= cl->words && p < cl->words + CMDLINE_MAX;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cmdline cl;
	char *line = malloc(size + 1);
	memcpy(line, data, size);
	line[size] = '\0';
	fuzz_forget_output();
	cmdline_parse(&cl, line);
	free(line);

	if (cl.nargs > CMDLINE_MAX_ARGS || !memchr(cl.text, '\0', CMDLINE_MAX))
		fuzz_fail("cmdline: more arguments than it holds, or text not terminated");
	if (cl.image && !inside(&cl, cl.image))
		fuzz_fail("cmdline: image outside the parser's copy");
	for (unsigned i = 0; i < cl.nargs; i++) {
		const struct cmdline_arg *a = &cl.args[i];
		if (!inside(&cl, a->key) || (a->value && !inside(&cl, a->value)))
			fuzz_fail("cmdline: an argument outside the parser's copy");
		const struct boot_option *o = a->key[0] ? cmdline_find_option(a->key) : NULL;
		if (a->status == CMDLINE_OK && (!o || o->parse(a->value) != 0))
			fuzz_fail("cmdline: OK for an option its handler rejects");
	}
	return 0;
}
