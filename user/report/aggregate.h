/* Many runs' analyses in one table, keyed by leak signature, the way KOOM's
 * back end groups reports from many devices: how many runs saw a leak, when
 * first and last, its largest retained size, an example path. Kept in an
 * SQLite database so a lab can add runs over weeks (a run added again
 * replaces its rows). */
#ifndef OOMSCOPE_REPORT_AGGREGATE_H
#define OOMSCOPE_REPORT_AGGREGATE_H

#include <stddef.h>
#include <stdio.h>
#include "util/err.h"

/* db: a file (created if missing), or NULL for memory only. Adds every run
 * directory of dirs, then writes the table to out (text, or JSON with json).
 * 0, or -1 with err set. added: runs added. */
struct store_query;
/* q: one of the lab's questions instead of the leak table (store_query.h). */
int ooms_aggregate(const char *db, char *const *dirs, size_t ndirs, const struct store_query *q, int json, FILE *out,
		   size_t *added, struct ooms_err *err);

#endif
