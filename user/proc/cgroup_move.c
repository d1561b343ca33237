/* A process moved to the root of every cgroup hierarchy (cgroup.h). */
#define _GNU_SOURCE
#include "proc/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int write_pid(const char *dir, pid_t pid)
{
	char path[600], num[24];
	int fd, n, e = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = snprintf(num, sizeof(num), "%d\n", (int)pid);
	if (write(fd, num, (size_t)n) != n)
		e = -errno;
	close(fd);
	return e;
}

int ooms_cgroup_to_roots(pid_t pid, int *tried)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[512], type[64], done[8][512];
	int moved = 0, first_err = 0, ndone = 0;

	*tried = 0;
	if (!f)
		return -errno;
	while (fscanf(f, "%255s %511s %63s %*s %*d %*d", dev, dir, type) == 3) {
		int seen = 0, e;

		if (strcmp(type, "cgroup") && strcmp(type, "cgroup2"))
			continue;
		for (int i = 0; i < ndone; i++)
			seen |= !strcmp(done[i], dir);
		if (seen)
			continue;
		if (ndone < 8)
			snprintf(done[ndone++], sizeof(done[0]), "%s", dir);
		++*tried;
		if ((e = write_pid(dir, pid)) == 0)
			moved++;
		else if (!first_err)
			first_err = e;
	}
	fclose(f);
	return moved || !*tried ? moved : first_err;
}
