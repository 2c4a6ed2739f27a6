// SOURCES: kernel/lib/cmdline.c kernel/lib/format.c
/* Host tests for the boot command-line parser (kernel/lib/cmdline.c): two
 * options are declared here with BOOT_OPTION exactly as kernel code does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmdline.h"
#include "errno.h"
#include "kprintf.h"

/* kprintf collects warnings so the tests can read them. */
static char printed[4096];
int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t used = strlen(printed);
	int n = kvsnprintf(printed + used, sizeof(printed) - used, fmt, ap);
	va_end(ap);
	return n;
}

static int hz_value = -1;
static int hz_option(const char *v)
{
	if (!v || (strcmp(v, "100") && strcmp(v, "250") && strcmp(v, "1000")))
		return -EINVAL;
	hz_value = atoi(v);
	return 0;
}
BOOT_OPTION("hz", hz_option, "tick rate: 100, 250 or 1000");

static int selftest_seen;
static int selftest_option(const char *v)
{
	if (v)
		return -EINVAL;         /* a flag: takes no value */
	selftest_seen++;
	return 0;
}
BOOT_OPTION("selftest", selftest_option, "run the self-test");

/* The kernel's own flags (floor, selftest) are declared this way. */
static bool quiet_flag;
BOOT_FLAG("quiet", quiet_flag, "a flag declared with BOOT_FLAG");

/* And their named choices (clocksource=, clockevent=) this way. */
static char chosen[16];
static void choose(const char *name)
{
	snprintf(chosen, sizeof(chosen), "%s", name);
}
BOOT_VALUE("choose", choose, "a value declared with BOOT_VALUE");

static struct cmdline cl;

static int setup(void **state)
{
	(void)state;
	printed[0] = '\0';
	hz_value = -1;
	selftest_seen = 0;
	quiet_flag = false;
	chosen[0] = '\0';
	return 0;
}

static void test_image_and_options(void **state)
{
	(void)state;
	cmdline_parse(&cl, "/boot/lull.elf hz=1000 selftest");
	assert_string_equal(cl.image, "/boot/lull.elf");
	assert_int_equal(cl.nargs, 2);
	assert_int_equal(hz_value, 1000);
	assert_int_equal(selftest_seen, 1);
	assert_int_equal(cl.warnings, 0);
	assert_string_equal(printed, "");
	assert_string_equal(cl.text, "/boot/lull.elf hz=1000 selftest");
}

static void test_quotes_keep_spaces(void **state)
{
	(void)state;
	cmdline_parse(&cl, "hz=\"100\" x=\"a b;  c\" \"sel\"ftest y=\"\"");
	assert_int_equal(hz_value, 100);
	assert_int_equal(selftest_seen, 1);
	assert_int_equal(cl.nargs, 4);
	assert_string_equal(cl.args[1].key, "x");
	assert_string_equal(cl.args[1].value, "a b;  c");
	assert_int_equal(cl.args[3].status, CMDLINE_MALFORMED);     /* y= with nothing */
	/* The line as given is kept for `cmdline`, quotes and all. */
	assert_string_equal(cl.text, "hz=\"100\" x=\"a b;  c\" \"sel\"ftest y=\"\"");

	printed[0] = '\0';
	cmdline_parse(&cl, "x=\"open to the end  ");
	assert_int_equal(cl.nargs, 1);
	assert_string_equal(cl.args[0].value, "open to the end  ");
	assert_non_null(strstr(printed, "never closed"));
	assert_int_equal(cl.warnings, 2);       /* the quote, and x is unknown */
}

static void test_boot_flag_sets_its_bool_and_takes_no_value(void **state)
{
	(void)state;
	cmdline_parse(&cl, "quiet=1");
	assert_false(quiet_flag);
	assert_int_equal(cl.args[0].status, CMDLINE_BAD_VALUE);
	assert_int_equal(cl.warnings, 1);
	cmdline_parse(&cl, "quiet");
	assert_true(quiet_flag);
	assert_int_equal(cl.args[0].status, CMDLINE_OK);
}

static void test_boot_value_hands_its_value_on_and_needs_one(void **state)
{
	(void)state;
	cmdline_parse(&cl, "choose");
	assert_string_equal(chosen, "");
	assert_int_equal(cl.args[0].status, CMDLINE_BAD_VALUE);
	cmdline_parse(&cl, "choose=hpet");
	assert_string_equal(chosen, "hpet");
	assert_int_equal(cl.args[0].status, CMDLINE_OK);
}

static void test_no_image(void **state)
{
	(void)state;
	/* A first word that is a known option is an option, not the image. */
	cmdline_parse(&cl, "selftest hz=100");
	assert_null(cl.image);
	assert_int_equal(selftest_seen, 1);
	assert_int_equal(hz_value, 100);
}

static void test_unknown_and_malformed(void **state)
{
	(void)state;
	cmdline_parse(&cl, "k  bogus  hz=  =5 hz=33 selftest=yes   hz=250");
	assert_int_equal(cl.warnings, 5);
	assert_non_null(strstr(printed, "unknown option 'bogus'"));
	assert_non_null(strstr(printed, "malformed option 'hz='"));
	assert_non_null(strstr(printed, "malformed option '=5'"));
	assert_non_null(strstr(printed, "bad value '33' for option 'hz'"));
	assert_non_null(strstr(printed, "bad value 'yes' for option 'selftest'"));
	assert_int_equal(hz_value, 250);        /* the good one still counts */
	assert_int_equal(selftest_seen, 0);
	/* One line per warning. */
	int lines = 0;
	for (char *p = printed; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 5);
	assert_int_equal(cl.args[0].status, CMDLINE_UNKNOWN);
	assert_int_equal(cl.args[5].status, CMDLINE_OK);
}

static void test_missing_value(void **state)
{
	(void)state;
	cmdline_parse(&cl, "img hz");
	assert_int_equal(cl.warnings, 1);
	assert_non_null(strstr(printed, "option 'hz' needs a value"));
}

static void test_empty_and_spaces(void **state)
{
	(void)state;
	cmdline_parse(&cl, "");
	assert_int_equal(cl.nargs, 0);
	assert_null(cl.image);
	cmdline_parse(&cl, NULL);
	assert_int_equal(cl.nargs, 0);
	cmdline_parse(&cl, " \t img \t hz=100 \t");
	assert_string_equal(cl.image, "img");
	assert_int_equal(hz_value, 100);
}

static void test_too_long_and_too_many(void **state)
{
	(void)state;
	static char line[CMDLINE_MAX * 2];
	memset(line, 'a', sizeof(line) - 1);
	cmdline_parse(&cl, line);
	assert_int_equal(strlen(cl.text), CMDLINE_MAX - 1);
	assert_non_null(strstr(printed, "cut"));

	printed[0] = '\0';
	char *p = line;
	p += sprintf(p, "img");
	for (int i = 0; i < CMDLINE_MAX_ARGS + 3; i++)
		p += sprintf(p, " x%d", i);
	cmdline_parse(&cl, line);
	assert_int_equal(cl.nargs, CMDLINE_MAX_ARGS);
	assert_non_null(strstr(printed, "too many options"));
}

/* Found by tests/fuzz/fuzz_cmdline.c (tests/fuzz/regress/cmdline/): an
 * option name holding a control byte was printed back as it was, so a
 * command line could send escape sequences to the console. */
static void test_unprintable_bytes(void **state)
{
	(void)state;
	cmdline_parse(&cl, "\x99\n+\x04 hz\x1b[2J=100");
	assert_string_equal(cl.image, "?");
	assert_int_equal(cl.nargs, 2);
	assert_string_equal(cl.args[0].key, "+?");
	assert_int_equal(cl.args[1].status, CMDLINE_UNKNOWN);
	assert_int_equal(hz_value, -1);
	assert_string_equal(cl.text, "?\n+? hz?[2J=100");
	assert_non_null(strstr(printed, "unprintable bytes"));
	for (const char *p = printed; *p; p++)
		assert_true(*p == '\n' || (*p >= ' ' && *p <= '~'));
}

static void test_registry(void **state)
{
	(void)state;
	assert_non_null(cmdline_find_option("hz"));
	assert_non_null(cmdline_find_option("selftest"));
	assert_non_null(cmdline_find_option("quiet"));
	assert_non_null(cmdline_find_option("choose"));
	assert_null(cmdline_find_option("nope"));
	assert_int_equal(cmdline_options_end() - cmdline_options_begin(), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_image_and_options, setup),
		cmocka_unit_test_setup(test_no_image, setup),
		cmocka_unit_test_setup(test_boot_value_hands_its_value_on_and_needs_one, setup),
		cmocka_unit_test_setup(test_boot_flag_sets_its_bool_and_takes_no_value, setup),
		cmocka_unit_test_setup(test_quotes_keep_spaces, setup),
		cmocka_unit_test_setup(test_unknown_and_malformed, setup),
		cmocka_unit_test_setup(test_unprintable_bytes, setup),
		cmocka_unit_test_setup(test_missing_value, setup),
		cmocka_unit_test_setup(test_empty_and_spaces, setup),
		cmocka_unit_test_setup(test_too_long_and_too_many, setup),
		cmocka_unit_test_setup(test_registry, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
