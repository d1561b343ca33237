/* The run directory's files, named once: the collector writes them, the
 * report, the exports and the aggregation read them (docs/run-directory.md).
 * The names of the numbered ones (a crossing's snapshots, heap dumps and
 * their analyses) are made and read back by the functions below, here
 * alone. */
#ifndef OOMSCOPE_RUN_FILES_H
#define OOMSCOPE_RUN_FILES_H

#include <stddef.h>
#include "detect/resource.h"

#define RUN_TIMELINE "timeline.jsonl" /* one record per line */
#define RUN_THREADS "threads.json"    /* the groups; BASE-N.json at crossing N, BASE-at-failure.json */
#define RUN_FDS "fds.json"
#define RUN_VMSIZE "vmsize.json"
#define RUN_MEMORY "memory.json"     /* memory by category, its growth by code (memory-N.json at a crossing) */
#define RUN_ALLOCS "allocs.json"      /* --big-alloc */
#define RUN_ALLOCS_TEXT "allocs.txt"
#define RUN_DIRECT "direct.json"      /* HotSpot: direct buffers' memory by call site (direct-N.json at a crossing) */
#define RUN_DEATH "death.json"
#define RUN_FAILURES "failures.json"
#define RUN_REPORT "report.html"
#define RUN_TRACE "trace.json"
#define RUN_PPROF "allocs.pb.gz"
#define RUN_PPROF_MEMORY "memory.pb.gz" /* memory.json's growth by code as a pprof profile */
#define RUN_CHILDREN "children"       /* a child process's run directory: children/PID-NAME */
#define RUN_CHILD_TERMINAL ".terminal.txt" /* its terminal, beside it: children/PID-NAME.terminal.txt */

/* What a numbered name is numbered by. */
#define RUN_AT_FAILURE (-1)  /* BASE-at-failure.json: the state at the first failing call */
#define RUN_DUMP_OOM (-2)    /* dump-oom.*: the dump armed for the OutOfMemoryError */

/* The file of a snapshot kind: RUN_THREADS, RUN_FDS or RUN_VMSIZE. */
const char *run_snapshot_file(enum ooms_snap kind);
/* FILE numbered SEQ ("fds.json", 3: "fds-3.json"; RUN_AT_FAILURE:
 * "fds-at-failure.json"; 0: FILE itself) into out. 0, or -1 when it does
 * not fit. */
int run_name_numbered(char *out, size_t len, const char *file, int seq);
/* The snapshot kind NAME is the whole or a numbered snapshot of (threads,
 * fds, vmsize: FILE, BASE-N.json, BASE-at-failure.json), or -1. */
int run_name_snapshot_kind(const char *name);
/* Heap dump SEQ (or RUN_DUMP_OOM): "dump-SEQ.hprof" and ext (".gz", ".xz",
 * ""); its analysis "dump-SEQ.analysis.json" (text: ".txt"). 0 or -1. */
int run_name_dump(char *out, size_t len, int seq, const char *ext);
int run_name_dump_analysis(char *out, size_t len, int seq, int text);
/* SEQ of a dump's JSON analysis' name (dump-SEQ.analysis.json, SEQ an
 * int) into *seq: 0, or -1 for another name. */
int run_name_dump_seq(const char *name, int *seq);
/* Whether NAME is a heap dump's ("dump-3.hprof.gz", "dump-oom.hprof"). */
int run_name_is_dump(const char *name);

#endif
