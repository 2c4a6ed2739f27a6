/* include/kstring.h — the few C string/memory functions lull uses, with the
 * standard names and prototypes.  The kernel's versions are in
 * kernel/lib/string.c; the host unit tests get libc's. */
#ifndef LULL_KSTRING_H
#define LULL_KSTRING_H

#include <stddef.h>
#include <stdint.h>

void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strstr(const char *s, const char *needle);

/* The little-endian value of `size` (1..8) bytes at `p`, which need not be
 * aligned: fields of tables the firmware or the boot loader wrote. */
static inline uint64_t load_le(const void *p, unsigned size)
{
	const uint8_t *b = p;
	uint64_t v = 0;
	while (size--)
		v = v << 8 | b[size];
	return v;
}

#endif
