#define _GNU_SOURCE
#include "collector/java/jheap_int.h"
#include "run/files.h"
#include "shim/proto.h"
#include "collector/java/unsafe_probes.h"
#include "run/timeline.h"
#include "runtime/art_oom.h"
#include "runtime/oom_text.h"
#include "util/clock.h"

/* ---- events ---- */

/* HotSpot reports its non-heap pools too: code cache and class metadata. */
static int is_heap_pool(const char *name)
{
	return strncmp(name, "CodeHeap", 8) && strcmp(name, "Code Cache") && strcmp(name, "Metaspace") &&
	       strcmp(name, "Compressed Class Space");
}

static int64_t pools_used(const struct ooms_jheap *j, int64_t *max)
{
	int64_t used = 0, m = 0;

	for (int i = 0; i < j->npools; i++) {
		if (!is_heap_pool(j->pools[i].name))
			continue;
		used += j->pools[i].used;
		if (j->pools[i].max > 0)
			m += j->pools[i].max;
	}
	if (max)
		*max = m;
	return used;
}

/* A gc record, with the pools as they stood after it. */
static void emit_gc(struct ooms_jheap *j, double t, double pause_ms, int full)
{
	struct run_pool pools[sizeof(j->pools) / sizeof(j->pools[0])];
	int64_t max;
	struct run_record r = {.type = REC_GC, .u.gc = {.t = t, .full = full, .pause_ms = pause_ms,
							 .used_after = pools_used(j, &max), .pools = pools,
							 .npools = j->npools}};

	for (int i = 0; i < j->npools; i++)
		pools[i] = (struct run_pool){j->pools[i].name, j->pools[i].used, j->pools[i].committed, j->pools[i].max};
	j->io.emit(j->io.ctx, run_record_body, &r);
}


static void check_trend(struct ooms_jheap *j, double t);
static void pool_said(struct ooms_jheap *j, double t, const struct ooms_pool_decision *d);

/* A write to stderr naming an OutOfMemoryError: its message, after
 * "OutOfMemoryError: " to the line's end. One the runtime's probes or the
 * shim reported already (the same message) is not a second error. */
static void oom_printed(struct ooms_jheap *j, double t, const struct ooms_rt_event *e)
{
	char text[OOMS_RT_MSG_LEN + 1], printed[OOMS_RT_MSG_LEN + 1], thread[OOMS_RT_NAME_LEN + 1], *msg;
	struct run_record r = {.type = REC_OOM, .u.oom = {.t = t, .bytes = RUN_NONE, .source = "stderr", .tid = e->tid,
							  .thread = thread}};

	snprintf(text, sizeof(text), "%.*s", (int)sizeof(e->msg), e->msg);
	snprintf(thread, sizeof(thread), "%.*s", (int)sizeof(e->name), e->name);
	if (!ooms_oom_text_message(text, printed, sizeof(printed)))
		return; /* prose about one, not an error printed */
	msg = printed;
	if (j->ooms && jheap_same_oom(j->oom_msg, msg))
		return;
	r.u.oom.message = msg;
	j->ooms++;
	j->ooms_printed_only++;
	j->oom_t = t;
	snprintf(j->oom_msg, sizeof(j->oom_msg), "%s", msg);
	snprintf(j->oom_thread, sizeof(j->oom_thread), "%s", thread);
	if (j->arm) { /* the shim's line about it may still be on its way */
		jheap_printed_flush(j);
		j->printed.pending = 1;
		j->printed.t = t;
		j->printed.tid = e->tid;
		snprintf(j->printed.msg, sizeof(j->printed.msg), "%s", msg);
		snprintf(j->printed.thread, sizeof(j->printed.thread), "%s", thread);
		return;
	}
	j->io.emit(j->io.ctx, run_record_body, &r);
	if (j->io.say)
		j->io.say(j->io.ctx, "!! OutOfMemoryError printed by thread %s (tid %u): %s (seen on stderr only: no probe of "
				     "the runtime's saw it thrown)", thread, e->tid, msg);
}

static int handle_rt(void *ctx, void *data, size_t size)
{
	struct ooms_jheap *j = ctx;
	const struct ooms_rt_event *e = data;
	double t = jheap_now(j);

	if (size < sizeof(*e) || e->version != OOMS_RT_VERSION || e->type == 0 || e->type >= RT_TYPE_MAX) {
		/* another build's BPF object: never acted on, counted, the first said */
		if (!j->unknown_events++)
			j->io.note(j->io.ctx, "the runtime's probes sent an event this collector does not know (type %u, version %u; "
					      "it knows types 1 to %d of version %d): dropped, and counted to the end",
				   size >= sizeof(*e) ? e->type : 0, size >= sizeof(*e) ? e->version : 0, RT_TYPE_MAX - 1,
				   OOMS_RT_VERSION);
		return 0;
	}
	j->events++;
	/* every type named (no default): a type added to jheap_events.h does not build until it is handled here */
	switch ((enum ooms_rt_type)e->type) {
	case RT_GC_BEGIN:
		j->gc_begin_ns = e->ts_ns;
		j->gc_full = j->rt.kind == OOMS_RT_HOTSPOT && e->a0;
		break;
	case RT_POOL: {
		int i;

		for (i = 0; i < j->npools && strncmp(j->pools[i].name, e->name, sizeof(e->name)); i++)
			;
		if (i == j->npools) {
			if (j->npools == MAX_POOLS)
				break;
			j->npools++;
			snprintf(j->pools[i].name, sizeof(j->pools[i].name), "%.*s", (int)sizeof(e->name), e->name);
		}
		j->pools[i].used = e->a1;
		j->pools[i].committed = e->a2;
		j->pools[i].max = e->a3;
		break;
	}
	case RT_GC_END:
		if (j->gc_begin_ns && e->ts_ns >= j->gc_begin_ns) {
			double pause_ms = (e->ts_ns - j->gc_begin_ns) / 1e6;

			struct ooms_pool_decision pd;
			int64_t max, after;

			j->gcs++;
			j->gc_pause_ms += pause_ms;
			emit_gc(j, t, pause_ms, j->gc_full);
			j->gc_begin_ns = 0;
			check_trend(j, t);
			after = pools_used(j, &max);
			if (j->npools && !j->o.no_pool_rules && ooms_gc_rule_feed(&j->gc_rule, t, pause_ms, j->gc_full, after, max, &pd))
				pool_said(j, t, &pd);
		}
		break;
	case RT_OOM_SIZE: {
		struct run_record r = {.type = REC_OOM, .u.oom = {.t = t, .bytes = e->a0, .message = "Heap::ThrowOutOfMemoryError",
								  .source = "probe", .tid = e->tid}};

		j->ooms++;
		j->oom_t = t;
		snprintf(j->oom_msg, sizeof(j->oom_msg), "an allocation of %" PRId64 " bytes failed", e->a0);
		j->io.emit(j->io.ctx, run_record_body, &r);
		if (j->io.say)
			j->io.say(j->io.ctx, "!! OutOfMemoryError thrown: an allocation of %" PRId64 " bytes failed", e->a0);
		/* ART: the shim has no hook at the throw (HotSpot's is JVMTI's), so
		 * the first OOM asks for a dump at once, within --max-dumps
		 * (unverified: no device here) */
		if (j->rt.kind == OOMS_RT_ART && !j->running && j->o.shim && j->dumps < j->o.rule.max_dumps)
			jheap_start_dump(j, "OutOfMemoryError thrown (ART)");
		break;
	}
	case RT_OOM_MSG: {
		char msg[OOMS_RT_MSG_LEN + 1], thread[OOMS_RT_NAME_LEN + 1], why[256];
		const char *hint = NULL;
		struct run_record r = {.type = REC_OOM, .u.oom = {.t = t, .bytes = RUN_NONE, .message = msg,
								  .source = "probe", .tid = e->tid, .thread = thread}};

		snprintf(msg, sizeof(msg), "%.*s", (int)sizeof(e->msg), e->msg);
		if (j->rt.kind == OOMS_RT_ART) {
			/* ART says what failed in its words: the kind, the size, fragmentation */
			struct ooms_art_oom a;

			ooms_art_oom_parse(msg, &a);
			r.u.oom.kind = a.kind;
			r.u.oom.bytes = a.bytes >= 0 ? a.bytes : RUN_NONE;
			if (ooms_art_oom_explain(&a, why, sizeof(why)))
				r.u.oom.hint = hint = why;
		} else if (!j->arm && (strstr(msg, "heap") || strstr(msg, "GC overhead"))) {
			r.u.oom.hint = hint = "no heap dump at the throw: with --shim, oomscope dumps the heap from the thread "
					"whose allocation failed, before the OutOfMemoryError is thrown";
		}
		snprintf(thread, sizeof(thread), "%.*s", (int)sizeof(e->name), e->name);
		if (!thread[0])
			r.u.oom.thread = NULL;
		j->ooms++;
		j->oom_t = t;
		snprintf(j->oom_msg, sizeof(j->oom_msg), "%s", msg);
		if (!j->oom_thread[0] || !j->arm) /* the shim's full Java name wins */
			snprintf(j->oom_thread, sizeof(j->oom_thread), "%s", thread);
		j->io.emit(j->io.ctx, run_record_body, &r);
		if (j->io.say)
			j->io.say(j->io.ctx, "!! OutOfMemoryError thrown in thread %s (tid %u): %s%s%s", thread[0] ? thread : "?",
				  e->tid, msg, hint ? "; " : "", hint ? hint : "");
		break;
	}
	case RT_OOM_PRINTED:
		oom_printed(j, t, e);
		break;
	case RT_THREAD_START:
	case RT_THREAD_STOP: {
		char name[OOMS_RT_NAME_LEN + 1];

		snprintf(name, sizeof(name), "%.*s", (int)sizeof(e->name), e->name);
		if (j->io.thread_name && e->a1 > 0)
			j->io.thread_name(j->io.ctx, (uint32_t)e->a1, e->type == RT_THREAD_START ? name : NULL);
		break;
	}
	case RT_TYPE_MAX:
		break; /* refused above */
	}
	return 0;
}

/* ---- attach ---- */

static int add_link(struct ooms_jheap *j, struct bpf_link *l, const char *what)
{
	if (!l) {
		if (j->o.verbose)
			j->io.note(j->io.ctx, "no %s probe: %s", what, strerror(errno));
		return -1;
	}
	if (j->nlinks < (int)(sizeof(j->links) / sizeof(j->links[0])))
		j->links[j->nlinks++] = l;
	else
		bpf_link__destroy(l);
	return 0;
}

/* An entry probe (and a return probe, ret) on sym of lib, when lib has it;
 * -v names the file offset (android.bats checks it against readelf's). */
static void uprobe_sym(struct ooms_jheap *j, struct bpf_program *entry, struct bpf_program *ret, const char *lib,
		       const char *sym, const char *what)
{
	uint64_t off;

	if (ooms_sym_elf_find(lib, sym, &off) != 0)
		return;
	if (j->o.verbose)
		j->io.note(j->io.ctx, "%s probe: %s at file offset 0x%" PRIx64 " of %s", what, sym, off, j->rt.lib);
	add_link(j, bpf_program__attach_uprobe(entry, false, j->pid, lib, off), what);
	if (ret)
		add_link(j, bpf_program__attach_uprobe(ret, true, j->pid, lib, off), what);
}

/* Unsafe.allocateMemory's blocks (local symbols of libjvm.so's .symtab):
 * the memory of direct buffers, counted by the kernel side, for a JVM
 * without the shim; all or none. */
static void unsafe_probes(struct ooms_jheap *j, const char *lib)
{
	struct jheap_bpf *k = j->skel;
	struct bpf_program *const progs[UNSAFE_PROBES] = {k->progs.hs_unsafe_alloc, k->progs.hs_unsafe_alloc_ret,
							  k->progs.hs_unsafe_realloc, k->progs.hs_unsafe_realloc_ret,
							  k->progs.hs_unsafe_free};
	const char *missing;
	int e = ooms_unsafe_attach(j->pid, lib, progs, j->unsafe_links, &missing);

	if (!e)
		j->nunsafe = UNSAFE_PROBES;
	else if (j->o.verbose && !missing)
		j->io.note(j->io.ctx, "no Unsafe.allocateMemory probes: %s", strerror(-e));
}

static void attach_hotspot(struct ooms_jheap *j, const char *lib)
{
	static const struct { const char *probe; int which; } usdt[] = {
		{"gc__begin", 0}, {"gc__end", 1}, {"mem__pool__gc__end", 2}, {"thread__start", 3}, {"thread__stop", 4},
	};
	struct jheap_bpf *k = j->skel;
	struct bpf_program *progs[] = {k->progs.hs_gc_begin, k->progs.hs_gc_end, k->progs.hs_pool_gc_end,
				       k->progs.hs_thread_start, k->progs.hs_thread_stop};

	for (size_t i = 0; i < sizeof(usdt) / sizeof(usdt[0]); i++)
		add_link(j, bpf_program__attach_usdt(progs[usdt[i].which], j->pid, lib, "hotspot", usdt[i].probe, NULL),
			 usdt[i].probe);
	uprobe_sym(j, k->progs.hs_oom, NULL, lib, "_Z25report_java_out_of_memoryPKc", "OOM");
	unsafe_probes(j, lib);
	uprobe_sym(j, k->progs.hs_throw_msg, NULL, lib, "_ZN10Exceptions10_throw_msgEP10JavaThreadPKciP6SymbolS3_",
		   "thread OOM");
}

static void attach_art(struct ooms_jheap *j, const char *lib)
{
	struct jheap_bpf *k = j->skel;

	uprobe_sym(j, k->progs.art_gc_run, k->progs.art_gc_run_ret, lib,
		   "_ZN3art2gc9collector16GarbageCollector3RunENS0_7GcCauseEb", "GC");
	uprobe_sym(j, k->progs.art_oom_heap, NULL, lib,
		   "_ZN3art2gc4Heap21ThrowOutOfMemoryErrorEPNS_6ThreadEmNS0_13AllocatorTypeE", "OOM");
	uprobe_sym(j, k->progs.art_oom_thread, NULL, lib, "_ZN3art6Thread21ThrowOutOfMemoryErrorEPKc", "OOM message");
}


int ooms_jheap_attach(struct ooms_jheap *j, struct ring_buffer *rb)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = j->o.btf_path);
	struct ooms_err err = {0};
	char lib[1024];
	long page = sysconf(_SC_PAGESIZE);
	int e;

	if (j->found)
		return 0;
	if (ooms_rt_detect(j->pid, j->o.runtime, &j->rt) != 0 || j->rt.kind == OOMS_RT_NATIVE) {
		j->rt.kind = OOMS_RT_NATIVE;
		return 0; /* not (yet) a Java process: `run` may exec one later */
	}
	j->found = 1;
	snprintf(lib, sizeof(lib), "/proc/%d/root%s", (int)j->pid, j->rt.lib);
	/* twice at most: a kernel whose verifier refuses the stderr watch
	 * loses it, not the runtime's probes */
	for (int with_stderr = 1;; with_stderr = 0) {
		j->skel = jheap_bpf__open_opts(&oo);
		if (!j->skel)
			return j->io.note(j->io.ctx, "opening the runtime probes: %s", strerror(errno)), -1;
		j->skel->rodata->target_tgid = j->pid;
		bpf_map__set_max_entries(j->skel->maps.rt_events,
					 (uint32_t)(page * 64 > (1 << 18) ? page * 64 : (1 << 18)));
		bpf_program__set_autoload(j->skel->progs.rt_stderr, with_stderr);
		if (!(e = jheap_bpf__load(j->skel)))
			break;
		jheap_bpf__destroy(j->skel);
		j->skel = NULL;
		if (!with_stderr) {
			j->io.note(j->io.ctx, "loading the runtime probes: %s", strerror(-e));
			return -1;
		}
		if (j->o.verbose)
			j->io.note(j->io.ctx, "the stderr watch did not load (%s): the runtime's probes only",
				strerror(-e));
	}
	if (ring_buffer__add(rb, bpf_map__fd(j->skel->maps.rt_events), handle_rt, j)) {
		j->io.note(j->io.ctx, "adding the runtime ring buffer: %s", strerror(errno));
		return -1;
	}
	if (j->rt.kind == OOMS_RT_HOTSPOT)
		attach_hotspot(j, lib);
	else
		attach_art(j, lib);
	/* the OutOfMemoryErrors the app prints, the ones Java code throws too
	 * (no syscall events on a GKI kernel: then only the runtime's own) */
	if (bpf_program__fd(j->skel->progs.rt_stderr) >= 0)
		j->printed_link = bpf_program__attach_tracepoint(j->skel->progs.rt_stderr, "syscalls", "sys_enter_write");
	if (!j->printed_link && j->o.verbose)
		j->io.note(j->io.ctx, "no OutOfMemoryError seen on stderr: %s", strerror(errno));
	if (j->io.say)
		j->io.say(j->io.ctx, "Java runtime: %s (%s), %d probe(s) attached", ooms_rt_name(j->rt.kind), j->rt.lib,
			  j->nlinks);
	if (j->io.found)
		j->io.found(j->io.ctx);
	{
		struct run_record r = {.type = REC_RUNTIME, .u.runtime = {
			.t = jheap_now(j), .runtime = ooms_rt_name(j->rt.kind), .lib = j->rt.lib, .probes = j->nlinks,
			.heap_rule = ooms_heap_rule_name(&j->o.rule), .heap_horizon_s = j->o.rule.horizon_s,
			.heap_interval_s = j->o.rule.interval_s, .max_dumps = j->o.rule.max_dumps}};

		j->io.emit(j->io.ctx, run_record_body, &r);
	}
	if (j->o.shim && j->rt.kind == OOMS_RT_HOTSPOT && !j->shim_preloaded) {
		int thawed = 0;

		if (shim_client_load_hotspot(j->pid, shim_client_library(), &thawed, &err)) {
			j->io.note(j->io.ctx, "--shim: %s", err.msg);
			return -1;
		}
		if (thawed)
			j->io.note(j->io.ctx, "--shim: the JVM was frozen (a cgroup freezer): thawed for the load, frozen again");
	}
	/* the shim dumps the heap at the first OutOfMemoryError (HotSpot: JVMTI
	 * ResourceExhausted; ART's shim has no such hook yet) */
	if (j->o.shim && j->rt.kind == OOMS_RT_HOTSPOT && j->o.rule.max_dumps > 0 && j->o.method != DUMP_JVM)
		jheap_arm_start(j);
	/* an app as it ships: oomscope puts the shim in it (runtime/art_agent.h),
	 * a step each sample: an app held at its start becomes known to the
	 * activity manager only once it runs */
	if (j->o.shim && j->rt.kind == OOMS_RT_ART && !j->shim_preloaded) {
		ooms_art_loader_init(&j->art_loader, j->pid, j->rt.lib, shim_client_library(), (int64_t)mono_ns());
		j->art_loading = 1;
	}
	return 0;
}

enum ooms_rt_kind ooms_jheap_runtime(const struct ooms_jheap *j)
{
	return j->found ? j->rt.kind : OOMS_RT_NATIVE;
}

void ooms_jheap_shim_preloaded(struct ooms_jheap *j)
{
	j->shim_preloaded = 1;
}

const char *ooms_jheap_lib(const struct ooms_jheap *j)
{
	return j->found ? j->rt.lib : "";
}

int64_t ooms_jheap_direct_limit(const struct ooms_jheap *j)
{
	return j ? j->direct_limit_seen : -1;
}

/* ---- samples and the rule ---- */

/* A frozen app thawed for the load: said once it ends. */
static void art_load_thawed(struct ooms_jheap *j)
{
	const struct ooms_art_loader *l = &j->art_loader;
	char where[400];

	if (!l->thawed)
		return;
	ooms_thaw_where(&l->thaw, where, sizeof(where));
	j->io.note(j->io.ctx, "--shim: the app was frozen (%s): thawed for the attach, %s", where,
		   l->refrozen ? "frozen again" : l->refreeze_note[0] ? l->refreeze_note : "not frozen again");
}

static void art_load_step(struct ooms_jheap *j)
{
	struct ooms_err err = {0};

	switch (ooms_art_loader_step(&j->art_loader, (int64_t)mono_ns(), &err)) {
	case ART_LOAD_DONE:
		j->art_loading = 0;
		if (j->io.say && j->art_loader.tries)
			j->io.say(j->io.ctx, "--shim: in the app (%s), attached with `cmd activity attach-agent`; JVMTI %s",
				  j->art_loader.in.path,
				  !strcmp(j->art_loader.jvmti, "art") ? "kArtTiVersion (1.2 refused: the app is not debuggable)"
								       : "1.2");
		art_load_thawed(j);
		break;
	case ART_LOAD_FAILED:
		j->art_loading = 0;
		j->io.note(j->io.ctx, "--shim: %s; dumps use `am dumpheap`", err.msg);
		art_load_thawed(j);
		break;
	default:
		break;
	}
}

void ooms_jheap_sample(struct ooms_jheap *j, struct ooms_sample *s)
{
	struct hsperf_heap h;
	ssize_t n;

	s->heap_used = s->heap_committed = s->heap_max = -1;
	s->heap_src = NULL;
	s->gcs = j->gcs;
	s->gc_pause_ms = j->gc_pause_ms;
	if (!j->found)
		return;
	if (j->art_loading)
		art_load_step(j);
	if (j->rt.kind == OOMS_RT_HOTSPOT && (n = hsperf_read(j->pid, j->perf, sizeof(j->perf))) > 0 &&
	    hsperf_heap_from(j->perf, (size_t)n, &h) == 0) {
		s->heap_used = h.used;
		s->heap_committed = h.committed;
		s->heap_max = h.max;
		s->heap_src = "hsperfdata";
		s->metaspace = (struct ooms_pool){h.meta_used, h.meta_committed, h.meta_limit};
		s->class_space = (struct ooms_pool){h.class_used, h.class_committed, h.class_max};
		if (!j->nlinks) { /* no USDT: the counters' GC figures */
			s->gcs = (uint64_t)h.gc_count;
			s->gc_pause_ms = (double)h.gc_time_ms;
		}
		/* direct buffer memory: the shim reads it (java.nio.Bits) and sends it;
		 * without it, Unsafe.allocateMemory's blocks counted since the probes
		 * went in, against -XX:MaxDirectMemorySize (by default the heap's max) */
		if (j->direct_used >= 0)
			s->direct = (struct ooms_pool){j->direct_used, j->direct_used, j->direct_max};
		else if (j->nunsafe)
			s->direct = (struct ooms_pool){j->skel->bss->rt_totals.unsafe_bytes, j->skel->bss->rt_totals.unsafe_bytes,
						       h.direct_limit > 0 ? h.direct_limit : h.max};
		if (j->direct_used >= 0 || j->nunsafe)
			j->direct_limit_seen = s->direct.max;
	} else if (shim_client_heap(j->pid, &s->heap_used, &s->heap_committed, &s->heap_max, 500) == 0) {
		s->heap_src = "shim";
	} else if (j->npools) {
		s->heap_used = pools_used(j, &s->heap_max);
		s->heap_src = "usdt";
	}
}

/* The rule said something: its crossing record and line, and the dump. */
static void rule_said(struct ooms_jheap *j, double t, enum ooms_heap_verdict v, const struct ooms_heap_decision *d,
		      int64_t used, int64_t max)
{
	struct run_record r = {.type = REC_CROSSING, .u.crossing = {
		.t = t, .rule = d->rule, .value = used, .limit = (int64_t)(d->threshold * (double)max),
		.reason = d->reason}};
	char name[64];

	if (v == HEAP_QUIET)
		return;
	if (v == HEAP_DUMP) {
		run_name_dump(name, sizeof(name), j->seq + 1, jheap_ext(j));
		r.u.crossing.wrote = name;
	}
	j->io.emit(j->io.ctx, run_record_body, &r);
	j->crossings++;
	if (j->io.say)
		j->io.say(j->io.ctx, "!! %s: %s", d->rule, d->reason);
	if (v == HEAP_DUMP)
		jheap_start_dump(j, d->reason);
}

/* A pool rule or GC distress said to dump: its crossing and line, and the
 * dump, within the heap rule's limits (the dumps count against them). */
static void pool_said(struct ooms_jheap *j, double t, const struct ooms_pool_decision *d)
{
	struct run_record r = {.type = REC_CROSSING, .u.crossing = {
		.t = t, .rule = d->rule, .value = d->value, .limit = d->limit, .reason = d->reason}};
	int can = !ooms_jheap_busy(j) && j->rule.dumps < j->rule.cfg.max_dumps &&
		  (!j->rule.dumps || t - j->rule.last_dump_t >= j->rule.cfg.cooldown_s);
	char name[64];

	char sites[64];

	if (can) {
		run_name_dump(name, sizeof(name), j->seq + 1, jheap_ext(j));
		r.u.crossing.wrote = name;
	}
	if (j->io.say)
		j->io.say(j->io.ctx, "!! %s: %s%s", d->rule, d->reason, can ? "" : " (no dump: one is running, or the limit)");
	/* direct memory: who holds it, as it stands now (the dump comes later) */
	if (!strncmp(d->rule, "direct", 6) && j->io.pool_snapshot &&
	    j->io.pool_snapshot(j->io.ctx, d->rule, d->limit, sites, sizeof(sites)) == 0)
		r.u.crossing.sites = sites;
	j->io.emit(j->io.ctx, run_record_body, &r);
	j->crossings++;
	if (can) {
		j->rule.dumps++;
		j->rule.last_dump_t = t;
		j->ran_out = !strncmp(d->rule, "direct", 6)	 ? OOMS_RAN_OUT_DIRECT
			     : strncmp(d->rule, "gc_", 3) ? OOMS_RAN_OUT_METASPACE
							  : OOMS_RAN_OUT_HEAP;
		jheap_start_dump(j, d->reason);
		j->ran_out = OOMS_RAN_OUT_HEAP;
	}
}

/* The pools' rules, every sample. */
static void check_pools(struct ooms_jheap *j, const struct ooms_sample *s)
{
	struct ooms_pool_decision d;

	const struct ooms_pool *p[] = {&s->metaspace, &s->class_space, &s->direct};
	struct ooms_pool_rule *r[] = {&j->meta_rule, &j->class_rule, &j->direct_rule};

	/* the limits count what is committed (class metadata) or reserved (direct) */
	for (int i = 0; i < 3; i++)
		if (ooms_pool_rule_feed(r[i], s->t, p[i]->committed >= 0 ? p[i]->committed : p[i]->used, p[i]->max, &d))
			pool_said(j, s->t, &d);
}

void ooms_jheap_check(struct ooms_jheap *j, const struct ooms_sample *s)
{
	struct ooms_heap_poll p = {s->t, s->heap_used, s->heap_max, 0};
	struct ooms_heap_decision d;

	if (j->found && !j->o.no_pool_rules)
		check_pools(j, s);
	if (!j->found || s->heap_max <= 0 || s->t - j->last_poll_t < j->o.rule.interval_s - 1e-6)
		return;
	j->last_poll_t = s->t;
	p.busy = ooms_jheap_busy(j);
	rule_said(j, s->t, ooms_heap_rule_feed(&j->rule, &p, &d), &d, s->heap_used, s->heap_max);
}

/* After each GC, the trend of the live set (heap_rule.h): the horizon is at
 * least three times the last dump's duration, so a dump asked for now is
 * done before the heap runs out. */
static void check_trend(struct ooms_jheap *j, double t)
{
	struct ooms_heap_decision d;
	int64_t max = -1, live = -1, committed;
	double horizon = j->o.rule.horizon_s;

	if (j->npools) {
		live = pools_used(j, &max);
	} else if (j->rt.kind == OOMS_RT_ART && j->o.shim && !j->art_loading) {
		/* ART's heap after the GC, as the shim reads it (Runtime's figures,
		 * asked at once: what the app allocated since is little). Its
		 * probes see GarbageCollector::Run; the heap's fields are not
		 * where BPF could read them */
		if (shim_client_heap(j->pid, &live, &committed, &max, 100) != 0)
			return;
	}
	if (live < 0 || max <= 0)
		return;
	if (j->res.ok && 3 * j->res.dump_ms / 1000 > horizon)
		horizon = 3 * j->res.dump_ms / 1000;
	rule_said(j, t, ooms_heap_rule_gc(&j->rule, t, live, max, horizon, ooms_jheap_busy(j), &d), &d, live, max);
}

int ooms_jheap_last_oom(const struct ooms_jheap *j, double *t, const char **msg, const char **thread,
			const char **dump)
{
	*t = j->oom_t;
	*msg = j->oom_msg;
	*thread = j->oom_thread;
	*dump = j->oom_dump[0] ? j->oom_dump : NULL;
	return j->ooms;
}

int ooms_jheap_dumps(const struct ooms_jheap *j)
{
	return j->dumps;
}

int ooms_jheap_crossings(const struct ooms_jheap *j)
{
	return j->crossings;
}

int ooms_jheap_busy(const struct ooms_jheap *j)
{
	return j->running || (j->arm && ooms_oomdump_writing(j->arm));
}

uint64_t ooms_jheap_drops(const struct ooms_jheap *j)
{
	return j->skel && j->skel->bss ? j->skel->bss->rt_totals.ringbuf_drops : 0;
}

int64_t ooms_jheap_unsafe_untracked(const struct ooms_jheap *j)
{
	return j->nunsafe && j->skel && j->skel->bss ? (int64_t)j->skel->bss->rt_totals.unsafe_untracked : -1;
}

uint64_t ooms_jheap_events(const struct ooms_jheap *j)
{
	return j->events;
}

uint64_t ooms_jheap_unknown_events(const struct ooms_jheap *j)
{
	return j->unknown_events;
}

struct ooms_jheap *ooms_jheap_new(pid_t pid, const struct ooms_jheap_opts *o, const char *dir,
				  const struct ooms_jheap_io *io)
{
	struct ooms_jheap *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->pid = pid;
	j->o = *o;
	j->io = *io;
	snprintf(j->dir, sizeof(j->dir), "%s", dir);
	ooms_heap_rule_init(&j->rule, &o->rule);
	ooms_pool_rule_init(&j->meta_rule, "metaspace", "Metaspace");
	ooms_pool_rule_init(&j->class_rule, "class_space", "Compressed class space");
	ooms_pool_rule_init(&j->direct_rule, "direct", "Direct buffer memory");
	ooms_gc_rule_init(&j->gc_rule);
	j->direct_used = j->direct_max = j->direct_limit_seen = -1;
	j->last_poll_t = -1e9;
	j->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (j->efd < 0) {
		free(j);
		return NULL;
	}
	return j;
}

void ooms_jheap_free(struct ooms_jheap *j)
{
	if (!j)
		return;
	if (j->arm) {
		ooms_oomdump_stop(j->arm, 0);
		ooms_oomdump_free(j->arm);
	}
	if (j->running) /* the thread still uses j: leave it (the process is ending) */
		return;
	for (int i = 0; i < j->nlinks; i++)
		bpf_link__destroy(j->links[i]);
	bpf_link__destroy(j->printed_link);
	for (int i = 0; i < j->nunsafe; i++)
		bpf_link__destroy(j->unsafe_links[i]);
	jheap_bpf__destroy(j->skel);
	close(j->efd);
	free(j);
}

void ooms_jheap_note_direct(struct ooms_jheap *j, int64_t used, int64_t max)
{
	j->direct_used = used;
	j->direct_max = max;
}
