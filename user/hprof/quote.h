/* Bytes from a dump made safe to show: one line, printable ASCII, every
 * other byte escaped C-style (\n, \t, \", \\, \xNN). Error messages quote
 * input through this, so a hostile file cannot add lines to them or send
 * escape sequences to the terminal. */
#ifndef OOMSCOPE_HPROF_QUOTE_H
#define OOMSCOPE_HPROF_QUOTE_H

#include <stddef.h>

/* Writes at most max_in bytes of src (stopping at a NUL) into dst, escaped
 * and NUL-terminated; a quote cut short by dst's size ends in "...".
 * Returns dst. */
char *hprof_quote(char *dst, size_t dst_size, const char *src, size_t max_in);

#endif
