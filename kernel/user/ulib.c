/* kernel/user/ulib.c — the programs' small library (kernel/user/ulib.h):
 * strings and numbers, written out by hand so that the compiler calls no
 * kernel function from ring 3. */
#include "ulib.h"

unsigned u_strlen(const char *s)
{
	unsigned n = 0;
	while (s[n])
		n++;
	return n;
}

void u_puts(const char *s) { sys_write(s, u_strlen(s)); }

/* Binary long division, one bit of the quotient per step. */
uint64_t u_div64(uint64_t n, uint64_t d, uint64_t *rem)
{
	uint64_t q = 0, r = 0;
	for (int bit = 63; bit >= 0; bit--) {
		r = r << 1 | ((n >> bit) & 1);
		if (d && r >= d) {
			r -= d;
			q |= 1ull << bit;
		}
	}
	if (rem)
		*rem = r;
	return q;
}

void u_put_u64(uint64_t n)
{
	char buf[21];
	unsigned i = sizeof(buf);
	buf[--i] = 0;
	do {
		uint64_t digit;
		n = u_div64(n, 10, &digit);
		buf[--i] = (char)('0' + digit);
	} while (n && i);
	u_puts(&buf[i]);
}

int u_streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

const char *u_word(const char *s, char *w, unsigned n)
{
	while (*s == ' ')
		s++;
	unsigned i = 0;
	while (*s && *s != ' ') {
		if (i + 1 < n)
			w[i++] = *s;
		s++;
	}
	w[i] = 0;
	return s;
}

uint64_t u_parse_u64(const char *args, const char **rest, int *ok)
{
	char w[24];
	const char *r = u_word(args, w, sizeof(w));
	uint64_t v = 0;
	*ok = w[0] != 0;
	for (const char *p = w; *p; p++) {
		if (*p < '0' || *p > '9') {
			*ok = 0;
			break;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (rest)
		*rest = r;
	return v;
}

void u_sort_u32(uint32_t *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint32_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* ns as microseconds with one decimal. */
static void put_us(uint32_t ns)
{
	u_put_u64(ns / 1000);
	u_puts(".");
	u_put_u64(ns / 100 % 10);
}

void u_put_p50_p99_max(uint32_t *ns, unsigned n)
{
	u_sort_u32(ns, n);
	u_puts("p50 ");
	put_us(ns[(n - 1) / 2]);
	u_puts(" us, p99 ");
	put_us(ns[u_div64((uint64_t)(n - 1) * 99, 100, 0)]);
	u_puts(" us, max ");
	put_us(ns[n - 1]);
	u_puts(" us");
}
