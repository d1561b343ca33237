/* A developer's aid: with OOMS_MEMTRACE set, the analyzer prints its resident
 * and peak memory at each phase to stderr (for the memory budget of
 * docs/benchmarks.md). */
#ifndef OOMSCOPE_UTIL_MEMTRACE_H
#define OOMSCOPE_UTIL_MEMTRACE_H
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
static inline void memtrace(const char *what) {
	if (!getenv("OOMS_MEMTRACE")) return;
	FILE *f = fopen("/proc/self/status", "r"); char l[256]; long rss=0,hwm=0;
	while (f && fgets(l, sizeof l, f)) { if (!strncmp(l,"VmRSS:",6)) rss=atol(l+6); if (!strncmp(l,"VmHWM:",6)) hwm=atol(l+6); }
	if (f) fclose(f);
	struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "MEM %-24s rss %6ld MB hwm %6ld MB  t %.2f\n", what, rss/1024, hwm/1024, ts.tv_sec % 1000 + ts.tv_nsec / 1e9);
}
#endif
