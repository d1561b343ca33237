/* Each timeline record's writer beside its reader: a key named in one is
 * named, a few lines away, in the other. */
#include "run/timeline.h"
#include "util/json.h"
#include "util/jsonread.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void head(struct json *j, enum run_rec type, double t)
{
	json_obj(j);
	json_kstr(j, "type", run_rec_name(type));
	json_kdbl(j, "t", t);
}

/* ---- start ---- */

static void write_settings(struct json *j, const struct run_settings *s)
{
	const struct ooms_res_rules *th = &s->res[RES_THREADS], *fd = &s->res[RES_FDS];

	json_key(j, "settings");
	json_obj(j);
	/* the first three resources' keys as runs before the table wrote them */
	json_kint(j, "thread_count", th->count_limit);
	json_kint(j, "thread_gap", th->count_gap);
	json_kint(j, "thread_polls", th->count_polls);
	json_kint(j, "fd_count", fd->count_limit);
	json_kint(j, "fd_gap", fd->count_gap);
	json_kint(j, "fd_polls", fd->count_polls);
	json_kdbl(j, "fd_ratio", fd->ratio);
	json_kdbl(j, "thread_ratio", th->ratio);
	json_kint(j, "vmsize_limit_kb", s->res[RES_VMSIZE].count_limit);
	json_kbool(j, "vmsize_64bit", s->vmsize_64bit);
	/* every resource's, by its name */
	json_key(j, "rules");
	json_obj(j);
	for (int r = 0; r < RES_MAX; r++) {
		const struct ooms_res_rules *rr = &s->res[r];

		json_key(j, ooms_resources[r].name);
		json_obj(j);
		json_kint(j, "count", rr->count_limit);
		json_kint(j, "gap", rr->count_gap);
		json_kint(j, "polls", rr->count_polls);
		json_kdbl(j, "ratio", rr->ratio);
		json_kdbl(j, "trend_s", rr->trend_s);
		json_obj_end(j);
	}
	json_obj_end(j);
	json_kuint(j, "big_alloc_bytes", s->big_alloc_bytes);
	json_kstr(j, "big_alloc_mode", s->big_alloc_mode);
	json_kstr(j, "heap_rule", s->heap_rule);
	json_kdbl(j, "heap_ratio", s->heap_ratio);
	json_kint(j, "heap_polls", s->heap_polls);
	json_kdbl(j, "heap_interval_s", s->heap_interval_s);
	json_kint(j, "max_dumps", s->max_dumps);
	json_kbool(j, "shim", s->shim);
	json_obj_end(j);
}

static void read_settings(struct json_object *o, struct run_settings *s)
{
	struct json_object *rules = jr_get(o, "rules");

	memset(s->res, 0, sizeof(s->res));
	if (rules && json_object_is_type(rules, json_type_object)) {
		for (int r = 0; r < RES_MAX; r++) {
			struct json_object *x = jr_get(rules, ooms_resources[r].name);
			struct ooms_res_rules *rr = &s->res[r];

			if (!x || !json_object_is_type(x, json_type_object))
				continue;
			rr->count_limit = jr_int64(x, "count", 0);
			rr->count_gap = jr_int64(x, "gap", 0);
			rr->count_polls = (int)jr_int64(x, "polls", 0);
			rr->ratio = jr_num(x, "ratio", 0);
			rr->trend_s = jr_num(x, "trend_s", 0);
		}
	} else { /* a run from before the table: its three resources' keys */
		struct ooms_res_rules *th = &s->res[RES_THREADS], *fd = &s->res[RES_FDS];

		th->count_limit = jr_int64(o, "thread_count", 0);
		th->count_gap = jr_int64(o, "thread_gap", 0);
		th->count_polls = (int)jr_int64(o, "thread_polls", 0);
		th->ratio = jr_num(o, "thread_ratio", 0);
		fd->count_limit = jr_int64(o, "fd_count", 0);
		fd->count_gap = jr_int64(o, "fd_gap", 0);
		fd->count_polls = (int)jr_int64(o, "fd_polls", 0);
		fd->ratio = jr_num(o, "fd_ratio", 0);
		s->res[RES_VMSIZE].count_limit = jr_int64(o, "vmsize_limit_kb", 0);
	}
	s->vmsize_64bit = jr_bool(o, "vmsize_64bit");
	s->big_alloc_bytes = jr_uint64(o, "big_alloc_bytes", 0);
	s->big_alloc_mode = jr_str(o, "big_alloc_mode");
	s->heap_rule = jr_str(o, "heap_rule");
	s->heap_ratio = jr_num(o, "heap_ratio", NAN);
	s->heap_polls = jr_int64(o, "heap_polls", RUN_NONE);
	s->heap_interval_s = jr_num(o, "heap_interval_s", NAN);
	s->max_dumps = jr_int64(o, "max_dumps", RUN_NONE);
	s->shim = jr_bool(o, "shim");
}

static void write_start(struct json *j, const struct run_start *r)
{
	head(j, REC_START, r->t);
	json_kstr(j, "run_id", r->run_id);
	json_kstr(j, "host", r->host);
	json_key(j, "labels");
	json_obj(j);
	for (size_t i = 0; i < r->nlabels && i < RUN_MAX_LABELS; i++)
		json_kstr(j, r->label_key[i], r->label_value[i]);
	json_obj_end(j);
	json_kint(j, "pid", r->pid);
	json_kstr(j, "command", r->command);
	json_kstr(j, "mode", r->mode);
	json_kstr(j, "kernel", r->kernel);
	json_kstr(j, "arch", r->arch);
	json_kbool(j, "target_32bit", r->target_32bit);
	json_kdbl(j, "interval_s", r->interval_s);
	json_kdbl(j, "duration_s", r->duration_s);
	json_kstr(j, "libc", r->libc);
	json_kint(j, "page_size", r->page_size);
	json_kuint(j, "ringbuf_bytes", r->ringbuf_bytes);
	json_kstr(j, "syscall_hook", r->syscall_hook);
	/* where each figure of a sample comes from */
	json_key(j, "sources");
	json_obj(j);
	json_kstr(j, "threads", "/proc/PID/task; threads_bpf: sched_process_fork/exit");
	{
		char fds[160];

		snprintf(fds, sizeof(fds), "/proc/PID/fd; fds_bpf: the followed syscalls' results (%s)",
			 r->syscall_hook ? r->syscall_hook : "?");
		json_kstr(j, "fds", fds);
	}
	json_kstr(j, "vmsize_kb", "/proc/PID/status VmSize");
	json_kstr(j, "vmsize_bpf_kb", "previous VmSize + mmap/munmap/mremap/brk since");
	json_kstr(j, "fd_limit", "/proc/PID/limits Max open files (soft)");
	json_kstr(j, "thread_limit", "min(threads-max, RLIMIT_NPROC soft, --thread-limit)");
	json_obj_end(j);
	json_kstr(j, "wall_time", r->wall_time);
	write_settings(j, &r->settings);
	json_obj_end(j);
}

static void read_start(struct json_object *o, struct run_start *r)
{
	struct json_object *s = jr_get(o, "settings"), *labels = jr_get(o, "labels");

	r->run_id = jr_str(o, "run_id");
	r->host = jr_str(o, "host");
	r->nlabels = 0;
	if (labels && json_object_is_type(labels, json_type_object)) {
		json_object_object_foreach(labels, key, val)
		{
			if (r->nlabels < RUN_MAX_LABELS && json_object_is_type(val, json_type_string)) {
				r->label_key[r->nlabels] = key;
				r->label_value[r->nlabels++] = json_object_get_string(val);
			}
		}
	}
	r->pid = jr_int64(o, "pid", RUN_NONE);
	r->command = jr_str(o, "command");
	r->mode = jr_str(o, "mode");
	r->kernel = jr_str(o, "kernel");
	r->arch = jr_str(o, "arch");
	r->target_32bit = jr_bool(o, "target_32bit");
	r->interval_s = jr_num(o, "interval_s", NAN);
	r->duration_s = jr_num(o, "duration_s", NAN);
	r->libc = jr_str(o, "libc");
	r->page_size = jr_int64(o, "page_size", RUN_NONE);
	r->ringbuf_bytes = jr_uint64(o, "ringbuf_bytes", 0);
	r->syscall_hook = jr_str(o, "syscall_hook");
	r->wall_time = jr_str(o, "wall_time");
	if (s && json_object_is_type(s, json_type_object))
		read_settings(s, &r->settings);
	else
		read_settings(o, &r->settings); /* nothing there: every setting absent */
}

void run_settings_each(struct json_object *start, void (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
	struct json_object *s = jr_get(start, "settings");

	if (!s || !json_object_is_type(s, json_type_object))
		return;
	json_object_object_foreach(s, key, val)
		fn(ctx, key, json_object_is_type(val, json_type_null) ? "-" : json_object_get_string(val));
}

/* ---- sample ---- */

static void write_sample(struct json *j, const struct run_sample *s)
{
	const struct run_syscalls *n = &s->syscalls;

	head(j, REC_SAMPLE, s->t);
	json_kint(j, "rss_kb", s->rss_kb);
	json_kint(j, "vmpeak_kb", s->vmpeak_kb);
	json_kint(j, "vmsize_bpf_kb", s->vmsize_bpf_kb);
	json_kint(j, "threads_bpf", s->threads_bpf);
	json_kint(j, "fds_bpf", s->fds_bpf);
	/* the watched resources: each figure and its limit under the row's keys */
	for (int r = 0; r < RES_MAX; r++) {
		const struct ooms_resource *res = &ooms_resources[r];
		const struct ooms_res_fig *f = &s->res[r];
		char src[64];

		json_kint(j, res->name, f->value);
		json_kint(j, res->limit_key, f->limit);
		snprintf(src, sizeof(src), "%s_src", res->limit_key);
		if (f->limit_src)
			json_kstr(j, src, f->limit_src);
	}
	json_kuint(j, "ringbuf_drops", s->ringbuf_drops);
	json_kuint(j, "set_full_drops", s->set_full_drops);
	json_kuint(j, "events", s->events);
	if (s->heap_src) {
		json_kint(j, "heap_used", s->heap_used);
		json_kint(j, "heap_committed", s->heap_committed);
		json_kint(j, "heap_max", s->heap_max);
		json_kstr(j, "heap_src", s->heap_src);
		if (s->heap_limit != RUN_NONE)
			json_kint(j, "heap_limit", s->heap_limit);
	}
	if (s->has_gc) {
		json_kuint(j, "gcs", s->gcs);
		json_kdbl(j, "gc_pause_ms", s->gc_pause_ms);
	}
	if (s->metaspace.used != RUN_NONE || s->class_space.used != RUN_NONE || s->direct.used != RUN_NONE) {
		const struct run_pool_fig *f[] = {&s->metaspace, &s->class_space, &s->direct};
		static const char *const names[] = {"metaspace", "class_space", "direct"};

		json_key(j, "java_pools");
		json_obj(j);
		for (int i = 0; i < 3; i++) {
			if (f[i]->used == RUN_NONE)
				continue;
			json_key(j, names[i]);
			json_obj(j);
			json_kint(j, "used", f[i]->used);
			if (f[i]->committed != RUN_NONE)
				json_kint(j, "committed", f[i]->committed);
			if (f[i]->max != RUN_NONE)
				json_kint(j, "max", f[i]->max);
			json_obj_end(j);
		}
		json_obj_end(j);
	}
	json_key(j, "syscalls");
	json_obj(j);
	json_kuint(j, "fd_opens", n->fd_opens);
	json_kuint(j, "fd_closes", n->fd_closes);
	json_kuint(j, "thread_news", n->thread_news);
	json_kuint(j, "thread_exits", n->thread_exits);
	json_kuint(j, "mmaps", n->mmaps);
	json_kuint(j, "munmaps", n->munmaps);
	json_kuint(j, "mremaps", n->mremaps);
	json_kuint(j, "brks", n->brks);
	json_obj_end(j);
	json_obj_end(j);
}

static void read_sample(struct json_object *o, struct run_sample *s)
{
	struct json_object *n = jr_get(o, "syscalls");

	s->rss_kb = jr_int64(o, "rss_kb", RUN_NONE);
	s->vmpeak_kb = jr_int64(o, "vmpeak_kb", RUN_NONE);
	s->vmsize_bpf_kb = jr_int64(o, "vmsize_bpf_kb", RUN_NONE);
	s->threads_bpf = jr_int64(o, "threads_bpf", RUN_NONE);
	s->fds_bpf = jr_int64(o, "fds_bpf", RUN_NONE);
	for (int r = 0; r < RES_MAX; r++) {
		const struct ooms_resource *res = &ooms_resources[r];
		char src[64];

		snprintf(src, sizeof(src), "%s_src", res->limit_key);
		s->res[r].value = jr_int64(o, res->name, RUN_NONE);
		s->res[r].limit = jr_int64(o, res->limit_key, RUN_NONE);
		s->res[r].limit_src = jr_str(o, src);
	}
	s->ringbuf_drops = jr_uint64(o, "ringbuf_drops", 0);
	s->set_full_drops = jr_uint64(o, "set_full_drops", 0);
	s->events = jr_uint64(o, "events", 0);
	s->heap_src = jr_str(o, "heap_src");
	s->heap_used = jr_int64(o, "heap_used", RUN_NONE);
	s->heap_committed = jr_int64(o, "heap_committed", RUN_NONE);
	s->heap_max = jr_int64(o, "heap_max", RUN_NONE);
	s->heap_limit = jr_int64(o, "heap_limit", RUN_NONE);
	s->has_gc = jr_is_num(jr_get(o, "gcs"));
	s->gcs = jr_uint64(o, "gcs", 0);
	s->gc_pause_ms = jr_num(o, "gc_pause_ms", NAN);
	{
		struct json_object *jp = jr_get(o, "java_pools");
		struct run_pool_fig *f[] = {&s->metaspace, &s->class_space, &s->direct};
		static const char *const names[] = {"metaspace", "class_space", "direct"};

		for (int i = 0; i < 3; i++) {
			struct json_object *p = jp && json_object_is_type(jp, json_type_object) ? jr_get(jp, names[i]) : NULL;

			f[i]->used = f[i]->committed = f[i]->max = RUN_NONE;
			if (p && json_object_is_type(p, json_type_object)) {
				f[i]->used = jr_int64(p, "used", RUN_NONE);
				f[i]->committed = jr_int64(p, "committed", RUN_NONE);
				f[i]->max = jr_int64(p, "max", RUN_NONE);
			}
		}
	}
	if (n && json_object_is_type(n, json_type_object)) {
		s->syscalls.fd_opens = jr_uint64(n, "fd_opens", 0);
		s->syscalls.fd_closes = jr_uint64(n, "fd_closes", 0);
		s->syscalls.thread_news = jr_uint64(n, "thread_news", 0);
		s->syscalls.thread_exits = jr_uint64(n, "thread_exits", 0);
		s->syscalls.mmaps = jr_uint64(n, "mmaps", 0);
		s->syscalls.munmaps = jr_uint64(n, "munmaps", 0);
		s->syscalls.mremaps = jr_uint64(n, "mremaps", 0);
		s->syscalls.brks = jr_uint64(n, "brks", 0);
	}
}

/* ---- crossing and drift ---- */

static void write_crossing(struct json *j, const struct run_crossing *r)
{
	head(j, REC_CROSSING, r->t);
	json_kstr(j, "rule", r->rule);
	json_kint(j, "value", r->value);
	json_kint(j, "limit", r->limit);
	json_kstr(j, "reason", r->reason);
	if (r->seen_at)
		json_kstr(j, "seen_at", r->seen_at);
	json_kstr(j, "wrote", r->wrote);
	if (r->allocs)
		json_kstr(j, "allocs", r->allocs);
	if (r->sites)
		json_kstr(j, "sites", r->sites);
	json_obj_end(j);
}

static void read_crossing(struct json_object *o, struct run_crossing *r)
{
	r->rule = jr_str(o, "rule");
	r->value = jr_int64(o, "value", RUN_NONE);
	r->limit = jr_int64(o, "limit", RUN_NONE);
	r->reason = jr_str(o, "reason");
	r->seen_at = jr_str(o, "seen_at");
	r->wrote = jr_str(o, "wrote");
	r->allocs = jr_str(o, "allocs");
	r->sites = jr_str(o, "sites");
}

static void write_drift(struct json *j, const struct run_drift *r)
{
	head(j, REC_DRIFT, r->t);
	json_kstr(j, "what", r->what);
	json_kint(j, "proc", r->proc);
	json_kint(j, "bpf", r->bpf);
	json_kstr(j, "action", "BPF set resynchronized from /proc");
	json_obj_end(j);
}

static void read_drift(struct json_object *o, struct run_drift *r)
{
	r->what = jr_str(o, "what");
	r->proc = jr_int64(o, "proc", RUN_NONE);
	r->bpf = jr_int64(o, "bpf", RUN_NONE);
}

/* ---- the Java runtime: runtime, gc, oom ---- */

static void write_runtime(struct json *j, const struct run_runtime *r)
{
	head(j, REC_RUNTIME, r->t);
	json_kstr(j, "runtime", r->runtime);
	json_kstr(j, "lib", r->lib);
	json_kint(j, "probes", r->probes);
	json_kstr(j, "heap_rule", r->heap_rule);
	json_kdbl(j, "heap_horizon_s", r->heap_horizon_s);
	json_kdbl(j, "heap_interval_s", r->heap_interval_s);
	json_kint(j, "max_dumps", r->max_dumps);
	json_obj_end(j);
}

static void read_runtime(struct json_object *o, struct run_runtime *r)
{
	r->runtime = jr_str(o, "runtime");
	r->lib = jr_str(o, "lib");
	r->probes = jr_int64(o, "probes", RUN_NONE);
	r->heap_rule = jr_str(o, "heap_rule");
	r->heap_horizon_s = jr_num(o, "heap_horizon_s", NAN);
	r->heap_interval_s = jr_num(o, "heap_interval_s", NAN);
	r->max_dumps = jr_int64(o, "max_dumps", RUN_NONE);
}

static void write_gc(struct json *j, const struct run_gc *r)
{
	head(j, REC_GC, r->t);
	json_kbool(j, "full", r->full);
	json_kdbl(j, "pause_ms", r->pause_ms);
	if (r->npools) {
		json_kint(j, "used_after", r->used_after);
		json_key(j, "pools");
		json_obj(j);
		for (int i = 0; i < r->npools; i++) {
			json_key(j, r->pools[i].name);
			json_obj(j);
			json_kint(j, "used", r->pools[i].used);
			json_kint(j, "committed", r->pools[i].committed);
			json_kint(j, "max", r->pools[i].max);
			json_obj_end(j);
		}
		json_obj_end(j);
	}
	json_obj_end(j);
}

static void read_gc(struct json_object *o, struct run_gc *r)
{
	r->full = jr_bool(o, "full");
	r->pause_ms = jr_num(o, "pause_ms", NAN);
	r->used_after = jr_int64(o, "used_after", RUN_NONE);
}

static void write_oom(struct json *j, const struct run_oom *r)
{
	head(j, REC_OOM, r->t);
	json_kstr(j, "source", r->source);
	if (r->bytes != RUN_NONE && r->bytes >= 0)
		json_kint(j, "bytes", r->bytes);
	json_kstr(j, "message", r->message);
	if (r->tid)
		json_kuint(j, "tid", r->tid);
	if (r->thread)
		json_kstr(j, "thread", r->thread);
	if (r->kind)
		json_kstr(j, "kind", r->kind);
	if (r->stack) {
		const char *p = r->stack;

		json_key(j, "java_stack");
		json_arr(j);
		while (*p) {
			size_t n = strcspn(p, ";");
			char frame[512];

			snprintf(frame, sizeof(frame), "%.*s", (int)n, p);
			json_str(j, frame);
			p += n + (p[n] == ';');
		}
		json_arr_end(j);
	}
	if (r->hint)
		json_kstr(j, "hint", r->hint);
	json_obj_end(j);
}

static void read_oom(struct json_object *o, struct run_oom *r)
{
	r->source = jr_str(o, "source");
	r->bytes = jr_int64(o, "bytes", RUN_NONE);
	r->message = jr_str(o, "message");
	r->tid = jr_uint64(o, "tid", 0);
	r->thread = jr_str(o, "thread");
	r->kind = jr_str(o, "kind");
	r->hint = jr_str(o, "hint");
}

/* ---- heap dumps ---- */

static void write_dump_start(struct json *j, const struct run_dump_start *r)
{
	head(j, REC_DUMP_START, r->t);
	json_kint(j, "seq", r->seq);
	json_kstr(j, "reason", r->reason);
	json_obj_end(j);
}

static void read_dump_start(struct json_object *o, struct run_dump_start *r)
{
	r->seq = jr_int64(o, "seq", RUN_NONE);
	r->reason = jr_str(o, "reason");
}

static void write_dump(struct json *j, const struct run_dump *r)
{
	head(j, REC_DUMP, r->t);
	json_kint(j, "seq", r->seq);
	json_kbool(j, "ok", r->ok);
	json_kstr(j, "method", r->method);
	if (r->when)
		json_kstr(j, "when", r->when);
	json_kstr(j, "file", r->file);
	json_kdbl(j, "pause_ms", r->pause_ms);
	json_kdbl(j, "dump_ms", r->dump_ms);
	json_kint(j, "attempts", r->attempts);
	json_kuint(j, "bytes_in", r->bytes_in);
	json_kuint(j, "bytes_out", r->bytes_out);
	json_kuint(j, "objects", r->objects);
	json_kbool(j, "target_exited", r->target_exited);
	json_kstr(j, "error", r->error);
	if (r->has_analysis) {
		json_kstr(j, "analysis", r->analysis);
		json_kdbl(j, "analyze_ms", r->analyze_ms);
		json_kuint(j, "leak_groups", r->leak_groups);
		json_kuint(j, "leak_objects", r->leak_objects);
		json_kstr(j, "top_leak", r->top_leak);
		json_kstr(j, "analysis_error", r->analysis_error);
	}
	json_obj_end(j);
}

static void read_dump(struct json_object *o, struct run_dump *r)
{
	r->seq = jr_int64(o, "seq", RUN_NONE);
	r->ok = jr_bool(o, "ok");
	r->method = jr_str(o, "method");
	r->when = jr_str(o, "when");
	r->file = jr_str(o, "file");
	r->pause_ms = jr_num(o, "pause_ms", NAN);
	r->dump_ms = jr_num(o, "dump_ms", NAN);
	r->attempts = jr_int64(o, "attempts", RUN_NONE);
	r->bytes_in = jr_uint64(o, "bytes_in", 0);
	r->bytes_out = jr_uint64(o, "bytes_out", 0);
	r->objects = jr_uint64(o, "objects", 0);
	r->target_exited = jr_bool(o, "target_exited");
	r->error = jr_str(o, "error");
	r->has_analysis = jr_get(o, "analyze_ms") != NULL;
	r->analysis = jr_str(o, "analysis");
	r->analyze_ms = jr_num(o, "analyze_ms", NAN);
	r->leak_groups = jr_uint64(o, "leak_groups", 0);
	r->leak_objects = jr_uint64(o, "leak_objects", 0);
	r->top_leak = jr_str(o, "top_leak");
	r->analysis_error = jr_str(o, "analysis_error");
}

/* ---- end ---- */

static void write_end(struct json *j, const struct run_end *r)
{
	head(j, REC_END, r->t);
	json_kstr(j, "reason", r->reason);
	if (r->target_exit_code != RUN_NONE)
		json_kint(j, "target_exit_code", r->target_exit_code);
	if (r->target_signal != RUN_NONE)
		json_kint(j, "target_signal", r->target_signal);
	json_kuint(j, "ringbuf_drops", r->ringbuf_drops);
	json_kuint(j, "set_full_drops", r->set_full_drops);
	json_kuint(j, "events_sent", r->events_sent);
	json_kuint(j, "events_received", r->events_received);
	if (r->nrecurred) {
		json_key(j, "recurrences");
		json_obj(j);
		for (int i = 0; i < r->nrecurred && i < 8; i++)
			json_kuint(j, r->recurred[i].rule, r->recurred[i].times);
		json_obj_end(j);
	}
	if (r->timeline_lost)
		json_kuint(j, "timeline_lost", r->timeline_lost);
	json_kuint(j, "skipped_runs", r->skipped_runs);
	json_kuint(j, "fds_without_event", r->fds_without_event);
	json_kint(j, "crossings", r->crossings);
	json_kuint(j, "call_fails", r->call_fails);
	json_kuint(j, "call_fails_sent", r->call_fails_sent);
	if (r->probe_misses >= 0)
		json_kint(j, "probe_misses", r->probe_misses);
	if (r->death) {
		json_kstr(j, "death", r->death);
		json_kstr(j, "how", r->how);
	}
	if (r->runtime) {
		json_kstr(j, "runtime", r->runtime);
		json_kuint(j, "runtime_events", r->runtime_events);
		json_kuint(j, "runtime_ringbuf_drops", r->runtime_ringbuf_drops);
		if (r->unsafe_untracked >= 0)
			json_kint(j, "unsafe_untracked", r->unsafe_untracked);
		json_kint(j, "dumps", r->dumps);
	}
	if (r->java_asked || r->java_sampled_out) {
		json_key(j, "java_stacks");
		json_obj(j);
		json_kuint(j, "asked", r->java_asked);
		json_kuint(j, "sampled_out", r->java_sampled_out);
		json_kuint(j, "reported", r->java_reported);
		json_kuint(j, "unmatched", r->java_unmatched);
		json_obj_end(j);
	}
	if (!isnan(r->collector_cpu_s))
		json_kdbl(j, "collector_cpu_s", r->collector_cpu_s);
	if (r->collector_peak_rss_kb)
		json_kuint(j, "collector_peak_rss_kb", r->collector_peak_rss_kb);
	json_obj_end(j);
}

static void read_end(struct json_object *o, struct run_end *r)
{
	r->reason = jr_str(o, "reason");
	r->target_exit_code = jr_int64(o, "target_exit_code", RUN_NONE);
	r->target_signal = jr_int64(o, "target_signal", RUN_NONE);
	r->ringbuf_drops = jr_uint64(o, "ringbuf_drops", 0);
	r->set_full_drops = jr_uint64(o, "set_full_drops", 0);
	r->events_sent = jr_uint64(o, "events_sent", 0);
	r->events_received = jr_uint64(o, "events_received", 0);
	r->timeline_lost = jr_uint64(o, "timeline_lost", 0);
	r->skipped_runs = jr_uint64(o, "skipped_runs", 0);
	r->fds_without_event = jr_uint64(o, "fds_without_event", 0);
	{
		struct json_object *rec;

		if (json_object_object_get_ex(o, "recurrences", &rec) && json_object_is_type(rec, json_type_object)) {
			json_object_object_foreach(rec, key, val) {
				if (r->nrecurred == 8)
					break;
				r->recurred[r->nrecurred].rule = key;
				r->recurred[r->nrecurred++].times = (uint64_t)json_object_get_int64(val);
			}
		}
	}
	r->crossings = jr_int64(o, "crossings", RUN_NONE);
	r->call_fails = jr_uint64(o, "call_fails", 0);
	r->call_fails_sent = jr_uint64(o, "call_fails_sent", 0);
	r->probe_misses = jr_get(o, "probe_misses") ? jr_int64(o, "probe_misses", RUN_NONE) : -1;
	r->death = jr_str(o, "death");
	r->how = jr_str(o, "how");
	r->runtime = jr_str(o, "runtime");
	r->runtime_events = jr_uint64(o, "runtime_events", 0);
	r->runtime_ringbuf_drops = jr_uint64(o, "runtime_ringbuf_drops", 0);
	r->unsafe_untracked = jr_get(o, "unsafe_untracked") ? jr_int64(o, "unsafe_untracked", RUN_NONE) : -1;
	r->dumps = jr_int64(o, "dumps", RUN_NONE);
	struct json_object *js = jr_get(o, "java_stacks");
	if (js && json_object_is_type(js, json_type_object)) {
		r->java_asked = jr_uint64(js, "asked", 0);
		r->java_sampled_out = jr_uint64(js, "sampled_out", 0);
		r->java_reported = jr_uint64(js, "reported", 0);
		r->java_unmatched = jr_uint64(js, "unmatched", 0);
	}
	r->collector_cpu_s = jr_num(o, "collector_cpu_s", NAN);
	r->collector_peak_rss_kb = jr_uint64(o, "collector_peak_rss_kb", 0);
}

/* ---- dispatch ---- */

void run_record_write(struct json *j, const struct run_record *r)
{
	switch (r->type) {
	case REC_START: write_start(j, &r->u.start); break;
	case REC_SAMPLE: write_sample(j, &r->u.sample); break;
	case REC_CROSSING: write_crossing(j, &r->u.crossing); break;
	case REC_DRIFT: write_drift(j, &r->u.drift); break;
	case REC_RUNTIME: write_runtime(j, &r->u.runtime); break;
	case REC_GC: write_gc(j, &r->u.gc); break;
	case REC_OOM: write_oom(j, &r->u.oom); break;
	case REC_DUMP_START: write_dump_start(j, &r->u.dump_start); break;
	case REC_DUMP: write_dump(j, &r->u.dump); break;
	case REC_END: write_end(j, &r->u.end); break;
	default: break; /* death, failure, big_alloc: their own modules write them */
	}
}

void run_record_body(struct json *j, void *arg)
{
	run_record_write(j, arg);
}

enum run_rec run_record_read(struct json_object *o, struct run_record *r)
{
	memset(r, 0, sizeof(*r));
	if (!o || !json_object_is_type(o, json_type_object))
		return r->type = REC_UNKNOWN;
	r->type = run_rec_parse(jr_str(o, "type"));
	/* t is the first member of every record in the union */
	switch (r->type) {
	case REC_START: read_start(o, &r->u.start); break;
	case REC_SAMPLE: read_sample(o, &r->u.sample); break;
	case REC_CROSSING: read_crossing(o, &r->u.crossing); break;
	case REC_DRIFT: read_drift(o, &r->u.drift); break;
	case REC_RUNTIME: read_runtime(o, &r->u.runtime); break;
	case REC_GC: read_gc(o, &r->u.gc); break;
	case REC_OOM: read_oom(o, &r->u.oom); break;
	case REC_DUMP_START: read_dump_start(o, &r->u.dump_start); break;
	case REC_DUMP: read_dump(o, &r->u.dump); break;
	case REC_END: read_end(o, &r->u.end); break;
	default: return r->type;
	}
	r->u.start.t = jr_is_num(jr_get(o, "t")) ? jr_num(o, "t", NAN) : 0;
	return r->type;
}

int run_timeline_last(const char *path, enum run_rec type, size_t tail, struct json_object **o, struct run_record *r)
{
	char tag[64], *buf = NULL, *line, *next, *last = NULL;
	FILE *f = fopen(path, "r");
	long size = 0, from = 0;
	size_t n = 0;

	*o = NULL;
	if (!f)
		return -1;
	/* the type's tag as the writer spells it, to find the lines worth parsing */
	snprintf(tag, sizeof(tag), "{\"type\":\"%s\"", run_rec_name(type));
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0) {
		from = tail && (unsigned long)size > tail ? size - (long)tail : 0;
		if (fseek(f, from, SEEK_SET) == 0 && (buf = malloc((size_t)(size - from) + 1)))
			n = fread(buf, 1, (size_t)(size - from), f);
	}
	fclose(f);
	if (!buf)
		return -1;
	buf[n] = 0;
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else if (from) /* a cut first or last line: whole lines only */
			break;
		if (!strncmp(line, tag, strlen(tag)))
			last = line;
	}
	if (last && (*o = json_tokener_parse(last)) && run_record_read(*o, r) == type) {
		free(buf);
		return 0;
	}
	json_object_put(*o);
	*o = NULL;
	free(buf);
	return -1;
}
