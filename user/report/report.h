/* The run report and its exports, from a run directory:
 *   report.html   one self-contained page: charts (inline SVG), findings, tables;
 *   trace.json    Chrome trace event format (Perfetto, chrome://tracing);
 *   allocs.pb.gz  a pprof profile of the large allocations by stack.
 *   memory.pb.gz  a pprof profile of the memory's growth by code (sampled page faults).
 * Each file is written whole or not at all. */
#ifndef OOMSCOPE_REPORT_H
#define OOMSCOPE_REPORT_H

#include <stdio.h>
#include "report/rundata.h"
#include "util/err.h"

/* progress(ctx, words) between phases; may be NULL. Returns 0, or -errno
 * with err set. What the run directory lacks is said in the page. */
int ooms_report_write(const char *dir, void (*progress)(void *ctx, const char *what), void *pctx,
		      struct ooms_err *err);
/* The same, the run first added to the lab's store db (store.h: a file or a
 * PostgreSQL connection string), and the page saying beside its findings
 * how many other runs there saw each and since when. */
int ooms_report_write_db(const char *dir, const char *db, void (*progress)(void *ctx, const char *what), void *pctx,
			 struct ooms_err *err);

/* What the lab's store says of the run's findings (NULL: no store asked). */
struct store_seen;
struct report_lab {
	const char *backend;
	const struct store_seen *rows;
	size_t n;
};
void ooms_report_html(const struct rundata *rd, const struct report_lab *lab, FILE *f);
/* The run's story for a terminal (story.c): how it ended, each rule's first
 * crossing with what held the resource, failing calls, memory growth, large
 * allocations, the Java heap's leaks and suspects, the groups at the end,
 * what was lost; at most 40 lines. */
void ooms_report_story(const struct rundata *rd, FILE *f);
void ooms_report_trace(const struct rundata *rd, FILE *f);
/* The pprof profile, gzipped, to fd (nothing when the run has no allocs.json:
 * returns -ENOENT). 0 or -errno. */
int ooms_report_pprof(const struct rundata *rd, int fd);
/* memory.pb.gz: the memory's growth by code (memory.json's sampled page
 * faults by stack) as a pprof profile, [faults sampled, bytes (estimated)];
 * -ENOENT when the run has none. */
int ooms_report_pprof_memory(const struct rundata *rd, int fd);

#endif
