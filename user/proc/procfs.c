#define _GNU_SOURCE
#include "proc/procfs.h"

#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static FILE *proc_open(pid_t pid, const char *what)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	return fopen(path, "re");
}

int proc_read_status(pid_t pid, struct proc_status *st)
{
	char line[256];
	FILE *f = proc_open(pid, "status");

	if (!f)
		return -errno;
	st->vmsize_kb = st->vmpeak_kb = st->rss_kb = st->threads = -1;
	st->rss_anon_kb = st->rss_file_kb = st->rss_shmem_kb = st->swap_kb = st->vmdata_kb = -1;
	st->uid = -1;
	st->name[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		long long v;

		if (sscanf(line, "VmSize: %lld", &v) == 1)
			st->vmsize_kb = v;
		else if (sscanf(line, "VmPeak: %lld", &v) == 1)
			st->vmpeak_kb = v;
		else if (sscanf(line, "VmRSS: %lld", &v) == 1)
			st->rss_kb = v;
		else if (sscanf(line, "Threads: %lld", &v) == 1)
			st->threads = v;
		else if (sscanf(line, "RssAnon: %lld", &v) == 1)
			st->rss_anon_kb = v;
		else if (sscanf(line, "RssFile: %lld", &v) == 1)
			st->rss_file_kb = v;
		else if (sscanf(line, "RssShmem: %lld", &v) == 1)
			st->rss_shmem_kb = v;
		else if (sscanf(line, "VmSwap: %lld", &v) == 1)
			st->swap_kb = v;
		else if (sscanf(line, "VmData: %lld", &v) == 1)
			st->vmdata_kb = v;
		else if (sscanf(line, "Uid: %lld", &v) == 1)
			st->uid = v;
		else
			sscanf(line, "Name: %63[^\n]", st->name);
	}
	fclose(f);
	return 0;
}

static int64_t limit_value(const char *s)
{
	return strncmp(s, "unlimited", 9) == 0 ? -1 : strtoll(s, NULL, 10);
}

int proc_read_limits(pid_t pid, struct proc_limits *lim)
{
	char line[256], soft[32], hard[32];
	FILE *f = proc_open(pid, "limits");

	if (!f)
		return -errno;
	lim->nofile_soft = lim->nofile_hard = lim->nproc_soft = lim->as_soft = lim->data_soft = -1;
	while (fgets(line, sizeof(line), f)) {
		/* "Max open files            1024                 524288               files" */
		if (sscanf(line, "Max open files %31s %31s", soft, hard) == 2) {
			lim->nofile_soft = limit_value(soft);
			lim->nofile_hard = limit_value(hard);
		} else if (sscanf(line, "Max processes %31s %31s", soft, hard) == 2) {
			lim->nproc_soft = limit_value(soft);
		} else if (sscanf(line, "Max address space %31s %31s", soft, hard) == 2) {
			lim->as_soft = limit_value(soft);
		} else if (sscanf(line, "Max data size %31s %31s", soft, hard) == 2) {
			lim->data_soft = limit_value(soft);
		}
	}
	fclose(f);
	return 0;
}

static int64_t read_sysctl(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int64_t proc_threads_max(void) { return read_sysctl("/proc/sys/kernel/threads-max"); }

int64_t proc_list(pid_t pid, const char *dir, void (*fn)(void *ctx, int64_t n), void *ctx)
{
	char path[64];
	struct dirent *de;
	int64_t count = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, dir);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		count++;
		if (fn)
			fn(ctx, strtoll(de->d_name, NULL, 10));
	}
	closedir(d);
	return count;
}

int64_t proc_fd_count(pid_t pid)
{
	char path[64];
	struct stat sb;
	int64_t n;

	/* Linux 6.2 on: the directory's size, without listing it */
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if (stat(path, &sb) == 0 && sb.st_size > 0)
		return (int64_t)sb.st_size;
	/* older kernels (every Android GKI kernel up to 6.1) say 0: the names
	 * alone, no link read (a tenth of the cost of reading their targets) */
	n = proc_list(pid, "fd", NULL, NULL);
	return n < 0 ? -1 : n;
}

int proc_fd_target(pid_t pid, int fd, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	n = readlink(path, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

ssize_t proc_read_file(const char *path, void *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

int proc_task_comm(pid_t pid, int tid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, tid);
	n = proc_read_file(path, buf, len - 1);
	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n'))
		n--;
	buf[n] = 0;
	return 0;
}

int proc_exe_is_32bit(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return elf_path_is_32bit(path);
}

int elf_path_is_32bit(const char *path)
{
	unsigned char ident[EI_NIDENT];
	ssize_t n = proc_read_file(path, ident, sizeof(ident));

	if (n < 0)
		return (int)n;
	if (n != (ssize_t)sizeof(ident) || memcmp(ident, ELFMAG, SELFMAG) != 0)
		return -ENOEXEC;
	return ident[EI_CLASS] == ELFCLASS32;
}

int proc_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	n = proc_read_file(path, buf, len - 1);
	if (n < 0)
		return (int)n;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 0)
			buf[i] = ' ';
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = 0;
	return 0;
}

int64_t proc_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	n = proc_read_file(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return n;
	buf[n] = 0;
	/* the name, field 2, is in parentheses and may hold ") " itself */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p++; /* at the space before field 3 */
	for (int field = 3; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EINVAL;
	}
	if (sscanf(p, " %llu", &v) != 1)
		return -EINVAL;
	return (int64_t)v;
}

int proc_alive(pid_t pid)
{
	char path[64], buf[1024], *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	n = proc_read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

#define PF_EXITING 0x00000004 /* the kernel's task flag: in do_exit() */

int proc_dying(pid_t pid)
{
	char path[64], buf[4096], *p;
	unsigned long long flags = 0;
	ssize_t n;

	if (!proc_alive(pid))
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	n = proc_read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	/* after the comm: state ppid pgrp session tty_nr tpgid flags */
	p = strrchr(buf, ')');
	if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %llu", &flags) == 1 && (flags & PF_EXITING))
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	n = proc_read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	for (const char *k = buf; (k = strstr(k, "Pnd:\t")); k += 5) {
		unsigned long long mask = strtoull(k + 5, NULL, 16);

		if (mask & (1ull << (SIGKILL - 1)))
			return 1;
	}
	return 0;
}

int proc_entry_exists(pid_t pid, const char *dir, int64_t n)
{
	char path[96];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/%s/%" PRId64, (int)pid, dir, n);
	return lstat(path, &st) == 0;
}

int proc_task_live(pid_t pid, int tid)
{
	char path[96], buf[1024], state;
	const char *p;
	unsigned long flags;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, tid);
	if ((n = proc_read_file(path, buf, sizeof(buf) - 1)) <= 0)
		return 0;
	buf[n] = 0;
	/* after the name (which may hold ") "): state ppid pgrp session tty_nr tpgid flags */
	if (!(p = strrchr(buf, ')')) || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
		return 0;
	return !(flags & 0x4) && state != 'Z' && state != 'X'; /* PF_EXITING */
}

int proc_exists(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return access(path, F_OK) == 0;
}

static int read_int_file(pid_t pid, const char *name, int *out)
{
	char path[64], buf[32];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	n = proc_read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return n < 0 ? (int)n : -EIO;
	buf[n] = 0;
	*out = (int)strtol(buf, NULL, 10);
	return 0;
}

int proc_oom_score_adj(pid_t pid)
{
	int v;

	return read_int_file(pid, "oom_score_adj", &v) ? INT32_MIN : v;
}

int proc_oom_score(pid_t pid)
{
	int v, e = read_int_file(pid, "oom_score", &v);

	return e ? e : v;
}
