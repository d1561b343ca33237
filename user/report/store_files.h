/* Each run-directory file's rows in the store (store_files.c), as
 * run_files.c's rows name them; a crossing's snapshot's, for store_rows.c. */
#ifndef OOMSCOPE_REPORT_STORE_FILES_H
#define OOMSCOPE_REPORT_STORE_FILES_H

#include "report/rundata.h"

struct store;
int store_fds_rows(struct store *s, const struct rundata *rd, const char *run_id);
int store_threads_rows(struct store *s, const struct rundata *rd, const char *run_id);
int store_memory_file_rows(struct store *s, const struct rundata *rd, const char *run_id);
int store_failures_rows(struct store *s, const struct rundata *rd, const char *run_id);
int store_allocs_rows(struct store *s, const struct rundata *rd, const char *run_id);
/* One snapshot file's groups (threads: by name; fds: by kind), a row per
 * creation stack; a crossing's memory-N.json (0 when file is none). */
int store_snapshot_rows(struct store *s, const char *run_id, const char *snap, const struct run_snapshot *doc);
int store_memory_crossing_rows(struct store *s, const struct rundata *rd, const char *run_id, const char *file);

#endif
