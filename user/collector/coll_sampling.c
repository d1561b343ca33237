/* A sample every interval: /proc and the kernel side's totals, the limits,
 * the detectors, and the crossings with their snapshots. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "run/records.h"

struct sample_rec {
	struct coll *c;
	const struct ooms_sample *s;
};

static void sample_body(struct json *j, void *arg)
{
	struct sample_rec *r = arg;
	const struct ooms_sample *s = r->s;
	volatile struct ooms_totals *t = coll_totals(r->c);

	json_obj(j);
	json_kstr(j, "type", run_rec_name(REC_SAMPLE));
	json_kdbl(j, "t", s->t);
	json_kint(j, "rss_kb", s->rss_kb);
	json_kint(j, "vmsize_kb", s->vmsize_kb);
	json_kint(j, "vmpeak_kb", s->vmpeak_kb);
	json_kint(j, "vmsize_bpf_kb", s->vmsize_bpf_kb);
	json_kint(j, "threads", s->threads);
	json_kint(j, "threads_bpf", s->threads_bpf);
	json_kint(j, "thread_limit", s->thread_limit);
	json_kstr(j, "thread_limit_src", s->thread_limit_src);
	json_kint(j, "fds", s->fds);
	json_kint(j, "fds_bpf", s->fds_bpf);
	json_kint(j, "fd_limit", s->fd_limit);
	json_kuint(j, "ringbuf_drops", s->ringbuf_drops);
	json_kuint(j, "set_full_drops", s->set_full_drops);
	json_kuint(j, "events", s->events);
	if (s->heap_src) {
		json_kint(j, "heap_used", s->heap_used);
		json_kint(j, "heap_committed", s->heap_committed);
		json_kint(j, "heap_max", s->heap_max);
		json_kstr(j, "heap_src", s->heap_src);
		if (s->heap_max > 0) /* where the heap rule's ratio lies, in bytes */
			json_kint(j, "heap_limit",
				  (int64_t)(ooms_heap_rule_threshold(&r->c->o->java.rule, s->heap_max) * (double)s->heap_max));
	}
	if (r->c->jheap && ooms_jheap_runtime(r->c->jheap) != OOMS_RT_NATIVE) {
		json_kuint(j, "gcs", s->gcs);
		json_kdbl(j, "gc_pause_ms", s->gc_pause_ms);
	}
	json_key(j, "syscalls");
	json_obj(j);
	json_kuint(j, "fd_opens", t->fd_opens);
	json_kuint(j, "fd_closes", t->fd_closes);
	json_kuint(j, "thread_news", t->thread_news);
	json_kuint(j, "thread_exits", t->thread_exits);
	json_kuint(j, "mmaps", t->mmaps);
	json_kuint(j, "munmaps", t->munmaps);
	json_kuint(j, "mremaps", t->mremaps);
	json_kuint(j, "brks", t->brks);
	json_obj_end(j);
	json_obj_end(j);
}

struct crossing_rec {
	double t;
	const struct ooms_crossing *x;
	const char *file;
	const char *allocs; /* the large allocations' snapshot written with it, or NULL */
	const char *seen_at; /* "sample" (the interval's), or "event" (between samples) */
};

static void crossing_body(struct json *j, void *arg)
{
	struct crossing_rec *r = arg;

	json_obj(j);
	json_kstr(j, "type", run_rec_name(REC_CROSSING));
	json_kdbl(j, "t", r->t);
	json_kstr(j, "rule", ooms_rule_name(r->x->rule));
	json_kint(j, "value", r->x->value);
	json_kint(j, "limit", r->x->limit);
	json_kstr(j, "reason", r->x->reason);
	json_kstr(j, "seen_at", r->seen_at);
	json_kstr(j, "wrote", r->file);
	if (r->allocs)
		json_kstr(j, "allocs", r->allocs);
	json_obj_end(j);
}

static enum snap_kind rule_snap(enum ooms_rule r)
{
	switch (r) {
	case RULE_THREAD_COUNT:
	case RULE_THREAD_RATIO:
		return SNAP_THREADS;
	case RULE_FD_COUNT:
	case RULE_FD_RATIO:
		return SNAP_FDS;
	default:
		return SNAP_VMSIZE;
	}
}

/* Writes snapshot kind as DIR/name. */
int coll_write_snap(struct coll *c, const struct ooms_snapshot *s, enum snap_kind kind, const char *name)
{
	char path[4200];
	int e;

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	if (kind == SNAP_THREADS)
		e = ooms_attrib_write_threads(c->attrib, s, path);
	else if (kind == SNAP_FDS)
		e = ooms_attrib_write_fds(c->attrib, s, path);
	else
		e = ooms_attrib_write_vmsize(c->attrib, s, path);
	if (e)
		coll_err("cannot write %s: %s", path, strerror(-e));
	return e;
}

/* Writes snapshot kind as BASE.json (seq 0: the current view) or
 * BASE-SEQ.json (crossing seq); name gets the file's name. */
int coll_write_file(struct coll *c, const struct ooms_snapshot *s, enum snap_kind kind, int seq, char *name,
		      size_t name_len)
{
	if (seq)
		snprintf(name, name_len, "%s-%d.json", coll_snap_base[kind], seq);
	else
		snprintf(name, name_len, "%s.json", coll_snap_base[kind]);
	return coll_write_snap(c, s, kind, name);
}

/* Crossings found on a sample or on an event: the groups as they stand
 * (BASE-N.json) and the current view (BASE.json, rewritten at the end). */
void coll_handle_crossings(struct coll *c, const struct ooms_snapshot *s, const struct ooms_sample *smp,
			     const struct ooms_crossing *xs, size_t nx, const char *seen_at)
{
	for (size_t i = 0; i < nx; i++) {
		enum snap_kind kind = rule_snap(xs[i].rule);
		char snap[64], path[4200], numbered[64], current[64];
		struct crossing_rec cr = {smp->t, &xs[i], numbered, NULL, seen_at};

		/* the groups as they stand at the crossing (fds-N.json), and the
		 * current view (fds.json, rewritten at the end) */
		if (coll_write_file(c, s, kind, coll_crossings(c) + 1, numbered, sizeof(numbered)) != 0)
			cr.file = NULL;
		coll_write_file(c, s, kind, 0, current, sizeof(current));
		/* a native target's "dump": its large allocations as they stand now */
		if (c->allocs && (!c->jheap || ooms_jheap_runtime(c->jheap) == OOMS_RT_NATIVE)) {
			snprintf(snap, sizeof(snap), "allocs-%d.json", coll_crossings(c) + 1);
			snprintf(path, sizeof(path), "%s/%s", c->dir, snap);
			if (ooms_allocs_write(c->allocs, path, c->start_ns) == 0)
				cr.allocs = snap;
		}
		coll_emit(c, crossing_body, &cr);
		if (!c->o->json)
			printf("!! %s: %s -> %s/%s\n", ooms_rule_name(xs[i].rule), xs[i].reason, c->dir,
			       cr.file ? cr.file : current);
		c->crossings++;
	}
}

/* The limits the count rules compare against: the tightest thread limit
 * (threads-max, RLIMIT_NPROC, --thread-limit, the pids cgroup's pids.max,
 * which counts the cgroup's tasks, the target's among them) and
 * RLIMIT_NOFILE. */
static void fill_limits(struct coll *c, const struct proc_limits *lim, struct ooms_sample *smp)
{
	smp->thread_limit = c->threads_max;
	smp->thread_limit_src = "threads-max";
	if (lim->nproc_soft > 0 && lim->nproc_soft < smp->thread_limit) {
		smp->thread_limit = lim->nproc_soft;
		smp->thread_limit_src = "RLIMIT_NPROC";
	}
	if (c->o->detect.thread_ratio > 0 && c->o->thread_limit > 0 && c->o->thread_limit < smp->thread_limit) {
		smp->thread_limit = c->o->thread_limit;
		smp->thread_limit_src = "--thread-limit";
	}
	if (ooms_cgroup_find(c->pid, &c->cg) == 0 && c->cg.pids_max > 0 && c->cg.pids_max < smp->thread_limit) {
		smp->thread_limit = c->cg.pids_max;
		smp->thread_limit_src = "pids.max";
	}
	smp->fd_limit = lim->nofile_soft;
}

/* Before the first sample, the limits alone (every figure unknown), so
 * the rules checked on events can fire from the first event on: a target
 * may exhaust its fds within 50 ms of starting. */
void coll_seed_limits(struct coll *c)
{
	struct proc_limits lim;
	struct ooms_sample *smp = &c->last_smp;

	memset(smp, 0, sizeof(*smp));
	smp->rss_kb = smp->vmsize_kb = smp->vmpeak_kb = smp->vmsize_bpf_kb = -1;
	smp->threads = smp->threads_bpf = smp->fds = smp->fds_bpf = -1;
	smp->heap_used = smp->heap_committed = smp->heap_max = -1;
	smp->is_32bit = c->is_32bit;
	if (proc_read_limits(c->pid, &lim) != 0)
		return;
	fill_limits(c, &lim, smp);
	c->have_smp = 1;
}

/* Returns 1 when the target is gone. */
int coll_take_sample(struct coll *c)
{
	struct ooms_snapshot s;
	struct proc_status st;
	struct proc_limits lim;
	struct ooms_sample smp;
	struct ooms_crossing xs[RULE_MAX];
	volatile struct ooms_totals *t = coll_totals(c);
	int64_t vm_delta;
	size_t nx;

	coll_consume(c);
	if (ooms_snapshot_take(c->pid, &s) != 0 || proc_read_status(c->pid, &st) != 0 ||
	    proc_read_limits(c->pid, &lim) != 0) {
		ooms_snapshot_free(&s);
		return 1;
	}
	ooms_sym_refresh(c->sym);
	if (c->launched && c->samples == 0)
		coll_attach_libc(c); /* after exec the target may map another libc */

	memset(&smp, 0, sizeof(smp));
	smp.t = coll_since(c);
	smp.ts_ns = coll_now_ns();
	smp.rss_kb = st.rss_kb;
	smp.vmsize_kb = st.vmsize_kb;
	smp.vmpeak_kb = st.vmpeak_kb;
	vm_delta = t->vm_delta_bytes;
	smp.vmsize_bpf_kb = c->prev_vmsize_kb + (vm_delta - c->prev_vm_delta) / 1024;
	c->prev_vmsize_kb = st.vmsize_kb;
	c->prev_vm_delta = vm_delta;
	smp.threads = s.nthreads;
	smp.threads_bpf = t->threads_live;
	smp.fds = s.nfds;
	smp.fds_bpf = t->fds_live;
	fill_limits(c, &lim, &smp);
	smp.ringbuf_drops = t->ringbuf_drops + (c->jheap ? ooms_jheap_drops(c->jheap) : 0);
	smp.set_full_drops = t->set_full_drops;
	smp.events = ooms_attrib_events(c->attrib);
	smp.is_32bit = c->is_32bit;
	s.t = smp.t;
	s.thread_limit = smp.thread_limit;
	s.fd_limit = smp.fd_limit;
	smp.heap_used = smp.heap_committed = smp.heap_max = -1;
	if (c->jheap) {
		if (ooms_jheap_runtime(c->jheap) == OOMS_RT_NATIVE)
			ooms_jheap_attach(c->jheap, c->rb); /* after an exec the target may be a JVM */
		ooms_jheap_sample(c->jheap, &smp);
	}

	struct sample_rec rec = {c, &smp};

	coll_emit(c, sample_body, &rec);
	if (!c->o->json)
		coll_print_row(&smp);
	coll_check_drift(c, &s, &smp);
	if (c->jheap)
		ooms_jheap_check(c->jheap, &smp);

	nx = ooms_detect_feed(&c->det, &smp, xs, RULE_MAX);
	coll_handle_crossings(c, &s, &smp, xs, nx, "sample");
	c->last_smp = smp;
	c->have_smp = 1;
	ooms_snapshot_free(&c->last);
	c->last = s;
	c->samples++;
	c->last_sample_ns = coll_now_ns();
	return 0;
}
