/* What every command says when it is used wrongly (commands.h). */
#include "cli/commands.h"

#include <stdarg.h>
#include <stdio.h>

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "oomscope %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see `oomscope %s --help`)\n", cmd);
	return 2;
}
