#define _GNU_SOURCE
#include "runtime/shim_client.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "proc/freezer.h"
#include "runtime/hs_attach.h"
#include "shim/proto.h"

struct ns_socket {
	int ns, fd;
};

static void *socket_in_ns(void *arg)
{
	struct ns_socket *n = arg;

	n->fd = setns(n->ns, CLONE_NEWNET) == 0 ? socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) : -1;
	if (n->fd < 0)
		n->fd = -errno;
	return NULL;
}

/* A UNIX socket in pid's network namespace, where the shim's abstract name
 * lives (a container has its own): made by a thread that enters it, as a
 * socket stays in the namespace it was made in. -errno on failure. */
static int shim_socket(pid_t pid)
{
	char path[64];
	struct stat mine, theirs;
	struct ns_socket n = {-1, -1};
	pthread_t t;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	if ((n.ns = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(n.ns, &theirs) != 0 ||
	    stat("/proc/self/ns/net", &mine) != 0 || (mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino)) {
		if (n.ns >= 0)
			close(n.ns);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	}
	if (pthread_create(&t, NULL, socket_in_ns, &n) != 0) {
		close(n.ns);
		return -EAGAIN;
	}
	pthread_join(t, NULL);
	close(n.ns);
	return n.fd;
}

static int connect_shim(pid_t pid)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	socklen_t len;
	int fd, n;

	/* abstract: a NUL, then the name (pid as the target sees it) */
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, SHIM_SOCKET_FMT, (int)hs_ns_pid(pid));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	fd = shim_socket(pid);
	if (fd < 0)
		return fd;
	if (connect(fd, (struct sockaddr *)&sa, len) != 0) {
		int e = errno == ECONNREFUSED ? ENOENT : errno;

		close(fd);
		return -e;
	}
	/* the shim listens from inside the target: a socket at its name made by
	 * any other process of its network namespace is not it */
	{
		struct ucred peer;
		socklen_t plen = sizeof(peer);

		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &plen) != 0 || peer.pid != pid) {
			close(fd);
			return -ESRCH;
		}
	}
	return fd;
}

int shim_client_line(int conn, char *line, size_t len, int timeout_ms)
{
	size_t got = 0;
	long long deadline = timeout_ms >= 0 ? mono_ms() + timeout_ms : 0;

	while (got + 1 < len) {
		struct pollfd p = {.fd = conn, .events = POLLIN};
		int left = timeout_ms >= 0 ? (int)(deadline - mono_ms()) : -1;
		ssize_t n;

		if (timeout_ms >= 0 && left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return -ETIMEDOUT;
		n = read(conn, line + got, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (line[got] == '\n')
			break;
		got++;
	}
	line[got] = 0;
	return got ? 0 : -EPIPE;
}

/* A connection to pid's shim with request (one line, its newline added)
 * sent on it; -errno. */
static int connect_and_send(pid_t pid, const char *request)
{
	int fd = connect_shim(pid), e;
	char req[512];

	if (fd < 0)
		return fd;
	snprintf(req, sizeof(req), "%s\n", request);
	if ((e = shim_client_send(fd, req, -1))) {
		close(fd);
		return e;
	}
	return fd;
}

int shim_client_subscribe(pid_t pid, const char *request, int *conn, char *line, size_t len, int timeout_ms)
{
	int fd, e;

	*conn = -1;
	line[0] = 0;
	if ((fd = connect_and_send(pid, request)) < 0)
		return fd;
	if ((e = shim_client_line(fd, line, len, timeout_ms)) || !shim_line_is(line, SHIM_OK)) {
		close(fd);
		return e ? e : -EIO;
	}
	*conn = fd;
	return 0;
}

int shim_client_ask(pid_t pid, const char *request, char *line, size_t len, int timeout_ms)
{
	int fd, e;

	if ((fd = connect_and_send(pid, request)) < 0)
		return fd;
	e = shim_client_line(fd, line, len, timeout_ms);
	close(fd);
	return e;
}

double shim_line_num(const char *line, const char *key, double dflt)
{
	size_t k = strlen(key);

	for (const char *p = line; (p = strstr(p, key)); p += k)
		if ((p == line || p[-1] == ' ') && p[k] == '=')
			return strtod(p + k + 1, NULL);
	return dflt;
}

void shim_line_word(const char *line, const char *key, char *out, size_t n)
{
	size_t k = strlen(key);

	if (n)
		out[0] = 0;
	for (const char *p = line; (p = strstr(p, key)); p += k)
		if ((p == line || p[-1] == ' ') && p[k] == '=') {
			size_t w = strcspn(p + k + 1, " \n");

			snprintf(out, n, "%.*s", (int)w, p + k + 1);
			return;
		}
}

const char *shim_client_walk_words(void)
{
	const char *w = getenv("OOMSCOPE_SHIM_WALK");

	return w && !strcmp(w, "jvmti") ? " walk=jvmti" : "";
}

int shim_client_heap(pid_t pid, int64_t *used, int64_t *committed, int64_t *max, int timeout_ms)
{
	char line[256];
	int e = shim_client_ask(pid, SHIM_REQ_HEAP, line, sizeof(line), timeout_ms);

	if (e)
		return e;
	if (!shim_line_is(line, SHIM_OK))
		return -EPROTO;
	*used = (int64_t)shim_line_num(line, "used", -1);
	*committed = (int64_t)shim_line_num(line, "committed", -1);
	*max = (int64_t)shim_line_num(line, "max", -1);
	return 0;
}

int shim_client_send(int conn, const char *req, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {(void *)req, strlen(req)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *h;

	if (fd >= 0) {
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &fd, sizeof(int));
	}
	return sendmsg(conn, &m, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

int shim_client_connect_named(const char *name)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	socklen_t len = sizeof(sa);
	int fd, e;

	if (name[0] == '@') { /* abstract: a NUL, then the name, no NUL after */
		snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "%s", name + 1);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa.sun_path + 1));
	} else {
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", name);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, len) != 0) {
		e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

/* Sends request (one line) with out_fd over the socket; reads the first
 * answer into line. 0 with *conn open when it starts with want. */
static int send_with_fd(pid_t pid, const char *req, int out_fd, const char *want, int *conn, char *line, size_t len,
			int timeout_ms)
{
	int fd = connect_shim(pid), e;

	*conn = -1;
	line[0] = 0;
	if (fd < 0)
		return fd;
	if ((e = shim_client_send(fd, req, out_fd))) {
		close(fd);
		return e;
	}
	e = shim_client_line(fd, line, len, timeout_ms);
	/* a dump's child answers after its parent's "started", unless the
	 * parent died between its fork and that line: the child's answer
	 * then comes first, and is the dump's end */
	if (!e && !strcmp(want, SHIM_STARTED) && (shim_line_is(line, SHIM_DONE) || shim_line_is(line, SHIM_ERROR))) {
		*conn = fd;
		return 0;
	}
	if (e || !shim_line_is(line, want)) {
		close(fd);
		return e ? e : shim_line_is(line, SHIM_BUSY) ? -EBUSY : -EIO;
	}
	*conn = fd;
	return 0;
}

int shim_client_dumpfd(pid_t pid, int out_fd, const char *mode, int text_bytes, int *conn, char *line, size_t len,
		       int timeout_ms)
{
	char req[128];

	/* whole: oomscope's reader strips what comes whole (dump/pump.c) */
	snprintf(req, sizeof(req), SHIM_REQ_DUMPFD " %s strings=%d whole%s\n", mode, text_bytes, shim_client_walk_words());
	return send_with_fd(pid, req, out_fd, SHIM_STARTED, conn, line, len, timeout_ms);
}

int shim_client_armfd(pid_t pid, int out_fd, const char *mode, int text_bytes, int *conn, char *line, size_t len,
		      int timeout_ms)
{
	char req[128];

	snprintf(req, sizeof(req), SHIM_REQ_ARMOOM " %s strings=%d whole%s\n", mode, text_bytes, shim_client_walk_words());
	return send_with_fd(pid, req, out_fd, SHIM_ARMED, conn, line, len, timeout_ms);
}

const char *shim_client_library(void)
{
	static char path[PATH_MAX + 64];
	const char *env = getenv("OOMSCOPE_SHIM");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return access(env, R_OK) == 0 ? env : NULL;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(path, sizeof(path), "%s/build/liboomscope_shim.so", exe);
	if (access(path, R_OK) == 0)
		return path;
	snprintf(path, sizeof(path), "%s/liboomscope_shim.so", exe);
	if (access(path, R_OK) == 0)
		return path;
	snprintf(path, sizeof(path), "%s/../lib/oomscope/liboomscope_shim.so", exe);
	return access(path, R_OK) == 0 ? path : NULL;
}

int shim_client_maps_match(const char *maps, const char *base, dev_t dev, ino_t ino, struct ooms_err *why)
{
	size_t blen = strlen(base);
	int seen = 0;

	for (const char *l = maps; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n') ? strchr(l, '\n') : l + strlen(l), *path;
		unsigned int maj, min;
		unsigned long long inode;
		int off = 0;
		size_t plen;

		/* start-end perms offset MAJ:MIN inode   path */
		if (sscanf(l, "%*s %*s %*s %x:%x %llu %n", &maj, &min, &inode, &off) != 3 || !off || l + off > end)
			continue;
		path = l + off;
		plen = (size_t)(end - path);
		if (plen >= 10 && !memcmp(path + plen - 10, " (deleted)", 10))
			plen -= 10;
		if (plen <= blen || memcmp(path + plen - blen, base, blen) || path[plen - blen - 1] != '/')
			continue;
		if (maj != major(dev) || min != minor(dev) || inode != (unsigned long long)ino) {
			ooms_err_set(why, -EPERM, "maps %.*s from inode %02x:%02x %llu, not the file oomscope wrote "
				     "(%02x:%02x %llu)", (int)(plen > 200 ? 200 : plen), path, maj, min, inode,
				     major(dev), minor(dev), (unsigned long long)ino);
			return 0;
		}
		seen = 1;
	}
	if (!seen)
		ooms_err_set(why, -EPERM, "maps no %s", base);
	return seen;
}

/* The shim as the target sees it: the same file when its mount namespace
 * shows it at the same path, else a copy in the target's /tmp, made new
 * (never through what is at that name already: the target owns its /tmp).
 * *copied 1 for a copy; *st the file's identity, for the check of what the
 * JVM mapped. */
static int shim_for_target(pid_t pid, const char *shim, char *out, size_t len, int *copied, struct stat *st)
{
	char there[PATH_MAX + 64];
	struct stat a, b;
	int in, o, e = 0;
	off_t off = 0;

	*copied = 0;
	snprintf(there, sizeof(there), "/proc/%d/root%s", (int)pid, shim);
	if (stat(shim, &a) == 0 && stat(there, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		snprintf(out, len, "%s", shim);
		*st = b;
		return 0;
	}
	snprintf(out, len, "/tmp/oomscope-shim-%d.so", (int)getpid());
	snprintf(there, sizeof(there), "/proc/%d/root%s", (int)pid, out);
	in = open(shim, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	o = open(there, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (o < 0) {
		e = -errno;
		close(in);
		return e;
	}
	*copied = 1;
	if (fstat(in, &a) != 0 || sendfile(o, in, &off, (size_t)a.st_size) != a.st_size || fstat(o, st) != 0)
		e = -EIO;
	close(in);
	close(o);
	return e;
}

/* Removes the copy, when the name still holds it (not a file put there since). */
static void shim_copy_remove(pid_t pid, const char *path, const struct stat *st)
{
	char there[PATH_MAX + 64];
	struct stat now;

	snprintf(there, sizeof(there), "/proc/%d/root%s", (int)pid, path);
	if (lstat(there, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino)
		unlink(there);
}

/* The JVM mapped the shim from the file checked or written: 0, or -EPERM
 * with why in err. */
static int shim_mapped_ours(pid_t pid, const char *path, const struct stat *st, struct ooms_err *err)
{
	struct ooms_err why = {0};
	char maps_path[64];
	size_t cap = 1 << 16, n = 0;
	char *maps = malloc(cap);
	int fd, ok;
	ssize_t r;

	snprintf(maps_path, sizeof(maps_path), "/proc/%d/maps", (int)pid);
	fd = open(maps_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !maps) {
		ooms_err_set(err, -EPERM, "cannot read /proc/%d/maps to check the shim it loaded: %s", (int)pid,
			     strerror(fd < 0 ? errno : ENOMEM));
		free(maps);
		if (fd >= 0)
			close(fd);
		return -EPERM;
	}
	while ((r = read(fd, maps + n, cap - n - 1)) > 0) {
		char *more;

		n += (size_t)r;
		if (n + 1 < cap)
			continue;
		more = realloc(maps, cap * 2);
		if (!more)
			break;
		maps = more;
		cap *= 2;
	}
	close(fd);
	maps[n] = 0;
	ok = shim_client_maps_match(maps, strrchr(path, '/') + 1, st->st_dev, st->st_ino, &why);
	free(maps);
	if (ok)
		return 0;
	return ooms_err_set(err, -EPERM, "JVM %d %s: refused (its shim is not oomscope's; nothing is asked of it)",
			    (int)pid, why.msg);
}

static int load_hotspot(pid_t pid, const char *shim, struct ooms_err *err);

int shim_client_load_hotspot(pid_t pid, const char *shim, int *thawed, struct ooms_err *err)
{
	struct ooms_thaw thaw;
	int e;

	/* a frozen JVM answers no attach: thawed for the load, frozen again after */
	*thawed = 0;
	if ((e = ooms_thaw(pid, &thaw, err)) < 0) {
		ooms_refreeze(&thaw, NULL, 0);
		return e;
	}
	*thawed = e == 1;
	e = load_hotspot(pid, shim, err);
	ooms_refreeze(&thaw, NULL, 0);
	return e;
}

static int load_hotspot(pid_t pid, const char *shim, struct ooms_err *err)
{
	struct hs_attach_result r;
	char path[PATH_MAX], line[128];
	struct stat st;
	long long deadline;
	int e, copied = 0;

	if (!shim)
		return ooms_err_set(err, -ENOENT, "liboomscope_shim.so not found beside oomscope (build it with make, "
				    "or set OOMSCOPE_SHIM)");
	if (shim_client_ask(pid, SHIM_REQ_PING, line, sizeof(line), 1000) == 0 && shim_line_is(line, SHIM_OK))
		return 0; /* loaded already */
	if ((e = shim_for_target(pid, shim, path, sizeof(path), &copied, &st))) {
		int theirs = e == -EEXIST || e == -ELOOP; /* a file at that name already: named, left */

		if (copied)
			shim_copy_remove(pid, path, &st);
		return ooms_err_set(err, e, "cannot put the shim where PID %d can load it: %s%s%s%s", (int)pid,
				    theirs ? path : "", theirs ? ": " : "", strerror(-e),
				    theirs ? " (not made by this oomscope: refused, left as it is)" : "");
	}
	e = hs_attach_command(pid, "load", path, "true", "", 15000, &r, err);
	/* "0" then "return code: N" (Agent_OnAttach's answer) */
	if (!e && (r.code != 0 || (strstr(r.out, "return code:") && atoi(strstr(r.out, "return code:") + 12) != 0))) {
		e = ooms_err_set(err, -EPERM, "JVM %d refused the shim: %.200s", (int)pid,
				 r.out[0] ? r.out : "no reason given");
	}
	/* what it mapped is the file written or checked here, not one put in its place */
	if (!e)
		e = shim_mapped_ours(pid, path, &st, err);
	if (copied) /* mapped, or not to be: the copy is not needed any more */
		shim_copy_remove(pid, path, &st);
	if (e)
		return e;
	for (deadline = mono_ms() + 5000; mono_ms() < deadline; usleep(20000))
		if (shim_client_ask(pid, SHIM_REQ_PING, line, sizeof(line), 1000) == 0 && shim_line_is(line, SHIM_OK))
			return 0;
	return ooms_err_set(err, -ETIMEDOUT, "the shim loaded into JVM %d but its socket did not answer", (int)pid);
}
