/* A developer's aid: with OOMS_MEMTRACE=FILE set (/dev/stderr, say), the
 * analyzer appends its resident and peak memory at each phase to FILE (for
 * the memory budget of docs/benchmarks.md). */
#ifndef OOMSCOPE_UTIL_MEMTRACE_H
#define OOMSCOPE_UTIL_MEMTRACE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline void memtrace(const char *what)
{
	const char *to = getenv("OOMS_MEMTRACE");
	FILE *f, *out;
	char l[256];
	long rss = 0, hwm = 0;
	struct timespec ts;

	if (!to || !*to || !(out = fopen(to, "a")))
		return;
	f = fopen("/proc/self/status", "r");
	while (f && fgets(l, sizeof l, f)) {
		if (!strncmp(l, "VmRSS:", 6))
			rss = atol(l + 6);
		if (!strncmp(l, "VmHWM:", 6))
			hwm = atol(l + 6);
	}
	if (f)
		fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(out, "MEM %-24s rss %6ld MB hwm %6ld MB  t %.2f\n", what, rss / 1024, hwm / 1024,
		ts.tv_sec % 1000 + ts.tv_nsec / 1e9);
	fclose(out);
}
#endif
