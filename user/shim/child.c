/* What every fork-dump child does, whatever the runtime. */
#define _GNU_SOURCE
#include "shim/shim.h"
#include "shim/libc/shim_libc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

char shim_child_note[256];

void shim_child_setup(unsigned secs)
{
	static const int dflt[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2};
	struct sigaction sa;
	sigset_t set;

	/* The runtime's handlers post to threads the child does not have:
	 * SIGTERM must end the child, and the alarm must kill it. SIGSEGV and
	 * SIGBUS stay with the runtime (it uses them for its own checks). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(dflt) / sizeof(dflt[0]); i++) {
		sigaction(dflt[i], &sa, NULL);
		sigaddset(&set, dflt[i]);
	}
	/* a session and process group of its own: Android kills an app's
	 * process group with it (libprocessgroup's kill(-pid)), besides its
	 * cgroup, which oomscope moves the child out of */
	setsid();
	sa.sa_handler = SIG_IGN; /* a client that hung up must not kill the writer */
	sigaction(SIGPIPE, &sa, NULL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	alarm(secs);
}

void shim_child_finish(const struct shim_dump_req *req, int err, const char *why, uint64_t bytes_in,
		       uint64_t bytes_out, uint64_t objects, double start_ms)
{
	char b;

	if (!err && fsync(req->fd) != 0 && errno != EINVAL)
		err = -errno, why = "fsync";
	if (req->path[0]) {
		if (!err && rename(req->tmp, req->path) != 0)
			err = -errno, why = "rename";
		if (err)
			unlink(req->tmp);
	}
	close(req->fd);
	/* "started" (from the parent) goes first; a parent that died never
	 * writes it: with this copy of its end closed, the wait then ends */
	if (req->sync_wr >= 0)
		close(req->sync_wr);
	while (read(req->sync_fd, &b, 1) < 0 && errno == EINTR)
		;
	if (err)
		shim_reply(req->reply_fd, SHIM_ERROR " %s: %s", why ? why : "dump", strerror(-err));
	else
		shim_reply(req->reply_fd, SHIM_DONE " bytes_in=%llu bytes_out=%llu objects=%llu child_ms=%.0f%s%s",
			   (unsigned long long)bytes_in, (unsigned long long)bytes_out, (unsigned long long)objects,
			   shim_now_ms() - start_ms, shim_child_note[0] ? " " : "", shim_child_note);
	if (req->done_fd >= 0 && write(req->done_fd, "d", 1) < 0) { /* best effort: the parent then refuses */
	}
	_exit(err ? 1 : 0);
}

void shim_task_syscall(pid_t tid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	if (shim_read_file(path, buf, len) < 0)
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

enum shim_task_state shim_task_state(pid_t tid)
{
	char buf[256], *p = buf, *end;
	unsigned long a[7] = {0};
	int n = 0;

	shim_task_syscall(tid, buf, sizeof(buf));
	for (; n < 7; n++, p = end) { /* the number in decimal, the rest in hex */
		a[n] = strtoul(p, &end, n ? 16 : 10);
		if (end == p || buf[0] == '-')
			break;
	}
	if (n < 5) /* "running", or "-1 ..." (not in a syscall) */
		return SHIM_TASK_RUNNING;
	if (a[0] == SYS_futex && a[4] != 0) /* futex(uaddr, op, val, timeout): a timeout given */
		return SHIM_TASK_WAIT_TIMED;
	return SHIM_TASK_BLOCKED;
}
