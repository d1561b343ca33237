#define _GNU_SOURCE
#include "dump/dumper.h"
#include "proc/cgroup.h"
#include "proc/freezer.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "hprof/io.h"
#include "hprof/stream.h"
#include "hprof/transform.h"
#include "runtime/hs_attach.h"
#include "runtime/hsperf.h"
#include "runtime/shim_client.h"
#include "shim/proto.h"
#include "util/atomic_file.h"
#include "util/names.h"
#include "util/tmpdir.h"
#include "dump/pump.h"

#define READ_CHUNK (1u << 20)


static void status(const struct ooms_dump_request *rq, const char *what)
{
	if (rq->status)
		rq->status(rq->sctx, what);
}

static const char *const method_names[] = {[DUMP_AUTO] = "auto", [DUMP_SHIM] = "shim", [DUMP_JVM] = "jvm", [DUMP_AM] = "am"};

int ooms_dump_method_parse(const char *s)
{
	return names_find(method_names, NAMES_N(method_names), 0, s, -1);
}

/* ZGC, as the JVM's counters name its collectors: the shim refuses to
 * fork-dump it, so auto picks the JVM's dumper. */
static int hotspot_zgc(pid_t pid)
{
	size_t len = 64 * 1024;
	char *buf = malloc(len);
	ssize_t n = buf ? hsperf_read(pid, buf, len) : -ENOMEM;
	int zgc = n > 0 && hsperf_collector_is(buf, (size_t)n, "Z ") == 1;

	free(buf);
	return zgc;
}

/* ---- shim ---- */

static int dump_shim_once(const struct ooms_dump_request *rq, struct ooms_dump_result *res);

/* A fork lands at a moment another thread may hold a lock the child's walk
 * needs (rare; ThreadCritical, the likeliest, is held across the fork): the
 * child then says the walk stalled, and the next fork usually does not. */
static int dump_shim(const struct ooms_dump_request *rq, struct ooms_dump_result *res)
{
	double paused = 0;
	int e;

	for (int attempt = 1;; attempt++) {
		res->pause_ms = 0;
		e = dump_shim_once(rq, res);
		res->attempts = attempt;
		if (res->pause_ms > 0)
			paused += res->pause_ms; /* every fork paused the app */
		res->pause_ms = paused;
		if (!e || attempt == 3 || !strstr(res->error, "stalled"))
			return e;
		status(rq, "retrying the fork-dump");
		res->error[0] = 0;
		usleep(200 * 1000);
	}
}

static int shim_finish(const struct ooms_dump_request *rq, struct ooms_dump_result *res, struct atomic_file *afp,
		       struct dump_pump *pump, int conn, char *line, size_t line_len);

/* Where the pump's spool may hold what it has not compressed yet: the
 * output's folder (the file goes there anyway); none for a device or FIFO. */
static const char *spool_dir(const struct atomic_file *af, char *dir, size_t len)
{
	char *slash;

	if (af->direct)
		return NULL;
	snprintf(dir, len, "%s", af->tmp);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	return dir;
}

static int dump_shim_once(const struct ooms_dump_request *rq, struct ooms_dump_result *res)
{
	struct atomic_file af;
	struct dump_pump pump;
	char line[512], dir[4096];
	int conn = -1, e;

	res->method = "shim-fork";
	if ((e = atomic_open_mode(&af, rq->out_path, 0600))) {
		snprintf(res->error, sizeof(res->error), "cannot create %.200s: %s", rq->out_path, strerror(-e));
		return e;
	}
	if ((e = dump_pump_start(&pump, fileno(af.f), rq->op, rq->codec, rq->level, rq->text_bytes, -1,
				 spool_dir(&af, dir, sizeof(dir))))) {
		atomic_abort(&af);
		snprintf(res->error, sizeof(res->error), "cannot start the dump's reader: %s", strerror(-e));
		return e;
	}
	status(rq, "fork-dump");
	e = shim_client_dumpfd(rq->pid, pump.wr, rq->op == HPROF_OP_STRIP_KOOM ? "koom" : "app", (int)rq->text_bytes,
			       &conn, line, sizeof(line), 30000);
	dump_pump_handed_over(&pump);
	if (e) {
		dump_pump_finish(&pump);
		atomic_abort(&af);
		if (e == -EBUSY)
			snprintf(res->error, sizeof(res->error), "the shim is busy with another dump: %.200s", line);
		else if (e == -ESRCH)
			snprintf(res->error, sizeof(res->error),
				 "the shim's socket name is served by another process, not PID %d: not used",
				 (int)rq->pid);
		else if (line[0])
			snprintf(res->error, sizeof(res->error), "the shim refused the dump: %.200s", line);
		else
			snprintf(res->error, sizeof(res->error), "no answer from the shim: %s", strerror(-e));
		return e;
	}
	return shim_finish(rq, res, &af, &pump, conn, line, sizeof(line));
}

/* After "started" (in line): waits for "done" and the end of what the
 * child wrote, keeps the file or drops it. */
static int shim_finish(const struct ooms_dump_request *rq, struct ooms_dump_result *res, struct atomic_file *afp,
		       struct dump_pump *pump, int conn, char *line, size_t line_len)
{
	struct atomic_file af = *afp;
	int e, timeout_ms = (rq->timeout_s > 0 ? rq->timeout_s : 1800) * 1000;
	pid_t child;

	res->pause_ms = shim_line_num(line, "pause_ms", -1);
	child = (pid_t)shim_line_num(line, "child", 0);
	/* the child out of the app's cgroups at once (root: a watch is): when
	 * the app is killed (lmkd, the activity manager's process-group kill)
	 * or frozen, the dump begun goes on */
	if (child > 0 && shim_line_is(line, SHIM_STARTED) && geteuid() == 0) {
		int moved = ooms_cgroup_to_roots(child, &res->child_cgroups);

		res->child_moved = moved > 0 ? moved : 0;
		res->child_moved_err = moved < 0 ? moved : 0;
	}
	status(rq, "writing");
	/* the child's answer in place of "started": the target died at its fork */
	e = !shim_line_is(line, SHIM_STARTED) ? 0 : shim_client_line(conn, line, line_len, timeout_ms);
	close(conn);
	if (e == -ETIMEDOUT && child > 0)
		kill(child, SIGKILL); /* before the pump is waited for: the pipe then ends */
	if (dump_pump_finish(pump) && !e && shim_line_is(line, SHIM_DONE)) {
		atomic_abort(&af);
		snprintf(res->error, sizeof(res->error), "writing %.150s: %.150s", rq->out_path, pump->msg);
		return pump->err;
	}
	if (!e && shim_line_is(line, SHIM_DONE)) {
		if ((e = atomic_commit(&af))) {
			snprintf(res->error, sizeof(res->error), "writing %.200s: %s", rq->out_path, strerror(-e));
			return e;
		}
		/* the hprof the walk made (HotSpot's child says), else what came */
		res->bytes_in = (uint64_t)shim_line_num(line, "bytes_in", 0);
		if (!res->bytes_in)
			res->bytes_in = pump->bytes_in;
		res->bytes_out = pump->bytes_out;
		res->objects = (uint64_t)shim_line_num(line, "objects", 0);
		if (!res->objects) /* the copy wrote its dump whole: the pump counted */
			res->objects = pump->objects;
		res->child_ms = shim_line_num(line, "child_ms", 0);
		shim_line_word(line, "walk", res->walk, sizeof(res->walk));
		shim_line_word(line, "forked_at", res->forked_at, sizeof(res->forked_at));
		return 0;
	}
	atomic_abort(&af); /* no partial file */
	if (e == -ETIMEDOUT)
		snprintf(res->error, sizeof(res->error), "the dump did not finish within %d s (child %d killed)",
			 timeout_ms / 1000, (int)child);
	else if (!e)
		snprintf(res->error, sizeof(res->error), "the dump failed: %.250s",
			 !shim_line_is(line, SHIM_ERROR) ? line : shim_line_rest(line, SHIM_ERROR));
	else
		snprintf(res->error, sizeof(res->error),
			 "the dump child %d ended without finishing (killed?); nothing was kept", (int)child);
	return e ? e : -EIO;
}

/* ---- the JVM's own dumper through a FIFO ---- */

struct jcmd_call {
	pid_t pid;
	char command[256];
	int rc;
	struct hs_attach_result r;
	struct ooms_err err;
};

static void *jcmd_thread(void *arg)
{
	struct jcmd_call *c = arg;

	c->rc = hs_attach_command(c->pid, "jcmd", c->command, NULL, NULL, 1800 * 1000, &c->r, &c->err);
	return NULL;
}

/* Copies a stripped plain file into the final one through the codec. */
static int compress_into(const char *from, const char *to, int codec, int level, uint64_t *out_bytes)
{
	struct atomic_file af;
	struct hprof_sink sink;
	uint8_t *buf = malloc(READ_CHUNK);
	int in = open(from, O_RDONLY | O_CLOEXEC), e = 0;
	ssize_t n;

	if (!buf || in < 0) {
		e = in < 0 ? -errno : -ENOMEM;
		goto out;
	}
	if ((e = atomic_open_mode(&af, to, 0600)))
		goto out;
	if ((e = hprof_sink_open(&sink, fileno(af.f), codec, level))) {
		atomic_abort(&af);
		goto out;
	}
	while ((n = read(in, buf, READ_CHUNK)) > 0 && !(e = hprof_sink_write(&sink, buf, (size_t)n)))
		;
	if (n < 0)
		e = -errno;
	if (!e)
		e = hprof_sink_finish(&sink);
	*out_bytes = sink.bytes_out;
	hprof_sink_free(&sink);
	if (e)
		atomic_abort(&af);
	else
		e = atomic_commit(&af);
out:
	if (in >= 0)
		close(in);
	free(buf);
	return e;
}

/* Over 100 lines on purpose: the FIFO, the attach call on its thread and the
 * streaming strip are one protocol; every exit must undo all three. */
static int dump_jvm_fifo(const struct ooms_dump_request *rq, struct ooms_dump_result *res)
{
	struct jcmd_call call = {.pid = rq->pid, .rc = -1};
	struct hprof_strip_stream strip;
	struct atomic_file af;
	struct stat st;
	char fifo_ns[128], plain[4200], proc[32];
	const char *fifo;
	uint8_t *buf = NULL;
	pthread_t t;
	int fd = -1, e = 0, started = 0, stream = 0, root;
	double t0;

	res->method = "jvm-fifo";
	snprintf(fifo_ns, sizeof(fifo_ns), "/tmp/oomscope-dump-%d-%d.fifo", (int)getpid(), (int)hs_ns_pid(rq->pid));
	fifo = fifo_ns + 1; /* under the target's root, held open: the FIFO is removed even once the target is gone */
	snprintf(proc, sizeof(proc), "/proc/%d/root", (int)rq->pid);
	root = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		e = -errno;
		snprintf(res->error, sizeof(res->error), "cannot reach PID %d's files: %s", (int)rq->pid, strerror(-e));
		return e;
	}
	snprintf(plain, sizeof(plain), "%s.stripped", rq->out_path);
	if (path_is_stream(rq->out_path)) /* nothing may be made beside /dev/null */
		snprintf(plain, sizeof(plain), "%s/oomscope-dump-%d.stripped", ooms_tmpdir(), (int)getpid());
	if (rq->codec == HPROF_PLAIN)
		snprintf(plain, sizeof(plain), "%s", rq->out_path);
	snprintf(proc, sizeof(proc), "/proc/%d", (int)rq->pid);
	unlinkat(root, fifo, 0);
	/* the FIFO belongs to the JVM's user, who must open it for writing */
	if (mkfifoat(root, fifo, 0600) != 0 || stat(proc, &st) != 0 ||
	    fchownat(root, fifo, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) != 0) {
		e = -errno;
		snprintf(res->error, sizeof(res->error), "cannot make a FIFO in PID %d's /tmp: %s", (int)rq->pid,
			 strerror(-e));
		unlinkat(root, fifo, 0);
		close(root);
		return e;
	}
	fd = openat(root, fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW); /* the target owns its /tmp */
	buf = malloc(READ_CHUNK);
	if (fd < 0 || !buf || (e = atomic_open_mode(&af, plain, 0600))) {
		e = e ? e : fd < 0 ? -errno : -ENOMEM;
		snprintf(res->error, sizeof(res->error), "preparing the dump: %s", strerror(-e));
		goto out;
	}
	if ((e = hprof_strip_stream_open(&strip, fileno(af.f), rq->op, HPROF_PLAIN, 0))) {
		atomic_abort(&af);
		snprintf(res->error, sizeof(res->error), "preparing the stripper: %s", strerror(-e));
		goto out;
	}
	strip.t.text_bytes = rq->text_bytes;
	stream = 1;
	snprintf(call.command, sizeof(call.command), "GC.heap_dump -overwrite %s", fifo_ns);
	status(rq, "JVM dumping");
	t0 = mono_ms();
	if (pthread_create(&t, NULL, jcmd_thread, &call) != 0) {
		e = -EAGAIN;
		snprintf(res->error, sizeof(res->error), "starting the attach thread failed");
		goto fail;
	}
	started = 1;
	/* the JVM opens the FIFO when it starts writing; then read to its end */
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;
		int r = poll(&p, 1, 200);

		if (r < 0 && errno != EINTR) {
			e = -errno;
			break;
		}
		if (r > 0 && (p.revents & (POLLIN | POLLHUP))) {
			n = read(fd, buf, READ_CHUNK);
			if (n > 0) {
				if (!e && (e = hprof_strip_stream_feed(&strip, buf, (size_t)n)))
					snprintf(res->error, sizeof(res->error), "the JVM's dump: %s", strip.msg);
				res->bytes_in += (uint64_t)n;
				continue;
			}
			if (n == 0 && res->bytes_in)
				break; /* the writer closed it */
			if (n < 0 && errno != EAGAIN && errno != EINTR) {
				e = -errno;
				break;
			}
		}
		if (__atomic_load_n(&call.rc, __ATOMIC_SEQ_CST) != -1 && r == 0)
			break; /* the command answered and nothing more comes */
		if (!proc_alive(rq->pid)) {
			e = e ? e : -ESRCH;
			break;
		}
		if (r == 0 && !res->bytes_in)
			usleep(1000); /* poll on a FIFO without a writer returns at once */
	}
	pthread_join(t, NULL);
	started = 0;
	res->pause_ms = mono_ms() - t0; /* the JVM dumps at a safepoint: the app waits for all of it */
	if (!e && (call.rc || !strstr(call.r.out, "Heap dump file created"))) {
		e = call.rc ? call.rc : -EIO;
		snprintf(res->error, sizeof(res->error), "the JVM did not dump: %.200s", call.rc ? call.err.msg : call.r.out);
	}
	if (!e && (e = hprof_strip_stream_finish(&strip)))
		snprintf(res->error, sizeof(res->error), "the JVM's dump: %s", strip.msg);
	/* A killed JVM closes the FIFO (and its attach socket) while it exits,
	 * before /proc shows it dead; the kill is pending or the exit under way
	 * before the first file closes, so that is what is asked */
	if (e && (e == -ESRCH || proc_dying(rq->pid))) {
		e = -ESRCH;
		snprintf(res->error, sizeof(res->error), "the target exited during the dump; nothing was kept");
	}
fail:
	if (started)
		pthread_join(t, NULL);
	if (e || (e = atomic_commit(&af))) {
		atomic_abort(&af);
		if (!res->error[0])
			snprintf(res->error, sizeof(res->error), "writing %.200s: %s", plain, strerror(-e));
	} else if (rq->codec != HPROF_PLAIN) {
		status(rq, "compressing");
		e = compress_into(plain, rq->out_path, rq->codec, rq->level, &res->bytes_out);
		unlink(plain);
		if (e)
			snprintf(res->error, sizeof(res->error), "compressing into %.200s: %s", rq->out_path, strerror(-e));
	} else {
		res->bytes_out = strip.sink.bytes_out;
	}
out:
	if (stream)
		hprof_strip_stream_free(&strip);
	if (fd >= 0)
		close(fd);
	free(buf);
	unlinkat(root, fifo, 0);
	close(root);
	return e;
}

/* ---- Android, without a shim ---- */

static int dump_am(const struct ooms_dump_request *rq, struct ooms_dump_result *res)
{
	char tmp[128], there[256], pid_s[16];
	struct hprof_strip_stream strip;
	struct atomic_file af;
	uint8_t *buf;
	pid_t p;
	int st, fd, e;
	double t0 = mono_ms();
	ssize_t n;

	res->method = "am-dumpheap";
	if (access("/system/bin/am", X_OK) != 0) {
		snprintf(res->error, sizeof(res->error), "no /system/bin/am: not an Android device (load the shim instead)");
		return -ENOENT;
	}
	snprintf(tmp, sizeof(tmp), "/data/local/tmp/oomscope-%d.hprof", (int)rq->pid);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)rq->pid);
	unlink(tmp);
	status(rq, "am dumpheap");
	p = fork();
	if (p == 0) {
		execl("/system/bin/am", "am", "dumpheap", pid_s, tmp, (char *)NULL);
		_exit(127);
	}
	if (p < 0 || waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(res->error, sizeof(res->error), "am dumpheap %s failed", pid_s);
		return -EIO;
	}
	/* am returns before the app has written the file: wait for it to stop growing */
	for (off_t last = -1;;) {
		struct stat s;

		sleep(1);
		if (stat(tmp, &s) == 0 && s.st_size > 0 && s.st_size == last)
			break;
		last = stat(tmp, &s) == 0 ? s.st_size : -1;
		if (mono_ms() - t0 > 1800e3) {
			snprintf(res->error, sizeof(res->error), "am dumpheap: no complete file after 1800 s");
			return -ETIMEDOUT;
		}
	}
	res->pause_ms = mono_ms() - t0;
	snprintf(there, sizeof(there), "%s", tmp);
	fd = open(there, O_RDONLY | O_CLOEXEC);
	buf = malloc(READ_CHUNK);
	if (fd < 0 || !buf || (e = atomic_open_mode(&af, rq->out_path, 0600))) {
		e = -EIO;
		snprintf(res->error, sizeof(res->error), "reading %s", tmp);
		goto out;
	}
	if ((e = hprof_strip_stream_open(&strip, fileno(af.f), rq->op, rq->codec, rq->level)) == 0) {
		strip.t.text_bytes = rq->text_bytes;
		while (!e && (n = read(fd, buf, READ_CHUNK)) > 0) {
			e = hprof_strip_stream_feed(&strip, buf, (size_t)n);
			res->bytes_in += (uint64_t)n;
		}
		if (!e)
			e = hprof_strip_stream_finish(&strip);
		if (e)
			snprintf(res->error, sizeof(res->error), "the app's dump: %s", strip.msg);
		res->bytes_out = strip.sink.bytes_out;
		hprof_strip_stream_free(&strip);
	}
	if (e)
		atomic_abort(&af);
	else
		e = atomic_commit(&af);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	unlink(tmp);
	return e;
}

/* A dump's end (e: how it went). */
static int take(const struct ooms_dump_request *rq, enum ooms_dump_method m, struct ooms_dump_result *res);

static int dump_done(const struct ooms_dump_request *rq, struct ooms_dump_result *res, int e, double t0)
{
	res->dump_ms = mono_ms() - t0;
	res->target_exited = proc_dying(rq->pid); /* a killed target tears down a while */
	if (e)
		return e;
	res->ok = 1;
	return 0;
}

int ooms_dump_take(const struct ooms_dump_request *rq, struct ooms_dump_result *res)
{
	enum ooms_dump_method m = rq->method;
	double t0 = mono_ms();
	struct ooms_thaw thaw;
	struct ooms_err terr = {0};
	int e;

	memset(res, 0, sizeof(*res));
	/* a frozen process (a cached Android app) answers nothing: thawed for
	 * the dump, frozen again after */
	if ((e = ooms_thaw(rq->pid, &thaw, &terr)) < 0) {
		snprintf(res->error, sizeof(res->error), "%.319s", terr.msg);
		ooms_refreeze(&thaw, NULL, 0);
		return dump_done(rq, res, e, t0);
	}
	if (e == 1) {
		res->thawed = 1;
		ooms_thaw_where(&thaw, res->thaw_where, sizeof(res->thaw_where));
		status(rq, "thawed");
	}
	e = take(rq, m, res);
	if (res->thawed)
		res->refrozen = ooms_refreeze(&thaw, res->refreeze_note, sizeof(res->refreeze_note)) == 1;
	return dump_done(rq, res, e, t0);
}

/* The dump by method m (AUTO: the best the target offers). */
static int take(const struct ooms_dump_request *rq, enum ooms_dump_method m, struct ooms_dump_result *res)
{
	char line[128];
	int e;

	if (m == DUMP_AUTO) {
		if (shim_client_ask(rq->pid, SHIM_REQ_PING, line, sizeof(line), 2000) == 0 && shim_line_is(line, SHIM_OK) &&
		    !(rq->runtime == OOMS_RT_HOTSPOT && hotspot_zgc(rq->pid)))
			m = DUMP_SHIM;
		else if (rq->runtime == OOMS_RT_HOTSPOT)
			m = DUMP_JVM;
		else if (rq->runtime == OOMS_RT_ART)
			m = DUMP_AM;
	}
	switch (m) {
	case DUMP_SHIM:
		e = dump_shim(rq, res);
		break;
	case DUMP_JVM:
		e = dump_jvm_fifo(rq, res);
		break;
	case DUMP_AM:
		e = dump_am(rq, res);
		break;
	default:
		snprintf(res->error, sizeof(res->error), "PID %d runs no Java runtime: no heap to dump", (int)rq->pid);
		e = -ENOENT;
	}
	if (!res->attempts)
		res->attempts = 1;
	return e;
}

int ooms_dump_armed(const struct ooms_dump_request *rq, struct ooms_dump_result *res, int cancel_fd,
		    void (*on_line)(void *ctx, const char *line), void *ctx)
{
	char dir[4096];
	char oom_kind[sizeof(res->oom_kind)] = "";
	struct atomic_file af;
	struct dump_pump pump;
	char line[1024];
	double t0;
	int conn = -1, e;

	memset(res, 0, sizeof(*res));
	res->method = "shim-fork-at-oom";
	res->attempts = 1;
	if ((e = atomic_open_mode(&af, rq->out_path, 0600))) {
		snprintf(res->error, sizeof(res->error), "cannot create %.200s: %s", rq->out_path, strerror(-e));
		return e;
	}
	if ((e = dump_pump_start(&pump, fileno(af.f), rq->op, rq->codec, rq->level, rq->text_bytes, cancel_fd,
				 spool_dir(&af, dir, sizeof(dir))))) {
		atomic_abort(&af);
		snprintf(res->error, sizeof(res->error), "cannot start the dump's reader: %s", strerror(-e));
		return e;
	}
	/* the shim's socket opens once the JVM is up, and a JVM starting on a
	 * loaded machine may take longer than the wait to answer: ask until it
	 * does (or says no, or is gone) */
	for (;;) {
		struct pollfd p = {cancel_fd, POLLIN, 0};

		line[0] = 0;
		e = shim_client_armfd(rq->pid, pump.wr, rq->op == HPROF_OP_STRIP_KOOM ? "koom" : "app", (int)rq->text_bytes,
				      &conn, line, sizeof(line), 5000);
		if (!e || (e != -ENOENT && e != -ECONNREFUSED && e != -ETIMEDOUT && e != -EAGAIN) || !proc_alive(rq->pid))
			break;
		if (poll(&p, 1, 200) != 0) {
			dump_pump_finish(&pump);
			atomic_abort(&af);
			return -ECANCELED;
		}
	}
	dump_pump_handed_over(&pump);
	if (e) {
		dump_pump_finish(&pump);
		atomic_abort(&af);
		snprintf(res->error, sizeof(res->error), "the shim did not arm the dump at the OutOfMemoryError: %.200s",
			 line[0] ? line : strerror(-e));
		return e;
	}
	/* armed: the lines come when the heap runs out, or never */
	if (on_line)
		on_line(ctx, SHIM_ARMED);
	for (;;) {
		struct pollfd p[2] = {{conn, POLLIN, 0}, {cancel_fd, POLLIN, 0}};

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents) {
			e = -ECANCELED;
			break;
		}
		if (!p[0].revents)
			continue;
		if ((e = shim_client_line(conn, line, sizeof(line), 5000)))
			break;
		if (shim_line_is(line, SHIM_OOM)) {
			/* what ran out, for the analysis of the dump that follows */
			snprintf(oom_kind, sizeof(oom_kind), "%s",
				 strstr(line, " kind=direct ")	      ? "direct"
				 : strstr(line, " kind=metaspace ") ? "metaspace"
								    : "heap");
			if (on_line)
				on_line(ctx, line);
			continue;
		}
		if (shim_line_is(line, SHIM_STARTED)) {
			if (on_line)
				on_line(ctx, line);
			t0 = mono_ms();
			e = dump_done(rq, res, shim_finish(rq, res, &af, &pump, conn, line, sizeof(line)), t0);
			snprintf(res->oom_kind, sizeof(res->oom_kind), "%s", oom_kind);
			return e;
		}
		e = -EIO; /* "disarmed", "error ..." */
		snprintf(res->error, sizeof(res->error), "the shim gave up the dump at the OutOfMemoryError: %.200s",
			 !shim_line_is(line, SHIM_ERROR) ? line : shim_line_rest(line, SHIM_ERROR));
		break;
	}
	close(conn); /* the shim drops its end of the pipe when it sees this */
	dump_pump_finish(&pump);
	atomic_abort(&af);
	if (e == -ECANCELED || e == -EPIPE)
		snprintf(res->error, sizeof(res->error), "no OutOfMemoryError came");
	return e;
}
