/* A sample every interval: /proc and the kernel side's totals, the limits,
 * the detectors; the crossings they find go to coll_crossings.c. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "run/records.h"
#include "run/timeline.h"

/* The sample record: the figures of /proc and of the kernel side. */
static struct run_pool_fig pool_fig(const struct ooms_pool *p)
{
	return (struct run_pool_fig){p->used >= 0 ? p->used : RUN_NONE, p->committed >= 0 ? p->committed : RUN_NONE,
				     p->max > 0 ? p->max : RUN_NONE};
}

static void emit_sample(struct coll *c, const struct ooms_sample *s)
{
	volatile struct ooms_totals *t = coll_k_totals(&c->k);
	struct run_record r = {.type = REC_SAMPLE, .u.sample = {
		.t = s->t, .rss_kb = s->rss_kb, .vmpeak_kb = s->vmpeak_kb,
		.vmsize_bpf_kb = s->vmsize_bpf_kb, .threads_bpf = s->threads_bpf,
		.fds_bpf = s->fds_bpf, .ringbuf_drops = s->ringbuf_drops,
		.set_full_drops = s->set_full_drops, .events = s->events, .heap_src = s->heap_src,
		.heap_used = s->heap_used, .heap_committed = s->heap_committed, .heap_max = s->heap_max,
		.heap_limit = RUN_NONE, .gcs = s->gcs, .gc_pause_ms = s->gc_pause_ms,
		.metaspace = pool_fig(&s->metaspace),
		.class_space = pool_fig(&s->class_space),
		.direct = pool_fig(&s->direct),
		.syscalls = {t->fd_opens, t->fd_closes, t->thread_news, t->thread_exits, t->mmaps, t->munmaps,
			     t->mremaps, t->brks},
	}};

	memcpy(r.u.sample.res, s->res, sizeof(s->res));
	run_memfig_from(&r.u.sample.mem, &s->mem);
	if (s->heap_src && s->heap_max > 0) /* where the heap rule's ratio lies, in bytes */
		r.u.sample.heap_limit =
			(int64_t)(ooms_heap_rule_threshold(&c->o->java.rule, s->heap_max) * (double)s->heap_max);
	r.u.sample.has_gc = c->jheap && ooms_jheap_runtime(c->jheap) != OOMS_RT_NATIVE;
	coll_emit(c, run_record_body, &r);
}

/* Before the first sample, the limits alone (every figure unknown), so
 * the rules checked on events can fire from the first event on: a target
 * may exhaust its fds within 50 ms of starting. */
void coll_seed_limits(struct coll *c)
{
	struct proc_limits lim;
	struct ooms_sample *smp = &c->last_smp;
	struct ooms_snapshot none;

	memset(smp, 0, sizeof(*smp));
	memset(&none, 0, sizeof(none));
	smp->rss_kb = smp->vmpeak_kb = smp->vmsize_bpf_kb = -1;
	smp->threads_bpf = smp->fds_bpf = -1;
	smp->heap_used = smp->heap_committed = smp->heap_max = -1;
	smp->metaspace = smp->class_space = smp->direct = (struct ooms_pool){-1, -1, -1};
	smp->is_32bit = c->is_32bit;
	coll_memory_figures(&c->mem, NULL, 0, &smp->mem);
	if (proc_read_limits(c->pid, &lim) != 0)
		return;
	coll_count_resources(c, &none, NULL, &lim, 0, -1, smp); /* the limits, every figure unknown */
	c->have_smp = 1;
}

/* Whether this sample reads /proc's lists whole: the first, one asked for,
 * one whose counts differ from the kernel side's (drift is repaired from
 * the lists), and otherwise at most every 20x what the last reading cost
 * (30,000 threads and 500,000 fds take seconds to list with their names
 * and targets; the counts alone come from /proc/PID/status and
 * proc_fd_count). Small targets are read whole every sample. */
static int want_full(struct coll *c, const struct proc_status *st, int64_t *fds)
{
	volatile struct ooms_totals *t = coll_k_totals(&c->k);
	uint64_t now = coll_now_ns();

	*fds = -1;
	if (c->force_full || !c->samples || !c->last_full_ns ||
	    now - c->last_full_ns >= 20 * c->snap_cost_ns || st->threads < 0)
		return 1;
	*fds = proc_fd_count(c->pid);
	return *fds < 0 || *fds != t->fds_live || st->threads != t->threads_live;
}

/* Reads /proc's lists whole into s (which it replaces; kept when the
 * target is gone); 0, or 1 when the target is gone. */
static int read_full(struct coll *c, struct ooms_snapshot *s)
{
	uint64_t t0 = coll_now_ns();
	struct ooms_snapshot fresh;

	if (ooms_snapshot_take(c->pid, &fresh) != 0 || !coll_target_ours(c)) {
		ooms_snapshot_free(&fresh); /* gone, or what was read is a newcomer's with its PID */
		return 1;
	}
	if (!fresh.nmaps && fresh.vmsize_kb < 0) {
		/* its memory already let go: it is exiting, and the reading before
		 * (with its mappings) is the one its end is written from */
		ooms_snapshot_free(&fresh);
		return 1;
	}
	ooms_snapshot_free(s);
	*s = fresh;
	c->snap_cost_ns = coll_now_ns() - t0;
	c->last_full_ns = coll_now_ns();
	return 0;
}

/* The maps read again for symbols, where they may have changed: at the
 * first sample, and when the target has called mmap, munmap or mremap (or
 * an event was lost) since the last reading. New code is read at once
 * besides (EV_CODE_MAP, exec included). An Android app has thousands of
 * mappings, and reading them takes the target's mmap lock. Returns 1
 * when they were read (or tried). */
static int refresh_symbols(struct coll *c)
{
	volatile struct ooms_totals *t = coll_k_totals(&c->k);
	uint64_t calls = t->mmaps + t->munmaps + t->mremaps + t->ringbuf_drops;

	if (c->samples && calls == c->maps_calls_seen)
		return 0;
	if (ooms_sym_refresh(c->sym) == 0)
		c->maps_calls_seen = calls;
	return 1;
}

/* Returns 1 when the target is gone. */
int coll_take_sample(struct coll *c)
{
	struct ooms_snapshot s;
	struct proc_status st;
	struct proc_limits lim;
	struct ooms_sample smp;
	struct ooms_crossing xs[RULE_MAX];
	volatile struct ooms_totals *t = coll_k_totals(&c->k);
	int64_t vm_delta, fds = -1;
	int full, maps_moved;
	size_t nx;

	coll_java_try(&c->java);
	coll_direct_try(&c->java);
	coll_children_reap(&c->tree);
	coll_consume(c);
	/* the OOM killer has chosen it: what /proc shows from now on is its
	 * teardown (the reaper frees its memory, its maps go), not its state;
	 * the last lists and figures stand until its end is seen */
	if (coll_k_oom_ns(&c->k))
		return !proc_alive(c->pid);
	memset(&s, 0, sizeof(s));
	if (proc_read_status(c->pid, &st) != 0 || proc_read_limits(c->pid, &lim) != 0 || !coll_target_ours(c))
		return 1; /* gone, or what was read is a newcomer's with its PID */
	full = want_full(c, &st, &fds);
	if (full) {
		if (read_full(c, &s))
			return 1;
	} else {
		/* the last lists stand (kept in c->last); the counts are /proc's now */
		s = c->last;
		memset(&c->last, 0, sizeof(c->last));
		s.vmsize_kb = st.vmsize_kb;
		s.vmpeak_kb = st.vmpeak_kb;
	}
	c->force_full = 0;
	maps_moved = refresh_symbols(c);
	coll_faults_flush(c); /* the faults in mappings new to the last reading */
	if (c->launched && c->samples == 0)
		coll_k_attach_libc(&c->k); /* after exec the target may map another libc */

	memset(&smp, 0, sizeof(smp));
	smp.t = coll_since(c);
	smp.ts_ns = coll_now_ns();
	smp.rss_kb = st.rss_kb;
	smp.vmpeak_kb = st.vmpeak_kb;
	vm_delta = t->vm_delta_bytes;
	smp.vmsize_bpf_kb = c->prev_vmsize_kb + (vm_delta - c->prev_vm_delta) / 1024;
	c->prev_vmsize_kb = st.vmsize_kb;
	c->prev_vm_delta = vm_delta;
	smp.threads_bpf = t->threads_live;
	smp.fds_bpf = t->fds_live;
	if (c->cg.mem_dir[0])
		snprintf(c->mem.cg_procs, sizeof(c->mem.cg_procs), "%s/cgroup.procs", c->cg.mem_dir);
	coll_memory_figures(&c->mem, &st, smp.t, &smp.mem);
	coll_count_resources(c, &s, &st, &lim, full, fds, &smp);
	smp.ringbuf_drops = t->ringbuf_drops + (c->jheap ? ooms_jheap_drops(c->jheap) : 0);
	smp.set_full_drops = t->set_full_drops;
	smp.events = ooms_attrib_events(c->attrib);
	smp.is_32bit = c->is_32bit;
	smp.heap_used = smp.heap_committed = smp.heap_max = -1;
	smp.metaspace = smp.class_space = smp.direct = (struct ooms_pool){-1, -1, -1};
	if (c->jheap) {
		/* after an exec the target may be a JVM (its libjvm.so mapped) */
		if (ooms_jheap_runtime(c->jheap) == OOMS_RT_NATIVE && maps_moved)
			ooms_jheap_attach(c->jheap, coll_k_ring(&c->k));
		ooms_jheap_sample(c->jheap, &smp);
	}

	emit_sample(c, &smp);
	if (!c->o->json) {
		coll_print_row(&smp);
		coll_children_rows(&c->tree);
	}
	if (full)
		coll_check_drift(c, &s, &smp);
	else /* the counts agreed a moment ago */
		c->drift_fds = c->drift_threads = 0;
	if (c->jheap)
		ooms_jheap_check(c->jheap, &smp);

	nx = ooms_detect_feed(&c->det, &smp, xs, RULE_MAX);
	/* a crossing's files are written from lists read now */
	if (nx && !full) {
		if (read_full(c, &s)) {
			ooms_snapshot_free(&c->last);
			c->last = s; /* the target is gone: the lists it had stand */
			return 1;
		}
		full = 1;
	}
	s.t = smp.t;
	s.thread_limit = smp.res[RES_THREADS].limit;
	s.fd_limit = smp.res[RES_FDS].limit;
	coll_handle_crossings(c, &s, &smp, xs, nx, "sample");
	c->last_smp = smp;
	c->have_smp = 1;
	ooms_snapshot_free(&c->last);
	c->last = s;
	c->last_full = full;
	if (!c->samples)
		coll_fault_unknown(c);
	c->samples++;
	c->last_sample_ns = coll_now_ns();
	return 0;
}
