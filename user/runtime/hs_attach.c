#define _GNU_SOURCE
#include "runtime/hs_attach.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "proc/procfs.h"

pid_t hs_ns_pid(pid_t pid)
{
	char path[64], buf[4096], *line;
	pid_t ns = pid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	ssize_t n = proc_read_file(path, buf, sizeof(buf) - 1);

	if (n < 0)
		return pid;
	buf[n] = 0;
	line = strstr(buf, "\nNSpid:");
	if (!line)
		return pid;
	line += 7;
	/* the last number on the line: the pid in the innermost namespace */
	for (char *p = line; *p && *p != '\n';) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		ns = (pid_t)v;
		p = end;
	}
	return ns;
}

/* Connects to path within the time left; the fd or -errno. */
static int connect_unix(const char *path, long long deadline)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, e;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	e = errno;
	if (e == EINPROGRESS || e == EAGAIN) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int left = (int)(deadline - mono_ms()), so = 0;
		socklen_t sl = sizeof(so);

		if (left > 0 && poll(&p, 1, left) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) == 0 && !so)
			return fd;
		e = so ? so : ETIMEDOUT;
	}
	close(fd);
	return -e;
}

/* Whether pid catches SIGQUIT (SigCgt): a JVM started with -Xrs does not,
 * and the signal that asks for the attach listener would kill it. */
static int catches_sigquit(pid_t pid)
{
	char path[64], buf[4096], *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	n = proc_read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strstr(buf, "\nSigCgt:");
	return p && (strtoull(p + 8, NULL, 16) >> (SIGQUIT - 1)) & 1;
}

/* Asks the JVM to open its attach socket: the trigger file, SIGQUIT, then
 * waits for the socket until deadline. 0 or -errno (err said). */
static int trigger_listener(pid_t pid, pid_t ns, const char *sock, long long deadline, struct ooms_err *err)
{
	char trig[128];
	struct stat st;
	int fd, e;

	if (!catches_sigquit(pid)) {
		return ooms_err_set(err, -EPERM, "PID %d does not handle SIGQUIT (a JVM started with -Xrs, or not a JVM): "
				    "attaching would kill it", (int)pid);
	}
	/* the trigger: in the JVM's working directory, else in its /tmp */
	snprintf(trig, sizeof(trig), "/proc/%d/cwd/.attach_pid%d", (int)pid, (int)ns);
	fd = open(trig, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		snprintf(trig, sizeof(trig), "/proc/%d/root/tmp/.attach_pid%d", (int)pid, (int)ns);
		fd = open(trig, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	}
	if (fd < 0) {
		e = errno;
		return ooms_err_set(err, -e, "cannot create the attach trigger %s: %s", trig, strerror(e));
	}
	close(fd);
	if (kill(pid, SIGQUIT) != 0) {
		e = errno;
		unlink(trig);
		return ooms_err_set(err, -e, "cannot signal PID %d: %s", (int)pid, strerror(e));
	}
	for (int wait_ms = 10; mono_ms() < deadline; wait_ms = wait_ms < 200 ? wait_ms * 2 : 200) {
		if (stat(sock, &st) == 0 && S_ISSOCK(st.st_mode))
			break;
		usleep(wait_ms * 1000);
	}
	unlink(trig);
	if (stat(sock, &st) != 0) {
		return ooms_err_set(err, -ETIMEDOUT,
				    "JVM %d did not open its attach socket %s (started with -XX:+DisableAttachMechanism, "
				    "or not a HotSpot JVM?)",
				    (int)pid, sock);
	}
	return 0;
}

/* The JVM's attach socket, asking the JVM to open it when it is not there. */
static int open_attach_socket(pid_t pid, long long deadline, struct ooms_err *err)
{
	char sock[128];
	pid_t ns = hs_ns_pid(pid);
	struct stat st;
	int fd;

	snprintf(sock, sizeof(sock), "/proc/%d/root/tmp/.java_pid%d", (int)pid, (int)ns);
	if (stat(sock, &st) == 0 && S_ISSOCK(st.st_mode)) {
		fd = connect_unix(sock, deadline);
		if (fd >= 0)
			return fd;
		if (fd != -ECONNREFUSED)
			return ooms_err_set(err, fd, "cannot connect to JVM %d's attach socket %s: %s", (int)pid, sock,
					    strerror(-fd));
		unlink(sock); /* left by an earlier process with this pid */
	}
	if ((fd = trigger_listener(pid, ns, sock, deadline, err)))
		return fd;
	fd = connect_unix(sock, deadline);
	if (fd < 0)
		ooms_err_set(err, fd, "cannot connect to JVM %d's attach socket %s: %s", (int)pid, sock, strerror(-fd));
	return fd;
}

static int write_all(int fd, const char *buf, size_t len, long long deadline)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int left = (int)(deadline - mono_ms());

		if (left <= 0 || poll(&p, 1, left) <= 0)
			return -ETIMEDOUT;
	}
	return 0;
}

int hs_attach_parse_reply(const char *reply, size_t len, struct hs_attach_result *res)
{
	size_t n = strnlen(reply, len), p = 0, digits = 0;
	int neg = 0;
	long long code = 0;

	res->code = -1;
	res->out_len = 0;
	res->out[0] = 0;
	while (p < n && (reply[p] == ' ' || (reply[p] >= '\t' && reply[p] <= '\r')))
		p++; /* as strtol: leading white space, a sign */
	if (p < n && (reply[p] == '-' || reply[p] == '+'))
		neg = reply[p++] == '-';
	for (; p < n && reply[p] >= '0' && reply[p] <= '9'; p++, digits++) {
		code = code * 10 + (reply[p] - '0');
		if (code > (long long)INT32_MAX + 1)
			return -EPROTO; /* no result code is that long */
	}
	if (!digits || (p < n && reply[p] != '\n') || (!neg && code > INT32_MAX))
		return -EPROTO;
	res->code = (int)(neg ? -code : code);
	if (p < n) { /* the output: after the code's line, up to a NUL, cut to fit */
		res->out_len = n - p - 1;
		if (res->out_len >= sizeof(res->out))
			res->out_len = sizeof(res->out) - 1;
		memcpy(res->out, reply + p + 1, res->out_len);
	}
	res->out[res->out_len] = 0;
	return 0;
}

int hs_attach_command(pid_t pid, const char *cmd, const char *arg0, const char *arg1, const char *arg2,
		      int timeout_ms, struct hs_attach_result *res, struct ooms_err *err)
{
	long long deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 10000);
	const char *parts[5] = {"1", cmd, arg0 ? arg0 : "", arg1 ? arg1 : "", arg2 ? arg2 : ""};
	char req[4096], reply[sizeof(res->out) + 64];
	size_t len = 0, got = 0;
	int fd, e;

	memset(res, 0, sizeof(*res));
	res->code = -1;
	for (int i = 0; i < 5; i++) {
		size_t n = strlen(parts[i]) + 1;

		if (len + n > sizeof(req))
			return ooms_err_set(err, -E2BIG, "attach request too long");
		memcpy(req + len, parts[i], n);
		len += n;
	}
	fd = open_attach_socket(pid, deadline, err);
	if (fd < 0)
		return fd;
	e = write_all(fd, req, len, deadline);
	if (e) {
		ooms_err_set(err, e, "sending '%s' to JVM %d: %s", cmd, (int)pid, strerror(-e));
		close(fd);
		return e;
	}
	/* the answer ends when the JVM closes the connection */
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int left = (int)(deadline - mono_ms());
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0) {
			close(fd);
			return ooms_err_set(err, -ETIMEDOUT, "JVM %d did not answer '%s' within %d ms", (int)pid, cmd,
					    timeout_ms);
		}
		n = read(fd, reply + got, sizeof(reply) - 1 - got);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			e = -errno;
			ooms_err_set(err, e, "reading JVM %d's answer: %s", (int)pid, strerror(-e));
			close(fd);
			return e;
		}
		got += (size_t)n;
		if (got == sizeof(reply) - 1) { /* keep reading to the end, keep the start */
			char sink[4096];

			while ((n = read(fd, sink, sizeof(sink))) > 0 || (n < 0 && errno == EINTR))
				;
			break;
		}
	}
	close(fd);
	reply[got] = 0;
	if (hs_attach_parse_reply(reply, got, res))
		return ooms_err_set(err, -EPROTO, "JVM %d answered '%s' with no result code: %.80s", (int)pid, cmd,
				    reply);
	return 0;
}
