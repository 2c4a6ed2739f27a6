/* include/shell/args.h — splitting a shell line into words and reading numbers
 * strictly.  Portable (tests/unit/test_args.c).
 *
 * "Strictly" means: only decimal digits (or 0x + hex digits where hex is
 * allowed), no sign, no spaces, no trailing junk, and a value inside
 * [min, max] — never a silent wrap-around ("-1" is an error, not 4294967295).
 */
#ifndef LULL_ARGS_H
#define LULL_ARGS_H

#include "compiler.h"

#define ARGS_MAX 16

/* Split `line` in place on spaces/tabs.  Returns the word count, or -1 if
 * there are more than max words. */
int args_split(char *line, char **argv, int max);

/* Parse a whole word as an unsigned number in [min, max].
 * 0 on success, -EINVAL not a number, -ERANGE outside [min, max]. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);

/* A signed whole number other than 0: +N, -N or N, with 1 <= N <= max.
 * 0 on success, -EINVAL otherwise. */
int parse_signed_nonzero(const char *s, uint32_t max, int64_t *out);

#endif
