/* include/kprintf.h — formatted output.
 *
 * The formatting engine (kernel/lib/format.c) is portable and unit-tested on
 * the host.  Conversions: %d %i %u %x %X %s %c %p %%; length modifiers l and
 * ll (64-bit) and z; flags '-' (left-justify) and '0' (zero-pad); a width
 * (number or '*'); a precision for %s (".N" or ".*") to print at most N
 * characters.  No floating point: fixed-point numbers go through fmt_fixed
 * (below), the one place that writes "12.345". */
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

/* A fixed-point number as text: v counts units of 10^-decimals, written as
 * "<integer>.<exactly `decimals` digits>" (zero-padded; no point when
 * decimals is 0; at most FMT_FIXED_MAX_DECIMALS).  Returns buf, so the call
 * can sit in an argument list:
 *     char s[FMT_FIXED_SIZE];
 *     kprintf("up %s s\n", fmt_fixed(s, sizeof(s), ns, 9));
 * Callers scale (and so truncate) before; FMT_FIXED_SIZE holds any value. */
#define FMT_FIXED_SIZE          24      /* 20 digits of UINT64_MAX, '.', NUL */
#define FMT_FIXED_MAX_DECIMALS  19      /* 10^19 is the largest power of 10 in 64 bits */
const char *fmt_fixed(char *buf, size_t size, uint64_t v, unsigned decimals);

/* A frequency in MHz with three decimals, truncated: 1193182 Hz is
 * "1.193", as every boot line and the `clocksource` listing print it. */
#define FMT_HZ_PER_KHZ          1000
static inline const char *fmt_mhz(char *buf, size_t size, uint64_t hz)
{
	return fmt_fixed(buf, size, hz / FMT_HZ_PER_KHZ, 3);
}

#endif
