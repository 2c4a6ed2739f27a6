/* include/kprintf.h — formatted output.
 *
 * The formatting engine (kernel/lib/format.c) is portable and unit-tested on
 * the host.  Conversions: %d %i %u %x %X %s %c %p %%; length modifiers l and
 * ll (64-bit) and z; flags '-' (left-justify) and '0' (zero-pad); a width
 * (number or '*'); a precision for %s (".N" or ".*") to print at most N
 * characters.  No floating point: print fixed-point numbers with two integer
 * conversions (see fmt_fixed below). */
#ifndef LULL_KPRINTF_H
#define LULL_KPRINTF_H

#include <stdarg.h>
#include "compiler.h"

typedef void (*format_putc_fn)(char c, void *ctx);

/* Format into a character sink; returns the number of characters produced. */
int kvformat(format_putc_fn putc, void *ctx, const char *fmt, va_list ap);
/* Like vsnprintf: always NUL-terminates (if size > 0), returns the length
 * the full output would have had. */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/* Print to the console (serial + VGA).  Implemented in kernel/console.c. */
int kprintf(const char *fmt, ...) __printf(1, 2);
int kvprintf(const char *fmt, va_list ap);

/* Split a non-negative value scaled by `scale` (10^digits) into its integer
 * and fraction parts for printing "%llu.%0*llu". */
static inline uint64_t fmt_int(uint64_t v, uint64_t scale) { return v / scale; }
static inline uint64_t fmt_frac(uint64_t v, uint64_t scale) { return v % scale; }

#endif
