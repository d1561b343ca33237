/* The timeline's record types (timeline.jsonl: one JSON object per line,
 * its "type" one of these names), named once for the writers (collector,
 * Java heap watch) and the readers (report/rundata.c). The fields of each
 * are in docs/run-directory.md. */
#ifndef OOMSCOPE_RUN_RECORDS_H
#define OOMSCOPE_RUN_RECORDS_H

enum run_rec {
	REC_UNKNOWN = 0,
	REC_START,
	REC_SAMPLE,
	REC_CROSSING,
	REC_DRIFT,
	REC_FAILURE,
	REC_DEATH,
	REC_END,
	REC_BIG_ALLOC,   /* and alloc_freed: the allocation's newest state */
	REC_RUNTIME,
	REC_GC,
	REC_OOM,
	REC_DUMP_START,
	REC_DUMP,
	REC_MAX,
};

/* "start", "sample", ... */
const char *run_rec_name(enum run_rec r);
/* The type of a record's "type" string (REC_UNKNOWN for another). */
enum run_rec run_rec_parse(const char *name);

#endif
