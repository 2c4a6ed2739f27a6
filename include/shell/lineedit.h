/* include/shell/lineedit.h — the shell's line editor, byte by byte.
 *
 * Portable (tests/unit/test_lineedit.c): it sees only the bytes typed and
 * answers with the bytes to echo.  It knows printable characters, Enter
 * (CR, LF, or CR LF), backspace/DEL, Ctrl-U (clear line), Ctrl-C (abandon
 * line), and the up/down arrows for a history of the last LINEEDIT_HISTORY
 * lines; every other byte and escape sequence does nothing.  The table of
 * all 256 byte values is in the header comment of kernel/shell/lineedit.c.
 * A line longer than LINEEDIT_MAX is never handed out cut short: Enter
 * reports LE_TOO_LONG and the whole line is dropped.
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

/* Where the editor is in an escape sequence (kernel/shell/lineedit.c). */
enum lineedit_escape {
	LE_ESC_NONE,    /* not in one */
	LE_ESC_START,   /* after ESC */
	LE_ESC_CSI,     /* after ESC [ and any parameter bytes */
	LE_ESC_SS3,     /* after ESC O */
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
	unsigned draft_typed;   /* its `typed`: it may be over the limit */
	enum lineedit_escape esc;       /* inside an escape sequence? */
	char last;              /* previous byte, to swallow LF after CR */
	lineedit_echo_fn echo;
	void *ctx;
};

void lineedit_init(struct lineedit *le, lineedit_echo_fn echo, void *ctx);
/* Feed one byte.  On LE_LINE, `out` (LINEEDIT_MAX + 1 bytes) holds it. */
enum lineedit_result lineedit_feed(struct lineedit *le, char c, char *out);

#endif
