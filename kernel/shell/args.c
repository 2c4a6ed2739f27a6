/* kernel/shell/args.c — word splitting and strict number parsing for the
 * shell and boot options (include/shell/args.h). */
#include "shell/args.h"
#include "errno.h"

int args_split(char *line, char **argv, int max)
{
	int argc = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			return argc;
		if (argc == max)
			return -1;
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned base = 10;
	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return -EINVAL;
	}
	uint64_t v = 0;
	bool overflow = false;
	for (; *s; s++) {
		int d = digit_value(*s);
		if (d >= (int)base)
			return -EINVAL;
		/* v * base + d > UINT64_MAX  <=>  v > (UINT64_MAX - d) / base */
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			overflow = true;        /* keep scanning: junk still wins */
		else
			v = v * base + (uint64_t)d;
	}
	if (overflow || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int rc = parse_u64(s, min, max, &v);
	if (rc == 0)
		*out = (uint32_t)v;
	return rc;
}

int parse_signed_nonzero(const char *s, uint32_t max, int64_t *out)
{
	bool neg = s[0] == '-';
	uint32_t v;
	if (parse_u32(s + (s[0] == '-' || s[0] == '+'), 1, max, &v))
		return -EINVAL;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}
