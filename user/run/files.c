/* The numbered names of the run directory's files (files.h). */
#include "run/files.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const snapshot_files[SNAP_MAX] = {RUN_THREADS, RUN_FDS, RUN_VMSIZE, RUN_MEMORY};

const char *run_snapshot_file(enum ooms_snap kind)
{
	return (unsigned)kind < SNAP_MAX ? snapshot_files[kind] : "";
}

static int fits(int n, size_t len)
{
	return n >= 0 && (size_t)n < len ? 0 : -1;
}

int run_name_numbered(char *out, size_t len, const char *file, int seq)
{
	const char *dot = strrchr(file, '.');
	int base = dot ? (int)(dot - file) : (int)strlen(file);

	if (!seq)
		return fits(snprintf(out, len, "%s", file), len);
	if (seq == RUN_AT_FAILURE)
		return fits(snprintf(out, len, "%.*s-at-failure%s", base, file, dot ? dot : ""), len);
	return fits(snprintf(out, len, "%.*s-%d%s", base, file, seq, dot ? dot : ""), len);
}

int run_name_snapshot_kind(const char *name)
{
	for (int k = 0; k < SNAP_MAX; k++) {
		const char *file = snapshot_files[k], *dot = strrchr(file, '.');
		size_t base = (size_t)(dot - file);
		const char *rest = name + base;

		if (!strcmp(name, file))
			return k;
		if (strncmp(name, file, base) || rest[0] != '-')
			continue;
		if (!strcmp(rest + 1, "at-failure.json"))
			return k;
		rest++;
		if (*rest >= '0' && *rest <= '9') {
			while (*rest >= '0' && *rest <= '9')
				rest++;
			if (!strcmp(rest, dot))
				return k;
		}
	}
	return -1;
}

static int dump_stem(char *out, size_t len, int seq, const char *rest)
{
	if (seq == RUN_DUMP_OOM)
		return fits(snprintf(out, len, "dump-oom%s", rest), len);
	return fits(snprintf(out, len, "dump-%d%s", seq, rest), len);
}

int run_name_dump(char *out, size_t len, int seq, const char *ext)
{
	char rest[32];

	snprintf(rest, sizeof(rest), ".hprof%s", ext ? ext : "");
	return dump_stem(out, len, seq, rest);
}

int run_name_dump_analysis(char *out, size_t len, int seq, int text)
{
	return dump_stem(out, len, seq, text ? ".analysis.txt" : ".analysis.json");
}

int run_name_dump_seq(const char *name, int *seq)
{
	char *end;
	long v;

	if (strncmp(name, "dump-", 5) || !(name[5] == '-' || (name[5] >= '0' && name[5] <= '9')))
		return -1;
	errno = 0;
	v = strtol(name + 5, &end, 10);
	if (errno || v < INT_MIN || v > INT_MAX || end == name + 5 || strcmp(end, ".analysis.json"))
		return -1;
	*seq = (int)v;
	return 0;
}

int run_name_is_dump(const char *name)
{
	return !strncmp(name, "dump-", 5) && strstr(name, ".hprof") != NULL;
}
