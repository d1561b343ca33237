#define _GNU_SOURCE
#include "report/escape.h"
#include "run/files.h"
#include "report/aggregate.h"

#include <json-c/json.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "report/rundata.h"
#include "report/store.h"
#include "report/store_query.h"

static const char QUERY[] =
	"SELECT signature, class, COUNT(DISTINCT run_id), MIN(started), MAX(started), MAX(retained), SUM(instances),"
	"  (SELECT path FROM leaks l2 WHERE l2.signature = l.signature ORDER BY retained DESC LIMIT 1),"
	"  (SELECT reason FROM leaks l3 WHERE l3.signature = l.signature LIMIT 1)"
	" FROM leaks l GROUP BY signature ORDER BY COUNT(DISTINCT run_id) DESC, MAX(retained) DESC";

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

int ooms_aggregate(const char *dbpath, char *const *dirs, size_t ndirs, const struct store_query *q, int as_json,
		   FILE *out, size_t *added, char *err, size_t err_len)
{
	struct store *store = store_open(dbpath, err, err_len);
	sqlite3 *db = store ? (sqlite3 *)store_db(store) : NULL;
	sqlite3_stmt *st = NULL;
	int rows = 0, runs = 0, rc = -1;

	*added = 0;
	if (!store)
		return -1;
	for (size_t i = 0; i < ndirs; i++) {
		if (store_add_run(store, dirs[i], err, err_len))
			goto out;
		(*added)++;
	}
	if (q) {
		rc = store_query_run(store, q, as_json, out, err, err_len) < 0 ? -1 : 0;
		goto out;
	}
	if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM runs", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		runs = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, QUERY, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, err_len, "query: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (as_json) {
		fprintf(out, "{\"schema\":\"oomscope-aggregate/1\",\"runs\":%d,\"leaks\":[", runs);
	} else {
		fprintf(out, "%d run(s); leaks by signature, most runs first:\n", runs);
		fprintf(out, "%-16s %5s %-20s %-20s %12s  %s\n", "signature", "runs", "first seen", "last seen",
			"retained max", "class");
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		rows++;
		if (as_json) {
			static const char *const keys[] = {"signature", "className", NULL, "firstSeen", "lastSeen", NULL, NULL,
							   "examplePath", "leakReason"};

			fprintf(out, "%s{\"runs\":%d,\"retainedMax\":%lld,\"instances\":%lld", rows > 1 ? "," : "",
				sqlite3_column_int(st, 2), (long long)sqlite3_column_int64(st, 5),
				(long long)sqlite3_column_int64(st, 6));
			for (int k = 0; k < 9; k++)
				if (keys[k]) {
					fprintf(out, ",\"%s\":", keys[k]);
					esc_json(out, col(st, k));
				}
			fputc('}', out);
		} else {
			fprintf(out, "%-16s %5d %-20s %-20s %12lld  %s\n", col(st, 0), sqlite3_column_int(st, 2), col(st, 3),
				col(st, 4), (long long)sqlite3_column_int64(st, 5), col(st, 1));
			fprintf(out, "%16s       %s\n", "", col(st, 7));
		}
	}
	if (as_json) {
		fputs("]}\n", out);
	} else if (!rows) {
		fprintf(out, "(no leaks in these runs' analyses)\n");
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	store_close(store);
	return rc;
}
