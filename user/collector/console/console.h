/* The terminal's lines that need nothing of the watch (console/lines.c):
 * the only writer, with console.c, of the collector's lines. */
#ifndef OOMSCOPE_COLLECTOR_CONSOLE_CONSOLE_H
#define OOMSCOPE_COLLECTOR_CONSOLE_CONSOLE_H

#include <bpf/libbpf.h>
#include <stdarg.h>

/* --verbose's level: 1 says more, 2 also libbpf's debug lines */
extern int coll_verbose;
/* "oomscope: " and the words, on stderr; coll_note is the same for the io
 * callbacks of the rooms (a ctx first) */
void coll_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void coll_note(void *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* on stdout, as given */
void coll_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int coll_libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap);

#endif
