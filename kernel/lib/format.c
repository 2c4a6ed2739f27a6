/* kernel/lib/format.c — the printf engine behind kprintf and ksnprintf.
 *
 * Portable (no hardware, no libc), so tests/unit/test_format.c runs it on the
 * host against the same cases the kernel relies on.  One pass over the
 * format string; each conversion is rendered into a small buffer, then
 * padded to its width.
 */
#include "kprintf.h"
#include "kstring.h"

struct spec {
	bool left;          /* '-' : pad on the right */
	bool zero;          /* '0' : pad numbers with zeros */
	bool plus;          /* '+' : %d shows a sign, + or - */
	int width;          /* minimum field width */
	int precision;      /* %s: max characters; -1 = none */
	int length;         /* 0 = int, 1 = long, 2 = long long, 3 = size_t */
};

struct sink {
	format_putc_fn putc;
	void *ctx;
	int count;
};

static void emit(struct sink *s, char c)
{
	s->putc(c, s->ctx);
	s->count++;
}

static void emit_padded(struct sink *s, const struct spec *sp, const char *prefix,
                        const char *body, int body_len)
{
	int plen = (int)strlen(prefix);
	int pad = sp->width - plen - body_len;
	if (!sp->left && !sp->zero)
		for (; pad > 0; pad--)
			emit(s, ' ');
	for (int i = 0; i < plen; i++)
		emit(s, prefix[i]);
	if (!sp->left && sp->zero)      /* zeros go between sign/0x and digits */
		for (; pad > 0; pad--)
			emit(s, '0');
	for (int i = 0; i < body_len; i++)
		emit(s, body[i]);
	for (; pad > 0; pad--)
		emit(s, ' ');
}

/* Render v in base 10 or 16 into the end of buf; returns the first digit. */
static char *render_unsigned(char *end, uint64_t v, unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = end;
	do {
		*--p = digits[v % base];
		v /= base;
	} while (v);
	return p;
}

static uint64_t fetch_unsigned(va_list *ap, int length)
{
	switch (length) {
	case 1: return va_arg(*ap, unsigned long);
	case 2: return va_arg(*ap, unsigned long long);
	case 3: return va_arg(*ap, size_t);
	default: return va_arg(*ap, unsigned int);
	}
}

static int64_t fetch_signed(va_list *ap, int length)
{
	switch (length) {
	case 1: return va_arg(*ap, long);
	case 2: return va_arg(*ap, long long);
	case 3: return (int64_t)va_arg(*ap, size_t);
	default: return va_arg(*ap, int);
	}
}

/* A conversion's flags, width, precision and length, from f (just past
 * the '%'), a '*' taking its value from ap.  Returns the place of the
 * conversion character. */
static const char *parse_spec(const char *f, va_list *ap, struct spec *sp)
{
	for (;; f++) {                          /* flags */
		if (*f == '-')
			sp->left = true;
		else if (*f == '0')
			sp->zero = true;
		else if (*f == '+')
			sp->plus = true;
		else
			break;
	}
	if (*f == '*') {                        /* width */
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) {
			sp->left = true;
			sp->width = -sp->width;
		}
		f++;
	} else {
		while (*f >= '0' && *f <= '9')
			sp->width = sp->width * 10 + (*f++ - '0');
	}
	if (*f == '.') {                        /* precision */
		f++;
		sp->precision = 0;
		if (*f == '*') {
			sp->precision = va_arg(*ap, int);
			f++;
		} else {
			while (*f >= '0' && *f <= '9')
				sp->precision = sp->precision * 10 + (*f++ - '0');
		}
	}
	if (*f == 'l') {                        /* length */
		sp->length = 1;
		if (*++f == 'l') {
			sp->length = 2;
			f++;
		}
	} else if (*f == 'z') {
		sp->length = 3;
		f++;
	}
	return f;
}

/* A number in base 10 or 16 after `prefix` (sign or 0x), padded to the
 * spec's width. */
static void emit_number(struct sink *s, const struct spec *sp, const char *prefix, uint64_t v,
                        unsigned base, bool upper)
{
	char buf[24];                           /* 2^64 needs 20 digits */
	char *end = buf + sizeof(buf);
	char *p = render_unsigned(end, v, base, upper);
	emit_padded(s, sp, prefix, p, (int)(end - p));
}

/* The conversion whose character f points at, its argument taken from ap.
 * Returns where the format goes on from: f, or the character before it
 * for a lone '%' at the very end. */
static const char *emit_conversion(struct sink *s, struct spec *sp, const char *f, va_list *ap)
{
	switch (*f) {
	case 'd':
	case 'i': {
		int64_t v = fetch_signed(ap, sp->length);
		uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
		emit_number(s, sp, v < 0 ? "-" : sp->plus ? "+" : "", mag, 10, false);
		break;
	}
	case 'u':
		emit_number(s, sp, "", fetch_unsigned(ap, sp->length), 10, false);
		break;
	case 'x':
	case 'X':
		emit_number(s, sp, "", fetch_unsigned(ap, sp->length), 16, *f == 'X');
		break;
	case 'p': {
		/* Always 0x and 8 digits on i386: addresses line up in dumps. */
		uintptr_t v = (uintptr_t)va_arg(*ap, void *);
		struct spec ps = *sp;
		ps.zero = true;
		if (ps.width < 10)
			ps.width = 10;
		emit_number(s, &ps, "0x", v, 16, false);
		break;
	}
	case 'c': {
		char c = (char)va_arg(*ap, int);
		sp->zero = false;
		emit_padded(s, sp, "", &c, 1);
		break;
	}
	case 's': {
		const char *str = va_arg(*ap, const char *);
		if (!str)
			str = "(null)";
		int len = 0;
		while (str[len] && (sp->precision < 0 || len < sp->precision))
			len++;
		sp->zero = false;
		emit_padded(s, sp, "", str, len);
		break;
	}
	case '%':
		emit(s, '%');
		break;
	case '\0':                              /* lone % at the end */
		emit(s, '%');
		return f - 1;
	default:                                /* unknown: show it as is */
		emit(s, '%');
		emit(s, *f);
		break;
	}
	return f;
}

int kvformat(format_putc_fn putc, void *ctx, const char *fmt, va_list ap_in)
{
	struct sink s = { putc, ctx, 0 };
	va_list ap;
	va_copy(ap, ap_in);

	for (const char *f = fmt; *f; f++) {
		if (*f != '%') {
			emit(&s, *f);
			continue;
		}
		struct spec sp = { .precision = -1 };
		f = parse_spec(f + 1, &ap, &sp);
		f = emit_conversion(&s, &sp, f, &ap);
	}
	va_end(ap);
	return s.count;
}

struct bufsink {
	char *buf;
	size_t size, pos;
};

static void buf_putc(char c, void *ctx)
{
	struct bufsink *b = ctx;
	if (b->pos + 1 < b->size)
		b->buf[b->pos] = c;
	b->pos++;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct bufsink b = { buf, size, 0 };
	int n = kvformat(buf_putc, &b, fmt, ap);
	if (size)
		buf[b.pos < size ? b.pos : size - 1] = '\0';
	return n;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

const char *fmt_fixed(char *buf, size_t size, uint64_t v, unsigned decimals)
{
	decimals = MIN(decimals, FMT_FIXED_MAX_DECIMALS);
	uint64_t scale = 1;
	for (unsigned i = 0; i < decimals; i++)
		scale *= 10;
	if (decimals == 0)
		ksnprintf(buf, size, "%llu", (unsigned long long)v);
	else
		ksnprintf(buf, size, "%llu.%0*llu", (unsigned long long)(v / scale), (int)decimals,
		          (unsigned long long)(v % scale));
	return buf;
}
