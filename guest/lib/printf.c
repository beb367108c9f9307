// SPDX-License-Identifier: MIT
/*
 * One formatter feeding a sink: snprintf's sink is the caller's buffer,
 * printf's is a small stack buffer flushed to the console when full.
 */
#include "lib/console.h"
#include "lib/printf.h"

struct sink {
	char *buf;
	size_t size;		/* bytes buf may hold */
	size_t len;		/* bytes in buf now */
	size_t total;		/* bytes produced, for the return value */
	bool flush;		/* console sink: flush when full, else drop */
};

struct spec {
	bool left, zero, alt;
	int width;
	int precision;		/* -1: none */
	int size;		/* 0 int, 1 long, 2 long long, -1 short, -2 char */
};

static void sink_flush(struct sink *s)
{
	console_write(s->buf, s->len);
	s->len = 0;
}

static void put(struct sink *s, char c)
{
	s->total++;
	if (s->len == s->size) {
		if (!s->flush)
			return;
		sink_flush(s);
	}
	s->buf[s->len++] = c;
}

static void pad(struct sink *s, char c, int n)
{
	while (n-- > 0)
		put(s, c);
}

static void put_str(struct sink *s, const struct spec *sp, const char *str)
{
	int len = 0;

	if (!str)
		str = "(null)";
	while (str[len] && (sp->precision < 0 || len < sp->precision))
		len++;
	if (!sp->left)
		pad(s, ' ', sp->width - len);
	for (int i = 0; i < len; i++)
		put(s, str[i]);
	if (sp->left)
		pad(s, ' ', sp->width - len);
}

static void put_num(struct sink *s, const struct spec *sp, u64 v, bool neg,
		    unsigned int base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0, len;
	bool hex_prefix = sp->alt && base == 16 && v;	/* like libc: 0 has none */
	const char *prefix = neg ? "-" : (hex_prefix ? (upper ? "0X" : "0x") : "");
	int plen = neg ? 1 : hex_prefix * 2;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	len = n + plen;

	if (!sp->left && !sp->zero)
		pad(s, ' ', sp->width - len);
	for (int i = 0; i < plen; i++)
		put(s, prefix[i]);
	if (!sp->left && sp->zero)
		pad(s, '0', sp->width - len);
	while (n)
		put(s, tmp[--n]);
	if (sp->left)
		pad(s, ' ', sp->width - len);
}

/* Fetch an integer argument of the spec's size; va_list by pointer. */
static u64 arg_unsigned(const struct spec *sp, va_list *ap)
{
	switch (sp->size) {
	case 2: return va_arg(*ap, unsigned long long);
	case 1: return va_arg(*ap, unsigned long);
	case -1: return (u16)va_arg(*ap, unsigned int);
	case -2: return (u8)va_arg(*ap, unsigned int);
	default: return va_arg(*ap, unsigned int);
	}
}

static s64 arg_signed(const struct spec *sp, va_list *ap)
{
	switch (sp->size) {
	case 2: return va_arg(*ap, long long);
	case 1: return va_arg(*ap, long);
	case -1: return (s16)va_arg(*ap, int);
	case -2: return (s8)va_arg(*ap, int);
	default: return va_arg(*ap, int);
	}
}

static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	*sp = (struct spec){ .precision = -1 };
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
		f++;
	}
	while (*f >= '0' && *f <= '9')
		sp->width = sp->width * 10 + (*f++ - '0');
	if (*f == '.') {
		f++;
		sp->precision = 0;
		if (*f == '*') {
			sp->precision = va_arg(*ap, int);
			f++;
		}
		while (*f >= '0' && *f <= '9')
			sp->precision = sp->precision * 10 + (*f++ - '0');
	}
	for (;; f++) {
		if (*f == 'l')
			sp->size++;
		else if (*f == 'z' || *f == 't')
			sp->size = 1;
		else if (*f == 'h')
			sp->size--;
		else
			break;
	}
	return f;
}

static void convert(struct sink *s, struct spec *sp, char conv, va_list *ap)
{
	s64 sv;
	char c;

	switch (conv) {
	case 'd':
	case 'i':
		sv = arg_signed(sp, ap);
		put_num(s, sp, sv < 0 ? -(u64)sv : (u64)sv, sv < 0, 10, false);
		break;
	case 'u':
		put_num(s, sp, arg_unsigned(sp, ap), false, 10, false);
		break;
	case 'x':
	case 'X':
		put_num(s, sp, arg_unsigned(sp, ap), false, 16, conv == 'X');
		break;
	case 'p':
		sp->alt = true;
		put_num(s, sp, (uintptr_t)va_arg(*ap, void *), false, 16, false);
		break;
	case 'c':
		c = (char)va_arg(*ap, int);
		sp->precision = 1;
		put_str(s, sp, &c);
		break;
	case 's':
		put_str(s, sp, va_arg(*ap, const char *));
		break;
	case '%':
		put(s, '%');
		break;
	default:		/* unknown: show it rather than guess */
		put(s, '%');
		if (conv)
			put(s, conv);
		break;
	}
}

static void format(struct sink *s, const char *fmt, va_list ap)
{
	struct spec sp;
	va_list aq;

	va_copy(aq, ap);
	while (*fmt) {
		if (*fmt != '%') {
			put(s, *fmt++);
			continue;
		}
		fmt = parse_spec(fmt + 1, &sp, &aq);
		convert(s, &sp, *fmt, &aq);
		if (*fmt)
			fmt++;
	}
	va_end(aq);
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct sink s = { .buf = buf, .size = size ? size - 1 : 0 };

	format(&s, fmt, ap);
	if (size)
		buf[s.len] = '\0';
	return (int)s.total;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int vprintf(const char *fmt, va_list ap)
{
	char buf[128];
	struct sink s = { .buf = buf, .size = sizeof(buf), .flush = true };

	format(&s, fmt, ap);
	sink_flush(&s);
	return (int)s.total;
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}
