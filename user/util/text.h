/* Text from a watched process (thread names, file paths, symbol names) made
 * safe to show: it may hold newlines, terminal escapes and bytes that are not
 * UTF-8. */
#ifndef OOMSCOPE_UTIL_TEXT_H
#define OOMSCOPE_UTIL_TEXT_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence at p (1 to 4; no overlong forms,
 * surrogates or code points past U+10FFFF), or 0 when p does not start one.
 * Reads no further than a NUL. */
size_t text_utf8_len(const unsigned char *p);

/* src for a terminal, in dst (NUL-terminated, cut to dst_size): valid UTF-8
 * as it is, control bytes as \n, \t, \e or \xNN, other invalid bytes as
 * \xNN. Returns dst. */
char *text_term_safe(char *dst, size_t dst_size, const char *src);
/* src with each run of decimal digits, and each run of 8 or more hex
 * digits holding a digit (an address, a hash), made one '*': so thread
 * names "poller-0" .. "poller-59" or "pool-3-thread-12" group as
 * "poller-*" and "pool-*-thread-*"; a UUID is one '*'. dst. */
char *text_fold_numbers(char *dst, size_t dst_size, const char *src);

#endif
