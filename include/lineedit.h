/* include/lineedit.h — the shell's line editor, byte by byte.
 *
 * Portable (tests/unit/test_lineedit.c): it sees only the bytes typed and
 * answers with the bytes to echo.  It knows printable characters, Enter
 * (CR, LF, or CR LF), backspace/DEL, Ctrl-U (clear line), Ctrl-C (abandon
 * line), and the up/down arrows (ESC [ A / ESC [ B) for a history of the
 * last LINEEDIT_HISTORY lines.  Other control bytes and escape sequences are
 * ignored.  A line longer than LINEEDIT_MAX is never handed out cut short:
 * Enter reports LE_TOO_LONG and the whole line is dropped.
 */
#ifndef LULL_LINEEDIT_H
#define LULL_LINEEDIT_H

#include "compiler.h"

#define LINEEDIT_MAX      255
#define LINEEDIT_HISTORY   16

enum lineedit_result {
	LE_NONE,        /* keep typing */
	LE_LINE,        /* a complete line is in `out` */
	LE_CANCEL,      /* Ctrl-C: line abandoned */
	LE_TOO_LONG,    /* Enter on a line longer than LINEEDIT_MAX */
};

typedef void (*lineedit_echo_fn)(const char *s, size_t n, void *ctx);

struct lineedit {
	char buf[LINEEDIT_MAX + 1];
	unsigned len;           /* characters in buf */
	unsigned typed;         /* characters typed; > len once past the limit */
	char history[LINEEDIT_HISTORY][LINEEDIT_MAX + 1];
	unsigned hist_count;    /* lines stored */
	unsigned hist_newest;   /* slot of the most recent line */
	unsigned hist_pos;      /* 0: editing a new line; k: showing the k-th newest */
	char draft[LINEEDIT_MAX + 1];   /* the new line, kept while browsing */
	int esc;                /* 0, 1 after ESC, 2 after ESC [ */
	char last;              /* previous byte, to swallow LF after CR */
	lineedit_echo_fn echo;
	void *ctx;
};

void lineedit_init(struct lineedit *le, lineedit_echo_fn echo, void *ctx);
/* Feed one byte.  On LE_LINE, `out` (LINEEDIT_MAX + 1 bytes) holds it. */
enum lineedit_result lineedit_feed(struct lineedit *le, char c, char *out);

#endif
