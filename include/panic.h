/* include/panic.h — stopping the machine with a message. */
#ifndef LULL_PANIC_H
#define LULL_PANIC_H

#include "compiler.h"

/* A broken invariant: print "panic: ..." and halt with interrupts off. */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);
/* Stop for good: interrupts off, hlt forever (costs the host nothing). */
__noreturn void halt_forever(void);

#endif
