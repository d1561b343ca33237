#define _GNU_SOURCE
#include "collector/tree/app_find.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "collector/tree/app_find_events.h"
#include "app_find.skel.h"
#include "proc/procfs.h"
#include "collector/kernel/tracefs.h"

struct found {
	pid_t pid;
	int stopped;
	int user; /* the Android user asked for, -1: any */
};

/* The Android user a process runs for: its uid / 100000 (AID_USER_OFFSET); -1 when unreadable. */
static int android_user(pid_t pid)
{
	struct proc_status st;

	return proc_read_status(pid, &st) == 0 && st.uid >= 0 ? (int)(st.uid / 100000) : -1;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct found *f = ctx;
	const struct ooms_appwait_event *e = data;

	if (size < sizeof(*e))
		return 0;
	if (!f->pid && f->user >= 0 && android_user((pid_t)e->pid) != f->user) { /* another user's */
		if (e->stopped)
			kill((pid_t)e->pid, SIGCONT);
		return 0;
	}
	if (f->pid) { /* another that took the name meanwhile: let it go */
		if (e->stopped && (pid_t)e->pid != f->pid)
			kill((pid_t)e->pid, SIGCONT);
		return 0;
	}
	f->pid = (pid_t)e->pid;
	f->stopped = (int)e->stopped;
	return 1; /* the first is the one */
}

/* PKG's names as a thread name: its first and last 15 characters */
static void names_of(const char *pkg, char head[16], char tail[16])
{
	size_t n = strlen(pkg);

	snprintf(head, 16, "%s", pkg);
	snprintf(tail, 16, "%s", n > 15 ? pkg + n - 15 : pkg);
}

/* A running process named PKG (command line first, then name), the newest;
 * of Android user `user` when >= 0. 0 when none; -EEXIST when several users
 * run it and none was asked for, who in err. */
static pid_t running(const char *pkg, int user, struct ooms_err *err)
{
	char head[16], tail[16], path[64], buf[4096];
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t best = 0;
	int64_t best_start = -1;
	int best_user = -1, others = 0;
	char who[256] = "";

	if (!d)
		return 0;
	names_of(pkg, head, tail);
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);
		ssize_t n;
		int match = 0;

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		if ((n = proc_read_file(path, buf, sizeof(buf) - 1)) > 0) {
			buf[n] = 0;
			match = !strcmp(buf, pkg);
		}
		if (!match) {
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
			if ((n = proc_read_file(path, buf, sizeof(buf) - 1)) > 0) {
				buf[n] = 0;
				buf[strcspn(buf, "\n")] = 0;
				/* a name alone: only where the command line is not another's */
				match = (!strcmp(buf, head) || !strcmp(buf, tail)) && !strchr(buf, '/');
			}
		}
		if (!match)
			continue;
		{
			int u = android_user(pid);
			size_t at = strlen(who);

			if (user >= 0 && u != user)
				continue;
			if (at + 40 < sizeof(who))
				snprintf(who + at, sizeof(who) - at, "%sPID %d (user %d)", at ? ", " : "", (int)pid, u);
			if (best && u != best_user)
				others = 1;
			if (proc_start_time(pid) > best_start) {
				best = pid;
				best_start = proc_start_time(pid);
				best_user = u;
			}
		}
	}
	closedir(d);
	if (others)
		return ooms_err_set(err, -EEXIST, "%s runs for more than one Android user: %s; choose one with --user N",
				    pkg, who);
	return best;
}

/* Until the stopped process shows as stopped (its SIGSTOP delivered). */
static void await_stop(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 200; i++) {
		ssize_t n = proc_read_file(path, buf, sizeof(buf) - 1);

		if (n <= 0)
			return;
		buf[n] = 0;
		if ((p = strrchr(buf, ')')) && (p[2] == 'T' || p[2] == 't' || p[2] == 'Z'))
			return;
		usleep(5000);
	}
}

int ooms_app_find(const char *pkg, int user, int timeout_s, pid_t *pid, int *stopped,
		  void (*progress)(const char *what), struct ooms_err *err)
{
	struct app_find_bpf *k;
	struct ring_buffer *rb = NULL;
	struct found f = {0, 0, user};
	pid_t now;
	char head[16], tail[16];
	struct timespec t0;
	char tracefs[256];
	int e = 0, tracefs_mounted = 0;

	*pid = 0;
	*stopped = 0;
	if (!pkg || !*pkg)
		return ooms_err_set(err, -EINVAL, "--app needs a package name");
	/* the kernel side first, then a look at what runs: nothing falls between */
	names_of(pkg, head, tail);
	k = app_find_bpf__open();
	if (!k)
		return ooms_err_set(err, -ENOMEM, "cannot open the BPF program that waits for %s", pkg);
	memcpy((char *)k->rodata->want_head, head, sizeof(head));
	memcpy((char *)k->rodata->want_tail, tail, sizeof(tail));
	/* libbpf finds the tracepoint's id in tracefs: mounted for the wait when it is not */
	if ((e = tracefs_ensure(tracefs, sizeof(tracefs), &tracefs_mounted))) {
		ooms_err_set(err, e, "tracefs is not mounted and cannot be (%s): mount -t tracefs none /sys/kernel/tracing",
			     strerror(-e));
		app_find_bpf__destroy(k);
		return e;
	}
	if ((e = app_find_bpf__load(k)) || (e = app_find_bpf__attach(k)) ||
	    !(rb = ring_buffer__new(bpf_map__fd(k->maps.app_events), on_event, &f, NULL))) {
		e = e ? e : -errno;
		ooms_err_set(err, e, "cannot attach to task:task_rename to wait for %s: %s", pkg, strerror(-e));
		goto out;
	}
	if ((now = running(pkg, user, err)) < 0) {
		e = now;
		goto out;
	}
	if ((*pid = now)) {
		ring_buffer__consume(rb); /* it may have just renamed itself, and been stopped */
		if (f.pid == *pid)
			*stopped = f.stopped;
		else if (f.pid && f.stopped)
			kill(f.pid, SIGCONT); /* another of the name: let it go */
		f.pid = *pid;
		goto out;
	}
	if (progress)
		progress("waiting for the app to start");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!f.pid) {
		struct timespec now;
		int n = ring_buffer__poll(rb, 200);

		if (n < 0 && n != -EINTR) {
			e = n;
			ooms_err_set(err, e, "waiting for %s: %s", pkg, strerror(-e));
			goto out;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!f.pid && timeout_s > 0 && now.tv_sec - t0.tv_sec >= timeout_s) {
			e = ooms_err_set(err, -ETIMEDOUT, "no process named %s started within %d s", pkg, timeout_s);
			goto out;
		}
	}
	*pid = f.pid;
	*stopped = f.stopped;
	if (f.stopped)
		await_stop(f.pid);
out:
	/* detached, then what it sent meanwhile read: nothing else stays stopped */
	app_find_bpf__detach(k);
	if (rb) {
		if (f.pid || *pid) {
			f.pid = f.pid ? f.pid : *pid;
			ring_buffer__consume(rb);
		}
		ring_buffer__free(rb);
	}
	app_find_bpf__destroy(k);
	tracefs_release(tracefs, tracefs_mounted);
	return e;
}
