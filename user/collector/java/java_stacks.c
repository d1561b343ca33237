/* Java stacks at native events: the shim's javastacks connection (HotSpot).
 * Once the shim answers, the kernel side signals a thread that opens an fd,
 * starts a thread or maps a large range (the first of each place, then a
 * sample), the shim's handler takes its Java frames, and a line per event
 * comes here, joined with the event by thread, pc and sp (attrib.c). */
#define _GNU_SOURCE
#include "collector/coll.h"

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

void coll_java_try(struct coll *c)
{
	char line[256];
	int conn, sig;

	if (c->js_conn >= 0 || !c->o->java.shim || !c->jheap || ooms_jheap_runtime(c->jheap) != OOMS_RT_HOTSPOT ||
	    coll_now_ns() < c->js_next_try_ns)
		return;
	c->js_next_try_ns = coll_now_ns() + 1000000000ull;
	/* with --no-java-stacks, the connection still brings the pools' figures */
	if (shim_client_subscribe(c->pid, c->o->no_java_stacks ? SHIM_REQ_JAVASTACKS " nostacks" : SHIM_REQ_JAVASTACKS, &conn, line,
				  sizeof(line), 2000))
		return; /* not loaded yet, or not able: asked again in a second */
	sig = (int)shim_line_num(line, "signal", -1);
	if (sig < 0 || sig >= 64 || (!sig && !c->o->no_java_stacks)) {
		close(conn);
		return;
	}
	fcntl(conn, F_SETFL, fcntl(conn, F_GETFL) | O_NONBLOCK);
	c->js_conn = conn;
	if (!sig)
		return;
	coll_k_java_signal(c, sig);
	if (!c->o->json)
		coll_err("Java stacks: the shim takes them where threads, fds and large mappings are made (signal %d)",
			sig);
}

/* "js tid=N sp=HEX pc=HEX frames=A.b(F.java:1);..." or "... none=WHY";
 * "pools direct_used=N direct_max=N" */
static void java_line(struct coll *c, char *line)
{
	char *p;
	unsigned long tid;
	unsigned long long sp, pc;
	const char *frames = NULL;

	if (shim_line_is(line, SHIM_POOLS)) { /* the shim's figures, once a second */
		ooms_jheap_note_direct(c->jheap, (int64_t)shim_line_num(line, "direct_used", -1),
				       (int64_t)shim_line_num(line, "direct_max", -1));
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
	ooms_attrib_java_report(c->attrib, (uint32_t)tid, sp, pc, frames);
	c->js_reports++;
}

void coll_java_read(struct coll *c)
{
	for (;;) {
		ssize_t n;
		char *nl;

		if (c->js_conn < 0)
			return;
		if (c->js_len == sizeof(c->js_buf) - 1) /* a line longer than the buffer: dropped */
			c->js_len = 0;
		n = read(c->js_conn, c->js_buf + c->js_len, sizeof(c->js_buf) - 1 - c->js_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
				coll_java_close(c); /* the shim has gone (the target ended) */
			return;
		}
		c->js_len += (size_t)n;
		c->js_buf[c->js_len] = 0;
		while ((nl = memchr(c->js_buf, '\n', c->js_len))) {
			size_t k = (size_t)(nl - c->js_buf) + 1;

			*nl = 0;
			java_line(c, c->js_buf);
			memmove(c->js_buf, c->js_buf + k, c->js_len - k);
			c->js_len -= k;
		}
	}
}

void coll_java_settle_until(struct coll *c, uint64_t until_ns, int ms)
{
	uint64_t end = coll_now_ns() + (uint64_t)ms * 1000000ull;

	while (c->js_conn >= 0 && ooms_attrib_java_pending_until(c->attrib, until_ns) && coll_now_ns() < end) {
		struct pollfd p = {c->js_conn, POLLIN, 0};

		coll_consume_ring(c); /* nothing lost while waiting */
		poll(&p, 1, 20);
		coll_java_read(c);
	}
}

void coll_java_settle(struct coll *c, int ms)
{
	coll_java_settle_until(c, UINT64_MAX, ms);
	volatile struct ooms_totals *t = coll_totals(c);

	if (!c->o->json && !c->o->quiet && (t->java_asked || t->java_sampled_out))
		coll_err("Java stacks: %llu asked, %llu reported, %llu not joined with their event; "
			"%llu sampled out (past %d at one place, then %llu a second)",
			(unsigned long long)t->java_asked, (unsigned long long)c->js_reports,
			(unsigned long long)ooms_attrib_java_unmatched(c->attrib), (unsigned long long)t->java_sampled_out,
			OOMS_JAVA_FULL, 1000000000ull / OOMS_JAVA_GAP_NS);
}

void coll_java_close(struct coll *c)
{
	if (c->js_conn < 0)
		return;
	close(c->js_conn);
	c->js_conn = -1;
	coll_k_java_signal(c, 0);
}

void coll_java_perfmap(struct coll *c, int ask)
{
	enum ooms_rt_kind rt = c->jheap ? ooms_jheap_runtime(c->jheap) : OOMS_RT_NATIVE;
	int alive = coll_target_ours(c) && !c->died;
	char path[128], err[256];
	struct hs_attach_result *res;
	struct ooms_perfmap *pm;
	struct stat st;
	int64_t mtime;
	FILE *f;
	int e;

	if (rt == OOMS_RT_NATIVE && alive) { /* a JVM exec'd since the last sample */
		struct ooms_rt_target t;

		if (ooms_rt_detect(c->pid, OOMS_RT_AUTO, &t) == 0)
			rt = t.kind;
	}
	ooms_attrib_java_runtime(c->attrib, rt == OOMS_RT_HOTSPOT || rt == OOMS_RT_ART);
	if (rt != OOMS_RT_HOTSPOT)
		return;
	if (ask && c->o->java_perf_map && alive && coll_now_ns() - c->pm_asked_ns > 2000000000ull) {
		c->pm_asked_ns = coll_now_ns();
		if ((res = malloc(sizeof(*res)))) {
			e = hs_attach_command(c->pid, "jcmd", "Compiler.perfmap", NULL, NULL, 10000, res, err, sizeof(err));
			if (!e && res->code)
				snprintf(err, sizeof(err), "the JVM answered %d: %.200s (JDK 17 or later writes it)", res->code,
					 res->out);
			if ((e || res->code) && !c->pm_said++ && !c->o->json)
				coll_err("--perf-map: no perf map from the JVM: %s", err);
			free(res);
		}
	}
	/* the JVM writes /tmp/perf-PID.map in its own mount and pid namespaces;
	 * once it has exited, only a launched one's is reachable (ours) */
	if (alive)
		snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", (int)c->pid, (int)hs_ns_pid(c->pid));
	else if (c->launched)
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)c->pid);
	else
		return;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	if (mtime == c->pm_mtime_ns || !(f = fopen(path, "re")))
		return; /* the one loaded already */
	if (ooms_perfmap_read(f, &pm) == 0) {
		ooms_sym_set_perfmap(c->sym, pm);
		c->pm_mtime_ns = mtime;
	}
	fclose(f);
}
