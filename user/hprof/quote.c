#include "hprof/quote.h"

#include <stdio.h>
#include <string.h>

char *hprof_quote(char *dst, size_t dst_size, const char *src, size_t max_in)
{
	size_t o = 0;

	if (!dst_size)
		return dst;
	for (size_t i = 0; i < max_in && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];
		char esc[8];

		if (c == '\n')
			strcpy(esc, "\\n");
		else if (c == '\t')
			strcpy(esc, "\\t");
		else if (c == '\r')
			strcpy(esc, "\\r");
		else if (c == '"' || c == '\\')
			esc[0] = '\\', esc[1] = (char)c, esc[2] = 0;
		else if (c < 0x20 || c >= 0x7f)
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		else
			esc[0] = (char)c, esc[1] = 0;
		size_t n = strlen(esc);
		if (o + n + 4 > dst_size) { /* room for "..." and the NUL */
			if (o + 4 <= dst_size)
				memcpy(dst + o, "...", 3), o += 3;
			break;
		}
		memcpy(dst + o, esc, n);
		o += n;
	}
	dst[o < dst_size ? o : dst_size - 1] = 0;
	return dst;
}
