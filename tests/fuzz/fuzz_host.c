/* tests/fuzz/fuzz_host.c — kprintf and the failure helpers every harness
 * links (tests/fuzz/fuzz_host.h).  kprintf formats with the kernel's own
 * engine (kernel/lib/format.c), so a format string fed hostile bytes is
 * fuzzed too, and every line it prints must be printable text. */
#include <stdarg.h>
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
