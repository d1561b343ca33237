/* snprintf for the shim (no libc): flags - 0 + space, width and precision
 * (also *), lengths hh h l ll z j t, conversions d i u x X o c s p f % —
 * what the shim and the hprof library format. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct out {
	char *buf;
	size_t cap, n;
};

static void put(struct out *o, char c)
{
	if (o->n + 1 < o->cap)
		o->buf[o->n] = c;
	o->n++;
}

static void pad(struct out *o, char c, int k)
{
	while (k-- > 0)
		put(o, c);
}

/* digits of v in base, reversed into tmp: their count */
static int digits(char *tmp, unsigned long long v, unsigned base, int upper)
{
	const char *d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0;

	do {
		tmp[n++] = d[v % base];
		v /= base;
	} while (v);
	return n;
}

static void number(struct out *o, unsigned long long v, int neg, unsigned base, int upper, int width, int prec,
		   int left, int zero, char sign)
{
	char tmp[32];
	int n = prec == 0 && v == 0 ? 0 : digits(tmp, v, base, upper);
	int zeros = prec > n ? prec - n : 0;
	int len = n + zeros + (neg || sign);

	if (!left && !(zero && prec < 0))
		pad(o, ' ', width - len);
	if (neg)
		put(o, '-');
	else if (sign)
		put(o, sign);
	if (!left && zero && prec < 0)
		pad(o, '0', width - len);
	pad(o, '0', zeros);
	while (n)
		put(o, tmp[--n]);
	if (left)
		pad(o, ' ', width - len);
}

static void fixed(struct out *o, double v, int width, int prec, int left, char sign)
{
	char tmp[64];
	int n = 0, neg = v < 0;
	unsigned long long ip, fp, scale = 1;

	if (prec < 0)
		prec = 6;
	if (prec > 9)
		prec = 9;
	if (neg)
		v = -v;
	for (int i = 0; i < prec; i++)
		scale *= 10;
	if (v > 1e18) { /* beyond what the shim prints: said as such */
		static const char big[] = "inf";

		for (const char *p = big; *p; p++)
			put(o, *p);
		return;
	}
	ip = (unsigned long long)v;
	fp = (unsigned long long)((v - (double)ip) * (double)scale + 0.5);
	if (fp >= scale) {
		ip++;
		fp -= scale;
	}
	for (int i = 0; i < prec; i++) {
		tmp[n++] = (char)('0' + fp % 10);
		fp /= 10;
	}
	if (prec)
		tmp[n++] = '.';
	n += digits(tmp + n, ip, 10, 0);
	if (neg || sign)
		tmp[n++] = neg ? '-' : sign;
	if (!left)
		pad(o, ' ', width - n);
	while (n)
		put(o, tmp[--n]);
	if (left)
		pad(o, ' ', width - n);
}

int vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct out o = {buf, cap, 0};

	for (const char *f = fmt; *f; f++) {
		int left = 0, zero = 0, width = 0, prec = -1, lng = 0;
		char sign = 0;

		if (*f != '%') {
			put(&o, *f);
			continue;
		}
		for (f++;; f++) {
			if (*f == '-')
				left = 1;
			else if (*f == '0')
				zero = 1;
			else if (*f == '+')
				sign = '+';
			else if (*f == ' ')
				sign = sign ? sign : ' ';
			else
				break;
		}
		if (*f == '*') {
			width = va_arg(ap, int);
			if (width < 0)
				left = 1, width = -width;
			f++;
		}
		while (*f >= '0' && *f <= '9')
			width = width * 10 + (*f++ - '0');
		if (*f == '.') {
			prec = 0;
			if (*++f == '*') {
				prec = va_arg(ap, int);
				f++;
			}
			while (*f >= '0' && *f <= '9')
				prec = prec * 10 + (*f++ - '0');
		}
		for (;; f++) {
			if (*f == 'h')
				lng = lng > 0 ? lng : lng - 1;
			else if (*f == 'l')
				lng = lng < 0 ? 1 : lng + 1;
			else if (*f == 'z' || *f == 'j' || *f == 't')
				lng = 2;
			else
				break;
		}
		switch (*f) {
		case 'd':
		case 'i': {
			long long v = lng >= 2 ? va_arg(ap, long long) : lng == 1 ? va_arg(ap, long) : va_arg(ap, int);

			if (lng == -1)
				v = (short)v;
			else if (lng <= -2)
				v = (signed char)v;
			number(&o, v < 0 ? -(unsigned long long)v : (unsigned long long)v, v < 0, 10, 0, width, prec, left,
			       zero, sign);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			unsigned long long v = lng >= 2 ? va_arg(ap, unsigned long long)
					       : lng == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);

			if (lng == -1)
				v = (unsigned short)v;
			else if (lng <= -2)
				v = (unsigned char)v;
			number(&o, v, 0, *f == 'u' ? 10 : *f == 'o' ? 8 : 16, *f == 'X', width, prec, left, zero, 0);
			break;
		}
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			number(&o, (uintptr_t)va_arg(ap, void *), 0, 16, 0, 0, -1, 0, 0, 0);
			break;
		case 'c':
			if (!left)
				pad(&o, ' ', width - 1);
			put(&o, (char)va_arg(ap, int));
			if (left)
				pad(&o, ' ', width - 1);
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			int n;

			if (!s)
				s = "(null)";
			n = (int)(prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s));
			if (!left)
				pad(&o, ' ', width - n);
			for (int i = 0; i < n; i++)
				put(&o, s[i]);
			if (left)
				pad(&o, ' ', width - n);
			break;
		}
		case 'f':
		case 'F':
		case 'g':
			fixed(&o, va_arg(ap, double), width, prec, left, sign);
			break;
		case '%':
			put(&o, '%');
			break;
		case 0:
			f--;
			break;
		default: /* unknown: shown as written */
			put(&o, '%');
			put(&o, *f);
			break;
		}
	}
	if (cap)
		buf[o.n < cap ? o.n : cap - 1] = 0;
	return (int)o.n;
}

int snprintf(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}
