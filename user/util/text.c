#include "util/text.h"

#include <stdio.h>
#include <string.h>

size_t text_utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0; /* a NUL ends here too */
		cp = cp << 6 | (p[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

char *text_term_safe(char *dst, size_t dst_size, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0;

	if (!dst_size)
		return dst;
	while (*p) {
		char esc[8];
		size_t n = text_utf8_len(p), k;
		const char *put = (const char *)p;

		if (n == 1 && (*p < 0x20 || *p == 0x7F)) {
			if (*p == '\n')
				put = "\\n";
			else if (*p == '\t')
				put = "\\t";
			else if (*p == 0x1B)
				put = "\\e";
			else
				snprintf(esc, sizeof(esc), "\\x%02x", *p), put = esc;
			k = strlen(put);
			n = 1;
		} else if (n == 0) {
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
			put = esc;
			k = 4;
			n = 1;
		} else {
			k = n;
		}
		if (o + k >= dst_size)
			break;
		memcpy(dst + o, put, k);
		o += k;
		p += n;
	}
	dst[o] = 0;
	return dst;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The length of a UUID (8-4-4-4-12 hex digits) at p, or 0. */
static size_t uuid_len(const char *p)
{
	static const int parts[] = {8, 4, 4, 4, 12};
	size_t n = 0;

	for (int k = 0; k < 5; k++) {
		for (int i = 0; i < parts[k]; i++, n++)
			if (!is_hex(p[n]))
				return 0;
		if (k < 4 && p[n++] != '-')
			return 0;
	}
	return n;
}

char *text_fold_numbers(char *dst, size_t dst_size, const char *src)
{
	size_t o = 0;

	if (!dst_size)
		return dst;
	for (const char *p = src; *p && o + 1 < dst_size;) {
		size_t hex = 0, dec = 0;
		int digit = 0;

		size_t uuid = uuid_len(p);

		if (uuid) { /* a UUID is one '*', not five */
			dst[o++] = '*';
			p += uuid;
			continue;
		}
		while (is_hex(p[hex])) {
			digit |= p[hex] >= '0' && p[hex] <= '9';
			hex++;
		}
		while (p[dec] >= '0' && p[dec] <= '9')
			dec++;
		if (hex >= 8 && digit) { /* an address or a hash */
			dst[o++] = '*';
			p += hex;
		} else if (dec) {
			dst[o++] = '*';
			p += dec;
		} else {
			dst[o++] = *p++;
		}
	}
	dst[o] = 0;
	return dst;
}
