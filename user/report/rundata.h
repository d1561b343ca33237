/* A run directory read back: the timeline's records and the JSON files the
 * collector wrote (threads.json, fds.json, allocs.json, dump-N.analysis.json),
 * whatever of them is there. The report, the trace export, the pprof export
 * and the aggregation read this; nothing here writes. */
#ifndef OOMSCOPE_REPORT_RUNDATA_H
#define OOMSCOPE_REPORT_RUNDATA_H

#include "util/jsonread.h"
#include "util/err.h"

#include <stddef.h>
#include <stdint.h>
#include "run/records.h"
#include "run/timeline.h"
#include "run/allocs.h"
#include "run/death.h"
#include "run/failures.h"
#include "run/snapshot.h"
#include "run/analysis.h"
#include "run/memory.h"

struct json_object;

#define RD_FILES_MAX 32 /* rows of run_files.c's table */

/* One sample; NAN where the figure is unknown. */
struct rd_sample {
	double t;
	double rss_mb, vmsize_mb;
	double res[RES_MAX], res_limit[RES_MAX]; /* the watched resources (detect/resource.h), NAN unknown */
	double heap_used_mb, heap_max_mb, heap_limit_mb;
	double drops;        /* ring buffer + set-full drops, cumulative */
	double gcs, gc_pause_ms;
};

struct rd_recurred {         /* a rule that held again after its crossing, without re-arming */
	char rule[32];
	double times;
};

struct rd_event {            /* crossings, dumps, GCs, OOMs, drifts: a time and words */
	double t;
	double dur_ms;       /* GC pause, dump time; 0 otherwise */
	enum run_rec kind;   /* REC_CROSSING, REC_DUMP, REC_DUMP_START, REC_GC, REC_OOM, REC_DRIFT */
	char rule[32];       /* crossing: the rule; dump: the method */
	char text[512];      /* crossing: the reason; dump: file or error; oom: message */
	int ok;              /* dump */
	int seq;             /* dump */
	char file[64];       /* crossing: the snapshot it wrote ("fds-1.json") */
	double value, limit;
};

struct rd_alloc {             /* one of allocs.json's allocations (strings owned by rundata.allocs) */
	double t, bytes, tid;
	const char *function, *thread, *by, *state; /* NULL when absent */
};

struct rundata {
	char dir[4096];
	struct rd_recurred recurred[8]; /* the end record's recurrences */
	int nrecurred;
	/* start */
	int pid;
	char command[1024], mode[16], kernel[128], arch[16], wall_time[40];
	double interval_s, duration_s;
	struct run_settings set;        /* the same, read (strings owned by start) */
	int target_32bit;
	struct json_object *start;
	struct run_start start_rec;     /* the start record read (strings owned by start); run_id NULL: none */
	/* runtime */
	char runtime[16], runtime_lib[512];
	/* end */
	int ended;
	double end_t;
	char end_reason[64];
	double ringbuf_drops, set_full_drops, runtime_drops, events_sent, events_received;
	double skipped_runs; /* runs of its programs the kernel skipped (may be events) */
	double collector_cpu_s, collector_peak_rss_kb; /* oomscope's own cost; NAN when not known */
	/* series and events */
	struct rd_sample *samples;
	size_t nsamples;
	struct rd_event *events;
	size_t nevents;
	size_t bad_lines;               /* timeline lines that did not parse */
	/* the files beside the timeline as parsed, by their row in run_files.c's
	 * table (NULL when absent), and a row's data where it has no field below */
	struct json_object *file_docs[RD_FILES_MAX];
	void *file_slots[RD_FILES_MAX];
	struct run_snapshot threads, fds; /* threads.json, fds.json read (have_threads, have_fds) */
	int have_threads, have_fds;
	struct run_allocs allocs;       /* allocs.json read (have_allocs) */
	int have_allocs;
	struct run_death death;         /* death.json read (have_death) */
	struct run_failures failures;   /* failures.json read (have_failures) */
	int have_death, have_failures;
	struct run_memory memory;       /* memory.json read (have_memory) */
	int have_memory;
	struct rd_alloc *alloc_list;    /* allocs.json's allocations in time order, damaged ones left out */
	size_t nalloc_list;
	struct json_object **analyses;  /* dump-N.analysis.json, by N, as parsed */
	struct run_analysis *an;        /* the same, read */
	int *analysis_seq;
	size_t nanalyses;
};

/* Reads dir: the timeline, then each file of run_files.c's table. 0, or
 * -errno with err set (no timeline.jsonl: not a run directory). */
int rundata_load(struct rundata *rd, const char *dir, struct ooms_err *err);
void rundata_free(struct rundata *rd);

/* The json objects' readers: util/jsonread.h. */

#endif
