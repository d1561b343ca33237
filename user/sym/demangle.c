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
	if (n >= len) {
		free(d);
		return name;
	}
	memcpy(buf, d, n + 1);
	free(d);
	return buf;
}
