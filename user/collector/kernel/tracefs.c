#define _GNU_SOURCE
#include "collector/kernel/tracefs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define TRACEFS_MAGIC 0x74726163

static int is_tracefs(const char *path)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == TRACEFS_MAGIC;
}

int tracefs_ensure(char *buf, size_t len, int *mounted_by_us)
{
	static const char *const candidates[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

	*mounted_by_us = 0;
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		if (is_tracefs(candidates[i])) {
			snprintf(buf, len, "%s", candidates[i]);
			return 0;
		}
	}
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0) {
		int e = errno;

		/* another tool (another oomscope started beside this one) mounted
		 * it in the meantime: EBUSY, and it is there to use */
		if (is_tracefs("/sys/kernel/tracing")) {
			snprintf(buf, len, "/sys/kernel/tracing");
			return 0;
		}
		return -e;
	}
	*mounted_by_us = 1;
	snprintf(buf, len, "/sys/kernel/tracing");
	return 0;
}

int tracefs_has_event(const char *root, const char *group, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/events/%s/%s", root, group, name);
	return access(path, F_OK) == 0;
}

void tracefs_release(const char *root, int mounted_by_us)
{
	if (mounted_by_us)
		umount2(root, MNT_DETACH);
}
