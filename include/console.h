/* include/console.h — one console feeding one shell: every byte printed goes
 * to each output sink (COM1, the VGA screen), every byte typed on an input
 * source (COM1, the PS/2 keyboard) lands in one buffer.
 *
 * The console sits below the drivers and names none of them: a driver hands
 * it a sink with console_add_sink(), and its interrupt handler pushes typed
 * bytes with console_input_push().  kernel/main.c brings them up in order. */
#ifndef LULL_CONSOLE_H
#define LULL_CONSOLE_H

#include "compiler.h"

#define CTRL(c) ((c) & 0x1f)

/* An output device.  putc must work with interrupts off and from a panic
 * (poll, never sleep), and handles newlines its own way: a terminal wants
 * CR LF, the screen moves to the next line on \n alone. */
struct console_sink {
	const char *name;               /* "uart", "vga" */
	void (*putc)(char c);
	struct console_sink *next;      /* the console's list; set when added */
};
/* From now on every byte printed goes to `sink` too, after the sinks added
 * before it.  What was printed before is replayed to it first, from the
 * console's log of the last CONSOLE_LOG_SIZE bytes (from a line's start),
 * so a screen found late in the boot still shows the boot's first lines.
 * Add each sink once. */
#define CONSOLE_LOG_SIZE 8192
void console_add_sink(struct console_sink *sink);

void console_write(const char *s, size_t n);
/* The same, whole: no other console_write_whole (another CPU's task's
 * line) comes between its bytes.  Not from interrupt context. */
void console_write_whole(const char *s, size_t n);
void console_puts(const char *s);

/* Input: interrupt handlers push bytes (keyboard keys are translated to the
 * bytes a terminal would send, arrows as ESC [ A …); the shell pops them. */
void console_input_push(char c);
int console_getc(void);                 /* -1 if nothing is waiting */
bool console_has_input(void);
unsigned console_input_dropped(void);   /* bytes lost to a full buffer */
/* A function that sees each input byte first, in interrupt context; if it
 * returns true the byte is consumed (used by `keytimer`).  NULL removes it. */
void console_set_input_hook(bool (*hook)(char c));

/* Ctrl-C while a command runs: the byte is not queued, this flag is set. */
void console_set_command_running(bool running);
bool console_interrupted(void);

#endif
