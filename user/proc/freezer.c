/* A frozen process thawed for a while (freezer.h). */
#define _GNU_SOURCE
#include "proc/freezer.h"
#include "proc/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define THAW_WAIT_MS 2000

/* The first line of DIR/FILE, its newline cut; -errno. */
static int read_line(const char *dir, const char *file, char *buf, size_t len)
{
	char path[700];
	FILE *f;
	int e = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!(f = fopen(path, "re")))
		return -errno;
	if (!fgets(buf, (int)len, f))
		e = -EIO;
	else
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	return e;
}

static int write_text(const char *dir, const char *file, const char *text)
{
	char path[700];
	int fd, e = 0;
	ssize_t n = (ssize_t)strlen(text);

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (write(fd, text, (size_t)n) != n)
		e = -errno;
	close(fd);
	return e;
}

/* Whether a "key N" line of DIR/FILE says N (cgroup.events' "frozen 1"). */
static int keyed_is(const char *dir, const char *file, const char *key, int want)
{
	char path[700], k[64];
	int v, r = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fscanf(f, "%63s %d", k, &v) == 2)
		if (!strcmp(k, key))
			r = v == want;
	fclose(f);
	return r;
}

/* The process's cgroup directory in the v2 hierarchy and in v1's freezer
 * one ("" where there is none), and their mount points. */
struct freezer_dirs {
	char v2[512], v2_root[512], v1[512], v1_root[512];
};

static void find_dirs(pid_t pid, struct freezer_dirs *d)
{
	char dev[256], dir[512], type[64], opts[512], path[64], line[1024];
	FILE *f = fopen("/proc/self/mounts", "re");

	memset(d, 0, sizeof(*d));
	if (f) {
		while (fscanf(f, "%255s %511s %63s %511s %*d %*d", dev, dir, type, opts) == 4) {
			if (!strcmp(type, "cgroup2") && !d->v2_root[0])
				snprintf(d->v2_root, sizeof(d->v2_root), "%s", dir);
			else if (!strcmp(type, "cgroup") && !d->v1_root[0]) {
				char o[520];

				snprintf(o, sizeof(o), ",%s,", opts);
				if (strstr(o, ",freezer,"))
					snprintf(d->v1_root, sizeof(d->v1_root), "%s", dir);
			}
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *rel = ctl ? strchr(ctl + 1, ':') : NULL;
		char c[520];

		if (!rel)
			continue;
		*rel++ = 0;
		*ctl++ = 0;
		rel[strcspn(rel, "\n")] = 0;
		snprintf(c, sizeof(c), ",%s,", ctl);
		if (!strcmp(line, "0") && !*ctl && d->v2_root[0])
			snprintf(d->v2, sizeof(d->v2), "%s%s", d->v2_root, strcmp(rel, "/") ? rel : "");
		else if (strstr(c, ",freezer,") && d->v1_root[0])
			snprintf(d->v1, sizeof(d->v1), "%s%s", d->v1_root, strcmp(rel, "/") ? rel : "");
	}
	fclose(f);
}

/* dir's parent, or 0 at root (the hierarchy's mount point). */
static int parent(char *dir, const char *root)
{
	char *slash;

	if (!strcmp(dir, root) || strlen(dir) <= strlen(root))
		return 0;
	slash = strrchr(dir, '/');
	if (!slash || (size_t)(slash - dir) < strlen(root))
		return 0;
	*slash = 0;
	return 1;
}

static int record(struct ooms_thaw *t, const char *dir, int v1)
{
	if (t->n == OOMS_THAW_MAX)
		return -E2BIG;
	snprintf(t->dir[t->n], sizeof(t->dir[0]), "%s", dir);
	t->v1[t->n++] = v1;
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

int ooms_thaw(pid_t pid, struct ooms_thaw *t, struct ooms_err *err)
{
	struct freezer_dirs d;
	char dir[512], v[32], where[600];
	int frozen2 = 0, frozen1 = 0, e;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	find_dirs(pid, &d);
	/* v2: each level whose cgroup.freeze is 1, from the process's cgroup up
	 * (asked to freeze: frozen, or still freezing, which cgroup.events does
	 * not say yet: a freeze just asked would stop the dump half way) */
	if (d.v2[0]) {
		snprintf(dir, sizeof(dir), "%s", d.v2);
		do {
			if (read_line(dir, "cgroup.freeze", v, sizeof(v)) == 0 && !strcmp(v, "1")) {
				record(t, dir, 0);
				frozen2 = 1;
			}
		} while (parent(dir, d.v2_root));
		frozen2 |= keyed_is(d.v2, "cgroup.events", "frozen", 1);
	}
	/* v1: each level that froze itself (freezer.self_freezing 1) */
	if (d.v1[0] && read_line(d.v1, "freezer.state", v, sizeof(v)) == 0 && strcmp(v, "THAWED")) {
		frozen1 = 1;
		snprintf(dir, sizeof(dir), "%s", d.v1);
		do {
			if (read_line(dir, "freezer.self_freezing", v, sizeof(v)) == 0 && !strcmp(v, "1"))
				record(t, dir, 1);
		} while (parent(dir, d.v1_root));
	}
	if (!frozen2 && !frozen1)
		return 0;
	t->adj = proc_oom_score_adj(pid);
	ooms_thaw_where(t, where, sizeof(where));
	if (!t->n)
		return ooms_err_set(err, -EPERM, "PID %d is frozen (%s) by a cgroup this cannot find to thaw", (int)pid,
				    frozen2 ? d.v2 : d.v1);
	for (int i = 0; i < t->n; i++)
		if ((e = write_text(t->dir[i], t->v1[i] ? "freezer.state" : "cgroup.freeze", t->v1[i] ? "THAWED" : "0"))) {
			t->n = i; /* those before are thawed: ooms_refreeze freezes them again */
			return ooms_err_set(err, e, "PID %d is frozen (%s) and could not be thawed: %s", (int)pid, where,
					    strerror(-e));
		}
	/* until the freezer says the tasks run (v2: cgroup.events; v1: freezer.state) */
	for (int waited = 0; waited < THAW_WAIT_MS; waited += 10) {
		int all = 1;

		if (frozen2)
			all &= !keyed_is(d.v2, "cgroup.events", "frozen", 1);
		if (frozen1)
			all &= read_line(d.v1, "freezer.state", v, sizeof(v)) == 0 && !strcmp(v, "THAWED");
		if (all)
			return 1;
		sleep_ms(10);
	}
	return ooms_err_set(err, -ETIMEDOUT, "PID %d was frozen (%s): thawed, but its freezer did not let it run within %d ms",
			    (int)pid, where, THAW_WAIT_MS);
}

int ooms_refreeze(struct ooms_thaw *t, char *why, size_t len)
{
	int adj = t->n ? proc_oom_score_adj(t->pid) : 0, done = 0, e = 0;

	if (why && len)
		why[0] = 0;
	if (!t->n)
		return 0;
	/* brought back meanwhile (its adj fell: an app leaving the cached state) */
	if (adj != INT32_MIN && t->adj != INT32_MIN && adj < t->adj) {
		if (why)
			snprintf(why, len, "left running: its oom_score_adj fell from %d to %d while thawed (brought back)",
				 t->adj, adj);
		t->n = 0;
		return 0;
	}
	for (int i = 0; i < t->n; i++) {
		char v[32];
		int r;

		if (t->v1[i])
			r = read_line(t->dir[i], "freezer.self_freezing", v, sizeof(v)) == 0 && !strcmp(v, "0")
				    ? write_text(t->dir[i], "freezer.state", "FROZEN")
				    : 1;
		else
			r = read_line(t->dir[i], "cgroup.freeze", v, sizeof(v)) == 0 && !strcmp(v, "0")
				    ? write_text(t->dir[i], "cgroup.freeze", "1")
				    : 1;
		if (r == 0)
			done++;
		else if (r < 0 && !e)
			e = r;
	}
	t->n = 0;
	if (e && why)
		snprintf(why, len, "could not be frozen again: %s", strerror(-e));
	return e ? e : done > 0;
}

void ooms_thaw_where(const struct ooms_thaw *t, char *buf, size_t len)
{
	if (!t->n)
		snprintf(buf, len, "a cgroup freezer");
	else
		snprintf(buf, len, "the cgroup %s freezer, %s%s", t->v1[0] ? "v1" : "v2", t->dir[0],
			 t->n > 1 ? " and above" : "");
}
