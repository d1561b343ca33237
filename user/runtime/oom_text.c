/* An OutOfMemoryError printed: see oom_text.h. */
#include "runtime/oom_text.h"

#include <stdio.h>
#include <string.h>

int ooms_oom_text_message(const char *text, char *msg, size_t len)
{
	const char *p;

	if (!len)
		return 0;
	msg[0] = 0;
	if (strncmp(text, "OutOfMemoryError", 16))
		return 0;
	p = text + 16;
	if (*p == ':')
		p += strspn(p, ": ");
	else if (*p && *p != '\n' && *p != '\r')
		return 0; /* prose about one */
	snprintf(msg, len, "%.*s", (int)strcspn(p, "\r\n"), p);
	return 1;
}
