#define _GNU_SOURCE
#include "collector/kernel/tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define TRACEFS_MAGIC 0x74726163
/* the source a tracefs mounted by an oomscope carries in the mount table:
 * the last oomscope to use it (whichever mounted it) unmounts it */
#define OURS "oomscope-tracefs"

/* Every oomscope using tracefs holds a shared flock on /sys/kernel (sysfs:
 * there wherever tracefs's mount point is, and stable under the mount) for
 * as long as it uses it; one that ends takes it exclusively, without
 * waiting, and unmounts only then, so that no oomscope unmounts tracefs
 * under another's probes. One lock per process, counted by its users (the
 * app watch, then the collector). */
static int lock_fd = -1, lock_users;

static void lock_take(void)
{
	if (lock_users++)
		return;
	lock_fd = open("/sys/kernel", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock_fd >= 0)
		while (flock(lock_fd, LOCK_SH) != 0 && errno == EINTR)
			;
}

/* Whether the tracefs at /sys/kernel/tracing was mounted by an oomscope. */
static int mounted_by_oomscope(void)
{
	char dev[256], dir[512], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");
	int ours = 0;

	if (!f)
		return 0;
	while (fscanf(f, "%255s %511s %63s %*s %*d %*d", dev, dir, type) == 3)
		if (!strcmp(dir, "/sys/kernel/tracing") && !strcmp(type, "tracefs"))
			ours = !strcmp(dev, OURS);
	fclose(f);
	return ours;
}

static int is_tracefs(const char *path)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == TRACEFS_MAGIC;
}

int tracefs_ensure(char *buf, size_t len, int *mounted_by_us)
{
	static const char *const candidates[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

	*mounted_by_us = 0;
	lock_take();
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		if (is_tracefs(candidates[i])) {
			snprintf(buf, len, "%s", candidates[i]);
			return 0;
		}
	}
	if (mount(OURS, "/sys/kernel/tracing", "tracefs", 0, NULL) != 0) {
		int e = errno;

		/* another tool (another oomscope started beside this one) mounted
		 * it in the meantime: EBUSY, and it is there to use */
		if (is_tracefs("/sys/kernel/tracing")) {
			snprintf(buf, len, "/sys/kernel/tracing");
			return 0;
		}
		tracefs_release(NULL, 0);
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
	(void)root;
	(void)mounted_by_us;
	if (!lock_users || --lock_users)
		return;
	/* the last user of it on the machine: unmounted when an oomscope
	 * mounted it (this one or another that has ended) */
	if (lock_fd >= 0 && flock(lock_fd, LOCK_EX | LOCK_NB) == 0 && mounted_by_oomscope())
		umount2("/sys/kernel/tracing", MNT_DETACH);
	if (lock_fd >= 0)
		close(lock_fd);
	lock_fd = -1;
}
