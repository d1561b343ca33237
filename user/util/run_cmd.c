/* A command run for its words (run_cmd.h). */
#define _GNU_SOURCE
#include "util/run_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/clock.h"

extern char **environ;

/* Reads fd until it closes or the time is up. */
static int read_until(int fd, char *buf, size_t len, int64_t deadline_ns)
{
	size_t at = 0;

	buf[0] = 0;
	for (;;) {
		int64_t left_ms = (deadline_ns - (int64_t)mono_ns()) / 1000000;
		struct pollfd p = {fd, POLLIN, 0};
		char scratch[512];
		ssize_t n;

		if (left_ms <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)left_ms) <= 0)
			continue;
		n = read(fd, scratch, sizeof(scratch));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		for (ssize_t i = 0; i < n && at + 1 < len; i++)
			buf[at++] = scratch[i];
		buf[at] = 0;
	}
}

int run_capture(char *const argv[], char *out, size_t len, int timeout_ms, int *status)
{
	posix_spawn_file_actions_t fa;
	int io[2], e, st = 0;
	pid_t child;

	if (len)
		out[0] = 0;
	if (pipe2(io, O_CLOEXEC) != 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, io[1], 1);
	posix_spawn_file_actions_adddup2(&fa, io[1], 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	e = posix_spawnp(&child, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(io[1]);
	if (e) {
		close(io[0]);
		return -e;
	}
	e = read_until(io[0], out, len, (int64_t)mono_ns() + (int64_t)timeout_ms * 1000000);
	close(io[0]);
	if (e == -ETIMEDOUT)
		kill(child, SIGKILL);
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	if (status)
		*status = st;
	return e;
}
