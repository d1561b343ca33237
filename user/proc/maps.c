#define _GNU_SOURCE
#include "proc/maps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int proc_maps_each(pid_t pid, int (*fn)(void *ctx, const struct proc_map_line *m), void *ctx)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!r && getline(&line, &cap, f) > 0) {
		struct proc_map_line m;
		int pos = 0;
		size_t len;

		memset(&m, 0, sizeof(m));
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &m.start, &m.end,
			   m.perms, &m.offset, &m.dev_major, &m.dev_minor, &m.inode, &pos) < 7 ||
		    !pos || m.start >= m.end)
			continue;
		len = strlen(line + pos);
		if (len && line[pos + len - 1] == '\n')
			line[pos + --len] = '\0';
		m.path = line + pos;
		r = fn(ctx, &m);
	}
	free(line);
	fclose(f);
	return r;
}
