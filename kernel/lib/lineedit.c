/* kernel/lib/lineedit.c — see include/lineedit.h.
 *
 * A new line is echoed as "\n": the console turns it into CR LF for
 * terminals.  Erasing uses "\b \b" (back, blank, back) rather than ANSI codes, so the
 * same echo works on a serial terminal and on the VGA screen. */
#include "lineedit.h"
#include "console.h"
#include "kstring.h"

#define ASCII_BS   0x08
#define ASCII_DEL  0x7f
#define ASCII_ESC  0x1b

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
		if (le->hist_pos == 0)
			memcpy(le->draft, le->buf, le->len + 1);
		le->hist_pos++;
		show(le, history_entry(le, le->hist_pos));
	} else {
		if (le->hist_pos == 0)
			return;
		le->hist_pos--;
		show(le, le->hist_pos ? history_entry(le, le->hist_pos) : le->draft);
	}
}

void lineedit_init(struct lineedit *le, lineedit_echo_fn echo_fn, void *ctx)
{
	memset(le, 0, sizeof(*le));
	le->echo = echo_fn;
	le->ctx = ctx;
}

enum lineedit_result lineedit_feed(struct lineedit *le, char c, char *out)
{
	char prev = le->last;
	le->last = c;

	/* A control byte inside an escape sequence ends the sequence and acts
	 * as itself (as on a VT100), so Enter after a garbled ESC [ 9 9 still
	 * ends the line. */
	if (le->esc && (unsigned char)c < 0x20)
		le->esc = 0;
	if (le->esc == 1) {                     /* after ESC: expect '[' */
		le->esc = (c == '[') ? 2 : 0;
		return LE_NONE;
	}
	if (le->esc == 2) {                     /* ESC [ params final */
		if ((c >= '0' && c <= '9') || c == ';')
			return LE_NONE;
		le->esc = 0;
		if (c == 'A')
			history_move(le, true);
		else if (c == 'B')
			history_move(le, false);
		return LE_NONE;
	}

	switch (c) {
	case '\n':
		if (prev == '\r')
			return LE_NONE;         /* second half of CR LF */
		/* fall through */
	case '\r': {
		echo(le, "\n");
		bool too_long = le->typed > LINEEDIT_MAX;
		if (!too_long) {
			memcpy(out, le->buf, le->len + 1);
			history_add(le, le->buf);
		}
		reset(le);
		return too_long ? LE_TOO_LONG : LE_LINE;
	}
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
		if (le->typed > le->len) {      /* beyond the limit: nothing shown */
			le->typed--;
		} else if (le->len) {
			le->buf[--le->len] = '\0';
			le->typed--;
			echo(le, "\b \b");
		}
		return LE_NONE;
	case ASCII_ESC:
		le->esc = 1;
		return LE_NONE;
	default:
		if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
			return LE_NONE;         /* other control or non-ASCII bytes */
		le->typed++;
		if (le->len < LINEEDIT_MAX && le->typed == le->len + 1) {
			le->buf[le->len++] = c;
			le->buf[le->len] = '\0';
			le->echo(&c, 1, le->ctx);
		}
		return LE_NONE;
	}
}
