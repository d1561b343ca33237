/* The shim's control socket: a UNIX stream socket in the abstract
 * namespace, served by one thread of the runtime's (a Java thread, started
 * with JVMTI RunAgentThread: the shim has no libc to start threads with,
 * and the runtime must know the thread that calls into it), one client at a
 * time. Only root and the target's own uid may use it (SO_PEERCRED). The
 * dump child is reaped by the same thread. */
#define _GNU_SOURCE
#include "shim/shim.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <jvmti.h>
#include "shim/jvmti_env.h"
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hprof/transform.h"
#include "shim/libc/shim_libc.h"
#include "shim/request.h"

static volatile pid_t busy_child;   /* the dump child while it runs */
static jint jvmti_taken;            /* the JVMTI version the control thread got (ping says it) */
static int busy_done_fd = -1;       /* the child writes a byte here once it has answered */
#define BUSY_WAIT_MS 5000
/* how long the dump at an OutOfMemoryError waits for one still writing */
#define OOM_BUSY_WAIT_MS 120000
static char busy_path[128];

double shim_now_ms(void)
{
	return mono_ms();
}

void shim_reply(int fd, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	for (const char *p = line; n > 0;) {
		ssize_t w = send(fd, p, (size_t)n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (int)w;
	}
}

/* One request line (and an fd, for dumpfd). Returns the line length, or -1. */
static int read_request(int c, char *line, size_t len, int *fd)
{
	size_t got = 0;

	*fd = -1;
	while (got < len - 1) {
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = {line + got, 1};
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
		ssize_t n = recvmsg(c, &m, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
			if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS && *fd < 0)
				memcpy(fd, CMSG_DATA(h), sizeof(int));
		if (line[got] == '\n')
			break;
		got++;
	}
	line[got] = 0;
	return (int)got;
}

/* The dump child is reaped here (by whichever thread asks), so the runtime
 * never sees it (HotSpot does not reap children), and the shim knows when
 * the next dump may start. */
static void reap(void)
{
	pid_t child = busy_child, w;
	int st;

	if (child && ((w = waitpid(child, &st, __WALL | WNOHANG)) == child || (w < 0 && errno == ECHILD)))
		busy_child = 0;
}

/* The armed last-chance dump (armoom): its output, settings and the
 * client's connection, kept open until an OutOfMemoryError comes. */
static struct {
	int conn, fd, op;
	uint32_t text_bytes;
	int jvmti_walk, whole;
} armed = {-1, -1, 0, 0, 0, 0};
/* one dump at a time, whether the control thread or a throwing thread asks */
static struct shim_lock dump_lock;

/* Faults for the tests (OOMSCOPE_SHIM_FAULT, items separated by commas;
 * see hs_forkdump.c for the walk's): "before_started:PATH" holds the
 * answer "started" until PATH exists (at most 120 s), so a test kills the
 * target between its fork and that answer; "after_started:PATH" creates
 * PATH once it is sent. The path of item key, or "". */
static void test_fault_path(const char *key, char *out, size_t len)
{
	const char *f = shim_getenv("OOMSCOPE_SHIM_FAULT");

	out[0] = 0;
	for (; f && *f; f += strcspn(f, ",") + (f[strcspn(f, ",")] == ',')) {
		size_t n = strcspn(f, ","), k = strlen(key);

		if (n > k && !strncmp(f, key, k) && n - k < len)
			snprintf(out, len, "%.*s", (int)(n - k), f + k);
	}
}

static void test_fault_wait(const char *key)
{
	char path[256];

	test_fault_path(key, path, sizeof(path));
	for (int i = 0; path[0] && i < 12000 && access(path, F_OK) != 0; i++)
		usleep(10 * 1000);
}

static void test_fault_mark(const char *key)
{
	char path[256];
	int fd;

	test_fault_path(key, path, sizeof(path));
	if (path[0] && (fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0)
		close(fd);
}

/* Forks the dump of req (fd open, path set for `dump PATH`), answering on
 * c: "busy", "error", or "started" (then the child answers "done"). Takes
 * req->fd, and unlinks req->tmp when nothing was started. */
static void start_dump(int c, struct shim_dump_req *req, int busy_wait_ms)
{
	struct shim_dump_result res;
	int sync[2], done[2] = {-1, -1};

	memset(&res, 0, sizeof(res));
	req->reply_fd = c;
	shim_lock(&dump_lock);
	reap();
	/* A child that has answered may still be exiting (unmapping its copy
	 * of the heap takes a while): a request right after the last dump
	 * waits for it rather than being refused. One still writing is refused
	 * at once. */
	if (busy_child && busy_done_fd >= 0 && poll(&(struct pollfd){busy_done_fd, POLLIN, 0}, 1, 0) == 1)
		busy_wait_ms = busy_wait_ms > BUSY_WAIT_MS ? busy_wait_ms : BUSY_WAIT_MS;
	for (int i = 0; busy_child && i < busy_wait_ms / 10; i++) {
		usleep(10 * 1000);
		reap();
	}
	if (!busy_child && busy_done_fd >= 0) {
		close(busy_done_fd);
		busy_done_fd = -1;
	}
	if (busy_child) {
		shim_reply(c, SHIM_BUSY " a dump is running (child %d, %s): try again when it is done", (int)busy_child,
			   busy_path);
		goto out;
	}
	if (pipe2(sync, O_CLOEXEC) != 0) {
		shim_reply(c, SHIM_ERROR " pipe: %s", strerror(errno));
		goto out;
	}
	req->sync_fd = sync[0];
	req->sync_wr = sync[1];
	if (pipe2(done, O_CLOEXEC) != 0)
		done[0] = done[1] = -1;
	req->done_fd = done[1];
	if (shim_ops)
		shim_ops->dump(req, &res);
	else
		snprintf(res.error, sizeof(res.error), "no Java runtime in this process");
	if (!res.child) {
		shim_reply(c, SHIM_ERROR " %s", res.error[0] ? res.error : "the dump did not start");
	} else {
		busy_child = res.child;
		snprintf(busy_path, sizeof(busy_path), "%s", req->label);
		busy_done_fd = done[0];
		done[0] = -1;
		test_fault_wait("before_started:");
		shim_reply(c, SHIM_STARTED " child=%d pause_ms=%.1f", (int)res.child, res.pause_ms);
		test_fault_mark("after_started:");
	}
	if (write(sync[1], "g", 1) < 0) { /* the child may answer now */
	}
	close(sync[0]);
	close(sync[1]);
	if (done[0] >= 0)
		close(done[0]);
	if (done[1] >= 0)
		close(done[1]);
out:
	if (!res.child && req->path[0])
		unlink(req->tmp);
	close(req->fd);
	req->fd = -1;
	shim_unlock(&dump_lock);
}

/* The output of a dump/dumpfd/armoom request r, and its settings, into
 * req: the passed fd, or PATH created (a device or FIFO opened). 0, or -1
 * after answering why not. */
static int open_output(int c, const struct shim_request *r, int *passed_fd, struct shim_dump_req *req)
{
	memset(req, 0, sizeof(*req));
	req->fd = -1;
	req->op = r->op;
	req->text_bytes = (uint32_t)r->text_bytes;
	req->jvmti_walk = r->jvmti_walk;
	req->whole = r->whole;
	if (r->cmd != SHIM_CMD_DUMP) {
		req->fd = *passed_fd;
		*passed_fd = -1;
		snprintf(req->label, sizeof(req->label), "passed fd");
		return 0;
	}
	struct stat st;

	if (stat(r->path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		/* a device or FIFO is written in place, never renamed over;
		 * a FIFO with no reader is refused rather than waited for */
		req->fd = open(r->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (req->fd < 0) {
			shim_reply(c, SHIM_ERROR " cannot open %s: %s", r->path, strerror(errno));
			return -1;
		}
		fcntl(req->fd, F_SETFL, fcntl(req->fd, F_GETFL) & ~O_NONBLOCK);
	} else {
		snprintf(req->path, sizeof(req->path), "%s", r->path);
		snprintf(req->tmp, sizeof(req->tmp), "%s.tmp.%d", r->path, (int)getpid());
		req->fd = open(req->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (req->fd < 0) {
			shim_reply(c, SHIM_ERROR " cannot create %s: %s", req->tmp, strerror(errno));
			return -1;
		}
	}
	snprintf(req->label, sizeof(req->label), "%.120s", r->path);
	return 0;
}

static void do_dump(int c, const struct shim_request *r, int passed_fd)
{
	struct shim_dump_req req;

	if (open_output(c, r, &passed_fd, &req) == 0)
		start_dump(c, &req, 0);
	if (passed_fd >= 0)
		close(passed_fd);
}

/* armoom [mode [strings=N]] + an fd: the next OutOfMemoryError of the
 * Java heap is dumped into it, from the throwing thread, before the throw.
 * Answers "armed"; the connection stays open for "oom ..." lines and the
 * dump's "started"/"done". A new armoom replaces the last. Returns 1 when
 * the connection is kept. */
static int do_arm(int c, const struct shim_request *r, int passed_fd)
{
	struct shim_dump_req req;

	if (open_output(c, r, &passed_fd, &req) != 0) {
		if (passed_fd >= 0)
			close(passed_fd);
		return 0;
	}
	shim_lock(&dump_lock);
	if (armed.conn >= 0) {
		shim_reply(armed.conn, "disarmed by a newer armoom");
		close(armed.conn);
		close(armed.fd);
	}
	armed.conn = c;
	armed.fd = req.fd;
	armed.op = req.op;
	armed.text_bytes = req.text_bytes;
	armed.jvmti_walk = req.jvmti_walk;
	armed.whole = req.whole;
	shim_unlock(&dump_lock);
	shim_reply(c, SHIM_ARMED);
	return 1;
}

void shim_oom_event(const char *kind, int heap, const char *what, const char *thread, const char *stack)
{
	struct shim_dump_req req;
	int conn;

	shim_lock(&dump_lock);
	conn = armed.conn;
	if (conn >= 0 && poll(&(struct pollfd){conn, POLLRDHUP, 0}, 1, 0) == 1) {
		/* the client has gone (oomscope ended): no one to dump for */
		close(armed.conn);
		close(armed.fd);
		armed.conn = armed.fd = conn = -1;
	}
	if (conn < 0) {
		shim_unlock(&dump_lock);
		return;
	}
	shim_reply(conn, SHIM_OOM " kind=%s thread=%s what=%s stack=%s", kind, thread, what, stack);
	if (!heap) { /* threads, metaspace...: told, but the dump waits for the heap */
		shim_unlock(&dump_lock);
		return;
	}
	memset(&req, 0, sizeof(req));
	req.fd = armed.fd;
	req.op = armed.op;
	req.text_bytes = armed.text_bytes;
	req.jvmti_walk = armed.jvmti_walk;
	req.whole = armed.whole;
	req.at_oom = 1;
	armed.conn = armed.fd = -1;
	snprintf(req.label, sizeof(req.label), "the OutOfMemoryError dump");
	shim_unlock(&dump_lock);
	/* the heap at its fullest is worth waiting for: a dump a rule started
	 * a moment before is let finish, then this one is taken */
	start_dump(conn, &req, OOM_BUSY_WAIT_MS);
	close(conn); /* the child has its copy for "done" */
}

/* Returns 1 when the connection is kept (armoom). */
static int serve(int c)
{
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	char line[4400], reply[512];
	struct shim_request r;
	int fd;

	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 || (cred.uid != 0 && cred.uid != geteuid())) {
		shim_reply(c, SHIM_ERROR " permission denied: only root or uid %d may use this socket", (int)geteuid());
		return 0;
	}
	if (read_request(c, line, sizeof(line), &fd) < 0)
		return 0;
	if (shim_request_parse(line, fd >= 0, &r, reply, sizeof(reply))) {
		shim_reply(c, "%s", reply);
	} else if (r.cmd == SHIM_CMD_PING) {
		shim_reply(c, SHIM_OK " oomscope-shim %d runtime=%s pid=%d jvmti=%s", SHIM_PROTOCOL,
			   shim_ops ? shim_ops->name : "none", (int)getpid(),
			   jvmti_taken == SHIM_ART_TI_VERSION ? "art" : "1.2");
	} else if (r.cmd == SHIM_CMD_HEAP) {
		int64_t used = -1, committed = -1, max = -1;
		int e = shim_ops ? shim_ops->heap(&used, &committed, &max) : -ENOSYS;

		if (e)
			shim_reply(c, SHIM_ERROR " heap figures unavailable: %s", strerror(-e));
		else
			shim_reply(c, SHIM_OK " used=%lld committed=%lld max=%lld", (long long)used, (long long)committed,
				   (long long)max);
	} else if (r.cmd == SHIM_CMD_JAVASTACKS) {
		char why[160];
		int sig = shim_ops && shim_ops->javastacks ? shim_ops->javastacks(c, r.no_stacks, why, sizeof(why)) : -1;

		if (sig < 0) {
			shim_reply(c, SHIM_ERROR " no Java stacks here: %s",
				   shim_ops && shim_ops->javastacks ? why : "not on this runtime yet");
			return 0;
		}
		shim_reply(c, SHIM_OK " signal=%d", sig);
		return 1; /* kept: the reports go on it */
	} else if (r.cmd == SHIM_CMD_DUMP || r.cmd == SHIM_CMD_DUMPFD) {
		do_dump(c, &r, fd);
		fd = -1;
	} else { /* armoom */
		return do_arm(c, &r, fd);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

static void JNICALL control_main(jvmtiEnv *env, JNIEnv *jni, void *arg)
{
	int s = (int)(intptr_t)arg;

	(void)env;
	(void)jni;
	for (;;) {
		struct pollfd p = {s, POLLIN, 0};
		int c;

		reap();
		/* woken every 200 ms while a child runs, to reap it */
		if (poll(&p, 1, busy_child ? 200 : -1) <= 0)
			continue;
		c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN)
				continue;
			return;
		}
		if (!serve(c))
			close(c);
	}
}

const char *shim_options = "";
char shim_init_error[200];

int shim_control_start(void *vm_)
{
	JavaVM *vm = vm_;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	socklen_t len;
	jvmtiEnv *jvmti = NULL;
	JNIEnv *jni = NULL;
	jclass tc;
	jmethodID init;
	jobject thread = NULL;
	jint ti_version;
	int s, n;

	/* abstract: sun_path starts with a NUL, and its length is the name's */
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, SHIM_SOCKET_FMT, (int)getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (bind(s, (struct sockaddr *)&sa, len) != 0 || listen(s, 4) != 0) {
		int e = -errno;

		snprintf(shim_init_error, sizeof(shim_init_error), "cannot serve the socket @%s: %s", sa.sun_path + 1,
			 strerror(-e));
		close(s);
		return e;
	}
	if (shim_jvmti_env(vm, &jvmti, &ti_version) != JNI_OK ||
	    ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK &&
	     (*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&jni, NULL) != JNI_OK)) {
		snprintf(shim_init_error, sizeof(shim_init_error),
			 "no JVMTI (neither 1.2 nor ART's 0x70010200: a release app on a user build takes no agent) "
			 "or JNI environment for the control thread");
		close(s);
		return -ENOSYS;
	}
	jvmti_taken = ti_version;
	tc = (*jni)->FindClass(jni, "java/lang/Thread");
	init = tc ? (*jni)->GetMethodID(jni, tc, "<init>", "(Ljava/lang/String;)V") : NULL;
	if (init)
		thread = (*jni)->NewObject(jni, tc, init, (*jni)->NewStringUTF(jni, "oomscope-shim"));
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	if (!thread ||
	    (*jvmti)->RunAgentThread(jvmti, thread, control_main, (void *)(intptr_t)s, JVMTI_THREAD_NORM_PRIORITY) !=
		    JVMTI_ERROR_NONE) {
		snprintf(shim_init_error, sizeof(shim_init_error), "cannot start the control thread (RunAgentThread)");
		close(s);
		return -EAGAIN;
	}
	return 0;
}
