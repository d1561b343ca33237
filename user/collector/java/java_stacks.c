/* Java stacks at native events: the shim's javastacks connection (HotSpot).
 * Once the shim answers, the kernel side signals a thread that opens an fd,
 * starts a thread or maps a large range (the first of each place, then a
 * sample), the shim's handler takes its Java frames, and a line per event
 * comes here, joined with the event by thread, pc and sp (attrib.c). */
#define _GNU_SOURCE
#include "collector/java/java_watch.h"
#include "collector/console/console.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/hs_attach.h"
#include "runtime/shim_client.h"
#include "shim/proto.h"
#include "sym/perfmap.h"
#include <sys/stat.h>

/* The tests' way to connect late on purpose (threads made before the
 * connection): OOMSCOPE_FAULT=java_stacks_gate=PATH waits for PATH. */
static int gate_closed(void)
{
	const char *f = getenv("OOMSCOPE_FAULT"), *g = f ? strstr(f, "java_stacks_gate=") : NULL;
	char path[256];

	if (!g)
		return 0;
	g += strlen("java_stacks_gate=");
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(g, ","), g);
	return access(path, F_OK) != 0;
}

void coll_java_try(struct java_watch *jw)
{
	char line[256];
	int conn, sig;

	if (jw->conn >= 0 || !jw->o->java.shim || !jw->jheap || ooms_jheap_runtime(jw->jheap) != OOMS_RT_HOTSPOT ||
	    mono_ns() < jw->next_try_ns || gate_closed())
		return;
	jw->next_try_ns = mono_ns() + 1000000000ull;
	/* with --no-java-stacks, the connection still brings the pools' figures */
	if (shim_client_subscribe(jw->pid, jw->o->no_java_stacks ? SHIM_REQ_JAVASTACKS " nostacks" : SHIM_REQ_JAVASTACKS, &conn, line,
				  sizeof(line), 2000))
		return; /* not loaded yet, or not able: asked again in a second */
	sig = (int)shim_line_num(line, "signal", -1);
	if (sig < 0 || sig >= 64 || (!sig && !jw->o->no_java_stacks)) {
		close(conn);
		return;
	}
	fcntl(conn, F_SETFL, fcntl(conn, F_GETFL) | O_NONBLOCK);
	jw->conn = conn;
	if (!sig)
		return;
	coll_k_java_signal(jw->k, sig);
	if (!jw->o->json)
		coll_err("Java stacks: the shim takes them where threads, fds and large mappings are made (signal %d)",
			sig);
}

/* "jt tid=N creator=N frames=A.b(F.java:1);...": a thread started before the
 * connection (the shim loaded at launch), then "jt end count=N dropped=N" */
static void thread_started_line(struct java_watch *jw, const char *rest)
{
	const char *frames;
	char *p;
	unsigned long tid;

	if (!strncmp(rest, "end", 3)) {
		unsigned long long dropped = shim_line_num(rest, "dropped", 0);

		unsigned long long fds_dropped = shim_line_num(rest, "fds_dropped", 0);

		if (!jw->o->json && !jw->o->quiet && (jw->started_seen || jw->opened_seen))
			coll_err("Java stacks: made before the shim's connection, %llu live thread(s) (%llu named by the "
				 "Java frames that started them) and %llu fd(s) (%llu named by those that opened them)%s",
				 (unsigned long long)jw->started_seen, (unsigned long long)jw->started_taken,
				 (unsigned long long)jw->opened_seen, (unsigned long long)jw->opened_taken,
				 dropped || fds_dropped ? "; some not recorded: the shim's tables were full" : "");
		jw->started_synced = 0;
		jw->started_seen = jw->started_taken = jw->opened_seen = jw->opened_taken = 0;
		return;
	}
	if (strncmp(rest, "tid=", 4))
		return;
	tid = strtoul(rest + 4, &p, 10);
	if (!(frames = strstr(p, " frames=")))
		return;
	if (!jw->started_synced) { /* the threads' own creation events first */
		coll_k_read_ring(jw->k);
		jw->started_synced = 1;
	}
	jw->started_seen++;
	jw->started_taken += (uint64_t)ooms_attrib_java_thread_started(jw->attrib, (uint32_t)tid, frames + 8);
}

/* "jf fd=N tid=N ns=N frames=...": an fd opened from Java before the
 * connection, matched with the kernel's open by fd, thread and time */
static void fd_opened_line(struct java_watch *jw, const char *rest)
{
	const char *frames = strstr(rest, " frames=");
	long long fd = (long long)shim_line_num(rest, "fd", -1);
	unsigned long tid = (unsigned long)shim_line_num(rest, "tid", 0);
	const char *nsp = strstr(rest, " ns=");
	unsigned long long ns = nsp ? strtoull(nsp + 4, NULL, 10) : 0; /* exact: not through a double */

	if (!frames || fd < 0 || !tid || !ns)
		return;
	if (!jw->started_synced) { /* the opens' own events first */
		coll_k_read_ring(jw->k);
		jw->started_synced = 1;
	}
	jw->opened_seen++;
	jw->opened_taken += (uint64_t)ooms_attrib_java_fd_opened(jw->attrib, fd, (uint32_t)tid, ns, frames + 8);
}

/* "js tid=N sp=HEX pc=HEX frames=A.b(F.java:1);..." or "... none=WHY";
 * "pools direct_used=N direct_max=N" */
static void java_line(struct java_watch *jw, char *line)
{
	char *p;
	unsigned long tid;
	unsigned long long sp, pc;
	const char *frames = NULL;

	if (shim_line_is(line, SHIM_POOLS)) { /* the shim's figures, once a second */
		ooms_jheap_note_direct(jw->jheap, (int64_t)shim_line_num(line, "direct_used", -1),
				       (int64_t)shim_line_num(line, "direct_max", -1));
		return;
	}
	if (shim_line_is(line, SHIM_JF)) {
		fd_opened_line(jw, shim_line_rest(line, SHIM_JF));
		return;
	}
	if (shim_line_is(line, SHIM_JT)) {
		thread_started_line(jw, shim_line_rest(line, SHIM_JT));
		return;
	}
	if (!shim_line_is(line, SHIM_JS) || strncmp(shim_line_rest(line, SHIM_JS), "tid=", 4))
		return;
	tid = strtoul(line + 7, &p, 10);
	if (strncmp(p, " sp=", 4))
		return;
	sp = strtoull(p + 4, &p, 16);
	if (strncmp(p, " pc=", 4))
		return;
	pc = strtoull(p + 4, &p, 16);
	if (!strncmp(p, " frames=", 8))
		frames = p + 8;
	ooms_attrib_java_report(jw->attrib, (uint32_t)tid, sp, pc, frames);
	jw->reports++;
}

void coll_java_read(struct java_watch *jw)
{
	for (;;) {
		ssize_t n;
		char *nl;

		if (jw->conn < 0)
			return;
		if (jw->len == sizeof(jw->buf) - 1) /* a line longer than the buffer: dropped */
			jw->len = 0;
		n = read(jw->conn, jw->buf + jw->len, sizeof(jw->buf) - 1 - jw->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
				coll_java_close(jw); /* the shim has gone (the target ended) */
			return;
		}
		jw->len += (size_t)n;
		jw->buf[jw->len] = 0;
		while ((nl = memchr(jw->buf, '\n', jw->len))) {
			size_t k = (size_t)(nl - jw->buf) + 1;

			*nl = 0;
			java_line(jw, jw->buf);
			memmove(jw->buf, jw->buf + k, jw->len - k);
			jw->len -= k;
		}
	}
}

void coll_java_settle_until(struct java_watch *jw, uint64_t until_ns, int ms)
{
	uint64_t end = mono_ns() + (uint64_t)ms * 1000000ull;

	while (jw->conn >= 0 && ooms_attrib_java_pending_until(jw->attrib, until_ns) && mono_ns() < end) {
		struct pollfd p = {jw->conn, POLLIN, 0};

		coll_k_read_ring(jw->k); /* nothing lost while waiting */
		poll(&p, 1, 20);
		coll_java_read(jw);
	}
}

void coll_java_settle(struct java_watch *jw, int ms)
{
	coll_java_settle_until(jw, UINT64_MAX, ms);
	volatile struct ooms_totals *t = coll_k_totals(jw->k);

	if (!jw->o->json && !jw->o->quiet && (t->java_asked || t->java_sampled_out))
		coll_err("Java stacks: %llu asked, %llu reported, %llu not joined with their event; "
			"%llu sampled out (past %d at one place, then %llu a second)",
			(unsigned long long)t->java_asked, (unsigned long long)jw->reports,
			(unsigned long long)ooms_attrib_java_unmatched(jw->attrib), (unsigned long long)t->java_sampled_out,
			OOMS_JAVA_FULL, 1000000000ull / OOMS_JAVA_GAP_NS);
}

void coll_java_close(struct java_watch *jw)
{
	if (jw->conn < 0)
		return;
	close(jw->conn);
	jw->conn = -1;
	coll_k_java_signal(jw->k, 0);
}

void coll_java_perfmap(struct java_watch *jw, int ask, int alive)
{
	enum ooms_rt_kind rt = jw->jheap ? ooms_jheap_runtime(jw->jheap) : OOMS_RT_NATIVE;
	struct ooms_err err = {0};
	char path[128];
	struct hs_attach_result *res;
	struct ooms_perfmap *pm;
	struct stat st;
	int64_t mtime;
	FILE *f;
	int e;

	if (rt == OOMS_RT_NATIVE && alive) { /* a JVM exec'd since the last sample */
		struct ooms_rt_target t;

		if (ooms_rt_detect(jw->pid, OOMS_RT_AUTO, &t) == 0)
			rt = t.kind;
	}
	ooms_attrib_java_runtime(jw->attrib, rt == OOMS_RT_HOTSPOT ? ATTRIB_JAVA_HOTSPOT : rt == OOMS_RT_ART ? ATTRIB_JAVA_ART : 0);
	if (rt != OOMS_RT_HOTSPOT)
		return;
	if (ask && jw->o->java_perf_map && alive && mono_ns() - jw->pm_asked_ns > 2000000000ull) {
		jw->pm_asked_ns = mono_ns();
		if ((res = malloc(sizeof(*res)))) {
			e = hs_attach_command(jw->pid, "jcmd", "Compiler.perfmap", NULL, NULL, 10000, res, &err);
			if (!e && res->code)
				ooms_err_set(&err, -1, "the JVM answered %d: %.200s (JDK 17 or later writes it)", res->code,
					     res->out);
			if ((e || res->code) && !jw->pm_said++ && !jw->o->json)
				coll_err("--perf-map: no perf map from the JVM: %s", err.msg);
			free(res);
		}
	}
	/* the JVM writes /tmp/perf-PID.map in its own mount and pid namespaces;
	 * once it has exited, only a launched one's is reachable (ours) */
	if (alive)
		snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", (int)jw->pid, (int)hs_ns_pid(jw->pid));
	else if (jw->launched)
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)jw->pid);
	else
		return;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	if (mtime == jw->pm_mtime_ns || !(f = fopen(path, "re")))
		return; /* the one loaded already */
	if (ooms_perfmap_read(f, &pm) == 0) {
		ooms_sym_set_perfmap(jw->sym, pm);
		jw->pm_mtime_ns = mtime;
	}
	fclose(f);
}
