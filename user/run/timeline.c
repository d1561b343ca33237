/* Each timeline record's writer beside its reader: a key named in one is
 * named, a few lines away, in the other. */
#include "run/timeline.h"
#include "util/json.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

/* ---- reading helpers: a missing or wrongly typed key reads as absent ---- */

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static int is_num(struct json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}

static double rdbl(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return is_num(v) ? json_object_get_double(v) : NAN;
}

static int64_t rint64(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	if (!is_num(v))
		return RUN_NONE;
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);

		return isfinite(d) && d > -9.2e18 && d < 9.2e18 ? (int64_t)d : RUN_NONE;
	}
	return json_object_get_int64(v);
}

static uint64_t ruint64(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	if (!is_num(v))
		return 0;
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);

		return isfinite(d) && d > 0 && d < 1.8e19 ? (uint64_t)d : 0;
	}
	return json_object_get_uint64(v);
}

static const char *rstr(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int rbool(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

static void head(struct json *j, enum run_rec type, double t)
{
	json_obj(j);
	json_kstr(j, "type", run_rec_name(type));
	json_kdbl(j, "t", t);
}

/* ---- start ---- */

static void write_settings(struct json *j, const struct run_settings *s)
{
	json_key(j, "settings");
	json_obj(j);
	json_kint(j, "thread_count", s->thread_count);
	json_kint(j, "thread_gap", s->thread_gap);
	json_kint(j, "thread_polls", s->thread_polls);
	json_kint(j, "fd_count", s->fd_count);
	json_kint(j, "fd_gap", s->fd_gap);
	json_kint(j, "fd_polls", s->fd_polls);
	json_kdbl(j, "fd_ratio", s->fd_ratio);
	json_kdbl(j, "thread_ratio", s->thread_ratio);
	json_kint(j, "vmsize_limit_kb", s->vmsize_limit_kb);
	json_kbool(j, "vmsize_64bit", s->vmsize_64bit);
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
	s->thread_count = rint64(o, "thread_count");
	s->thread_gap = rint64(o, "thread_gap");
	s->thread_polls = rint64(o, "thread_polls");
	s->fd_count = rint64(o, "fd_count");
	s->fd_gap = rint64(o, "fd_gap");
	s->fd_polls = rint64(o, "fd_polls");
	s->fd_ratio = rdbl(o, "fd_ratio");
	s->thread_ratio = rdbl(o, "thread_ratio");
	s->vmsize_limit_kb = rint64(o, "vmsize_limit_kb");
	s->vmsize_64bit = rbool(o, "vmsize_64bit");
	s->big_alloc_bytes = ruint64(o, "big_alloc_bytes");
	s->big_alloc_mode = rstr(o, "big_alloc_mode");
	s->heap_rule = rstr(o, "heap_rule");
	s->heap_ratio = rdbl(o, "heap_ratio");
	s->heap_polls = rint64(o, "heap_polls");
	s->heap_interval_s = rdbl(o, "heap_interval_s");
	s->max_dumps = rint64(o, "max_dumps");
	s->shim = rbool(o, "shim");
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
	struct json_object *s = get(o, "settings"), *labels = get(o, "labels");

	r->run_id = rstr(o, "run_id");
	r->host = rstr(o, "host");
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
	r->pid = rint64(o, "pid");
	r->command = rstr(o, "command");
	r->mode = rstr(o, "mode");
	r->kernel = rstr(o, "kernel");
	r->arch = rstr(o, "arch");
	r->target_32bit = rbool(o, "target_32bit");
	r->interval_s = rdbl(o, "interval_s");
	r->duration_s = rdbl(o, "duration_s");
	r->libc = rstr(o, "libc");
	r->page_size = rint64(o, "page_size");
	r->ringbuf_bytes = ruint64(o, "ringbuf_bytes");
	r->syscall_hook = rstr(o, "syscall_hook");
	r->wall_time = rstr(o, "wall_time");
	if (s && json_object_is_type(s, json_type_object))
		read_settings(s, &r->settings);
	else
		read_settings(o, &r->settings); /* nothing there: every setting absent */
}

/* ---- sample ---- */

static void write_sample(struct json *j, const struct run_sample *s)
{
	const struct run_syscalls *n = &s->syscalls;

	head(j, REC_SAMPLE, s->t);
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
	struct json_object *n = get(o, "syscalls");

	s->rss_kb = rint64(o, "rss_kb");
	s->vmsize_kb = rint64(o, "vmsize_kb");
	s->vmpeak_kb = rint64(o, "vmpeak_kb");
	s->vmsize_bpf_kb = rint64(o, "vmsize_bpf_kb");
	s->threads = rint64(o, "threads");
	s->threads_bpf = rint64(o, "threads_bpf");
	s->thread_limit = rint64(o, "thread_limit");
	s->thread_limit_src = rstr(o, "thread_limit_src");
	s->fds = rint64(o, "fds");
	s->fds_bpf = rint64(o, "fds_bpf");
	s->fd_limit = rint64(o, "fd_limit");
	s->ringbuf_drops = ruint64(o, "ringbuf_drops");
	s->set_full_drops = ruint64(o, "set_full_drops");
	s->events = ruint64(o, "events");
	s->heap_src = rstr(o, "heap_src");
	s->heap_used = rint64(o, "heap_used");
	s->heap_committed = rint64(o, "heap_committed");
	s->heap_max = rint64(o, "heap_max");
	s->heap_limit = rint64(o, "heap_limit");
	s->has_gc = is_num(get(o, "gcs"));
	s->gcs = ruint64(o, "gcs");
	s->gc_pause_ms = rdbl(o, "gc_pause_ms");
	{
		struct json_object *jp = get(o, "java_pools");
		struct run_pool_fig *f[] = {&s->metaspace, &s->class_space, &s->direct};
		static const char *const names[] = {"metaspace", "class_space", "direct"};

		for (int i = 0; i < 3; i++) {
			struct json_object *p = jp && json_object_is_type(jp, json_type_object) ? get(jp, names[i]) : NULL;

			f[i]->used = f[i]->committed = f[i]->max = RUN_NONE;
			if (p && json_object_is_type(p, json_type_object)) {
				f[i]->used = rint64(p, "used");
				f[i]->committed = rint64(p, "committed");
				f[i]->max = rint64(p, "max");
			}
		}
	}
	if (n && json_object_is_type(n, json_type_object)) {
		s->syscalls.fd_opens = ruint64(n, "fd_opens");
		s->syscalls.fd_closes = ruint64(n, "fd_closes");
		s->syscalls.thread_news = ruint64(n, "thread_news");
		s->syscalls.thread_exits = ruint64(n, "thread_exits");
		s->syscalls.mmaps = ruint64(n, "mmaps");
		s->syscalls.munmaps = ruint64(n, "munmaps");
		s->syscalls.mremaps = ruint64(n, "mremaps");
		s->syscalls.brks = ruint64(n, "brks");
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
	r->rule = rstr(o, "rule");
	r->value = rint64(o, "value");
	r->limit = rint64(o, "limit");
	r->reason = rstr(o, "reason");
	r->seen_at = rstr(o, "seen_at");
	r->wrote = rstr(o, "wrote");
	r->allocs = rstr(o, "allocs");
	r->sites = rstr(o, "sites");
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
	r->what = rstr(o, "what");
	r->proc = rint64(o, "proc");
	r->bpf = rint64(o, "bpf");
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
	r->runtime = rstr(o, "runtime");
	r->lib = rstr(o, "lib");
	r->probes = rint64(o, "probes");
	r->heap_rule = rstr(o, "heap_rule");
	r->heap_horizon_s = rdbl(o, "heap_horizon_s");
	r->heap_interval_s = rdbl(o, "heap_interval_s");
	r->max_dumps = rint64(o, "max_dumps");
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
	r->full = rbool(o, "full");
	r->pause_ms = rdbl(o, "pause_ms");
	r->used_after = rint64(o, "used_after");
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
	r->source = rstr(o, "source");
	r->bytes = rint64(o, "bytes");
	r->message = rstr(o, "message");
	r->tid = ruint64(o, "tid");
	r->thread = rstr(o, "thread");
	r->kind = rstr(o, "kind");
	r->hint = rstr(o, "hint");
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
	r->seq = rint64(o, "seq");
	r->reason = rstr(o, "reason");
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
	r->seq = rint64(o, "seq");
	r->ok = rbool(o, "ok");
	r->method = rstr(o, "method");
	r->when = rstr(o, "when");
	r->file = rstr(o, "file");
	r->pause_ms = rdbl(o, "pause_ms");
	r->dump_ms = rdbl(o, "dump_ms");
	r->attempts = rint64(o, "attempts");
	r->bytes_in = ruint64(o, "bytes_in");
	r->bytes_out = ruint64(o, "bytes_out");
	r->objects = ruint64(o, "objects");
	r->target_exited = rbool(o, "target_exited");
	r->error = rstr(o, "error");
	r->has_analysis = get(o, "analyze_ms") != NULL;
	r->analysis = rstr(o, "analysis");
	r->analyze_ms = rdbl(o, "analyze_ms");
	r->leak_groups = ruint64(o, "leak_groups");
	r->leak_objects = ruint64(o, "leak_objects");
	r->top_leak = rstr(o, "top_leak");
	r->analysis_error = rstr(o, "analysis_error");
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
	r->reason = rstr(o, "reason");
	r->target_exit_code = rint64(o, "target_exit_code");
	r->target_signal = rint64(o, "target_signal");
	r->ringbuf_drops = ruint64(o, "ringbuf_drops");
	r->set_full_drops = ruint64(o, "set_full_drops");
	r->events_sent = ruint64(o, "events_sent");
	r->events_received = ruint64(o, "events_received");
	r->timeline_lost = ruint64(o, "timeline_lost");
	r->skipped_runs = ruint64(o, "skipped_runs");
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
	r->crossings = rint64(o, "crossings");
	r->call_fails = ruint64(o, "call_fails");
	r->call_fails_sent = ruint64(o, "call_fails_sent");
	r->probe_misses = get(o, "probe_misses") ? rint64(o, "probe_misses") : -1;
	r->death = rstr(o, "death");
	r->how = rstr(o, "how");
	r->runtime = rstr(o, "runtime");
	r->runtime_events = ruint64(o, "runtime_events");
	r->runtime_ringbuf_drops = ruint64(o, "runtime_ringbuf_drops");
	r->unsafe_untracked = get(o, "unsafe_untracked") ? rint64(o, "unsafe_untracked") : -1;
	r->dumps = rint64(o, "dumps");
	struct json_object *js = get(o, "java_stacks");
	if (js && json_object_is_type(js, json_type_object)) {
		r->java_asked = ruint64(js, "asked");
		r->java_sampled_out = ruint64(js, "sampled_out");
		r->java_reported = ruint64(js, "reported");
		r->java_unmatched = ruint64(js, "unmatched");
	}
	r->collector_cpu_s = rdbl(o, "collector_cpu_s");
	r->collector_peak_rss_kb = ruint64(o, "collector_peak_rss_kb");
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
	r->type = run_rec_parse(rstr(o, "type"));
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
	r->u.start.t = is_num(get(o, "t")) ? rdbl(o, "t") : 0;
	return r->type;
}
