#include "sym/demangle.h"

#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

const char *ooms_demangle(const char *name, char *buf, size_t len)
{
	char *d;
	size_t n;

	if (!name || strncmp(name, "_Z", 2) || !buf || !len)
		return name;
	d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	if (!d)
		return name;
	n = strlen(d);
	if (n >= len && len < 8) {
		free(d);
		return name;
	}
	if (n >= len) { /* cut, said with "...": still more readable than the mangled name */
		memcpy(buf, d, len - 4);
		memcpy(buf + len - 4, "...", 4);
	} else {
		memcpy(buf, d, n + 1);
	}
	free(d);
	return buf;
}
