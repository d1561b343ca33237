#define _GNU_SOURCE
#include "report/rundata.h"
#include "report/run_files.h"
#include "run/records.h"
#include "run/timeline.h"
#include "run/files.h"
#include "util/vec.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static int push_sample(struct rundata *rd, const struct rd_sample *s, size_t *cap)
{
	if (vec_reserve((void **)&rd->samples, cap, rd->nsamples + 1, sizeof(*rd->samples)))
		return -ENOMEM;
	rd->samples[rd->nsamples++] = *s;
	return 0;
}

static struct rd_event *push_event(struct rundata *rd, size_t *cap)
{
	if (vec_reserve((void **)&rd->events, cap, rd->nevents + 1, sizeof(*rd->events)))
		return NULL;
	memset(&rd->events[rd->nevents], 0, sizeof(*rd->events));
	return &rd->events[rd->nevents++];
}

/* A figure in kB or bytes as MB; NAN when unknown. */
static double mb(int64_t v, double scale)
{
	return v == RUN_NONE || v < 0 ? NAN : (double)v / scale;
}

static double num(int64_t v)
{
	return v == RUN_NONE ? NAN : (double)v;
}

static void read_start(struct rundata *rd, struct json_object *o, const struct run_start *r)
{
	rd->pid = r->pid == RUN_NONE ? 0 : (int)r->pid;
	copy(rd->command, sizeof(rd->command), r->command);
	copy(rd->mode, sizeof(rd->mode), r->mode);
	copy(rd->kernel, sizeof(rd->kernel), r->kernel);
	copy(rd->arch, sizeof(rd->arch), r->arch);
	copy(rd->wall_time, sizeof(rd->wall_time), r->wall_time);
	rd->interval_s = isnan(r->interval_s) ? 0 : r->interval_s;
	rd->duration_s = isnan(r->duration_s) ? 0 : r->duration_s;
	if (!rd->start) { /* kept: the settings' strings point into it */
		rd->start = json_object_get(o);
		rd->set = r->settings;
		rd->start_rec = *r;
		rd->target_32bit = r->target_32bit;
	}
}

static int read_sample(struct rundata *rd, const struct run_sample *r, size_t *scap)
{
	struct rd_sample s = {
		.t = r->t,
		.rss_mb = mb(r->rss_kb, 1024),
		.vmsize_mb = mb(r->res[RES_VMSIZE].value, 1024),
		.heap_used_mb = mb(r->heap_used, 1048576),
		.heap_max_mb = mb(r->heap_max, 1048576),
		.heap_limit_mb = mb(r->heap_limit, 1048576),
		.drops = (double)r->ringbuf_drops + (double)r->set_full_drops,
		.gcs = r->has_gc ? (double)r->gcs : NAN,
		.gc_pause_ms = r->gc_pause_ms,
	};

	for (int k = 0; k < RES_MAX; k++) {
		s.res[k] = num(r->res[k].value);
		s.res_limit[k] = r->res[k].limit > 0 ? num(r->res[k].limit) : NAN;
	}
	return push_sample(rd, &s, scap);
}

static void read_end(struct rundata *rd, const struct run_end *r)
{
	rd->ended = 1;
	rd->end_t = r->t;
	copy(rd->end_reason, sizeof(rd->end_reason), r->reason);
	rd->ringbuf_drops = (double)r->ringbuf_drops;
	rd->set_full_drops = (double)r->set_full_drops;
	rd->runtime_drops = (double)r->runtime_ringbuf_drops;
	rd->skipped_runs = (double)r->skipped_runs;
	rd->events_sent = (double)r->events_sent;
	rd->events_received = (double)r->events_received;
	rd->collector_cpu_s = r->collector_cpu_s;
	rd->collector_peak_rss_kb = r->collector_peak_rss_kb ? (double)r->collector_peak_rss_kb : NAN;
	rd->nrecurred = 0;
	for (int i = 0; i < r->nrecurred && i < 8; i++) {
		copy(rd->recurred[i].rule, sizeof(rd->recurred[i].rule), r->recurred[i].rule);
		rd->recurred[i].times = (double)r->recurred[i].times;
		rd->nrecurred++;
	}
}

/* The events the report draws on its charts and lists, in one shape. */
static void read_event(struct rd_event *e, const struct run_record *r)
{
	e->kind = r->type;
	e->t = r->u.start.t; /* every record's first member */
	e->value = e->limit = NAN;
	switch (r->type) {
	case REC_CROSSING: {
		const struct run_crossing *x = &r->u.crossing;

		e->value = num(x->value);
		e->limit = num(x->limit);
		copy(e->rule, sizeof(e->rule), x->rule);
		copy(e->text, sizeof(e->text), x->reason);
		copy(e->file, sizeof(e->file), x->wrote);
		break;
	}
	case REC_DUMP: {
		const struct run_dump *d = &r->u.dump;

		e->seq = d->seq == RUN_NONE ? 0 : (int)d->seq;
		e->ok = d->ok;
		e->dur_ms = isnan(d->dump_ms) ? 0 : d->dump_ms;
		e->value = d->pause_ms;
		copy(e->rule, sizeof(e->rule), d->method);
		copy(e->text, sizeof(e->text), d->ok ? d->file : d->error);
		break;
	}
	case REC_DUMP_START:
		e->seq = r->u.dump_start.seq == RUN_NONE ? 0 : (int)r->u.dump_start.seq;
		copy(e->text, sizeof(e->text), r->u.dump_start.reason);
		break;
	case REC_GC:
		e->dur_ms = isnan(r->u.gc.pause_ms) ? 0 : r->u.gc.pause_ms;
		e->ok = r->u.gc.full;
		e->value = num(r->u.gc.used_after);
		break;
	case REC_OOM:
		copy(e->text, sizeof(e->text), r->u.oom.message ? r->u.oom.message : "OutOfMemoryError");
		e->value = r->u.oom.bytes == RUN_NONE ? NAN : (double)r->u.oom.bytes;
		break;
	default: { /* drift */
		const struct run_drift *d = &r->u.drift;

		snprintf(e->text, sizeof(e->text), "%s: /proc %g, BPF %g", d->what ? d->what : "?",
			 d->proc == RUN_NONE ? 0 : (double)d->proc, d->bpf == RUN_NONE ? 0 : (double)d->bpf);
		break;
	}
	}
}

static int timeline_record(struct rundata *rd, struct json_object *o, size_t *scap, size_t *ecap)
{
	struct run_record r;
	struct rd_event *e;

	switch (run_record_read(o, &r)) {
	case REC_START:
		read_start(rd, o, &r.u.start);
		return 0;
	case REC_SAMPLE:
		return read_sample(rd, &r.u.sample, scap);
	case REC_RUNTIME:
		copy(rd->runtime, sizeof(rd->runtime), r.u.runtime.runtime);
		copy(rd->runtime_lib, sizeof(rd->runtime_lib), r.u.runtime.lib);
		return 0;
	case REC_END:
		read_end(rd, &r.u.end);
		return 0;
	case REC_CROSSING:
	case REC_DUMP:
	case REC_DUMP_START:
	case REC_GC:
	case REC_OOM:
	case REC_DRIFT:
		if (!(e = push_event(rd, ecap)))
			return -ENOMEM;
		read_event(e, &r);
		return 0;
	default:
		return 0; /* big_alloc lines and the like: the JSON files have them */
	}
}

static struct json_object *load_json(const char *dir, const char *name)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return json_object_from_file(path); /* NULL when absent or unreadable */
}

static int by_seq(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y); /* not x - y: that overflows for far apart numbers */
}

static void load_analyses(struct rundata *rd)
{
	DIR *d = opendir(rd->dir);
	struct dirent *e;
	int seqs[256];
	size_t n = 0;

	if (!d)
		return;
	while ((e = readdir(d)) && n < 256) {
		int seq;

		if (run_name_dump_seq(e->d_name, &seq) == 0)
			seqs[n++] = seq;
	}
	closedir(d);
	qsort(seqs, n, sizeof(int), by_seq);
	rd->analyses = calloc(n + 1, sizeof(*rd->analyses));
	rd->analysis_seq = calloc(n + 1, sizeof(int));
	rd->an = calloc(n + 1, sizeof(*rd->an));
	if (!rd->analyses || !rd->analysis_seq || !rd->an)
		return;
	for (size_t i = 0; i < n; i++) {
		char name[64];

		run_name_dump_analysis(name, sizeof(name), seqs[i], 0);
		if (!(rd->analyses[rd->nanalyses] = load_json(rd->dir, name)))
			continue;
		if (run_analysis_read(rd->analyses[rd->nanalyses], &rd->an[rd->nanalyses])) {
			json_object_put(rd->analyses[rd->nanalyses]); /* not an analysis, or no memory */
			continue;
		}
		rd->analysis_seq[rd->nanalyses++] = seqs[i];
	}
}

int rundata_load(struct rundata *rd, const char *dir, struct ooms_err *err)
{
	char path[4400], *line = NULL;
	size_t cap = 0, scap = 0, ecap = 0;
	ssize_t n;
	FILE *f;
	int e = 0;

	memset(rd, 0, sizeof(*rd));
	snprintf(rd->dir, sizeof(rd->dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/" RUN_TIMELINE, dir);
	f = fopen(path, "re");
	if (!f) {
		e = -errno;
		return ooms_err_set(err, e, "%s is not a run directory (no " RUN_TIMELINE ": %s)", dir, strerror(-e));
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		struct json_object *o = json_tokener_parse(line);

		if (!o) {
			rd->bad_lines++; /* a line cut by a crash of the writer: the rest still counts */
			continue;
		}
		e = timeline_record(rd, o, &scap, &ecap);
		json_object_put(o);
		if (e)
			break;
	}
	free(line);
	fclose(f);
	if (e) {
		ooms_err_set(err, e, "reading %s: %s", path, strerror(-e));
		rundata_free(rd);
		return e;
	}
	/* each file the table reads: parsed, then read by its row (a file
	 * that does not read as its kind is left as absent) */
	for (size_t i = 0; rd_files[i]; i++) {
		const struct rd_file *r = rd_files[i];

		if (!r->load || !(rd->file_docs[i] = load_json(dir, r->name)))
			continue;
		if (r->load(rd, rd->file_docs[i], &rd->file_slots[i])) {
			if (r->free)
				r->free(rd, rd->file_slots[i]);
			rd->file_slots[i] = NULL;
			json_object_put(rd->file_docs[i]);
			rd->file_docs[i] = NULL;
		}
	}
	load_analyses(rd);
	return 0;
}

void rundata_free(struct rundata *rd)
{
	json_object_put(rd->start);
	for (size_t i = 0; rd_files[i]; i++) {
		if (rd->file_docs[i] && rd_files[i]->free)
			rd_files[i]->free(rd, rd->file_slots[i]);
		json_object_put(rd->file_docs[i]);
	}
	for (size_t i = 0; i < rd->nanalyses; i++) {
		run_analysis_free(&rd->an[i]);
		json_object_put(rd->analyses[i]);
	}
	free(rd->an);
	free(rd->analyses);
	free(rd->analysis_seq);
	free(rd->samples);
	free(rd->events);
	memset(rd, 0, sizeof(*rd));
}
