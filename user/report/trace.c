/* trace.json: the Chrome trace event format (the JSON object form), which
 * Perfetto's UI and chrome://tracing open. Timestamps in microseconds since
 * oomscope attached. Tracks:
 *   counters ("C"): "memory (MB)" {rss, vmsize}, "Java heap (MB)" {used, max,
 *     rule}, "threads" {live}, "fds" {open}, "lost events" {count};
 *   slices ("X"): GC pauses (thread "GC"), heap dumps (thread "dumps");
 *   instants ("i"): threshold crossings, OOM throws; large allocations on
 *     the track of the app's thread that made them, named as the app named it.
 * Written with util/json. */
#include <math.h>
#include <string.h>

#include "util/json.h"
#include "util/u64map.h"
#include "report/report.h"

#define TID_MAIN 1
#define TID_GC 2
#define TID_DUMPS 3

/* An event's common members: {"name":..,"cat":..,"ph":..,"ts":..,"pid":..,"tid":.. (cat NULL: none) */
static void event(struct json *j, const char *name, const char *cat, const char *ph, double t, int pid, int tid)
{
	json_obj(j);
	json_kstr(j, "name", name);
	if (cat)
		json_kstr(j, "cat", cat);
	json_kstr(j, "ph", ph);
	if (!isnan(t))
		json_kfixed(j, "ts", t * 1e6, 0);
	json_kint(j, "pid", pid);
	json_kint(j, "tid", tid);
}

static void meta(struct json *j, int pid, int tid, const char *what, const char *name)
{
	event(j, what, NULL, "M", NAN, pid, tid);
	json_key(j, "args");
	json_obj(j);
	json_kstr(j, "name", name);
	json_obj_end(j);
	json_obj_end(j);
}

static void counter(struct json *j, int pid, const char *name, double t, const char *k1, double v1, const char *k2,
		    double v2, const char *k3, double v3)
{
	if (isnan(v1) && isnan(v2) && isnan(v3))
		return;
	event(j, name, NULL, "C", t, pid, TID_MAIN);
	json_key(j, "args");
	json_obj(j);
	if (!isnan(v1))
		json_kfixed(j, k1, v1, 3);
	if (k2 && !isnan(v2))
		json_kfixed(j, k2, v2, 3);
	if (k3 && !isnan(v3))
		json_kfixed(j, k3, v3, 3);
	json_obj_end(j);
	json_obj_end(j);
}

/* A tid of the app's that would fall on one of the tracks above moves away. */
static int app_tid(double tid)
{
	return tid > TID_DUMPS ? (int)tid : 1000000000 + (int)tid;
}

/* The large allocations: instants on their threads' tracks. */
static void allocations(struct json *j, int pid, const struct rundata *rd)
{
	struct u64map named; /* tid -> 1 once its track is named */

	if (!rd->nalloc_list || u64map_init(&named, 64))
		return;
	for (size_t i = 0; i < rd->nalloc_list; i++) {
		const struct rd_alloc *a = &rd->alloc_list[i];
		uint32_t one;
		char name[64];

		if (a->tid <= 0 || a->tid > 4194304)
			continue; /* no thread to put it on */
		/* the thread's name, once: the first allocation of that tid names it */
		if (!u64map_get(&named, (uint64_t)a->tid, &one) && a->thread &&
		    u64map_put(&named, (uint64_t)a->tid, 1) == 0)
			meta(j, pid, app_tid(a->tid), "thread_name", a->thread);
		snprintf(name, sizeof(name), "large allocation %.1f MB", a->bytes / 1048576);
		event(j, name, "alloc", "i", a->t, pid, app_tid(a->tid));
		json_kstr(j, "s", "t");
		json_key(j, "args");
		json_obj(j);
		json_kfixed(j, "bytes", a->bytes, 0);
		json_kstr(j, "function", a->function ? a->function : "");
		json_kstr(j, "allocated_by", a->by ? a->by : "");
		json_kstr(j, "state", a->state ? a->state : "");
		json_obj_end(j);
		json_obj_end(j);
	}
	u64map_free(&named);
}

void ooms_report_trace(const struct rundata *rd, FILE *f)
{
	int pid = rd->pid ? rd->pid : 1;
	struct json j;

	json_init(&j, f, 0);
	json_obj(&j);
	json_kstr(&j, "displayTimeUnit", "ms");
	json_key(&j, "otherData");
	json_obj(&j);
	json_kstr(&j, "tool", "oomscope");
	json_kstr(&j, "command", rd->command);
	json_kstr(&j, "started", rd->wall_time);
	json_obj_end(&j);
	json_key(&j, "traceEvents");
	json_arr(&j);
	meta(&j, pid, TID_MAIN, "process_name", rd->command[0] ? rd->command : "target");
	meta(&j, pid, TID_MAIN, "thread_name", "oomscope samples and crossings");
	meta(&j, pid, TID_GC, "thread_name", "GC");
	meta(&j, pid, TID_DUMPS, "thread_name", "heap dumps");
	for (size_t i = 0; i < rd->nsamples; i++) {
		const struct rd_sample *s = &rd->samples[i];

		counter(&j, pid, "memory (MB)", s->t, "rss", s->rss_mb, "vmsize", s->vmsize_mb, NULL, NAN);
		counter(&j, pid, "Java heap (MB)", s->t, "used", s->heap_used_mb, "max", s->heap_max_mb, "rule",
			s->heap_limit_mb);
		for (int r = 0; r < RES_MAX; r++) /* a track per watched resource with a chart of its own */
			if (ooms_resources[r].chart)
				counter(&j, pid, ooms_resources[r].name, s->t, "count", s->res[r], NULL, NAN, NULL, NAN);
		counter(&j, pid, "lost events", s->t, "count", s->drops, NULL, NAN, NULL, NAN);
	}
	for (size_t i = 0; i < rd->nevents; i++) {
		const struct rd_event *e = &rd->events[i];
		double start = e->t - e->dur_ms / 1000;

		if (e->kind == REC_GC) {
			event(&j, e->ok ? "full GC" : "young GC", "gc", "X", start, pid, TID_GC);
			json_kfixed(&j, "dur", e->dur_ms * 1000, 0);
			json_key(&j, "args");
			json_obj(&j);
			json_kfixed(&j, "pause_ms", e->dur_ms, 3);
			json_obj_end(&j);
			json_obj_end(&j);
		} else if (e->kind == REC_DUMP) {
			char name[48];

			snprintf(name, sizeof(name), "heap dump %d", e->seq);
			event(&j, name, "dump", "X", start, pid, TID_DUMPS);
			json_kfixed(&j, "dur", e->dur_ms * 1000, 0);
			json_key(&j, "args");
			json_obj(&j);
			json_kbool(&j, "ok", e->ok);
			json_kstr(&j, "method", e->rule);
			json_kfixed(&j, "app_pause_ms", isnan(e->value) ? 0 : e->value, 3);
			json_kstr(&j, "file_or_error", e->text);
			json_obj_end(&j);
			json_obj_end(&j);
		} else if (e->kind == REC_CROSSING || e->kind == REC_OOM) {
			int cross = e->kind == REC_CROSSING;

			event(&j, cross ? e->rule : "OutOfMemoryError", cross ? "crossing" : "oom", "i", e->t, pid, TID_MAIN);
			json_kstr(&j, "s", "p");
			json_key(&j, "args");
			json_obj(&j);
			json_kstr(&j, "reason", e->text);
			json_obj_end(&j);
			json_obj_end(&j);
		}
	}
	allocations(&j, pid, rd);
	json_arr_end(&j);
	json_obj_end(&j);
	json_end_line(&j);
}
