/* trace.json: the Chrome trace event format (the JSON object form), which
 * Perfetto's UI and chrome://tracing open. Timestamps in microseconds since
 * oomscope attached. Tracks:
 *   counters ("C"): "memory (MB)" {rss, vmsize}, "Java heap (MB)" {used, max,
 *     rule}, "threads" {live}, "fds" {open}, "lost events" {count};
 *   slices ("X"): GC pauses (thread "GC"), heap dumps (thread "dumps");
 *   instants ("i"): threshold crossings, OOM throws; large allocations on
 *     the track of the app's thread that made them, named as the app named it. */
#include <math.h>
#include <string.h>

#include "util/u64map.h"
#include "report/escape.h"
#include "report/report.h"

#define TID_MAIN 1
#define TID_GC 2
#define TID_DUMPS 3

static int first = 1;

static void sep(FILE *f)
{
	fputs(first ? "\n" : ",\n", f);
	first = 0;
}

static void meta(FILE *f, int pid, int tid, const char *what, const char *name)
{
	sep(f);
	fprintf(f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", what, pid, tid);
	esc_json(f, name);
	fputs("}}", f);
}

static void counter(FILE *f, int pid, const char *name, double t, const char *k1, double v1, const char *k2,
		    double v2, const char *k3, double v3)
{
	if (isnan(v1) && isnan(v2) && isnan(v3))
		return;
	sep(f);
	fprintf(f, "{\"name\":\"%s\",\"ph\":\"C\",\"ts\":%.0f,\"pid\":%d,\"tid\":%d,\"args\":{", name, t * 1e6, pid, TID_MAIN);
	int n = 0;

	if (!isnan(v1))
		fprintf(f, "%s\"%s\":%.3f", n++ ? "," : "", k1, v1);
	if (k2 && !isnan(v2))
		fprintf(f, "%s\"%s\":%.3f", n++ ? "," : "", k2, v2);
	if (k3 && !isnan(v3))
		fprintf(f, "%s\"%s\":%.3f", n++ ? "," : "", k3, v3);
	fputs("}}", f);
}

/* A tid of the app's that would fall on one of the tracks above moves away. */
static int app_tid(double tid)
{
	return tid > TID_DUMPS ? (int)tid : 1000000000 + (int)tid;
}

/* The large allocations: instants on their threads' tracks. */
static void allocations(FILE *f, int pid, const struct rundata *rd)
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
			meta(f, pid, app_tid(a->tid), "thread_name", a->thread);
		snprintf(name, sizeof(name), "large allocation %.1f MB", a->bytes / 1048576);
		sep(f);
		fprintf(f, "{\"name\":\"%s\",\"cat\":\"alloc\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%.0f,\"pid\":%d,\"tid\":%d,\"args\":{\"bytes\":%.0f,\"function\":",
			name, a->t * 1e6, pid, app_tid(a->tid), a->bytes);
		esc_json(f, a->function ? a->function : "");
		fputs(",\"allocated_by\":", f);
		esc_json(f, a->by ? a->by : "");
		fputs(",\"state\":", f);
		esc_json(f, a->state ? a->state : "");
		fputs("}}", f);
	}
	u64map_free(&named);
}

void ooms_report_trace(const struct rundata *rd, FILE *f)
{
	int pid = rd->pid ? rd->pid : 1;

	first = 1;
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":\"oomscope\",\"command\":", f);
	esc_json(f, rd->command);
	fputs(",\"started\":", f);
	esc_json(f, rd->wall_time);
	fputs("},\"traceEvents\":[", f);
	meta(f, pid, TID_MAIN, "process_name", rd->command[0] ? rd->command : "target");
	meta(f, pid, TID_MAIN, "thread_name", "oomscope samples and crossings");
	meta(f, pid, TID_GC, "thread_name", "GC");
	meta(f, pid, TID_DUMPS, "thread_name", "heap dumps");
	for (size_t i = 0; i < rd->nsamples; i++) {
		const struct rd_sample *s = &rd->samples[i];

		counter(f, pid, "memory (MB)", s->t, "rss", s->rss_mb, "vmsize", s->vmsize_mb, NULL, NAN);
		counter(f, pid, "Java heap (MB)", s->t, "used", s->heap_used_mb, "max", s->heap_max_mb, "rule",
			s->heap_limit_mb);
		counter(f, pid, "threads", s->t, "live", s->threads, NULL, NAN, NULL, NAN);
		counter(f, pid, "fds", s->t, "open", s->fds, NULL, NAN, NULL, NAN);
		counter(f, pid, "lost events", s->t, "count", s->drops, NULL, NAN, NULL, NAN);
	}
	for (size_t i = 0; i < rd->nevents; i++) {
		const struct rd_event *e = &rd->events[i];

		if (e->kind == REC_GC) {
			sep(f);
			fprintf(f, "{\"name\":\"%s GC\",\"cat\":\"gc\",\"ph\":\"X\",\"ts\":%.0f,\"dur\":%.0f,\"pid\":%d,\"tid\":%d,\"args\":{\"pause_ms\":%.3f}}",
				e->ok ? "full" : "young", (e->t - e->dur_ms / 1000) * 1e6, e->dur_ms * 1000, pid, TID_GC,
				e->dur_ms);
		} else if (e->kind == REC_DUMP) {
			sep(f);
			fprintf(f, "{\"name\":\"heap dump %d\",\"cat\":\"dump\",\"ph\":\"X\",\"ts\":%.0f,\"dur\":%.0f,\"pid\":%d,\"tid\":%d,\"args\":{\"ok\":%s,\"method\":",
				e->seq, (e->t - e->dur_ms / 1000) * 1e6, e->dur_ms * 1000, pid, TID_DUMPS,
				e->ok ? "true" : "false");
			esc_json(f, e->rule);
			fprintf(f, ",\"app_pause_ms\":%.3f,\"file_or_error\":", isnan(e->value) ? 0 : e->value);
			esc_json(f, e->text);
			fputs("}}", f);
		} else if (e->kind == REC_CROSSING || e->kind == REC_OOM) {
			int cross = e->kind == REC_CROSSING;

			sep(f);
			fputs("{\"name\":", f);
			esc_json(f, cross ? e->rule : "OutOfMemoryError");
			fprintf(f, ",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"p\",\"ts\":%.0f,\"pid\":%d,\"tid\":%d,\"args\":{\"reason\":",
				cross ? "crossing" : "oom", e->t * 1e6, pid, TID_MAIN);
			esc_json(f, e->text);
			fputs("}}", f);
		}
	}
	allocations(f, pid, rd);
	fputs("\n]}\n", f);
}
