/* The questions a lab asks of its store (oomscope aggregate's queries):
 * - signatures: every finding by its signature, how many runs saw it,
 *   its largest measure, when first and last (runs with label key=value);
 * - new-in: the signatures seen in runs with key=value and in none with
 *   key=since_value (what build 4312 brought against 4311);
 * - history: one signature across the values of label across (per build:
 *   in how many of its runs, how large);
 * - deaths: how runs ended, by cause (per value of label across, or in
 *   the runs with key=value). */
#ifndef OOMSCOPE_REPORT_STORE_QUERY_H
#define OOMSCOPE_REPORT_STORE_QUERY_H

#include <stddef.h>
#include <stdio.h>
#include "report/store.h"
#include "util/err.h"

enum store_query_kind { SQ_SIGNATURES, SQ_NEW_IN, SQ_HISTORY, SQ_DEATHS };

struct store_query {
	enum store_query_kind kind;
	const char *key, *value;  /* a label: signatures, deaths (filter); new-in (the new value) */
	const char *since_value;  /* new-in: the value it is set against */
	const char *signature;    /* history */
	const char *across;       /* history, deaths: the label whose values are the rows */
};

/* The query's rows on out, text or JSON (schema oomscope-query/1). Their
 * count, or -1 with err set. */
int store_query_run(struct store *s, const struct store_query *q, int json, FILE *out, struct ooms_err *err);

/* One finding of a run, and the other runs of the store that saw its
 * signature: how many, since when (the first one's start). */
struct store_seen {
	char kind[16], what[256], signature[20], since[40];
	double measure, others;
};
#define STORE_SEEN_MAX 100

/* The findings of run_id (most seen elsewhere first, at most
 * STORE_SEEN_MAX) into *rows (malloc'd), *n of them. 0 or -1 with err set. */
int store_seen_elsewhere(struct store *s, const char *run_id, struct store_seen **rows, size_t *n,
			 struct ooms_err *err);

#endif
