/* printf.c - kvsnprintf()/ksnprintf(): format into a caller's buffer (see include/printk.h).
 * Pure and freestanding, so the host tests compare it against the C library's snprintf.
 * Not: where the text goes (kernel/printk.c owns the console and its lock), no floating point.
 * Supported: %d %i %u %x %X %o %c %s %p %%, flags '-' '0' '#' (hex only), width and
 * precision (also '*'), length modifiers hh h l ll z t. Unknown conversions are copied out
 * literally. */
#include "printk.h"

/* The output cursor: `len` counts every character the full output would have, while only
 * the first size - 1 are stored, as C's vsnprintf requires for its return value. */
struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

struct spec {
	bool left; /* '-': pad on the right */
	bool zero; /* '0': pad numbers with zeros */
	bool alt;  /* '#': 0x / 0X before a non-zero hex value */
	int width;
	int prec; /* -1: none */
};

static void emit_str(struct out *o, const struct spec *sp, const char *s)
{
	int n = 0;

	if (!s)
		s = "(null)";
	/* Count at most prec characters: a precision lets %s print unterminated names. */
	while ((sp->prec < 0 || n < sp->prec) && s[n])
		n++;
	if (!sp->left)
		pad(o, ' ', sp->width - n);
	for (int i = 0; i < n; i++)
		put(o, s[i]);
	if (sp->left)
		pad(o, ' ', sp->width - n);
}

/* Print magnitude v in `base`; `sign` is '-' or 0, `prefix` "0x" or "" (for %p). Layout as
 * in C: [spaces][sign][prefix][zeros][digits][spaces]; an explicit precision is a minimum
 * digit count and turns the '0' flag off, and precision 0 prints nothing for the value 0. */
static void emit_num(struct out *o, const struct spec *sp, u64 v, unsigned base, bool upper,
		     char sign, const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24]; /* 2^64 needs 22 octal digits */
	int n = 0, plen = 0, zeros, total;

	if (v != 0 || sp->prec != 0) {
		do {
			tmp[n++] = digits[v % base];
			v /= base;
		} while (v);
	}
	while (prefix[plen])
		plen++;
	zeros = sp->prec > n ? sp->prec - n : 0;
	total = n + zeros + plen + (sign ? 1 : 0);
	if (sp->zero && !sp->left && sp->prec < 0 && sp->width > total) {
		zeros += sp->width - total;
		total = sp->width;
	}
	if (!sp->left)
		pad(o, ' ', sp->width - total);
	if (sign)
		put(o, sign);
	for (int i = 0; i < plen; i++)
		put(o, prefix[i]);
	pad(o, '0', zeros);
	while (n)
		put(o, tmp[--n]);
	if (sp->left)
		pad(o, ' ', sp->width - total);
}

/* Length modifiers, widest first so that the va_arg type matches what the caller passed. */
enum length { LEN_HH, LEN_H, LEN_INT, LEN_L, LEN_LL, LEN_Z };

static enum length parse_length(const char **fmt)
{
	const char *f = *fmt;
	enum length l = LEN_INT;

	if (f[0] == 'h') {
		l = f[1] == 'h' ? LEN_HH : LEN_H;
		f += l == LEN_HH ? 2 : 1;
	} else if (f[0] == 'l') {
		l = f[1] == 'l' ? LEN_LL : LEN_L;
		f += l == LEN_LL ? 2 : 1;
	} else if (f[0] == 'z' || f[0] == 't') {
		/* size_t and ptrdiff_t are both long-sized on every target we build for */
		l = LEN_Z;
		f++;
	}
	*fmt = f;
	return l;
}

/* Fetch a signed argument and narrow it back to its declared type (C promotes char and
 * short to int through varargs, so %hhd of 300 must print 44). */
static s64 arg_signed(va_list *ap, enum length l)
{
	switch (l) {
	case LEN_HH:
		return (signed char)va_arg(*ap, int);
	case LEN_H:
		return (short)va_arg(*ap, int);
	case LEN_L:
		return va_arg(*ap, long);
	case LEN_LL:
		return va_arg(*ap, long long);
	case LEN_Z:
		return (s64)va_arg(*ap, size_t);
	default:
		return va_arg(*ap, int);
	}
}

static u64 arg_unsigned(va_list *ap, enum length l)
{
	switch (l) {
	case LEN_HH:
		return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L:
		return va_arg(*ap, unsigned long);
	case LEN_LL:
		return va_arg(*ap, unsigned long long);
	case LEN_Z:
		return va_arg(*ap, size_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

/* Flags, width and precision after the '%'; a negative '*' width means '-' (C 7.21.6.1). */
static void parse_spec(const char **fmt, struct spec *sp, va_list *ap)
{
	const char *f = *fmt;

	sp->left = sp->zero = sp->alt = false;
	sp->width = 0;
	sp->prec = -1;
	for (;; f++) {
		if (*f == '-')
			sp->left = true;
		else if (*f == '0')
			sp->zero = true;
		else if (*f == '#')
			sp->alt = true;
		else
			break;
	}
	if (*f == '*') {
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
	if (*f == '.') {
		f++;
		sp->prec = 0;
		if (*f == '*') {
			sp->prec = va_arg(*ap, int);
			if (sp->prec < 0)
				sp->prec = -1; /* negative precision: as if omitted */
			f++;
		} else {
			while (*f >= '0' && *f <= '9')
				sp->prec = sp->prec * 10 + (*f++ - '0');
		}
	}
	*fmt = f;
}

/* One conversion starting just after '%'; returns the format position after it. */
static const char *convert(struct out *o, const char *fmt, va_list *ap)
{
	const char *start = fmt - 1;
	struct spec sp;
	enum length l;
	s64 sv;
	u64 v;
	char c;

	parse_spec(&fmt, &sp, ap);
	l = parse_length(&fmt);
	switch (*fmt) {
	case 'd':
	case 'i':
		sv = arg_signed(ap, l);
		/* Negate in unsigned arithmetic so that INT64_MIN does not overflow. */
		emit_num(o, &sp, sv < 0 ? -(u64)sv : (u64)sv, 10, false, sv < 0 ? '-' : 0, "");
		break;
	case 'u':
		emit_num(o, &sp, arg_unsigned(ap, l), 10, false, 0, "");
		break;
	case 'x':
	case 'X':
		v = arg_unsigned(ap, l);
		emit_num(o, &sp, v, 16, *fmt == 'X', 0,
			 sp.alt && v ? (*fmt == 'X' ? "0X" : "0x") : "");
		break;
	case 'o':
		emit_num(o, &sp, arg_unsigned(ap, l), 8, false, 0, "");
		break;
	case 'p':
		/* "0x" + hex as glibc prints it; NULL shows as (null) like %s (glibc: "(nil)"). */
		{
			const void *p = va_arg(*ap, const void *);

			sp.prec = -1;
			if (p)
				emit_num(o, &sp, (u64)(uintptr_t)p, 16, false, 0, "0x");
			else
				emit_str(o, &sp, NULL);
		}
		break;
	case 'c':
		c = (char)va_arg(*ap, int);
		if (!sp.left)
			pad(o, ' ', sp.width - 1);
		put(o, c);
		if (sp.left)
			pad(o, ' ', sp.width - 1);
		break;
	case 's':
		emit_str(o, &sp, va_arg(*ap, const char *));
		break;
	case '%':
		put(o, '%');
		break;
	default:
		/* Unknown or truncated ("%" at the end): show it rather than guess at arguments. */
		while (start < fmt)
			put(o, *start++);
		if (!*fmt)
			return fmt;
		put(o, *fmt);
		break;
	}
	return fmt + 1;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };
	va_list aq;

	/* Work on a copy that can be passed by pointer (va_list may be an array type). */
	va_copy(aq, ap);
	while (*fmt) {
		if (*fmt != '%')
			put(&o, *fmt++);
		else
			fmt = convert(&o, fmt + 1, &aq);
	}
	va_end(aq);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	/* The API returns int; clamp instead of wrapping on absurdly long output. */
	return o.len > 0x7fffffff ? 0x7fffffff : (int)o.len;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
