/* The run directory's files, named once: the collector writes them, the
 * report, the exports and the aggregation read them (docs/run-directory.md). */
#ifndef OOMSCOPE_RUN_FILES_H
#define OOMSCOPE_RUN_FILES_H

#define RUN_TIMELINE "timeline.jsonl" /* one record per line */
#define RUN_THREADS "threads.json"    /* the groups; BASE-N.json at crossing N, BASE-at-failure.json */
#define RUN_FDS "fds.json"
#define RUN_VMSIZE "vmsize.json"
#define RUN_ALLOCS "allocs.json"      /* --big-alloc */
#define RUN_ALLOCS_TEXT "allocs.txt"
#define RUN_DIRECT "direct.json"      /* HotSpot: direct buffers' memory by call site (direct-N.json at a crossing) */
#define RUN_DEATH "death.json"
#define RUN_FAILURES "failures.json"
#define RUN_REPORT "report.html"
#define RUN_TRACE "trace.json"
#define RUN_PPROF "allocs.pb.gz"

#endif
