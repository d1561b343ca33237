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

static const char SCHEMA[] =
	"CREATE TABLE IF NOT EXISTS runs (dir TEXT PRIMARY KEY, command TEXT, pid INTEGER, started TEXT, added TEXT);"
	"CREATE TABLE IF NOT EXISTS leaks (dir TEXT, dump INTEGER, signature TEXT, class TEXT, instances INTEGER,"
	"  retained INTEGER, reason TEXT, gc_root TEXT, path TEXT, started TEXT, PRIMARY KEY (dir, dump, signature));"
	"CREATE INDEX IF NOT EXISTS leaks_signature ON leaks (signature);";

static int fail(sqlite3 *db, char *err, size_t len, const char *what)
{
	snprintf(err, len, "%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

/* "GC root KIND -> step -> step" of a gcPaths entry */
static void path_line(struct json_object *g, char *buf, size_t len)
{
	struct json_object *p = rd_arr(g, "path");
	size_t n = 0;

	n = (size_t)snprintf(buf, len, "%s", rd_str(g, "gcRoot") ? rd_str(g, "gcRoot") : "?");
	for (size_t i = 0; p && i < json_object_array_length(p) && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " -> %s", rd_str(json_object_array_get_idx(p, i), "reference"));
}

static int add_run(sqlite3 *db, const char *dir, char *err, size_t err_len)
{
	struct rundata rd;
	char real[PATH_MAX], started[40], added[40], line[8192];
	sqlite3_stmt *st = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int rc = -1;

	if (rundata_load(&rd, dir, err, err_len))
		return -1;
	if (!realpath(dir, real))
		snprintf(real, sizeof(real), "%s", dir);
	snprintf(started, sizeof(started), "%s", rd.wall_time);
	if (!started[0]) { /* an older run: the timeline's modification time */
		struct stat sb;
		char tl[PATH_MAX + 32];

		snprintf(tl, sizeof(tl), "%s/" RUN_TIMELINE, real);
		if (stat(tl, &sb) == 0) {
			gmtime_r(&sb.st_mtime, &tm);
			strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);
		}
	}
	gmtime_r(&now, &tm);
	strftime(added, sizeof(added), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		goto out_fail;
	if (sqlite3_prepare_v2(db, "DELETE FROM leaks WHERE dir = ?", -1, &st, NULL) != SQLITE_OK)
		goto out_fail;
	sqlite3_bind_text(st, 1, real, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out_fail;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		goto out_fail;
	sqlite3_bind_text(st, 1, real, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, rd.command, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, rd.pid);
	sqlite3_bind_text(st, 4, started, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, added, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out_fail;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO leaks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) !=
	    SQLITE_OK)
		goto out_fail;
	/* leak groups (by rule) and suspects (no rule): one row per signature */
	for (size_t k = 0; k < 2 * rd.nanalyses; k++) {
		size_t a = k / 2;
		int suspects = k % 2;
		struct json_object *gp = rd_arr(rd.analyses[a], suspects ? "suspects" : "gcPaths");

		for (size_t i = 0; gp && i < json_object_array_length(gp); i++) {
			struct json_object *g = json_object_array_get_idx(gp, i);
			char why[2100];

			snprintf(why, sizeof(why), "leak suspect (no rule): %s", rd_str(g, "description") ? rd_str(g, "description") : "?");
			path_line(g, line, sizeof(line));
			sqlite3_reset(st);
			sqlite3_bind_text(st, 1, real, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int(st, 2, rd.analysis_seq[a]);
			sqlite3_bind_text(st, 3, rd_str(g, "signature") ? rd_str(g, "signature") : "?", -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(st, 4, rd_str(g, "className"), -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(st, 5, (sqlite3_int64)rd_num(g, suspects ? "count" : "instanceCount", 0));
			sqlite3_bind_int64(st, 6, (sqlite3_int64)rd_num(g, suspects ? "retainedSize" : "retainedSizeTotal", 0));
			sqlite3_bind_text(st, 7, suspects ? why : rd_str(g, "leakReason"), -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(st, 8, rd_str(g, "gcRoot"), -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(st, 9, line, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(st, 10, started, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(st) != SQLITE_DONE)
				goto out_fail;
		}
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto out_fail;
	rc = 0;
	goto out;
out_fail:
	fail(db, err, err_len, dir);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
out:
	sqlite3_finalize(st);
	rundata_free(&rd);
	return rc;
}

static const char QUERY[] =
	"SELECT signature, class, COUNT(DISTINCT dir), MIN(started), MAX(started), MAX(retained), SUM(instances),"
	"  (SELECT path FROM leaks l2 WHERE l2.signature = l.signature ORDER BY retained DESC LIMIT 1),"
	"  (SELECT reason FROM leaks l3 WHERE l3.signature = l.signature LIMIT 1)"
	" FROM leaks l GROUP BY signature ORDER BY COUNT(DISTINCT dir) DESC, MAX(retained) DESC";

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

int ooms_aggregate(const char *dbpath, char *const *dirs, size_t ndirs, int as_json, FILE *out, size_t *added,
		   char *err, size_t err_len)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rows = 0, runs = 0, rc = -1;

	*added = 0;
	if (sqlite3_open_v2(dbpath ? dbpath : ":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
		    SQLITE_OK ||
	    sqlite3_exec(db, SCHEMA, NULL, NULL, NULL) != SQLITE_OK) {
		fail(db, err, err_len, dbpath ? dbpath : "the database");
		goto out;
	}
	for (size_t i = 0; i < ndirs; i++) {
		if (add_run(db, dirs[i], err, err_len))
			goto out;
		(*added)++;
	}
	if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM runs", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		runs = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, QUERY, -1, &st, NULL) != SQLITE_OK) {
		fail(db, err, err_len, "query");
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
	sqlite3_close(db);
	return rc;
}
