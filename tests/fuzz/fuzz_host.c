/* tests/fuzz/fuzz_host.c — kprintf and the failure helpers every harness
 * links (tests/fuzz/fuzz_host.h).  kprintf formats with the kernel's own
 * engine (kernel/lib/format.c), so a format string fed hostile bytes is
 * fuzzed too, and every line it prints must be printable text. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_host.h"
#include "kprintf.h"

char fuzz_output[16384];
static size_t fuzz_output_len;

void fuzz_forget_output(void)
{
	fuzz_output_len = 0;
	fuzz_output[0] = '\0';
}

void fuzz_fail(const char *why)
{
	fprintf(stderr, "fuzz: %s\n--- output so far ---\n%s\n", why, fuzz_output);
	abort();
}

void fuzz_check_printable(const char *s, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != '\n' && (s[i] < ' ' || s[i] > '~')) {
			fprintf(stderr, "fuzz: %s: byte 0x%02x at %zu\n", what, (unsigned char)s[i], i);
			fuzz_fail("unprintable byte in console output");
		}
}

#define FUZZ_MEMORY_MAX   (1u << 20)   /* the largest fake memory */
#define FUZZ_MAX_MAPS     4096         /* far more than one parse needs */

static uint8_t memory[FUZZ_MEMORY_MAX];
static uint64_t memory_base;
static size_t memory_len, memory_dirty = FUZZ_MEMORY_MAX;
static void *maps[FUZZ_MAX_MAPS];
static unsigned nmaps;

uint8_t *fuzz_memory_load(uint64_t base, size_t region, const uint8_t *data, size_t size)
{
	if (region > FUZZ_MEMORY_MAX || size > region)
		fuzz_fail("fuzz_memory_load: region too large");
	memcpy(memory, data, size);
	if (memory_dirty > size)                        /* zeros after: only where dirty */
		memset(memory + size, 0, memory_dirty - size);
	memory_dirty = size;
	memory_base = base;
	memory_len = region;
	return memory;
}

const void *fuzz_memory_map(uint64_t phys, uint32_t len)
{
	if (phys == 0 || phys < memory_base || phys - memory_base > memory_len ||
	    len > memory_len - (phys - memory_base))
		return NULL;
	uint64_t off = phys - memory_base;
	if (off + len == memory_len)
		return memory + off;            /* ends where memory does: exact already */
	if (nmaps == FUZZ_MAX_MAPS)
		fuzz_fail("more than FUZZ_MAX_MAPS maps in one run");
	void *copy = malloc(len ? len : 1);
	memcpy(copy, memory + off, len);
	maps[nmaps++] = copy;
	return copy;
}

void fuzz_memory_unmap_all(void)
{
	while (nmaps)
		free(maps[--nmaps]);
}

int kprintf(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = kvsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	size_t len = strlen(line);
	fuzz_check_printable(line, len, "kprintf");
	size_t room = sizeof(fuzz_output) - 1 - fuzz_output_len;
	size_t take = len < room ? len : room;
	memcpy(fuzz_output + fuzz_output_len, line, take);
	fuzz_output_len += take;
	fuzz_output[fuzz_output_len] = '\0';
	return n;
}
