// SOURCES: kernel/shell/lineedit.c
/* Host tests for the shell's line editor (kernel/shell/lineedit.c): bytes in,
 * echo and completed lines out.
 *
 * job_of() below restates the byte table from the header comment of
 * kernel/shell/lineedit.c, and the test_every_byte_* tests hold all 256 byte
 * values to it: on an empty line, in the middle of a line, at the length
 * limit, and inside each kind of escape sequence. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "shell/lineedit.h"

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

static void forget_echo(void)
{
	echoed_len = 0;
	echoed[0] = '\0';
}

static struct lineedit le;
static char out[LINEEDIT_MAX + 1];

static int setup(void **state)
{
	(void)state;
	lineedit_init(&le, echo, NULL);
	forget_echo();
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

static enum lineedit_result feed_byte(unsigned b)
{
	return lineedit_feed(&le, (char)b, out);
}

/* ------------------------------------------------------------------ the table */

enum byte_job {
	JOB_TYPE,       /* printable: appended and echoed */
	JOB_ENTER,      /* CR, LF: the line is done */
	JOB_ERASE,      /* BS, DEL: erase one character */
	JOB_KILL,       /* Ctrl-U: erase the line */
	JOB_CANCEL,     /* Ctrl-C: abandon the line */
	JOB_ESCAPE,     /* ESC: may start a sequence; alone it does nothing */
	JOB_NOTHING,    /* every other byte */
	/* Inside an escape sequence, two more: */
	JOB_CONTINUES,  /* the sequence goes on (the next byte belongs to it) */
	JOB_FINAL,      /* the byte ends the sequence and is swallowed with it */
};

static const char *const job_name[] = {
	"type", "enter", "erase", "kill", "cancel", "escape", "nothing",
	"continues the sequence", "ends the sequence",
};
_Static_assert(ARRAY_SIZE(job_name) == JOB_FINAL + 1, "a name for every job");

static enum byte_job job_of(unsigned b)
{
	if (b >= 0x20 && b <= 0x7e)
		return JOB_TYPE;
	switch (b) {
	case '\r': case '\n':   return JOB_ENTER;
	case 0x08: case 0x7f:   return JOB_ERASE;
	case 0x15:              return JOB_KILL;
	case 0x03:              return JOB_CANCEL;
	case 0x1b:              return JOB_ESCAPE;
	default:                return JOB_NOTHING;     /* other C0, 0x80..0xff */
	}
}

/* The escape sequences of the table: which bytes continue or end one. */
enum esc_prefix { AFTER_ESC, IN_CSI, IN_CSI_PARAMS, AFTER_SS3, PREFIX_COUNT };
static const char *const prefix_text[PREFIX_COUNT] = {
	[AFTER_ESC] = "\x1b", [IN_CSI] = "\x1b[", [IN_CSI_PARAMS] = "\x1b[1;5",
	[AFTER_SS3] = "\x1bO",
};

static enum byte_job job_in_sequence(enum esc_prefix p, unsigned b)
{
	switch (p) {
	case AFTER_ESC:
		if (b == '[' || b == 'O')
			return JOB_CONTINUES;
		break;
	case IN_CSI:
	case IN_CSI_PARAMS:
		if (b >= 0x20 && b <= 0x3f)     /* parameter or intermediate */
			return JOB_CONTINUES;
		if (b >= 0x40 && b <= 0x7e)
			return JOB_FINAL;
		break;
	case AFTER_SS3:
		if (b >= 0x20 && b <= 0x7e)
			return JOB_FINAL;
		break;
	default:
		fail();
	}
	return job_of(b);       /* ends the sequence, then does its own job */
}

/* With `before` on the line (and its echo forgotten), feed byte b and check
 * that it did `job`: its result, its echo, and - by finishing the line with
 * "x" and Enter - what it left in the line.  `full` says the line is at
 * LINEEDIT_MAX, so a typed byte is counted but neither stored nor echoed. */
static void check_job(unsigned b, enum byte_job job, const char *before, bool full)
{
	char msg[96], want[LINEEDIT_MAX + 8];
	size_t n = strlen(before);
	snprintf(msg, sizeof(msg), "byte 0x%02x (%s) after %zu characters", b, job_name[job], n);
	enum lineedit_result r = feed_byte(b);
	enum lineedit_result want_r = job == JOB_ENTER ? LE_LINE :
	                              job == JOB_CANCEL ? LE_CANCEL : LE_NONE;
	if (r != want_r)
		fail_msg("%s: result %d, want %d", msg, r, want_r);

	static char want_echo[3 * LINEEDIT_MAX + 1];
	want_echo[0] = '\0';
	switch (job) {
	case JOB_TYPE:
		if (!full)
			snprintf(want_echo, sizeof(want_echo), "%c", b);
		break;
	case JOB_ENTER:  strcpy(want_echo, "\n"); break;
	case JOB_ERASE:  strcpy(want_echo, n ? "\b \b" : ""); break;
	case JOB_KILL:
		for (size_t i = 0; i < n; i++)
			strcat(want_echo, "\b \b");
		break;
	case JOB_CANCEL: strcpy(want_echo, "^C\n"); break;
	default:         break;
	}
	if (strcmp(echoed, want_echo) != 0)
		fail_msg("%s: echoed \"%s\", want \"%s\"", msg, echoed, want_echo);
	if (job == JOB_ENTER && strcmp(out, before) != 0)
		fail_msg("%s: line \"%s\", want \"%s\"", msg, out, before);

	/* What is left: finish with "x" and Enter. */
	switch (job) {
	case JOB_TYPE:          snprintf(want, sizeof(want), "%s%cx", before, b); break;
	case JOB_ERASE:         snprintf(want, sizeof(want), "%.*sx", n ? (int)n - 1 : 0, before); break;
	case JOB_ENTER:
	case JOB_KILL:
	case JOB_CANCEL:        snprintf(want, sizeof(want), "x"); break;
	case JOB_CONTINUES:     snprintf(want, sizeof(want), "%s", before); break;   /* "x" ends it */
	default:                snprintf(want, sizeof(want), "%sx", before); break;
	}
	r = feed("x\r");
	if (full && strlen(want) > LINEEDIT_MAX) {
		if (r != LE_TOO_LONG)
			fail_msg("%s: over the limit, result %d, want LE_TOO_LONG", msg, r);
		return;
	}
	if (r != LE_LINE || strcmp(out, want) != 0)
		fail_msg("%s: then \"x\\r\" gave %d \"%s\", want \"%s\"", msg, r, out, want);
}

static void start_line(const char *before)
{
	setup(NULL);
	feed(before);
	forget_echo();
}

static void test_every_byte_on_an_empty_line(void **state)
{
	(void)state;
	for (unsigned b = 0; b < 256; b++) {
		start_line("");
		check_job(b, job_of(b), "", false);
	}
}

static void test_every_byte_in_a_line(void **state)
{
	(void)state;
	for (unsigned b = 0; b < 256; b++) {
		start_line("ab");
		check_job(b, job_of(b), "ab", false);
	}
}

static void test_every_byte_at_the_limit(void **state)
{
	(void)state;
	char full[LINEEDIT_MAX + 1];
	memset(full, 'q', LINEEDIT_MAX);
	full[LINEEDIT_MAX] = '\0';
	for (unsigned b = 0; b < 256; b++) {
		start_line(full);
		check_job(b, job_of(b), full, true);
	}
}

static void test_every_byte_inside_escape_sequences(void **state)
{
	(void)state;
	for (int p = 0; p < PREFIX_COUNT; p++) {
		for (unsigned b = 0; b < 256; b++) {
			start_line("ab");
			feed(prefix_text[p]);
			assert_int_equal(echoed_len, 0);       /* a sequence echoes nothing */
			check_job(b, job_in_sequence(p, b), "ab", false);
		}
	}
}

/* Whatever comes in, only printable ASCII, BS and LF go back out: nothing a
 * terminal would act on.  The lines handed out are printable ASCII too. */
static void test_random_bytes_keep_the_invariants(void **state)
{
	(void)state;
	static const char *const tokens[] = {
		"\x1b[A", "\x1b[B", "\x1bOA", "\x1b[1;5B", "\x1b[3~", "\x1b", "\x1b[",
		"\r\n", "\r", "\n", "\x03", "\x15", "\x7f", "\b", "help",
	};
	srand(1);
	for (int round = 0; round < 20; round++) {
		setup(NULL);
		for (int i = 0; i < 20000; i++) {
			enum lineedit_result r;
			if (rand() % 4 == 0)
				r = feed(tokens[rand() % ARRAY_SIZE(tokens)]);
			else
				r = feed_byte((unsigned)rand() % 256);
			assert_true(le.len <= LINEEDIT_MAX && le.len <= le.typed);
			assert_int_equal(strlen(le.buf), le.len);
			for (size_t k = 0; k < echoed_len; k++) {
				unsigned char c = (unsigned char)echoed[k];
				assert_true((c >= 0x20 && c <= 0x7e) || c == '\b' || c == '\n');
			}
			forget_echo();
			if (r == LE_LINE) {
				assert_true(strlen(out) <= LINEEDIT_MAX);
				for (const char *c = out; *c; c++)
					assert_true(*c >= 0x20 && *c <= 0x7e);
			}
		}
		/* Ctrl-U and Enter bring back an empty line from any state. */
		assert_int_equal(feed("\x15\r"), LE_LINE);
		assert_string_equal(out, "");
		assert_int_equal(feed("ok\r"), LE_LINE);
		assert_string_equal(out, "ok");
	}
}

/* ------------------------------------------------------------- single cases */

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
	forget_echo();
	assert_int_equal(feed("c\r\n"), LE_NONE);                 /* one line, one newline */
	assert_string_equal(out, "c");
	assert_string_equal(echoed, "c\n");
	/* LF CR is two Enters; so is CR CR, with a third LF swallowed. */
	assert_int_equal(feed("d\n"), LE_LINE);
	assert_string_equal(out, "d");
	assert_int_equal(feed("\r"), LE_LINE);
	assert_string_equal(out, "");
	assert_int_equal(feed("e\r"), LE_LINE);
	assert_int_equal(feed("\r"), LE_LINE);
	assert_int_equal(feed("\n"), LE_NONE);
	/* Only the very next byte counts: CR, NUL, LF is two Enters. */
	assert_int_equal(feed("f\r"), LE_LINE);
	feed_byte(0);
	assert_int_equal(feed("\n"), LE_LINE);
	assert_string_equal(out, "");
	/* CR inside an escape sequence is still an Enter, and its LF still swallowed. */
	assert_int_equal(feed("g\x1b[1\r"), LE_LINE);
	assert_string_equal(out, "g");
	assert_int_equal(feed("\n"), LE_NONE);
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
	forget_echo();
	assert_int_equal(feed("\x03"), LE_CANCEL);      /* at an empty prompt too */
	assert_string_equal(echoed, "^C\n");
}

static void test_control_and_high_bytes_do_nothing(void **state)
{
	(void)state;
	/* NUL, ^A, ^B, BEL, TAB, VT, ^D, ^Z, ^\, and bytes >= 0x80 (one byte
	 * of UTF-8 "é" and two of "€" included). */
	assert_int_equal(feed("a\x01\x02\x07\t\x0b\x04\x1a\x1c\x80\xc3\xa9\xe2\x82\xffz\r"), LE_LINE);
	assert_string_equal(out, "az");
	assert_string_equal(echoed, "az\n");
	feed_byte(0);
	assert_int_equal(feed("q\r"), LE_LINE);
	assert_string_equal(out, "q");
}

static void test_escape_sequences_are_swallowed_whole(void **state)
{
	(void)state;
	/* Delete, Left, Right, Ctrl-Right, Home, F1, F5, bracketed paste marks,
	 * a private-mode sequence: none leaves a byte behind. */
	assert_int_equal(feed("x\x1b[3~\x1b[D\x1b[C\x1b[1;5C\x1b[H\x1bOP\x1b[15~"
	                      "\x1b[200~y\x1b[201~\x1b[?25hz\r"), LE_LINE);
	assert_string_equal(out, "xyz");
	assert_string_equal(echoed, "xyz\n");
	/* ESC alone does nothing (the Escape key, or Alt+key): the next byte
	 * is an ordinary one. */
	assert_int_equal(feed("\x1bve\x1brsion\r"), LE_LINE);
	assert_string_equal(out, "version");
	/* ESC in a sequence starts a new one. */
	feed("one\r");
	assert_int_equal(feed("\x1b[1\x1b[A\r"), LE_LINE);
	assert_string_equal(out, "one");
}

static void test_partial_escape_sequences(void **state)
{
	(void)state;
	/* Enter inside an unfinished sequence still ends the line ... */
	assert_int_equal(feed("ok\x1b[999\r"), LE_LINE);
	assert_string_equal(out, "ok");
	assert_int_equal(feed("a\x1b\r"), LE_LINE);
	assert_string_equal(out, "a");
	assert_int_equal(feed("b\x1bO\r"), LE_LINE);
	assert_string_equal(out, "b");
	/* ... and the next line starts outside it. */
	assert_int_equal(feed("[A\r"), LE_LINE);
	assert_string_equal(out, "[A");
	/* Ctrl-U, backspace and Ctrl-C work there too. */
	feed("abc\x1b[12\x15");
	assert_int_equal(feed("d\r"), LE_LINE);
	assert_string_equal(out, "d");
	assert_int_equal(feed("abc\x1b[\x7f\r"), LE_LINE);
	assert_string_equal(out, "ab");
	assert_int_equal(feed("abc\x1bO\x03"), LE_CANCEL);
	assert_int_equal(feed("e\r"), LE_LINE);
	assert_string_equal(out, "e");
	/* A byte >= 0x80 ends a sequence and is dropped. */
	assert_int_equal(feed("f\x1b[1\x80g\r"), LE_LINE);
	assert_string_equal(out, "fg");
	/* Parameters go on until a final byte, however many. */
	feed("h\x1b[");
	for (int i = 0; i < 1000; i++)
		feed("9;");
	assert_int_equal(feed("~i\r"), LE_LINE);
	assert_string_equal(out, "hi");
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
	forget_echo();
	feed(line);
	assert_int_equal(echoed_len, LINEEDIT_MAX);    /* the extra one is not shown */
	assert_int_equal(feed("\r"), LE_TOO_LONG);
	assert_string_equal(out, "");           /* never handed out cut short */
	/* Backspacing under the limit makes it acceptable again. */
	feed(line);
	assert_int_equal(feed("\b\r"), LE_LINE);
	assert_int_equal(strlen(out), LINEEDIT_MAX);
	/* Ignored bytes do not count toward the limit. */
	feed(line);
	assert_int_equal(feed("\b\x01\x80\x1b[C\r"), LE_LINE);
	/* The next line after a rejected one starts clean. */
	feed(line);
	feed("\r");
	assert_int_equal(feed("ok\r"), LE_LINE);
	assert_string_equal(out, "ok");
	/* Ctrl-U and Ctrl-C forget the unseen part too. */
	feed(line);
	feed("\x15");
	assert_int_equal(feed("ok\r"), LE_LINE);
	feed(line);
	feed("\x03");
	assert_int_equal(feed("ok\r"), LE_LINE);
	assert_string_equal(out, "ok");
}

static void test_too_long_survives_a_trip_through_history(void **state)
{
	(void)state;
	char line[LINEEDIT_MAX + 2];
	memset(line, 'w', LINEEDIT_MAX + 1);
	line[LINEEDIT_MAX + 1] = '\0';
	feed("old\r");
	feed(line);
	feed("\x1b[A");                         /* shows "old" */
	feed("\x1b[B");                         /* back to the over-long draft */
	assert_int_equal(feed("\r"), LE_TOO_LONG);
	/* One backspace still brings it to the limit. */
	feed(line);
	feed("\x1b[A\x1b[B\b");
	assert_int_equal(feed("\r"), LE_LINE);
	assert_int_equal(strlen(out), LINEEDIT_MAX);
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

static void test_arrow_spellings(void **state)
{
	(void)state;
	/* The other spellings of the arrows: SS3 (a terminal in application
	 * cursor key mode) and with a modifier parameter (Ctrl-Up). */
	feed("one\r");
	feed("two\r");
	forget_echo();
	assert_int_equal(feed("\x1bOA\x1bOA\x1bOB\r"), LE_LINE);
	assert_string_equal(out, "two");
	/* Up shows "two", Up erases it ("\b \b" x 3) and shows "one", Down back. */
	assert_string_equal(echoed, "two\b \b\b \b\b \bone\b \b\b \b\b \btwo\n");
	assert_int_equal(feed("\x1b[1;5A\r"), LE_LINE);
	assert_string_equal(out, "two");
	/* With nothing stored, an arrow does nothing. */
	setup(NULL);
	assert_int_equal(feed("x\x1b[A\x1b[B\x1bOA\r"), LE_LINE);
	assert_string_equal(out, "x");
	assert_string_equal(echoed, "x\n");
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
		cmocka_unit_test_setup(test_every_byte_on_an_empty_line, setup),
		cmocka_unit_test_setup(test_every_byte_in_a_line, setup),
		cmocka_unit_test_setup(test_every_byte_at_the_limit, setup),
		cmocka_unit_test_setup(test_every_byte_inside_escape_sequences, setup),
		cmocka_unit_test_setup(test_random_bytes_keep_the_invariants, setup),
		cmocka_unit_test_setup(test_simple_line, setup),
		cmocka_unit_test_setup(test_crlf_is_one_enter, setup),
		cmocka_unit_test_setup(test_backspace_and_del, setup),
		cmocka_unit_test_setup(test_ctrl_u_and_ctrl_c, setup),
		cmocka_unit_test_setup(test_control_and_high_bytes_do_nothing, setup),
		cmocka_unit_test_setup(test_escape_sequences_are_swallowed_whole, setup),
		cmocka_unit_test_setup(test_partial_escape_sequences, setup),
		cmocka_unit_test_setup(test_too_long, setup),
		cmocka_unit_test_setup(test_too_long_survives_a_trip_through_history, setup),
		cmocka_unit_test_setup(test_history, setup),
		cmocka_unit_test_setup(test_arrow_spellings, setup),
		cmocka_unit_test_setup(test_history_keeps_last_16, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
