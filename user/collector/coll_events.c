/* The ring buffer's events: attribution, failing calls, the rules checked on
 * each fd and thread event, the OOM killer's choice. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "run/files.h"
#include "util/vec.h"
#include "util/text.h"
#include "run/records.h"
#include "collector/kernel/syscall_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct alloc_line {
	struct coll *c;
	const struct ooms_alloc_rec *r;
};

static void alloc_body(struct json *j, void *arg)
{
	struct alloc_line *l = arg;

	ooms_allocs_json(j, l->c->allocs, l->r, coll_since(l->c), l->c->start_ns);
}

struct failure_line {
	struct coll *c;
	const struct ooms_fail_group *g;
	const char *wrote;
};

static void failure_body(struct json *j, void *arg)
{
	struct failure_line *l = arg;

	ooms_failures_record(j, l->c->fails, l->g, l->c->start_ns, l->wrote);
}

/* A call failed for want of a resource: its group (failures.c) is pending
 * until the batch of events is read; then a timeline record and a live line
 * for its first failure, and one every FAIL_SAY_EVERY_NS with the count
 * since while it goes on failing (a storm from a few call sites is a few
 * lines, not hundreds: failures.json keeps every one); at the first failure
 * of a kind, the groups of that resource as they stood
 * (BASE-at-failure.json), written with the record. */
#define FAIL_SAY_EVERY_NS 5000000000ull

static void on_failure(struct coll *c, const struct ooms_event *e, size_t size)
{
	int first = 0;

	ooms_failures_event(c->fails, e, size, &first);
}

/* Group i's failures as known now: the kernel counts every one of its key
 * (it sends only the first few in full), shared out among the key's groups
 * (one key, several call sites as unwound here) by what each sent. */
static uint64_t fail_count_now(struct coll *c, size_t i)
{
	const struct ooms_fail_group *g = ooms_failures_group(c->fails, i);
	struct ooms_fail_count n;

	if (coll_k_fail_count(&c->k, &g->key, &n) != 0)
		return g->count;
	return ooms_failures_estimate(c->fails, i, n.count);
}

static void report_failure(struct coll *c, size_t i, uint64_t now_ns)
{
	struct ooms_fail_group copy, *gp = ooms_failures_group(c->fails, i);
	const struct ooms_fail_group *g = &copy;
	struct failure_line l = {c, g, NULL};
	char name[64], line[512], safe[1024];
	uint64_t since, count, prev_ns;

	if (!gp)
		return;
	count = fail_count_now(c, i);
	if (!ooms_failures_say(c->fails, i, now_ns, FAIL_SAY_EVERY_NS, count, &since, &prev_ns))
		return;
	copy = *gp; /* a snapshot reads events, which may move the groups */
	copy.count = count;
	if (!c->fail_snapped[g->kind]) {
		enum ooms_snap kind = SNAP_VMSIZE; /* the resource whose failure it is: its snapshot */

		for (int r = 0; r < RES_MAX; r++)
			if (ooms_resources[r].fail_kind == (int)g->kind) {
				kind = ooms_resources[r].snap;
				break;
			}
		struct ooms_snapshot s;

		c->fail_snapped[g->kind] = 1;
		run_name_numbered(name, sizeof(name), run_snapshot_file(kind), RUN_AT_FAILURE);
		if (coll_held_snapshot(c, &s) == 0) {
			if (coll_write_snap(c, &s, kind, name) == 0)
				l.wrote = name;
			ooms_snapshot_free(&s);
		}
	}
	coll_emit(c, failure_body, &l);
	if (c->o->json)
		return;
	ooms_failures_line(c->fails, g, line, sizeof(line));
	text_term_safe(safe, sizeof(safe), line);
	if (prev_ns) {
		coll_print("!! failure: %s (%s%" PRIu64 " more in %.0f s)\n", safe,
			   ooms_failures_shared(c->fails, i) ? "~" : "", since, (double)(now_ns - prev_ns) / 1e9);
		coll_headline(c, "!! failure: %s (%s%" PRIu64 " more in %.0f s)", safe,
			      ooms_failures_shared(c->fails, i) ? "~" : "", since, (double)(now_ns - prev_ns) / 1e9);
	} else {
		coll_print("!! failure: %s%s%s\n", safe, l.wrote ? " -> " : "", l.wrote ? l.wrote : "");
		coll_headline(c, "!! failure: %s%s%s", safe, l.wrote ? " -> " : "", l.wrote ? l.wrote : "");
	}
}

/* Reads what the ring buffer holds, then acts on the crossings and
 * failures its events brought. */
void coll_consume(struct coll *c)
{
	coll_k_read_ring(&c->k);
	coll_java_read(&c->java);
	coll_crossings_pending(c);
	{
		size_t idx[256], n = ooms_failures_take_pending(c->fails, idx, 256);
		uint64_t now = coll_now_ns();

		for (size_t k = 0; k < n; k++)
			report_failure(c, idx[k], now);
	}
}

#define MAX_MAP_CHANGES 65536

/* A large mapping made or undone, kept for a replay at the end (the half
 * read long ago is given up when there are too many: the replay is then
 * said to be partial). */
static void keep_map_change(struct coll *c, const struct ooms_event *e)
{
	struct map_change *m;

	if (c->nmap_changes == MAX_MAP_CHANGES) {
		memmove(c->map_changes, c->map_changes + MAX_MAP_CHANGES / 2,
			(MAX_MAP_CHANGES / 2) * sizeof(*c->map_changes));
		c->nmap_changes = MAX_MAP_CHANGES / 2;
		c->map_changes_partial = 1;
	}
	if (!(m = VEC_PUSH(c->map_changes, c->nmap_changes, c->map_changes_cap))) {
		c->map_changes_partial = 1;
		return;
	}
	*m = (struct map_change){e->ts_ns, (uint64_t)e->ret, e->arg0, e->type == EV_MUNMAP_BIG};
}

/* The OOM killer chose the target: its mappings and status as they are
 * now, while the kernel tears it down, replace the last sample's (the
 * sets come from the kernel side, which the teardown does not empty). */
static void last_look(struct coll *c)
{
	struct ooms_snapshot s;
	struct proc_status st;
	const char *fault = getenv("OOMSCOPE_FAULT");

	/* the tests' way to lose this race on purpose: the maps are then replayed */
	if (fault && strstr(fault, "no_last_look"))
		return;
	if (ooms_snapshot_take(c->pid, &s) != 0)
		return;
	if (s.nmaps && coll_target_ours(c)) {
		s.t = coll_since(c);
		ooms_snapshot_free(&c->last);
		c->last = s;
		if (proc_read_status(c->pid, &st) == 0 && st.rss_kb > 0) {
			c->last_smp.t = s.t;
			c->last_smp.rss_kb = st.rss_kb;
			c->last_smp.res[RES_VMSIZE].value = st.vmsize_kb;
		}
	} else {
		ooms_snapshot_free(&s);
	}
}

/* A large allocation or its free: the newest state of its record, printed
 * live and in the timeline. */
static void big_alloc_event(struct coll *c, const struct ooms_event *e, size_t size)
{
	const struct ooms_alloc_rec *r = ooms_allocs_event(c->allocs, e, size);
	struct alloc_line l = {c, r};
	char line[512], safe[1024];

	if (!r)
		return;
	coll_emit(c, alloc_body, &l);
	if (!c->o->json) {
		ooms_allocs_line(c->allocs, r, line, sizeof(line));
		coll_say(c, "%s", text_term_safe(safe, sizeof(safe), line));
	}
}

/* An event this collector does not know (a type or version of another
 * build's BPF object): never acted on; counted, the first said at once and
 * the count at the end (the end record's unknown.events). */
static void unknown_event(struct coll *c, const struct ooms_event *e)
{
	if (c->unknown.events++)
		return;
	c->unknown.event_type = e->type;
	coll_err("the kernel side sent an event this collector does not know (type %u, version %u; it knows types 1 to %d "
		 "of version %d): dropped, and counted to the end (is the BPF object of another build?)",
		 e->type, e->version, EV_TYPE_MAX - 1, OOMS_EVENT_VERSION);
}

int coll_handle_event(void *ctx, void *data, size_t size)
{
	struct coll *c = ctx;
	const struct ooms_event *e = data;

	if (size < sizeof(struct ooms_event) || e->version != OOMS_EVENT_VERSION || e->type == 0 ||
	    e->type >= EV_TYPE_MAX) {
		unknown_event(c, e);
		return 0;
	}
	ooms_attrib_event(c->attrib, e);
	/* every type named (no default): a type added to collect.h does not build until it is handled here */
	switch ((enum ooms_event_type)e->type) {
	case EV_FAULT:
		coll_fault_event(c, e);
		break;
	case EV_MMAP_BIG:
	case EV_MUNMAP_BIG:
		keep_map_change(c, e);
		break;
	case EV_CALL_FAIL:
		on_failure(c, e, size);
		coll_crossings_on_event(c, e);
		break;
	case EV_FD_OPEN:
	case EV_THREAD_NEW:
		coll_crossings_on_event(c, e);
		break;
	case EV_DEATH:
		c->died = 1;
		break;
	case EV_OOM_VICTIM:
		last_look(c);
		break;
	case EV_CODE_MAP:
		ooms_sym_refresh(c->sym); /* while the process is there to read */
		if (e->arg1) /* held there until now */
			kill(c->pid, SIGCONT);
		break;
	case EV_CHILD:
	case EV_CHILD_HELD:
		coll_children_event(&c->tree, e);
		break;
	case EV_BIG_ALLOC:
	case EV_ALLOC_FREE:
		big_alloc_event(c, e, size);
		break;
	case EV_DIRECT_ALLOC:
	case EV_DIRECT_FREE:
		break; /* attribution's alone (attrib_direct.c) */
	case EV_TYPE_MAX:
		break; /* refused above */
	}
	return 0;
}

/* OOMSCOPE_FAULT=unknown_input, at the first sample: two events of types
 * the kernel side does not send (one of this build's version, one of
 * another's), a snapshot of a kind no row has, and a failed openat with an
 * errno the kernel side does not report (ENOSPC), each as a newer BPF
 * object or resource row would hand them over; the run goes on. */
void coll_fault_unknown(struct coll *c)
{
	const char *f = getenv("OOMSCOPE_FAULT");
	struct ooms_event ev;

	if (!f || !strstr(f, "unknown_input"))
		return;
	memset(&ev, 0, sizeof(ev));
	ev.version = OOMS_EVENT_VERSION;
	ev.type = EV_TYPE_MAX + 3;
	ev.tid = (uint32_t)c->pid;
	coll_handle_event(c, &ev, sizeof(ev));
	ev.version = OOMS_EVENT_VERSION + 1;
	ev.type = EV_FD_OPEN;
	coll_handle_event(c, &ev, sizeof(ev));
	coll_write_snap(c, &c->last, (enum ooms_snap)(SNAP_MAX + 2), "unknown-kind.json");
	memset(&ev, 0, sizeof(ev));
	ev.version = OOMS_EVENT_VERSION;
	ev.type = EV_CALL_FAIL;
	ev.tid = (uint32_t)c->pid;
	ev.ts_ns = coll_now_ns();
	ev.ret = -ENOSPC;
	ev.nr = ooms_syscall_nr(c->arch, "openat");
	ev.arg1 = (uint64_t)1 << 32 | 1; /* its stack id 1, its first failure */
	snprintf(ev.comm, sizeof(ev.comm), "fault");
	coll_handle_event(c, &ev, sizeof(ev));
}
