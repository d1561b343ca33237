/* Each timeline record's writer beside its reader, both reading one field
 * list for its flat keys (fields.h); what is nested or listed is written
 * and read by hand, side by side.
 *
 * One file over 650 lines on purpose: it is the timeline's whole schema,
 * every record's keys in one place, so that a record's writer and reader
 * are read, and changed, together. */
#include "run/timeline.h"
#include "run/fields.h"
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

/* each resource's rules, under its name */
static const struct run_field rule_fields[] = {
	RF(RF_I64_0, struct ooms_res_rules, count_limit, "count"),
	RF(RF_I64_0, struct ooms_res_rules, count_gap, "gap"),
	RF(RF_INT_0, struct ooms_res_rules, count_polls, "polls"),
	RF(RF_DBL_0, struct ooms_res_rules, ratio, "ratio"),
	RF(RF_DBL_0, struct ooms_res_rules, trend_s, "trend_s"),
};

/* the settings after the resources' rules */
static const struct run_field settings_fields[] = {
	RF(RF_U64, struct run_settings, big_alloc_bytes, "big_alloc_bytes"),
	RF(RF_STR, struct run_settings, big_alloc_mode, "big_alloc_mode"),
	RF(RF_STR, struct run_settings, heap_rule, "heap_rule"),
	RF(RF_DBL, struct run_settings, heap_ratio, "heap_ratio"),
	RF(RF_I64, struct run_settings, heap_polls, "heap_polls"),
	RF(RF_DBL, struct run_settings, heap_interval_s, "heap_interval_s"),
	RF(RF_I64, struct run_settings, max_dumps, "max_dumps"),
	RF(RF_BOOL, struct run_settings, shim, "shim"),
};

static const struct run_field start_id_fields[] = {
	RF(RF_STR, struct run_start, run_id, "run_id"),
	RF(RF_STR, struct run_start, host, "host"),
};

/* after the labels */
static const struct run_field start_fields[] = {
	RF(RF_I64, struct run_start, pid, "pid"),
	RF(RF_STR, struct run_start, command, "command"),
	RF(RF_STR, struct run_start, mode, "mode"),
	RF(RF_STR, struct run_start, kernel, "kernel"),
	RF(RF_STR, struct run_start, arch, "arch"),
	RF(RF_BOOL, struct run_start, target_32bit, "target_32bit"),
	RF(RF_DBL, struct run_start, interval_s, "interval_s"),
	RF(RF_DBL, struct run_start, duration_s, "duration_s"),
	RF(RF_STR, struct run_start, libc, "libc"),
	RF(RF_I64, struct run_start, page_size, "page_size"),
	RF(RF_U64, struct run_start, ringbuf_bytes, "ringbuf_bytes"),
	RF(RF_STR, struct run_start, syscall_hook, "syscall_hook"),
	RF(RF_STR_SET, struct run_start, bpf_fallbacks, "bpf_fallbacks"),
};

/* after the sources */
static const struct run_field start_end_fields[] = {
	RF(RF_STR, struct run_start, wall_time, "wall_time"),
};

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
		run_fields_write(j, rr, rule_fields, RUN_FIELDS_N(rule_fields));
		json_obj_end(j);
	}
	json_obj_end(j);
	run_fields_write(j, s, settings_fields, RUN_FIELDS_N(settings_fields));
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
			run_fields_read(x, rr, rule_fields, RUN_FIELDS_N(rule_fields));
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
	run_fields_read(o, s, settings_fields, RUN_FIELDS_N(settings_fields));
}

static void write_start(struct json *j, const struct run_start *r)
{
	head(j, REC_START, r->t);
	run_fields_write(j, r, start_id_fields, RUN_FIELDS_N(start_id_fields));
	json_key(j, "labels");
	json_obj(j);
	for (size_t i = 0; i < r->nlabels && i < RUN_MAX_LABELS; i++)
		json_kstr(j, r->label_key[i], r->label_value[i]);
	json_obj_end(j);
	run_fields_write(j, r, start_fields, RUN_FIELDS_N(start_fields));
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
	run_fields_write(j, r, start_end_fields, RUN_FIELDS_N(start_end_fields));
	write_settings(j, &r->settings);
	json_obj_end(j);
}

static void read_start(struct json_object *o, struct run_start *r)
{
	struct json_object *s = jr_get(o, "settings"), *labels = jr_get(o, "labels");

	run_fields_read(o, r, start_id_fields, RUN_FIELDS_N(start_id_fields));
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
	run_fields_read(o, r, start_fields, RUN_FIELDS_N(start_fields));
	run_fields_read(o, r, start_end_fields, RUN_FIELDS_N(start_end_fields));
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

static const struct run_field sample_fields[] = {
	RF(RF_I64, struct run_sample, rss_kb, "rss_kb"),
	RF(RF_I64, struct run_sample, vmpeak_kb, "vmpeak_kb"),
	RF(RF_I64, struct run_sample, vmsize_bpf_kb, "vmsize_bpf_kb"),
	RF(RF_I64, struct run_sample, threads_bpf, "threads_bpf"),
	RF(RF_I64, struct run_sample, fds_bpf, "fds_bpf"),
};

/* after the watched resources */
static const struct run_field sample_drop_fields[] = {
	RF(RF_U64, struct run_sample, ringbuf_drops, "ringbuf_drops"),
	RF(RF_U64, struct run_sample, set_full_drops, "set_full_drops"),
	RF(RF_U64, struct run_sample, events, "events"),
};

static const struct run_field syscall_fields[] = {
	RF(RF_U64, struct run_syscalls, fd_opens, "fd_opens"),
	RF(RF_U64, struct run_syscalls, fd_closes, "fd_closes"),
	RF(RF_U64, struct run_syscalls, thread_news, "thread_news"),
	RF(RF_U64, struct run_syscalls, thread_exits, "thread_exits"),
	RF(RF_U64, struct run_syscalls, mmaps, "mmaps"),
	RF(RF_U64, struct run_syscalls, munmaps, "munmaps"),
	RF(RF_U64, struct run_syscalls, mremaps, "mremaps"),
	RF(RF_U64, struct run_syscalls, brks, "brks"),
};

static const struct run_field memory_fields[] = {
	RF(RF_I64_SET, struct ooms_memfig, anon_kb, "anon_kb"),
	RF(RF_I64_SET, struct ooms_memfig, file_kb, "file_kb"),
	RF(RF_I64_SET, struct ooms_memfig, shmem_kb, "shmem_kb"),
	RF(RF_I64_SET, struct ooms_memfig, swap_kb, "swap_kb"),
	RF(RF_I64_SET, struct ooms_memfig, sys_total_kb, "system_total_kb"),
	RF(RF_I64_SET, struct ooms_memfig, sys_available_kb, "system_available_kb"),
	RF(RF_I64_SET, struct ooms_memfig, sys_swap_total_kb, "system_swap_total_kb"),
	RF(RF_I64_SET, struct ooms_memfig, sys_swap_free_kb, "system_swap_free_kb"),
	RF(RF_DBL_SET, struct ooms_memfig, psi_some10, "psi_some_avg10"),
	RF(RF_DBL_SET, struct ooms_memfig, psi_some60, "psi_some_avg60"),
	RF(RF_DBL_SET, struct ooms_memfig, psi_full10, "psi_full_avg10"),
	RF(RF_DBL_SET, struct ooms_memfig, psi_full60, "psi_full_avg60"),
	RF(RF_I64_SET, struct ooms_memfig, oom_score_adj, "oom_score_adj"),
	RF(RF_I64_SET, struct ooms_memfig, oom_score, "oom_score"),
};

/* A memfig as the files have it: unknown figures RUN_NONE, unknown PSI NAN. */
void run_memfig_from(struct ooms_memfig *out, const struct ooms_memfig *in)
{
	int64_t *i64[] = {&out->anon_kb, &out->file_kb, &out->shmem_kb, &out->swap_kb, &out->sys_total_kb,
			  &out->sys_available_kb, &out->sys_swap_total_kb, &out->sys_swap_free_kb, &out->oom_score};
	double *dbl[] = {&out->psi_some10, &out->psi_some60, &out->psi_full10, &out->psi_full60};

	*out = *in;
	for (size_t i = 0; i < sizeof(i64) / sizeof(*i64); i++)
		if (*i64[i] < 0)
			*i64[i] = RUN_NONE;
	for (size_t i = 0; i < sizeof(dbl) / sizeof(*dbl); i++)
		if (!(*dbl[i] >= 0))
			*dbl[i] = NAN;
	if (out->oom_score_adj == INT32_MIN)
		out->oom_score_adj = RUN_NONE;
}

void run_memfig_write(struct json *j, const char *key, const struct ooms_memfig *m)
{
	json_key(j, key);
	json_obj(j);
	run_fields_write(j, m, memory_fields, RUN_FIELDS_N(memory_fields));
	json_obj_end(j);
}

void run_memfig_read(struct json_object *o, struct ooms_memfig *m)
{
	run_fields_read(o, m, memory_fields, RUN_FIELDS_N(memory_fields));
}

static int memfig_any(const struct ooms_memfig *m)
{
	return m->anon_kb != RUN_NONE || m->sys_total_kb != RUN_NONE || m->psi_some10 == m->psi_some10;
}

static void write_sample(struct json *j, const struct run_sample *s)
{
	const struct run_syscalls *n = &s->syscalls;

	head(j, REC_SAMPLE, s->t);
	run_fields_write(j, s, sample_fields, RUN_FIELDS_N(sample_fields));
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
	run_fields_write(j, s, sample_drop_fields, RUN_FIELDS_N(sample_drop_fields));
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
	run_fields_write(j, n, syscall_fields, RUN_FIELDS_N(syscall_fields));
	json_obj_end(j);
	if (memfig_any(&s->mem))
		run_memfig_write(j, "memory", &s->mem);
	json_obj_end(j);
}

static void read_sample(struct json_object *o, struct run_sample *s)
{
	struct json_object *n = jr_get(o, "syscalls");

	run_fields_read(o, s, sample_fields, RUN_FIELDS_N(sample_fields));
	for (int r = 0; r < RES_MAX; r++) {
		const struct ooms_resource *res = &ooms_resources[r];
		char src[64];

		snprintf(src, sizeof(src), "%s_src", res->limit_key);
		s->res[r].value = jr_int64(o, res->name, RUN_NONE);
		s->res[r].limit = jr_int64(o, res->limit_key, RUN_NONE);
		s->res[r].limit_src = jr_str(o, src);
	}
	run_fields_read(o, s, sample_drop_fields, RUN_FIELDS_N(sample_drop_fields));
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
	if (n && json_object_is_type(n, json_type_object))
		run_fields_read(n, &s->syscalls, syscall_fields, RUN_FIELDS_N(syscall_fields));
	{
		struct json_object *m = jr_get(o, "memory");
		struct ooms_memfig none = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, INT32_MIN, -1};

		run_memfig_from(&s->mem, &none);
		if (m && json_object_is_type(m, json_type_object))
			run_memfig_read(m, &s->mem);
	}
}

/* ---- crossing and drift ---- */

static const struct run_field crossing_fields[] = {
	RF(RF_STR, struct run_crossing, rule, "rule"),
	RF(RF_I64, struct run_crossing, value, "value"),
	RF(RF_I64, struct run_crossing, limit, "limit"),
	RF(RF_STR, struct run_crossing, reason, "reason"),
	RF(RF_STR_SET, struct run_crossing, seen_at, "seen_at"),
	RF(RF_STR, struct run_crossing, wrote, "wrote"),
	RF(RF_STR_SET, struct run_crossing, allocs, "allocs"),
	RF(RF_STR_SET, struct run_crossing, sites, "sites"),
};

static void write_crossing(struct json *j, const struct run_crossing *r)
{
	head(j, REC_CROSSING, r->t);
	run_fields_write(j, r, crossing_fields, RUN_FIELDS_N(crossing_fields));
	json_obj_end(j);
}

static void read_crossing(struct json_object *o, struct run_crossing *r)
{
	run_fields_read(o, r, crossing_fields, RUN_FIELDS_N(crossing_fields));
}

static const struct run_field drift_fields[] = {
	RF(RF_STR, struct run_drift, what, "what"),
	RF(RF_I64, struct run_drift, proc, "proc"),
	RF(RF_I64, struct run_drift, bpf, "bpf"),
};

static void write_drift(struct json *j, const struct run_drift *r)
{
	head(j, REC_DRIFT, r->t);
	run_fields_write(j, r, drift_fields, RUN_FIELDS_N(drift_fields));
	json_kstr(j, "action", "BPF set resynchronized from /proc");
	json_obj_end(j);
}

static void read_drift(struct json_object *o, struct run_drift *r)
{
	run_fields_read(o, r, drift_fields, RUN_FIELDS_N(drift_fields));
}

/* ---- the Java runtime: runtime, gc, oom ---- */

static const struct run_field runtime_fields[] = {
	RF(RF_STR, struct run_runtime, runtime, "runtime"),
	RF(RF_STR, struct run_runtime, lib, "lib"),
	RF(RF_I64, struct run_runtime, probes, "probes"),
	RF(RF_STR, struct run_runtime, heap_rule, "heap_rule"),
	RF(RF_DBL, struct run_runtime, heap_horizon_s, "heap_horizon_s"),
	RF(RF_DBL, struct run_runtime, heap_interval_s, "heap_interval_s"),
	RF(RF_I64, struct run_runtime, max_dumps, "max_dumps"),
};

static void write_runtime(struct json *j, const struct run_runtime *r)
{
	head(j, REC_RUNTIME, r->t);
	run_fields_write(j, r, runtime_fields, RUN_FIELDS_N(runtime_fields));
	json_obj_end(j);
}

static void read_runtime(struct json_object *o, struct run_runtime *r)
{
	run_fields_read(o, r, runtime_fields, RUN_FIELDS_N(runtime_fields));
}

static const struct run_field gc_fields[] = {
	RF(RF_BOOL, struct run_gc, full, "full"),
	RF(RF_DBL, struct run_gc, pause_ms, "pause_ms"),
};

static void write_gc(struct json *j, const struct run_gc *r)
{
	head(j, REC_GC, r->t);
	run_fields_write(j, r, gc_fields, RUN_FIELDS_N(gc_fields));
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
	run_fields_read(o, r, gc_fields, RUN_FIELDS_N(gc_fields));
	r->used_after = jr_int64(o, "used_after", RUN_NONE);
}

/* source, then bytes (when known), these, the Java stack, the hint */
static const struct run_field oom_source_fields[] = {
	RF(RF_STR, struct run_oom, source, "source"),
};

static const struct run_field oom_fields[] = {
	RF(RF_STR, struct run_oom, message, "message"),
	RF(RF_U64_SET, struct run_oom, tid, "tid"),
	RF(RF_STR_SET, struct run_oom, thread, "thread"),
	RF(RF_STR_SET, struct run_oom, kind, "kind"),
};

static const struct run_field oom_hint_fields[] = {
	RF(RF_STR_SET, struct run_oom, hint, "hint"),
};

static void write_oom(struct json *j, const struct run_oom *r)
{
	head(j, REC_OOM, r->t);
	run_fields_write(j, r, oom_source_fields, RUN_FIELDS_N(oom_source_fields));
	if (r->bytes != RUN_NONE && r->bytes >= 0)
		json_kint(j, "bytes", r->bytes);
	run_fields_write(j, r, oom_fields, RUN_FIELDS_N(oom_fields));
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
	run_fields_write(j, r, oom_hint_fields, RUN_FIELDS_N(oom_hint_fields));
	json_obj_end(j);
}

static void read_oom(struct json_object *o, struct run_oom *r)
{
	run_fields_read(o, r, oom_source_fields, RUN_FIELDS_N(oom_source_fields));
	r->bytes = jr_int64(o, "bytes", RUN_NONE);
	run_fields_read(o, r, oom_fields, RUN_FIELDS_N(oom_fields));
	run_fields_read(o, r, oom_hint_fields, RUN_FIELDS_N(oom_hint_fields));
}

/* ---- heap dumps ---- */

static const struct run_field dump_start_fields[] = {
	RF(RF_I64, struct run_dump_start, seq, "seq"),
	RF(RF_STR, struct run_dump_start, reason, "reason"),
};

static void write_dump_start(struct json *j, const struct run_dump_start *r)
{
	head(j, REC_DUMP_START, r->t);
	run_fields_write(j, r, dump_start_fields, RUN_FIELDS_N(dump_start_fields));
	json_obj_end(j);
}

static void read_dump_start(struct json_object *o, struct run_dump_start *r)
{
	run_fields_read(o, r, dump_start_fields, RUN_FIELDS_N(dump_start_fields));
}

static const struct run_field dump_fields[] = {
	RF(RF_I64, struct run_dump, seq, "seq"),
	RF(RF_BOOL, struct run_dump, ok, "ok"),
	RF(RF_STR, struct run_dump, method, "method"),
	RF(RF_STR_SET, struct run_dump, when, "when"),
	RF(RF_STR, struct run_dump, file, "file"),
	RF(RF_DBL, struct run_dump, pause_ms, "pause_ms"),
	RF(RF_DBL, struct run_dump, dump_ms, "dump_ms"),
	RF(RF_I64, struct run_dump, attempts, "attempts"),
	RF(RF_U64, struct run_dump, bytes_in, "bytes_in"),
	RF(RF_U64, struct run_dump, bytes_out, "bytes_out"),
	RF(RF_U64, struct run_dump, objects, "objects"),
	RF(RF_BOOL, struct run_dump, target_exited, "target_exited"),
	RF(RF_STR, struct run_dump, error, "error"),
	RF(RF_STR_SET, struct run_dump, ran_out, "ran_out"),
};

/* written when the dump was analyzed (has_analysis: its analyze_ms is there) */
static const struct run_field dump_analysis_fields[] = {
	RF(RF_STR, struct run_dump, analysis, "analysis"),
	RF(RF_DBL, struct run_dump, analyze_ms, "analyze_ms"),
	RF(RF_U64, struct run_dump, leak_groups, "leak_groups"),
	RF(RF_U64, struct run_dump, leak_objects, "leak_objects"),
	RF(RF_STR, struct run_dump, top_leak, "top_leak"),
	RF(RF_STR, struct run_dump, analysis_error, "analysis_error"),
};

static void write_dump(struct json *j, const struct run_dump *r)
{
	head(j, REC_DUMP, r->t);
	run_fields_write(j, r, dump_fields, RUN_FIELDS_N(dump_fields));
	if (r->has_analysis)
		run_fields_write(j, r, dump_analysis_fields, RUN_FIELDS_N(dump_analysis_fields));
	json_obj_end(j);
}

static void read_dump(struct json_object *o, struct run_dump *r)
{
	run_fields_read(o, r, dump_fields, RUN_FIELDS_N(dump_fields));
	r->has_analysis = jr_get(o, "analyze_ms") != NULL;
	run_fields_read(o, r, dump_analysis_fields, RUN_FIELDS_N(dump_analysis_fields));
}

/* ---- end ---- */

static const struct run_field end_fields[] = {
	RF(RF_STR, struct run_end, reason, "reason"),
	RF(RF_I64_SET, struct run_end, target_exit_code, "target_exit_code"),
	RF(RF_I64_SET, struct run_end, target_signal, "target_signal"),
	RF(RF_U64, struct run_end, ringbuf_drops, "ringbuf_drops"),
	RF(RF_U64, struct run_end, set_full_drops, "set_full_drops"),
	RF(RF_U64, struct run_end, events_sent, "events_sent"),
	RF(RF_U64, struct run_end, events_received, "events_received"),
};

/* after the recurrences */
static const struct run_field end_count_fields[] = {
	RF(RF_U64_SET, struct run_end, timeline_lost, "timeline_lost"),
	RF(RF_U64, struct run_end, skipped_runs, "skipped_runs"),
	RF(RF_U64, struct run_end, fds_without_event, "fds_without_event"),
	RF(RF_I64, struct run_end, crossings, "crossings"),
	RF(RF_U64, struct run_end, call_fails, "call_fails"),
	RF(RF_U64, struct run_end, call_fails_sent, "call_fails_sent"),
	RF(RF_U64, struct run_end, syscalls_without_regs, "syscalls_without_regs"),
};

/* written when a death was recorded */
static const struct run_field end_death_fields[] = {
	RF(RF_STR, struct run_end, death, "death"),
	RF(RF_STR, struct run_end, how, "how"),
};

/* written when a Java runtime was watched (unsafe_untracked between them) */
static const struct run_field end_runtime_fields[] = {
	RF(RF_STR, struct run_end, runtime, "runtime"),
	RF(RF_U64, struct run_end, runtime_events, "runtime_events"),
	RF(RF_U64, struct run_end, runtime_ringbuf_drops, "runtime_ringbuf_drops"),
};

static const struct run_field end_dumps_fields[] = {
	RF(RF_I64, struct run_end, dumps, "dumps"),
};

/* java_stacks: written when any was asked or sampled out */
static const struct run_field end_java_fields[] = {
	RF(RF_U64, struct run_end, java_asked, "asked"),
	RF(RF_U64, struct run_end, java_sampled_out, "sampled_out"),
	RF(RF_U64, struct run_end, java_reported, "reported"),
	RF(RF_U64, struct run_end, java_unmatched, "unmatched"),
};

/* unknown: written when the collector was handed anything it does not know */
static const struct run_field end_unknown_fields[] = {
	RF(RF_U64, struct run_end, unknown_events, "events"),
	RF(RF_I64, struct run_end, unknown_event_type, "event_type"),
	RF(RF_U64, struct run_end, unknown_classes, "syscall_classes"),
	RF(RF_U64, struct run_end, unknown_snap_kinds, "snapshot_kinds"),
	RF(RF_I64, struct run_end, unknown_snap_kind, "snapshot_kind"),
	RF(RF_U64, struct run_end, unknown_errnos, "errnos"),
	RF(RF_I64, struct run_end, unknown_errno, "errno"),
};

static const struct run_field end_cost_fields[] = {
	RF(RF_DBL_SET, struct run_end, collector_cpu_s, "collector_cpu_s"),
	RF(RF_U64_SET, struct run_end, collector_peak_rss_kb, "collector_peak_rss_kb"),
};

static void write_end(struct json *j, const struct run_end *r)
{
	head(j, REC_END, r->t);
	run_fields_write(j, r, end_fields, RUN_FIELDS_N(end_fields));
	if (r->nrecurred) {
		json_key(j, "recurrences");
		json_obj(j);
		for (int i = 0; i < r->nrecurred && i < 8; i++)
			json_kuint(j, r->recurred[i].rule, r->recurred[i].times);
		json_obj_end(j);
	}
	run_fields_write(j, r, end_count_fields, RUN_FIELDS_N(end_count_fields));
	if (r->probe_misses >= 0)
		json_kint(j, "probe_misses", r->probe_misses);
	if (r->death)
		run_fields_write(j, r, end_death_fields, RUN_FIELDS_N(end_death_fields));
	if (r->runtime) {
		run_fields_write(j, r, end_runtime_fields, RUN_FIELDS_N(end_runtime_fields));
		if (r->unsafe_untracked >= 0)
			json_kint(j, "unsafe_untracked", r->unsafe_untracked);
		run_fields_write(j, r, end_dumps_fields, RUN_FIELDS_N(end_dumps_fields));
	}
	if (r->java_asked || r->java_sampled_out) {
		json_key(j, "java_stacks");
		json_obj(j);
		run_fields_write(j, r, end_java_fields, RUN_FIELDS_N(end_java_fields));
		json_obj_end(j);
	}
	if (r->unknown_events || r->unknown_classes || r->unknown_snap_kinds || r->unknown_errnos) {
		json_key(j, "unknown");
		json_obj(j);
		run_fields_write(j, r, end_unknown_fields, RUN_FIELDS_N(end_unknown_fields));
		json_obj_end(j);
	}
	run_fields_write(j, r, end_cost_fields, RUN_FIELDS_N(end_cost_fields));
	json_obj_end(j);
}

static void read_end(struct json_object *o, struct run_end *r)
{
	run_fields_read(o, r, end_fields, RUN_FIELDS_N(end_fields));
	run_fields_read(o, r, end_count_fields, RUN_FIELDS_N(end_count_fields));
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
	r->probe_misses = jr_get(o, "probe_misses") ? jr_int64(o, "probe_misses", RUN_NONE) : -1;
	run_fields_read(o, r, end_death_fields, RUN_FIELDS_N(end_death_fields));
	run_fields_read(o, r, end_runtime_fields, RUN_FIELDS_N(end_runtime_fields));
	r->unsafe_untracked = jr_get(o, "unsafe_untracked") ? jr_int64(o, "unsafe_untracked", RUN_NONE) : -1;
	run_fields_read(o, r, end_dumps_fields, RUN_FIELDS_N(end_dumps_fields));
	{
		struct json_object *js = jr_get(o, "java_stacks");

		if (js && json_object_is_type(js, json_type_object))
			run_fields_read(js, r, end_java_fields, RUN_FIELDS_N(end_java_fields));
		js = jr_get(o, "unknown");
		if (js && json_object_is_type(js, json_type_object))
			run_fields_read(js, r, end_unknown_fields, RUN_FIELDS_N(end_unknown_fields));
	}
	run_fields_read(o, r, end_cost_fields, RUN_FIELDS_N(end_cost_fields));
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
