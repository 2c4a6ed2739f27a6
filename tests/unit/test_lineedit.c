// SOURCES: kernel/lib/lineedit.c
/* Host tests for the shell's line editor (kernel/lib/lineedit.c): bytes in,
 * echo and completed lines out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "lineedit.h"

static char echoed[16384];
static size_t echoed_len;

static void echo(const char *s, size_t n, void *ctx)
{
	(void)ctx;
	assert_true(echoed_len + n < sizeof(echoed));
	memcpy(echoed + echoed_len, s, n);
	echoed_len += n;
	echoed[echoed_len] = '\0';
}

static struct lineedit le;
static char out[LINEEDIT_MAX + 1];

static int setup(void **state)
{
	(void)state;
	lineedit_init(&le, echo, NULL);
	echoed_len = 0;
	echoed[0] = '\0';
	out[0] = '\0';
	return 0;
}

/* Feed a string; return the result of the last byte. */
static enum lineedit_result feed(const char *s)
{
	enum lineedit_result r = LE_NONE;
	for (; *s; s++)
		r = lineedit_feed(&le, *s, out);
	return r;
}

static void test_simple_line(void **state)
{
	(void)state;
	assert_int_equal(feed("help\r"), LE_LINE);
	assert_string_equal(out, "help");
	assert_string_equal(echoed, "help\n");
}

static void test_crlf_is_one_enter(void **state)
{
	(void)state;
	assert_int_equal(feed("a\r"), LE_LINE);
	assert_int_equal(lineedit_feed(&le, '\n', out), LE_NONE);  /* swallowed */
	assert_int_equal(feed("b\n"), LE_LINE);
	assert_string_equal(out, "b");
	assert_int_equal(feed("\n"), LE_LINE);                    /* LF alone: empty line */
	assert_string_equal(out, "");
}

static void test_backspace_and_del(void **state)
{
	(void)state;
	assert_int_equal(feed("helx\bp\x7f\x7flp\r"), LE_LINE);
	assert_string_equal(out, "help");
	assert_string_equal(echoed, "helx\b \bp\b \b\b \blp\n");
	setup(NULL);
	feed("\b\b\x7f");                       /* nothing to erase: no echo */
	assert_int_equal(echoed_len, 0);
}

static void test_ctrl_u_and_ctrl_c(void **state)
{
	(void)state;
	feed("abc\x15");
	assert_string_equal(echoed, "abc\b \b\b \b\b \b");
	assert_int_equal(feed("ok\r"), LE_LINE);
	assert_string_equal(out, "ok");
	assert_int_equal(feed("junk\x03"), LE_CANCEL);
	assert_int_equal(feed("next\r"), LE_LINE);
	assert_string_equal(out, "next");
}

static void test_control_bytes_ignored(void **state)
{
	(void)state;
	assert_int_equal(feed("a\x01\x02\x07\t\x0b\x80\xffz\r"), LE_LINE);
	assert_string_equal(out, "az");
	/* Unknown escape sequences vanish whole, parameters and all. */
	assert_int_equal(feed("x\x1b[3~y\x1bOz\r"), LE_LINE);
	assert_string_equal(out, "xyz");
	/* Enter inside an unfinished sequence still ends the line. */
	assert_int_equal(feed("ok\x1b[999\r"), LE_LINE);
	assert_string_equal(out, "ok");
	assert_int_equal(feed("a\x1b\r"), LE_LINE);
	assert_string_equal(out, "a");
}

static void test_too_long(void **state)
{
	(void)state;
	char line[LINEEDIT_MAX + 10];
	memset(line, 'q', LINEEDIT_MAX);
	line[LINEEDIT_MAX] = '\0';
	feed(line);
	assert_int_equal(feed("\r"), LE_LINE);  /* exactly the limit is fine */
	assert_int_equal(strlen(out), LINEEDIT_MAX);

	memset(line, 'w', LINEEDIT_MAX + 1);
	line[LINEEDIT_MAX + 1] = '\0';
	out[0] = '\0';
	feed(line);
	assert_int_equal(feed("\r"), LE_TOO_LONG);
	assert_string_equal(out, "");           /* never handed out cut short */
	/* Backspacing under the limit makes it acceptable again. */
	feed(line);
	assert_int_equal(feed("\b\r"), LE_LINE);
	assert_int_equal(strlen(out), LINEEDIT_MAX);
	/* The next line after a rejected one starts clean. */
	feed(line);
	feed("\r");
	assert_int_equal(feed("ok\r"), LE_LINE);
	assert_string_equal(out, "ok");
}

static void test_history(void **state)
{
	(void)state;
	feed("one\r");
	feed("two\r");
	feed("two\r");                          /* repeated: stored once */
	feed("three\r");
	feed("draft");
	feed("\x1b[A");
	assert_int_equal(feed("\r"), LE_LINE);
	assert_string_equal(out, "three");
	feed("\x1b[A\x1b[A\x1b[A\r");           /* three, two, one */
	assert_string_equal(out, "one");
	feed("\x1b[A\x1b[A\x1b[A\x1b[A\x1b[A\x1b[A\r");   /* stops at the oldest */
	assert_string_equal(out, "one");
	feed("new\x1b[A\x1b[B\r");              /* down returns to the draft */
	assert_string_equal(out, "new");
	feed("\x1b[B\x1b[B\r");                 /* down with nothing newer: no-op */
	assert_string_equal(out, "");
}

static void test_history_keeps_last_16(void **state)
{
	(void)state;
	char line[16];
	for (int i = 0; i < 20; i++) {
		snprintf(line, sizeof(line), "cmd%d\r", i);
		feed(line);
	}
	for (int i = 0; i < 30; i++)
		feed("\x1b[A");
	feed("\r");
	assert_string_equal(out, "cmd4");       /* 20 lines, 16 kept: 4..19 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_simple_line, setup),
		cmocka_unit_test_setup(test_crlf_is_one_enter, setup),
		cmocka_unit_test_setup(test_backspace_and_del, setup),
		cmocka_unit_test_setup(test_ctrl_u_and_ctrl_c, setup),
		cmocka_unit_test_setup(test_control_bytes_ignored, setup),
		cmocka_unit_test_setup(test_too_long, setup),
		cmocka_unit_test_setup(test_history, setup),
		cmocka_unit_test_setup(test_history_keeps_last_16, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
