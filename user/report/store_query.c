/* The questions a lab asks of its store (store_query.h), in SQL over the
 * findings view: text or JSON. */
#define _GNU_SOURCE
#include "report/store_query.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "report/store_int.h"
#include "util/units.h"
#include "util/json.h"


/* Runs with label $1=$2 (joined as lf) */
#define LABELLED_JOIN " JOIN labels lf ON lf.run_id = f.run_id AND lf.key = $1 AND lf.value = $2"

/* findings has a row per run, kind and signature: COUNT(*) counts runs */
static const char SIGNATURES[] =
	"SELECT f.kind, f.signature, MIN(f.what), COUNT(*), MAX(f.measure), MIN(f.started), MAX(f.started)"
	" FROM findings f%s"
	" GROUP BY f.kind, f.signature ORDER BY COUNT(*) DESC, MAX(f.measure) DESC, f.signature"
	" LIMIT 200";

static const char NEW_IN[] =
	"SELECT f.kind, f.signature, MIN(f.what), COUNT(*), MAX(f.measure), MIN(f.started), MAX(f.started)"
	" FROM findings f" LABELLED_JOIN
	" WHERE NOT EXISTS (SELECT 1 FROM findings f2 JOIN labels l2 ON l2.run_id = f2.run_id AND l2.key = $1"
	"   AND l2.value = $3 WHERE f2.signature = f.signature)"
	" GROUP BY f.kind, f.signature ORDER BY COUNT(*) DESC, MAX(f.measure) DESC, f.signature"
	" LIMIT 200";

/* a signature across a label's values, in the order the values first ran */
static const char HISTORY[] =
	"SELECT l.value, COUNT(*),"
	"  (SELECT COUNT(*) FROM labels l2 WHERE l2.key = $1 AND l2.value = l.value), MAX(f.measure), MIN(f.kind),"
	"  MIN(f.what), MIN(f.started)"
	" FROM findings f JOIN labels l ON l.run_id = f.run_id AND l.key = $1"
	" WHERE f.signature = $2 GROUP BY l.value ORDER BY MIN(f.started), l.value";

static const char DEATHS_ACROSS[] =
	"SELECT l.value, COALESCE(r.cause, 'none'), COUNT(*), MIN(r.how_ended), MIN(r.started)"
	" FROM runs r JOIN labels l ON l.run_id = r.run_id AND l.key = $1"
	" GROUP BY l.value, COALESCE(r.cause, 'none') ORDER BY MIN(r.started), l.value, COUNT(*) DESC, COALESCE(r.cause, 'none')";

static const char DEATHS[] =
	"SELECT '', COALESCE(r.cause, 'none'), COUNT(*), MIN(r.how_ended), MIN(r.started) FROM runs r%s"
	" GROUP BY COALESCE(r.cause, 'none') ORDER BY COUNT(*) DESC, COALESCE(r.cause, 'none')";

static const char *col(const char *const *cols, int ncols, int i)
{
	return i < ncols && cols[i] ? cols[i] : "";
}

static double num(const char *const *cols, int ncols, int i)
{
	return i < ncols && cols[i] ? strtod(cols[i], NULL) : 0;
}

struct printer {
	const struct store_query *q;
	int json, rows;
	FILE *out;
	struct json j; /* --json: the rows' writer */
};

/* A query's JSON members: their keys, the columns they come from, numbers or text */
struct jfield {
	const char *key;
	int col, numeric;
};
static const struct jfield FINDING_FIELDS[] = {{"kind", 0, 0},	     {"signature", 1, 0}, {"what", 2, 0},
					       {"runs", 3, 1},	     {"largest", 4, 1},	  {"firstSeen", 5, 0},
					       {"lastSeen", 6, 0},   {NULL, 0, 0}};
static const struct jfield HISTORY_FIELDS[] = {{"value", 0, 0},	  {"runs", 1, 1}, {"runsWithValue", 2, 1},
					       {"largest", 3, 1}, {"kind", 4, 0}, {"what", 5, 0},
					       {NULL, 0, 0}};
/* [0] ("value") only with --across */
static const struct jfield DEATH_FIELDS[] = {{"value", 0, 0}, {"cause", 1, 0}, {"runs", 2, 1}, {"example", 3, 0},
					     {NULL, 0, 0}};

/* A finding's measure as a person reads it: bytes in MB or GB for the kinds
 * measured in bytes (a leak's retained size, memory grown, allocations), a
 * count for the rest (fds, threads, failed calls). */
static const char *measure_text(const char *kind, double v, char *buf, size_t len)
{
	if (!strcmp(kind, "leak") || !strcmp(kind, "memory") || !strcmp(kind, "alloc"))
		return units_bytes(v, buf, len);
	snprintf(buf, len, "%.0f", v);
	return buf;
}

static int print_row(void *ctx, int n, const char *const *c)
{
	struct printer *p = ctx;
	const struct store_query *q = p->q;
	FILE *out = p->out;

	if (p->json) {
		const struct jfield *f = q->kind == SQ_SIGNATURES || q->kind == SQ_NEW_IN ? FINDING_FIELDS
					 : q->kind == SQ_HISTORY			   ? HISTORY_FIELDS
					 : q->across					   ? DEATH_FIELDS
											   : DEATH_FIELDS + 1;
		json_obj(&p->j);
		for (; f->key; f++)
			if (f->numeric) /* whole numbers, as %.0f: counts and bytes */
				json_kfixed(&p->j, f->key, num(c, n, f->col), 0);
			else
				json_kstr(&p->j, f->key, col(c, n, f->col));
		json_obj_end(&p->j);
	} else if (q->kind == SQ_SIGNATURES || q->kind == SQ_NEW_IN) {
		char m[32];

		fprintf(out, "%-9s %-16s %5.0f %14s %-20s %-20s  %s\n", col(c, n, 0), col(c, n, 1), num(c, n, 3),
			measure_text(col(c, n, 0), num(c, n, 4), m, sizeof(m)), col(c, n, 5), col(c, n, 6), col(c, n, 2));
	} else if (q->kind == SQ_HISTORY) {
		char m[32];

		fprintf(out, "%-20s %5.0f %5.0f %14s  %s\n", col(c, n, 0), num(c, n, 1), num(c, n, 2),
			measure_text(col(c, n, 4), num(c, n, 3), m, sizeof(m)), col(c, n, 5));
	} else {
		fprintf(out, "%-20s %-16s %5.0f  %s\n", col(c, n, 0), col(c, n, 1), num(c, n, 2), col(c, n, 3));
	}
	p->rows++;
	return 0;
}

/* The end of {"schema":..., "rows":[...]} and its line. */
static void close_rows(struct json *j)
{
	json_arr_end(j);
	json_obj_end(j);
	json_end_line(j);
}

int store_query_run(struct store *s, const struct store_query *q, int json, FILE *out, struct ooms_err *err)
{
	struct printer p = {.q = q, .json = json, .out = out};
	struct store_val v[3];
	char sql[2048];
	int n = 0;

	switch (q->kind) {
	case SQ_SIGNATURES:
		snprintf(sql, sizeof(sql), SIGNATURES, q->key ? LABELLED_JOIN : "");
		break;
	case SQ_NEW_IN:
		snprintf(sql, sizeof(sql), "%s", NEW_IN);
		break;
	case SQ_HISTORY:
		snprintf(sql, sizeof(sql), "%s", HISTORY);
		break;
	case SQ_DEATHS:
		if (q->across)
			snprintf(sql, sizeof(sql), "%s", DEATHS_ACROSS);
		else
			snprintf(sql, sizeof(sql), DEATHS,
				 q->key ? " JOIN labels lf ON lf.run_id = r.run_id AND lf.key = $1 AND lf.value = $2" : "");
		break;
	}
	if (q->kind == SQ_HISTORY || (q->kind == SQ_DEATHS && q->across)) {
		v[n++] = STORE_TEXT(q->across);
		if (q->kind == SQ_HISTORY)
			v[n++] = STORE_TEXT(q->signature);
	} else if (q->key) {
		v[n++] = STORE_TEXT(q->key);
		v[n++] = STORE_TEXT(q->value);
		if (q->kind == SQ_NEW_IN)
			v[n++] = STORE_TEXT(q->since_value);
	}
	if (json) {
		json_init(&p.j, out, 0);
		json_obj(&p.j);
		json_kstr(&p.j, "schema", "oomscope-query/1");
		json_kstr(&p.j, "query",
			  q->kind == SQ_SIGNATURES ? "signatures"
			  : q->kind == SQ_NEW_IN   ? "new-in"
			  : q->kind == SQ_HISTORY  ? "history"
						   : "deaths");
		json_key(&p.j, "rows");
		json_arr(&p.j);
	} else if (q->kind == SQ_SIGNATURES)
		fprintf(out, "findings by signature, most runs first%s%s%s%s%s:\n%-9s %-16s %5s %14s %-20s %-20s  %s\n",
			q->key ? " (runs with " : "", q->key ? q->key : "", q->key ? "=" : "", q->key ? q->value : "",
			q->key ? ")" : "", "kind", "signature", "runs", "largest", "first seen", "last seen", "what");
	else if (q->kind == SQ_NEW_IN)
		fprintf(out, "findings in runs with %s=%s and in none with %s=%s:\n%-9s %-16s %5s %14s %-20s %-20s  %s\n",
			q->key, q->value, q->key, q->since_value, "kind", "signature", "runs", "largest", "first seen",
			"last seen", "what");
	else if (q->kind == SQ_HISTORY)
		fprintf(out, "signature %s across %s (in the order its values first ran):\n%-20s %5s %5s %14s  %s\n",
			q->signature, q->across, q->across, "runs", "of", "largest", "what");
	else
		fprintf(out, "how runs ended%s%s:\n%-20s %-16s %5s  %s\n", q->across ? ", by " : "", q->across ? q->across : "",
			q->across ? q->across : "", "cause", "runs", "example");
	fflush(out);
	if (store_query(s, sql, n, v, print_row, &p)) {
		if (json)
			close_rows(&p.j);
		return ooms_err_set(err, -1, "query: %s", store_error(s));
	}
	if (json)
		close_rows(&p.j);
	else if (!p.rows)
		fprintf(out, "(none)\n");
	return p.rows;
}

static const char SEEN[] =
	"SELECT f.kind, MIN(f.what), f.signature, MAX(f.measure),"
	"  (SELECT COUNT(DISTINCT o.run_id) FROM findings o WHERE o.signature = f.signature AND o.run_id <> $1),"
	"  (SELECT MIN(o.started) FROM findings o WHERE o.signature = f.signature AND o.run_id <> $1)"
	" FROM findings f WHERE f.run_id = $1 GROUP BY f.kind, f.signature ORDER BY 5 DESC, 4 DESC, 3";

struct seen_list {
	struct store_seen *rows;
	size_t n;
};

static int seen_row(void *ctx, int n, const char *const *c)
{
	struct seen_list *l = ctx;
	struct store_seen *r;

	if (l->n == STORE_SEEN_MAX)
		return 0;
	r = &l->rows[l->n++];
	snprintf(r->kind, sizeof(r->kind), "%s", col(c, n, 0));
	snprintf(r->what, sizeof(r->what), "%s", col(c, n, 1));
	snprintf(r->signature, sizeof(r->signature), "%s", col(c, n, 2));
	r->measure = num(c, n, 3);
	r->others = num(c, n, 4);
	snprintf(r->since, sizeof(r->since), "%s", col(c, n, 5));
	return 0;
}

int store_seen_elsewhere(struct store *s, const char *run_id, struct store_seen **rows, size_t *n,
			 struct ooms_err *err)
{
	struct seen_list l = {calloc(STORE_SEEN_MAX, sizeof(struct store_seen)), 0};
	struct store_val v = STORE_TEXT(run_id);

	*rows = NULL;
	*n = 0;
	if (!l.rows)
		return ooms_err_set(err, -1, "out of memory");
	if (store_query(s, SEEN, 1, &v, seen_row, &l)) {
		ooms_err_set(err, -1, "the store: %s", store_error(s));
		free(l.rows);
		return -1;
	}
	*rows = l.rows;
	*n = l.n;
	return 0;
}
