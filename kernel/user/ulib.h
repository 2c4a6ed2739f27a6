/* kernel/user/ulib.h — what the built-in programs share (kernel/user/ulib.c).
 * Everything here runs in ring 3 and is linked into the programs' pages
 * (linker.ld, .user): a program may call nothing else of the kernel's. */
#ifndef LULL_USER_ULIB_H
#define LULL_USER_ULIB_H

#define LULL_USER
#include "user/syscall.h"

unsigned u_strlen(const char *s);
void u_puts(const char *s);
/* The number, in decimal. */
void u_put_u64(uint64_t n);
/* n / d (and n % d into *rem if rem): by hand, since GCC would call the
 * kernel's __udivdi3 for a 64-bit division, which ring 3 may not run. */
uint64_t u_div64(uint64_t n, uint64_t d, uint64_t *rem);
/* The first word of args as a number (0 if none); *rest after it. */
uint64_t u_parse_u64(const char *args, const char **rest, int *ok);
int u_streq(const char *a, const char *b);
/* The next word of s into w (at most n - 1 bytes); the rest. */
const char *u_word(const char *s, char *w, unsigned n);
/* v sorted, smallest first (insertion sort: n is at most a few thousand). */
void u_sort_u32(uint32_t *v, unsigned n);
/* "p50 X us, p99 Y us, max Z us" of n (>= 1) durations in ns; sorts them. */
void u_put_p50_p99_max(uint32_t *ns, unsigned n);
/* A system call by SYSENTER (kernel/user/sysenter.c), where u_sysenter_ok. */
int32_t u_sysenter(uint32_t nr, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e);
extern int u_sysenter_ok;

#endif
