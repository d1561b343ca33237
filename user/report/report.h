/* The run report and its exports, from a run directory:
 *   report.html   one self-contained page: charts (inline SVG), findings, tables;
 *   trace.json    Chrome trace event format (Perfetto, chrome://tracing);
 *   allocs.pb.gz  a pprof profile of the large allocations by stack.
 * Each file is written whole or not at all. */
#ifndef OOMSCOPE_REPORT_H
#define OOMSCOPE_REPORT_H

#include <stdio.h>
#include "report/rundata.h"

/* progress(ctx, words) between phases; may be NULL. Returns 0, or -errno
 * with err set. What the run directory lacks is said in the page. */
int ooms_report_write(const char *dir, void (*progress)(void *ctx, const char *what), void *pctx, char *err,
		      size_t err_len);

void ooms_report_html(const struct rundata *rd, FILE *f);
void ooms_report_trace(const struct rundata *rd, FILE *f);
/* The pprof profile, gzipped, to fd (nothing when the run has no allocs.json:
 * returns -ENOENT). 0 or -errno. */
int ooms_report_pprof(const struct rundata *rd, int fd);

#endif
