/* The questions a lab asks of its store (store_query.h), in SQL over the
 * findings view: text or JSON. */
#define _GNU_SOURCE
#include "report/store_query.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include "report/escape.h"

#define QUERY_ROWS 200

/* Runs with label key=value */
#define LABELLED "(SELECT run_id FROM labels WHERE key = ?1 AND value = ?2)"

static const char SIGNATURES[] =
	"SELECT f.kind, f.signature, MIN(f.what), COUNT(DISTINCT f.run_id), MAX(f.measure), MIN(r.started), MAX(r.started)"
	" FROM findings f JOIN runs r ON r.run_id = f.run_id %s"
	" GROUP BY f.kind, f.signature ORDER BY COUNT(DISTINCT f.run_id) DESC, MAX(f.measure) DESC, f.signature"
	" LIMIT 200";

static const char NEW_IN[] =
	"SELECT f.kind, f.signature, MIN(f.what), COUNT(DISTINCT f.run_id), MAX(f.measure), MIN(r.started), MAX(r.started)"
	" FROM findings f JOIN runs r ON r.run_id = f.run_id WHERE f.run_id IN " LABELLED
	" AND f.signature NOT IN (SELECT signature FROM findings WHERE run_id IN"
	"   (SELECT run_id FROM labels WHERE key = ?1 AND value = ?3))"
	" GROUP BY f.kind, f.signature ORDER BY COUNT(DISTINCT f.run_id) DESC, MAX(f.measure) DESC, f.signature"
	" LIMIT 200";

/* a signature across a label's values, in the order the values first ran */
static const char HISTORY[] =
	"SELECT l.value, COUNT(DISTINCT f.run_id),"
	"  (SELECT COUNT(*) FROM labels l2 WHERE l2.key = ?1 AND l2.value = l.value), MAX(f.measure), MIN(f.kind),"
	"  MIN(f.what), MIN(r.started)"
	" FROM findings f JOIN labels l ON l.run_id = f.run_id AND l.key = ?1 JOIN runs r ON r.run_id = f.run_id"
	" WHERE f.signature = ?2 GROUP BY l.value ORDER BY MIN(r.started), l.value";

static const char DEATHS_ACROSS[] =
	"SELECT l.value, COALESCE(r.cause, 'none'), COUNT(*), MIN(r.how_ended), MIN(r.started)"
	" FROM runs r JOIN labels l ON l.run_id = r.run_id AND l.key = ?1"
	" GROUP BY l.value, COALESCE(r.cause, 'none') ORDER BY MIN(r.started), l.value, COUNT(*) DESC";

static const char DEATHS[] =
	"SELECT '', COALESCE(r.cause, 'none'), COUNT(*), MIN(r.how_ended), MIN(r.started) FROM runs r %s"
	" GROUP BY COALESCE(r.cause, 'none') ORDER BY COUNT(*) DESC, COALESCE(r.cause, 'none')";

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

static void jstr(FILE *out, const char *key, const char *v, int *first)
{
	fprintf(out, "%s\"%s\":", *first ? "" : ",", key);
	esc_json(out, v);
	*first = 0;
}

static void jnum(FILE *out, const char *key, double v, int *first)
{
	fprintf(out, "%s\"%s\":%.0f", *first ? "" : ",", key, v);
	*first = 0;
}

/* Rows of the signatures and new-in queries. */
static int finding_rows(sqlite3_stmt *st, int json, FILE *out)
{
	int rows = 0;

	if (!json)
		fprintf(out, "%-9s %-16s %5s %14s %-20s %-20s  %s\n", "kind", "signature", "runs", "largest", "first seen",
			"last seen", "what");
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (json) {
			int first = 1;

			fputs(rows ? ",{" : "{", out);
			jstr(out, "kind", col(st, 0), &first);
			jstr(out, "signature", col(st, 1), &first);
			jstr(out, "what", col(st, 2), &first);
			jnum(out, "runs", sqlite3_column_double(st, 3), &first);
			jnum(out, "largest", sqlite3_column_double(st, 4), &first);
			jstr(out, "firstSeen", col(st, 5), &first);
			jstr(out, "lastSeen", col(st, 6), &first);
			fputc('}', out);
		} else {
			fprintf(out, "%-9s %-16s %5d %14.0f %-20s %-20s  %s\n", col(st, 0), col(st, 1), sqlite3_column_int(st, 3),
				sqlite3_column_double(st, 4), col(st, 5), col(st, 6), col(st, 2));
		}
		rows++;
	}
	return rows;
}

int store_query_run(struct store *s, const struct store_query *q, int json, FILE *out, char *err, size_t err_len)
{
	sqlite3 *db = (sqlite3 *)store_db(s);
	sqlite3_stmt *st = NULL;
	char sql[2048];
	int rows = 0;

	switch (q->kind) {
	case SQ_SIGNATURES:
		snprintf(sql, sizeof(sql), SIGNATURES, q->key ? "WHERE f.run_id IN " LABELLED : "");
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
			snprintf(sql, sizeof(sql), DEATHS, q->key ? "WHERE r.run_id IN " LABELLED : "");
		break;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, err_len, "query: %s", sqlite3_errmsg(db));
		return -1;
	}
	if (q->kind == SQ_HISTORY || (q->kind == SQ_DEATHS && q->across)) {
		sqlite3_bind_text(st, 1, q->across, -1, SQLITE_STATIC);
		if (q->kind == SQ_HISTORY)
			sqlite3_bind_text(st, 2, q->signature, -1, SQLITE_STATIC);
	} else if (q->key) {
		sqlite3_bind_text(st, 1, q->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, q->value, -1, SQLITE_STATIC);
		if (q->kind == SQ_NEW_IN)
			sqlite3_bind_text(st, 3, q->since_value, -1, SQLITE_STATIC);
	}
	if (json)
		fprintf(out, "{\"schema\":\"oomscope-query/1\",\"query\":\"%s\",\"rows\":[",
			q->kind == SQ_SIGNATURES ? "signatures"
			: q->kind == SQ_NEW_IN	 ? "new-in"
			: q->kind == SQ_HISTORY	 ? "history"
						 : "deaths");
	else if (q->kind == SQ_SIGNATURES)
		fprintf(out, "findings by signature, most runs first%s%s%s%s:\n", q->key ? " (runs with " : "",
			q->key ? q->key : "", q->key ? "=" : "", q->key ? q->value : "");
	else if (q->kind == SQ_NEW_IN)
		fprintf(out, "findings in runs with %s=%s and in none with %s=%s:\n", q->key, q->value, q->key, q->since_value);
	else if (q->kind == SQ_HISTORY)
		fprintf(out, "signature %s across %s (in the order its values first ran):\n%-20s %5s %5s %14s  %s\n",
			q->signature, q->across, q->across, "runs", "of", "largest", "what");
	else
		fprintf(out, "how runs ended%s%s:\n%-20s %-16s %5s  %s\n", q->across ? ", by " : "", q->across ? q->across : "",
			q->across ? q->across : "", "cause", "runs", "example");
	if (q->kind == SQ_SIGNATURES || q->kind == SQ_NEW_IN) {
		rows = finding_rows(st, json, out);
	} else {
		while (sqlite3_step(st) == SQLITE_ROW) {
			int first = 1;

			if (json) {
				fputs(rows ? ",{" : "{", out);
				if (q->kind == SQ_HISTORY) {
					jstr(out, "value", col(st, 0), &first);
					jnum(out, "runs", sqlite3_column_double(st, 1), &first);
					jnum(out, "runsWithValue", sqlite3_column_double(st, 2), &first);
					jnum(out, "largest", sqlite3_column_double(st, 3), &first);
					jstr(out, "kind", col(st, 4), &first);
					jstr(out, "what", col(st, 5), &first);
				} else {
					if (q->across)
						jstr(out, "value", col(st, 0), &first);
					jstr(out, "cause", col(st, 1), &first);
					jnum(out, "runs", sqlite3_column_double(st, 2), &first);
					jstr(out, "example", col(st, 3), &first);
				}
				fputc('}', out);
			} else if (q->kind == SQ_HISTORY) {
				fprintf(out, "%-20s %5d %5d %14.0f  %s\n", col(st, 0), sqlite3_column_int(st, 1),
					sqlite3_column_int(st, 2), sqlite3_column_double(st, 3), col(st, 5));
			} else {
				fprintf(out, "%-20s %-16s %5d  %s\n", col(st, 0), col(st, 1), sqlite3_column_int(st, 2), col(st, 3));
			}
			rows++;
		}
	}
	if (json)
		fputs("]}\n", out);
	else if (!rows)
		fprintf(out, "(none)\n");
	sqlite3_finalize(st);
	return rows;
}
