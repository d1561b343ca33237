/* Bytes as a person reads them, one way everywhere (the terminal, the
 * story, the page, the store): powers of 1024 named KB, MB, GB, TB, as the
 * JVM, Eclipse MAT and Android's tools count them (a "MB" is 1,048,576
 * bytes). The JSON files keep exact numbers. */
#ifndef OOMSCOPE_UTIL_UNITS_H
#define OOMSCOPE_UTIL_UNITS_H

#include <stddef.h>

/* "512 B", "12.3 KB", "77.5 MB", "1.25 GB": buf. */
char *units_bytes(double bytes, char *buf, size_t len);
/* A rate of bytes a second: "6.5 MB/s": buf. */
char *units_rate(double bytes_per_s, char *buf, size_t len);

#endif
