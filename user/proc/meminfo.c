/* /proc/meminfo, PSI figures and PSI triggers (memory-facts.md §3). */
#define _GNU_SOURCE
#include "proc/meminfo.h"
#include "proc/procfs.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int proc_read_meminfo(struct proc_meminfo *m)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{"MemTotal:", offsetof(struct proc_meminfo, total)},
		{"MemFree:", offsetof(struct proc_meminfo, free)},
		{"MemAvailable:", offsetof(struct proc_meminfo, available)},
		{"Cached:", offsetof(struct proc_meminfo, cached)},
		{"SwapTotal:", offsetof(struct proc_meminfo, swap_total)},
		{"SwapFree:", offsetof(struct proc_meminfo, swap_free)},
		{"Shmem:", offsetof(struct proc_meminfo, shmem)},
		{"AnonPages:", offsetof(struct proc_meminfo, anon)},
	};
	char buf[8192];
	ssize_t n = proc_read_file("/proc/meminfo", buf, sizeof(buf) - 1);

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		*(int64_t *)((char *)m + keys[k].off) = -1;
	if (n < 0)
		return (int)n;
	buf[n] = 0;
	for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strncmp(line, keys[k].key, strlen(keys[k].key))) {
				*(int64_t *)((char *)m + keys[k].off) = strtoll(line + strlen(keys[k].key), NULL, 10);
				break;
			}
	}
	if (m->available < 0 && m->free >= 0 && m->cached >= 0)
		m->available = m->free + m->cached - (m->shmem > 0 ? m->shmem : 0);
	return m->total > 0 ? 0 : -EIO;
}

static void psi_line(const char *s, struct proc_psi_line *l)
{
	long long total = -1;

	if (sscanf(s, "%*s avg10=%lf avg60=%lf avg300=%lf total=%lld", &l->avg10, &l->avg60, &l->avg300, &total) != 4)
		*l = (struct proc_psi_line){-1, -1, -1, -1};
	else
		l->total_us = total;
}

int proc_read_psi(const char *path, struct proc_psi *p)
{
	char buf[512];
	ssize_t n = proc_read_file(path, buf, sizeof(buf) - 1);
	char *full;

	p->some = p->full = (struct proc_psi_line){-1, -1, -1, -1};
	if (n < 0)
		return (int)n;
	buf[n] = 0;
	if (strncmp(buf, "some ", 5))
		return -EINVAL;
	psi_line(buf, &p->some);
	if ((full = strstr(buf, "\nfull ")))
		psi_line(full + 1, &p->full);
	return 0;
}

static int try_trigger(const char *path, int full, uint64_t stall_us, uint64_t window_us)
{
	char line[64];
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC), n;

	if (fd < 0)
		return -errno;
	/* the kernel overwrites the last byte written with NUL: the NUL goes with it */
	n = snprintf(line, sizeof(line), "%s %llu %llu", full ? "full" : "some", (unsigned long long)stall_us,
		     (unsigned long long)window_us);
	if (write(fd, line, (size_t)n + 1) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

int proc_psi_trigger(const char *path, int full, uint64_t stall_us, uint64_t window_us, uint64_t *window_used,
		     uint64_t *stall_used)
{
	int fd = try_trigger(path, full, stall_us, window_us);

	*window_used = window_us;
	*stall_used = stall_us;
	if (fd == -EINVAL && window_us % 2000000) {
		/* unprivileged: a window of whole 2 s, the stall at the same share */
		uint64_t w = (window_us / 2000000 + 1) * 2000000;

		fd = try_trigger(path, full, stall_us * w / window_us, w);
		if (fd >= 0) {
			*window_used = w;
			*stall_used = stall_us * w / window_us;
		}
	}
	return fd;
}
