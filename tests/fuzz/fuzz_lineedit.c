// SOURCES: kernel/shell/lineedit.c kernel/shell/args.c kernel/lib/format.c
/* tests/fuzz/fuzz_lineedit.c — libFuzzer harness for the shell's input
 * path: the line editor (kernel/shell/lineedit.c) fed the input one byte
 * at a time, as the serial line delivers it (escape sequences, backspace,
 * Ctrl-U, history arrows and all), and every line it hands out split with
 * args_split and each word parsed by parse_u64 and parse_u32
 * (kernel/shell/args.c), as the shell's commands do.
 *
 * Checked after every byte: the echo is printable, BS or "\n" only (the
 * editor's promise in its header comment), the line kept is a C string of
 * `len` characters within LINEEDIT_MAX, and a parsed number lies within the
 * bounds asked for. */
#include <stdlib.h>
#include <string.h>
#include "shell/args.h"
#include "shell/lineedit.h"
#include "errno.h"
#include "fuzz_host.h"

#define ASCII_BS 0x08

static void echo(const char *s, size_t n, void *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++)
		if (s[i] != ASCII_BS)
			fuzz_check_printable(s + i, 1, "echo");
}

/* Bounds the shell's commands use: none, a sleep's milliseconds, a CPU. */
static const uint64_t bounds[][2] = { { 0, UINT64_MAX }, { 1, 3600000 }, { 0, 7 } };

static void parse_words(const char *line)
{
	char copy[LINEEDIT_MAX + 1];
	char *argv[ARGS_MAX];
	memcpy(copy, line, strlen(line) + 1);
	int argc = args_split(copy, argv, ARGS_MAX);
	if (argc < -1 || argc > ARGS_MAX)
		fuzz_fail("args_split: count out of range");
	for (int i = 0; i < argc; i++) {
		if (!argv[i][0] || strchr(argv[i], ' ') || strchr(argv[i], '\t'))
			fuzz_fail("args_split: an empty word, or one with a blank in it");
		for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++) {
			uint64_t v64 = 0;
			int rc = parse_u64(argv[i], bounds[b][0], bounds[b][1], &v64);
			if (rc == 0 && (v64 < bounds[b][0] || v64 > bounds[b][1]))
				fuzz_fail("parse_u64: accepted a value out of bounds");
			if (rc != 0 && rc != -EINVAL && rc != -ERANGE)
				fuzz_fail("parse_u64: an error outside lull's vocabulary");
			uint32_t v32 = 0;
			rc = parse_u32(argv[i], (uint32_t)bounds[b][0], UINT32_MAX, &v32);
			if (rc == 0 && v32 < bounds[b][0])
				fuzz_fail("parse_u32: accepted a value out of bounds");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lineedit le;
	char out[LINEEDIT_MAX + 1];
	lineedit_init(&le, echo, NULL);
	for (size_t i = 0; i < size; i++) {
		enum lineedit_result r = lineedit_feed(&le, (char)data[i], out);
		if (le.len > LINEEDIT_MAX || strlen(le.buf) != le.len || le.typed < le.len ||
		    le.hist_count > LINEEDIT_HISTORY || le.hist_pos > le.hist_count)
			fuzz_fail("lineedit: state out of bounds");
		if (r == LE_LINE) {
			fuzz_check_printable(out, strlen(out), "line");
			parse_words(out);
		}
	}
	return 0;
}
