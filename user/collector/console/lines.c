/* The collector's lines on the terminal that need nothing of the watch:
 * "oomscope: ..." on stderr (coll_err, and coll_note for the io callbacks of
 * the rooms), lines written as given on stdout (coll_print), libbpf's log. */
#define _GNU_SOURCE
#include "collector/console/console.h"

#include <stdarg.h>
#include <stdio.h>

void coll_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* A line about the watch itself ("oomscope: ..."), on stderr. */
static void err_line(const char *fmt, va_list ap)
{
	fputs("oomscope: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void coll_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_line(fmt, ap);
	va_end(ap);
}

void coll_note(void *ctx, const char *fmt, ...)
{
	va_list ap;

	(void)ctx;
	va_start(ap, fmt);
	err_line(fmt, ap);
	va_end(ap);
}

int coll_verbose;

int coll_libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && coll_verbose < 2)
		return 0;
	if (!coll_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}
