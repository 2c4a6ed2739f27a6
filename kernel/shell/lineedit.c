/* kernel/shell/lineedit.c — the shell's line editor (include/shell/lineedit.h).
 *
 * Every byte that arrives either does one job from this table or nothing at
 * all.  tests/unit/test_lineedit.c holds all 256 values to the table, and
 * tests/system/test_serial_bytes.py sends them over the serial line.
 *
 *   byte                 job
 *   0x20-0x7e printable  appended to the line and echoed.  Past LINEEDIT_MAX
 *                        still counted but neither kept nor echoed, and
 *                        Enter then rejects the whole line (LE_TOO_LONG).
 *   0x0d CR, 0x0a LF     Enter: the line is done.  An LF that is the very
 *                        next byte after a CR is the second half of CR LF
 *                        and does nothing, so CR LF is one Enter.
 *   0x08 BS, 0x7f DEL    erase the last character; nothing on an empty line
 *   0x15 Ctrl-U          erase the whole line
 *   0x03 Ctrl-C          echo "^C", abandon the line.  (While a command
 *                        runs, kernel/console.c takes it as an interrupt
 *                        and it never reaches the editor.)
 *   0x1b ESC             may start an escape sequence (below); alone, nothing
 *   other 0x00-0x1f      nothing: NUL; TAB (no completion); ^D (no end of
 *                        file: there is nothing to log out to); ^Z, ^\ (no
 *                        job control); ^S, ^Q (no flow control) ...
 *   0x80-0xff            nothing, never echoed.  The editor is not UTF-8
 *                        aware: commands and numbers are ASCII, and echoing
 *                        part of a character would leave the terminal's
 *                        columns out of step with the erasing.  0x9b is not
 *                        taken as an 8-bit CSI either: it occurs inside
 *                        UTF-8 characters.
 *
 * Escape sequences are what terminals send for keys: ESC [, parameter and
 * intermediate bytes 0x20-0x3f, one final byte 0x40-0x7e (a control
 * sequence, ECMA-48 section 5.4); or ESC O and one printable byte (arrows
 * in the VT100's "application cursor keys" mode, F1-F4).
 *
 *   ESC [ ... A, ESC O A   Up: the previous line from the history
 *   ESC [ ... B, ESC O B   Down: the next line, or back to the one typed
 *   other ESC [ ... final  Left, Right, Home, Delete, F5 ...: swallowed whole
 *   other ESC O byte       F1-F4 ...: swallowed whole
 *   ESC, any other byte    the ESC does nothing and the byte does its own
 *                          job, so a lone Escape key or Alt+key (which
 *                          terminals send as ESC key) takes nothing with it
 *
 * A byte that cannot continue a sequence ends it and does its own job: in
 * the middle of a broken sequence Enter, Ctrl-C, Ctrl-U and backspace still
 * work, another ESC starts afresh, and a byte >= 0x80 is dropped.  So no
 * sequence outlives its line, and none can swallow an Enter.
 *
 * The echo is only ever printable ASCII, BS and "\n": nothing typed can
 * make the terminal do anything but show or erase a character.  A new line
 * is echoed as "\n": the console turns it into CR LF for terminals.
 * Erasing uses "\b \b" (back, blank, back) rather than ANSI codes, so the
 * same echo works on a serial terminal and on the VGA screen.  Neither backs
 * up across a wrapped row, so erasing a line wider than the screen leaves
 * its first rows shown; the line kept is right all the same.
 */
#include "shell/lineedit.h"
#include "console.h"
#include "kstring.h"

#define ASCII_BS        0x08
#define ASCII_DEL       0x7f
#define ASCII_ESC       0x1b
#define ASCII_FIRST_PRINTABLE   0x20    /* space */
#define ASCII_LAST_PRINTABLE    0x7e    /* '~' */

/* ECMA-48 section 5.4: after ESC [ come parameter bytes 0x30-0x3f and
 * intermediate bytes 0x20-0x2f (we need neither apart, so one range), then
 * one final byte 0x40-0x7e. */
#define CSI_MIDDLE_FIRST        0x20
#define CSI_MIDDLE_LAST         0x3f
#define CSI_FINAL_FIRST         0x40
#define CSI_FINAL_LAST          0x7e
#define ESC_CSI_INTRODUCER      '['
#define ESC_SS3_INTRODUCER      'O'
#define KEY_UP_FINAL            'A'     /* ESC [ A, ESC O A */
#define KEY_DOWN_FINAL          'B'

static bool is_printable(unsigned char c)
{
	return c >= ASCII_FIRST_PRINTABLE && c <= ASCII_LAST_PRINTABLE;
}

static void echo(struct lineedit *le, const char *s)
{
	le->echo(s, strlen(s), le->ctx);
}

static void erase_shown(struct lineedit *le)
{
	for (unsigned i = 0; i < le->len; i++)
		echo(le, "\b \b");
}

static void reset(struct lineedit *le)
{
	le->len = le->typed = 0;
	le->buf[0] = '\0';
	le->hist_pos = 0;
}

/* Replace what is shown with `text`. */
static void show(struct lineedit *le, const char *text)
{
	erase_shown(le);
	size_t n = strlen(text);
	memcpy(le->buf, text, n + 1);
	le->len = le->typed = (unsigned)n;
	le->echo(le->buf, n, le->ctx);
}

static const char *history_entry(struct lineedit *le, unsigned k)
{
	/* k = 1 is the newest line. */
	unsigned slot = (le->hist_newest + LINEEDIT_HISTORY - (k - 1)) % LINEEDIT_HISTORY;
	return le->history[slot];
}

static void history_add(struct lineedit *le, const char *line)
{
	if (!line[0])
		return;
	if (le->hist_count && strcmp(history_entry(le, 1), line) == 0)
		return;                 /* don't store the same line twice in a row */
	le->hist_newest = (le->hist_newest + 1) % LINEEDIT_HISTORY;
	memcpy(le->history[le->hist_newest], line, strlen(line) + 1);
	if (le->hist_count < LINEEDIT_HISTORY)
		le->hist_count++;
}

static void history_move(struct lineedit *le, bool older)
{
	if (older) {
		if (le->hist_pos >= le->hist_count)
			return;
		if (le->hist_pos == 0) {
			memcpy(le->draft, le->buf, le->len + 1);
			le->draft_typed = le->typed;
		}
		le->hist_pos++;
		show(le, history_entry(le, le->hist_pos));
	} else {
		if (le->hist_pos == 0)
			return;
		le->hist_pos--;
		if (le->hist_pos) {
			show(le, history_entry(le, le->hist_pos));
		} else {
			/* An over-long draft comes back over-long, not cut short. */
			show(le, le->draft);
			le->typed = le->draft_typed;
		}
	}
}

/* Byte c arrives inside an escape sequence.  True if it belongs to the
 * sequence; false if it ended the sequence and must do its own job. */
static bool escape_feed(struct lineedit *le, unsigned char c)
{
	enum lineedit_escape state = le->esc;
	le->esc = LE_ESC_NONE;
	switch (state) {
	case LE_ESC_START:
		if (c == ESC_CSI_INTRODUCER)
			le->esc = LE_ESC_CSI;
		else if (c == ESC_SS3_INTRODUCER)
			le->esc = LE_ESC_SS3;
		return le->esc != LE_ESC_NONE;
	case LE_ESC_CSI:
		if (c >= CSI_MIDDLE_FIRST && c <= CSI_MIDDLE_LAST) {
			le->esc = LE_ESC_CSI;
			return true;
		}
		if (c < CSI_FINAL_FIRST || c > CSI_FINAL_LAST)
			return false;
		break;
	case LE_ESC_SS3:
		if (!is_printable(c))
			return false;
		break;
	case LE_ESC_NONE:
		return false;
	}
	/* c is the final byte: the only ones that do something are the arrows. */
	if (c == KEY_UP_FINAL)
		history_move(le, true);
	else if (c == KEY_DOWN_FINAL)
		history_move(le, false);
	return true;
}

static enum lineedit_result enter(struct lineedit *le, char *out)
{
	echo(le, "\n");
	bool too_long = le->typed > LINEEDIT_MAX;
	if (!too_long) {
		memcpy(out, le->buf, le->len + 1);
		history_add(le, le->buf);
	}
	reset(le);
	return too_long ? LE_TOO_LONG : LE_LINE;
}

static void erase_one(struct lineedit *le)
{
	if (le->typed > le->len) {              /* beyond the limit: nothing shown */
		le->typed--;
	} else if (le->len) {
		le->buf[--le->len] = '\0';
		le->typed--;
		echo(le, "\b \b");
	}
}

static void type_one(struct lineedit *le, char c)
{
	le->typed++;
	if (le->len < LINEEDIT_MAX && le->typed == le->len + 1) {
		le->buf[le->len++] = c;
		le->buf[le->len] = '\0';
		le->echo(&c, 1, le->ctx);
	}
}

void lineedit_init(struct lineedit *le, lineedit_echo_fn echo_fn, void *ctx)
{
	memset(le, 0, sizeof(*le));
	le->echo = echo_fn;
	le->ctx = ctx;
}

enum lineedit_result lineedit_feed(struct lineedit *le, char ch, char *out)
{
	unsigned char c = (unsigned char)ch;
	bool after_cr = le->last == '\r';
	le->last = ch;

	if (le->esc != LE_ESC_NONE && escape_feed(le, c))
		return LE_NONE;

	switch (c) {
	case '\n':
		if (after_cr)
			return LE_NONE;         /* second half of CR LF */
		return enter(le, out);
	case '\r':
		return enter(le, out);
	case CTRL('C'):
		echo(le, "^C\n");
		reset(le);
		return LE_CANCEL;
	case CTRL('U'):
		erase_shown(le);
		reset(le);
		return LE_NONE;
	case ASCII_BS:
	case ASCII_DEL:
		erase_one(le);
		return LE_NONE;
	case ASCII_ESC:
		le->esc = LE_ESC_START;
		return LE_NONE;
	default:
		if (is_printable(c))
			type_one(le, ch);
		return LE_NONE;         /* every other byte does nothing */
	}
}
