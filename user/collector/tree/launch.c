#define _GNU_SOURCE
#include "collector/tree/launch.h"
#include "proc/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int launch_program_is_32bit(const char *argv0)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];
	int r = -ENOENT;

	if (strchr(argv0, '/'))
		return elf_path_is_32bit(argv0);
	for (p = path ? path : "/usr/bin:/bin"; r < 0 && *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if ((size_t)snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), end == p ? "." : p, argv0) < sizeof(buf) &&
		    access(buf, X_OK) == 0)
			r = elf_path_is_32bit(buf);
	}
	return r;
}

int launch_prepare(struct launch *l, char *const argv[])
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) != 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) != 0) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		return e;
	}
	if (pid == 0) {
		char c;
		int e;
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go[1]);
		close(err[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* the collector gave up */
		/* closed explicitly (not by exec) so the collector sees the close */
		close(go[0]);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	l->pid = pid;
	l->go_fd = go[1];
	l->err_fd = err[0];
	return 0;
}

int launch_go(struct launch *l)
{
	int e = 0;
	ssize_t n;

	if (write(l->go_fd, "g", 1) != 1)
		return -errno;
	close(l->go_fd);
	l->go_fd = -1;
	/* EOF (exec succeeded, the pipe closed on exec) or the errno */
	n = read(l->err_fd, &e, sizeof(e));
	close(l->err_fd);
	l->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? -e : 0;
}

int launch_stop(struct launch *l, int grace_ms)
{
	int status;
	pid_t r;

	if (l->pid <= 0)
		return -1;
	if (l->go_fd >= 0) {
		close(l->go_fd); /* never started: it exits on EOF */
		l->go_fd = -1;
	}
	r = waitpid(l->pid, &status, WNOHANG);
	if (r == 0) {
		kill(l->pid, SIGTERM);
		for (int waited = 0; waited < grace_ms; waited += 10) {
			struct timespec ts = {0, 10 * 1000 * 1000};

			r = waitpid(l->pid, &status, WNOHANG);
			if (r != 0)
				break;
			nanosleep(&ts, NULL);
		}
		if (r == 0) {
			kill(l->pid, SIGKILL);
			r = waitpid(l->pid, &status, 0);
		}
	}
	l->pid = 0;
	return r > 0 ? status : -1;
}
