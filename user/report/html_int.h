/* What the parts of report.html share (html.c, html_heap.c, html_groups.c,
 * html_memory.c, html_end.c). */
#ifndef OOMSCOPE_REPORT_HTML_INT_H
#define OOMSCOPE_REPORT_HTML_INT_H

#include <stddef.h>
#include <stdio.h>
#include "report/rundata.h"

#define TOP_GROUPS 25 /* rows per table */

/* "12.3 MB", "-" for NAN. */
const char *html_bytes(double b, char *buf, size_t len);
/* "Java heap: leaks and retainers": every analyzed dump's suspects, leak
 * groups and top retainers. */
void html_heap_section(FILE *f, const struct rundata *rd);
/* A stack's frames, a line each (html_groups.c). */
void html_frame_lines(FILE *f, const struct run_frames *fr);
/* Threads or fds (kind): the groups when the rule fired, then at the end
 * (end: NULL when the run has none); the large allocations. */
void html_groups(FILE *f, const struct rundata *rd, const struct run_snapshot *end, const char *title,
		 enum ooms_snap kind);
void html_allocations(FILE *f, const struct rundata *rd);
/* Memory: the rule's figure, by category, and what grew it (html_memory.c). */
void html_memory_section(FILE *f, const struct rundata *rd);
/* threads.json's and fds.json's groups (html_groups.c). */
void html_threads(FILE *f, const struct rundata *rd);
void html_fds(FILE *f, const struct rundata *rd);
/* A row of a key-value table (html_end.c). */
void html_kv(FILE *f, const char *k, const char *v);
/* How it ended (death.json), the failed calls (failures.json): html_end.c. */
void html_death(FILE *f, const struct rundata *rd);
void html_failures(FILE *f, const struct rundata *rd);

#endif
