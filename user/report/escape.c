#include "report/escape.h"
#include "util/text.h"

void esc_html(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\n': fputs("\\n", f); break; /* a name's newline, shown */
		case '\t': fputs("\\t", f); break;
		default:
			/* other control bytes (a terminal escape in a thread name) shown, not sent */
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				fprintf(f, "\\x%02x", (unsigned char)*s);
			else
				fputc(*s, f);
		}
	}
}

void esc_json(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\u%04x", ch);
		else if (ch < 0x80)
			fputc(ch, f);
		else {
			size_t n = text_utf8_len((const unsigned char *)s);

			if (n)
				fwrite(s, 1, n, f), s += n - 1;
			else
				fputs("\\ufffd", f); /* not UTF-8: the page stays valid */
		}
	}
	fputc('"', f);
}
