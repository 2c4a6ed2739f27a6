/* include/console.h — one console made of COM1 and the VGA screen (output)
 * plus COM1 and the PS/2 keyboard (input), feeding one shell. */
#ifndef LULL_CONSOLE_H
#define LULL_CONSOLE_H

#include "compiler.h"

#define CTRL(c) ((c) & 0x1f)

void console_init(void);
void console_write(const char *s, size_t n);
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
