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
