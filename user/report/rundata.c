#define _GNU_SOURCE
#include "report/rundata.h"
#include "run/records.h"
#include "run/files.h"
#include "util/vec.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct json_object *rd_get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

struct json_object *rd_arr(struct json_object *o, const char *key)
{
	struct json_object *v = rd_get(o, key);

	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

const char *rd_str(struct json_object *o, const char *key)
{
	struct json_object *v = rd_get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

double rd_num(struct json_object *o, const char *key, double dflt)
{
	struct json_object *v = rd_get(o, key);

	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return dflt;
	return json_object_get_double(v);
}

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

static double mb(struct json_object *o, const char *key, double scale)
{
	double v = rd_num(o, key, NAN);

	return isnan(v) || v < 0 ? NAN : v / scale;
}

static void read_start(struct rundata *rd, struct json_object *o)
{
	rd->pid = (int)rd_num(o, "pid", 0);
	copy(rd->command, sizeof(rd->command), rd_str(o, "command"));
	copy(rd->mode, sizeof(rd->mode), rd_str(o, "mode"));
	copy(rd->kernel, sizeof(rd->kernel), rd_str(o, "kernel"));
	copy(rd->arch, sizeof(rd->arch), rd_str(o, "arch"));
	copy(rd->wall_time, sizeof(rd->wall_time), rd_str(o, "wall_time"));
	rd->interval_s = rd_num(o, "interval_s", 0);
	rd->duration_s = rd_num(o, "duration_s", 0);
	if (!rd->start) {
		rd->start = json_object_get(o);
		rd->settings = rd_get(o, "settings");
	}
}

static int read_sample(struct rundata *rd, struct json_object *o, size_t *scap)
{
	struct rd_sample s = {
		.t = rd_num(o, "t", 0),
		.rss_mb = mb(o, "rss_kb", 1024),
		.vmsize_mb = mb(o, "vmsize_kb", 1024),
		.threads = rd_num(o, "threads", NAN),
		.thread_limit = rd_num(o, "thread_limit", NAN),
		.fds = rd_num(o, "fds", NAN),
		.fd_limit = rd_num(o, "fd_limit", NAN),
		.heap_used_mb = mb(o, "heap_used", 1048576),
		.heap_max_mb = mb(o, "heap_max", 1048576),
		.heap_limit_mb = mb(o, "heap_limit", 1048576),
		.drops = rd_num(o, "ringbuf_drops", 0) + rd_num(o, "set_full_drops", 0),
		.gcs = rd_num(o, "gcs", NAN),
		.gc_pause_ms = rd_num(o, "gc_pause_ms", NAN),
	};

	return push_sample(rd, &s, scap);
}

static void read_end(struct rundata *rd, struct json_object *o)
{
	rd->ended = 1;
	rd->end_t = rd_num(o, "t", 0);
	copy(rd->end_reason, sizeof(rd->end_reason), rd_str(o, "reason"));
	rd->ringbuf_drops = rd_num(o, "ringbuf_drops", 0);
	rd->set_full_drops = rd_num(o, "set_full_drops", 0);
	rd->runtime_drops = rd_num(o, "runtime_ringbuf_drops", 0);
	rd->events_sent = rd_num(o, "events_sent", 0);
	rd->events_received = rd_num(o, "events_received", 0);
}

static int timeline_record(struct rundata *rd, struct json_object *o, size_t *scap, size_t *ecap)
{
	enum run_rec type = run_rec_parse(rd_str(o, "type"));
	struct rd_event *e;

	switch (type) {
	case REC_START:
		read_start(rd, o);
		return 0;
	case REC_SAMPLE:
		return read_sample(rd, o, scap);
	case REC_RUNTIME:
		copy(rd->runtime, sizeof(rd->runtime), rd_str(o, "runtime"));
		copy(rd->runtime_lib, sizeof(rd->runtime_lib), rd_str(o, "lib"));
		return 0;
	case REC_END:
		read_end(rd, o);
		return 0;
	case REC_CROSSING:
	case REC_DUMP:
	case REC_DUMP_START:
	case REC_GC:
	case REC_OOM:
	case REC_DRIFT:
		break;
	default:
		return 0; /* big_alloc lines and the like: the JSON files have them */
	}
	if (!(e = push_event(rd, ecap)))
		return -ENOMEM;
	e->kind = type;
	e->t = rd_num(o, "t", 0);
	e->seq = (int)rd_num(o, "seq", 0);
	e->value = rd_num(o, "value", NAN);
	e->limit = rd_num(o, "limit", NAN);
	if (type == REC_CROSSING) {
		copy(e->rule, sizeof(e->rule), rd_str(o, "rule"));
		copy(e->text, sizeof(e->text), rd_str(o, "reason"));
		copy(e->file, sizeof(e->file), rd_str(o, "wrote"));
	} else if (type == REC_DUMP) {
		const struct json_object *ok = rd_get(o, "ok");

		e->ok = ok && json_object_get_boolean(ok);
		e->dur_ms = rd_num(o, "dump_ms", 0);
		e->value = rd_num(o, "pause_ms", NAN);
		copy(e->rule, sizeof(e->rule), rd_str(o, "method"));
		copy(e->text, sizeof(e->text), e->ok ? rd_str(o, "file") : rd_str(o, "error"));
	} else if (type == REC_DUMP_START) {
		copy(e->text, sizeof(e->text), rd_str(o, "reason"));
	} else if (type == REC_GC) {
		const struct json_object *full = rd_get(o, "full");

		e->dur_ms = rd_num(o, "pause_ms", 0);
		e->ok = full && json_object_get_boolean(full);
		e->value = rd_num(o, "used_after", NAN);
	} else if (type == REC_OOM) {
		snprintf(e->text, sizeof(e->text), "%s", rd_str(o, "message") ? rd_str(o, "message") : "OutOfMemoryError");
		e->value = rd_num(o, "bytes", NAN);
	} else {
		snprintf(e->text, sizeof(e->text), "%s: /proc %g, BPF %g", rd_str(o, "what") ? rd_str(o, "what") : "?",
			 rd_num(o, "proc", 0), rd_num(o, "bpf", 0));
	}
	return 0;
}

static struct json_object *load_json(const char *dir, const char *name)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return json_object_from_file(path); /* NULL when absent or unreadable */
}

static int by_seq(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
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
		int seq, pos = 0;

		if (sscanf(e->d_name, "dump-%d.analysis.json%n", &seq, &pos) == 1 && !e->d_name[pos])
			seqs[n++] = seq;
	}
	closedir(d);
	qsort(seqs, n, sizeof(int), by_seq);
	rd->analyses = calloc(n + 1, sizeof(*rd->analyses));
	rd->analysis_seq = calloc(n + 1, sizeof(int));
	if (!rd->analyses || !rd->analysis_seq)
		return;
	for (size_t i = 0; i < n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "dump-%d.analysis.json", seqs[i]);
		if ((rd->analyses[rd->nanalyses] = load_json(rd->dir, name)))
			rd->analysis_seq[rd->nanalyses++] = seqs[i];
	}
}

static int alloc_by_time(const void *a, const void *b)
{
	const struct rd_alloc *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

static void load_alloc_list(struct rundata *rd)
{
	struct json_object *as = rd_arr(rd->allocs, "allocations");
	size_t n = as ? json_object_array_length(as) : 0;

	if (!n || !(rd->alloc_list = calloc(n, sizeof(*rd->alloc_list))))
		return;
	for (size_t i = 0; i < n; i++) {
		struct json_object *a = json_object_array_get_idx(as, i);
		struct rd_alloc r = {rd_num(a, "t", NAN), rd_num(a, "bytes", NAN), rd_num(a, "tid", 0),
				     rd_str(a, "function"), rd_str(a, "thread"), rd_str(a, "allocated_by"),
				     rd_str(a, "state")};

		if (!isnan(r.t) && !isnan(r.bytes) && r.t >= 0)
			rd->alloc_list[rd->nalloc_list++] = r;
	}
	qsort(rd->alloc_list, rd->nalloc_list, sizeof(*rd->alloc_list), alloc_by_time);
}

int rundata_load(struct rundata *rd, const char *dir, char *err, size_t err_len)
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
		snprintf(err, err_len, "%s is not a run directory (no timeline.jsonl: %s)", dir, strerror(-e));
		return e;
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
		snprintf(err, err_len, "reading %s: %s", path, strerror(-e));
		rundata_free(rd);
		return e;
	}
	rd->threads = load_json(dir, RUN_THREADS);
	rd->fds = load_json(dir, RUN_FDS);
	rd->allocs = load_json(dir, RUN_ALLOCS);
	load_alloc_list(rd);
	rd->vmsize = load_json(dir, RUN_VMSIZE);
	rd->death = load_json(dir, RUN_DEATH);
	rd->failures = load_json(dir, RUN_FAILURES);
	load_analyses(rd);
	return 0;
}

void rundata_free(struct rundata *rd)
{
	json_object_put(rd->start);
	json_object_put(rd->threads);
	json_object_put(rd->fds);
	json_object_put(rd->allocs);
	json_object_put(rd->vmsize);
	json_object_put(rd->death);
	json_object_put(rd->failures);
	for (size_t i = 0; i < rd->nanalyses; i++)
		json_object_put(rd->analyses[i]);
	free(rd->analyses);
	free(rd->analysis_seq);
	free(rd->alloc_list);
	free(rd->samples);
	free(rd->events);
	memset(rd, 0, sizeof(*rd));
}
