/* The store's database (SQLite): its schema and migrations, rows in and
 * out, a run added in one transaction. */
#define _GNU_SOURCE
#include "report/store_int.h"

#include <json-c/json.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "run/files.h"

struct store {
	sqlite3 *db;
};

/* The tables a run's rows go to, each led by run_id; their columns in the
 * order store_rows.c gives the values. */
static const char SCHEMA_V2[] =
	"CREATE TABLE store_version (version INTEGER NOT NULL);"
	"CREATE TABLE runs (run_id TEXT PRIMARY KEY, host TEXT, dir TEXT, command TEXT, mode TEXT, pid INTEGER,"
	"  started TEXT, length_s REAL, how_ended TEXT, cause TEXT, added TEXT);"
	"CREATE TABLE labels (run_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT, PRIMARY KEY (run_id, key));"
	"CREATE TABLE crossings (run_id TEXT NOT NULL, seq INTEGER NOT NULL, t REAL, rule TEXT, value REAL,"
	"  threshold REAL, reason TEXT, PRIMARY KEY (run_id, seq));"
	"CREATE TABLE resource_groups (run_id TEXT NOT NULL, snapshot TEXT, resource TEXT, kind TEXT, count INTEGER,"
	"  signature TEXT, created_by TEXT, known INTEGER);"
	"CREATE TABLE failures (run_id TEXT NOT NULL, kind TEXT, syscall TEXT, errno TEXT, count INTEGER,"
	"  signature TEXT, called_by TEXT);"
	"CREATE TABLE leaks (run_id TEXT NOT NULL, dump INTEGER, signature TEXT, class TEXT, instances INTEGER,"
	"  retained INTEGER, reason TEXT, gc_root TEXT, path TEXT, suspect INTEGER, started TEXT,"
	"  PRIMARY KEY (run_id, dump, signature, suspect));"
	"CREATE TABLE allocs (run_id TEXT NOT NULL, count INTEGER, total_bytes INTEGER, largest_bytes INTEGER,"
	"  signature TEXT, allocated_by TEXT);"
	"CREATE INDEX resource_groups_run ON resource_groups (run_id);"
	"CREATE INDEX resource_groups_signature ON resource_groups (signature);"
	"CREATE INDEX failures_run ON failures (run_id);"
	"CREATE INDEX failures_signature ON failures (signature);"
	"CREATE INDEX leaks_signature ON leaks (signature);"
	"CREATE INDEX allocs_run ON allocs (run_id);"
	"CREATE INDEX labels_key ON labels (key, value);"
	/* every finding of a run by its signature, with what it is and a measure
	 * (a leak's retained bytes, a group's largest count, a failure's count,
	 * an allocation's bytes): what the lab's questions ask about */
	"CREATE VIEW findings AS"
	"  SELECT run_id, 'leak' AS kind, signature, MIN(class) AS what, MAX(retained) AS measure FROM leaks"
	"    GROUP BY run_id, signature"
	"  UNION ALL SELECT run_id, resource, signature, MIN(kind || ' <- ' || created_by), MAX(count)"
	"    FROM resource_groups WHERE known GROUP BY run_id, resource, signature"
	"  UNION ALL SELECT run_id, 'failure', signature,"
	"    MIN(syscall || ' ' || errno || ' <- ' || COALESCE(called_by, '?')), SUM(count) FROM failures"
	"    GROUP BY run_id, signature"
	"  UNION ALL SELECT run_id, 'alloc', signature, MIN(COALESCE(allocated_by, '?')), SUM(total_bytes) FROM allocs"
	"    GROUP BY run_id, signature;"
	"INSERT INTO store_version VALUES (2);";

static const char *const TABLES[] = {"runs", "labels", "crossings", "resource_groups", "failures", "leaks", "allocs"};

static int set_err(struct store *s, char *err, size_t len, const char *what)
{
	snprintf(err, len, "%s: %s", what, s && s->db ? sqlite3_errmsg(s->db) : "out of memory");
	return -1;
}

static int exists(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st;
	int yes = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/* Version 1 (runs and leaks keyed by the run directory's path, one machine's):
 * its rows kept, each run under an id derived from its path. */
static int migrate_v1(sqlite3 *db)
{
	sqlite3_stmt *sel = NULL, *ins = NULL;
	int rc = -1;

	if (sqlite3_exec(db,
			 "ALTER TABLE runs RENAME TO runs_v1; ALTER TABLE leaks RENAME TO leaks_v1;"
			 "DROP INDEX IF EXISTS leaks_signature;",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, SCHEMA_V2, NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	/* the ids: a table of (dir, run_id) made here, then the rows copied through it */
	if (sqlite3_exec(db, "CREATE TEMP TABLE v1_ids (dir TEXT PRIMARY KEY, run_id TEXT)", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT dir FROM runs_v1", -1, &sel, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO v1_ids VALUES (?, ?)", -1, &ins, NULL) != SQLITE_OK)
		goto out;
	while (sqlite3_step(sel) == SQLITE_ROW) {
		const char *dir = (const char *)sqlite3_column_text(sel, 0);
		char id[RUN_ID_LEN + 1];

		if (!dir)
			continue;
		run_id_derived(dir, strlen(dir), id);
		sqlite3_reset(ins);
		sqlite3_bind_text(ins, 1, dir, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 2, id, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(ins) != SQLITE_DONE)
			goto out;
	}
	if (sqlite3_exec(db,
			 "INSERT INTO runs (run_id, dir, command, pid, started, added)"
			 "  SELECT i.run_id, r.dir, r.command, r.pid, r.started, r.added FROM runs_v1 r JOIN v1_ids i ON i.dir = r.dir;"
			 "INSERT OR IGNORE INTO leaks (run_id, dump, signature, class, instances, retained, reason, gc_root, path,"
			 "  suspect, started)"
			 "  SELECT i.run_id, l.dump, l.signature, l.class, l.instances, l.retained, l.reason, l.gc_root, l.path,"
			 "  l.reason LIKE 'leak suspect (no rule)%', l.started FROM leaks_v1 l JOIN v1_ids i ON i.dir = l.dir;"
			 "DROP TABLE runs_v1; DROP TABLE leaks_v1; DROP TABLE v1_ids;",
			 NULL, NULL, NULL) != SQLITE_OK)
		goto out;
	rc = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return rc;
}

/* The schema at STORE_VERSION, made or migrated in one transaction. */
static int schema(struct store *s, char *err, size_t len)
{
	sqlite3_stmt *st;
	int version = 0, rc;

	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return set_err(s, err, len, "the store");
	if (exists(s->db, "store_version") &&
	    sqlite3_prepare_v2(s->db, "SELECT MAX(version) FROM store_version", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			version = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	} else if (exists(s->db, "runs")) {
		version = 1;
	}
	if (version > STORE_VERSION) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		snprintf(err, len, "the store is of version %d, newer than this oomscope's (%d): use a newer oomscope",
			 version, STORE_VERSION);
		return -1;
	}
	rc = version == STORE_VERSION ? SQLITE_OK
	     : version == 1	      ? (migrate_v1(s->db) ? SQLITE_ERROR : SQLITE_OK)
				      : sqlite3_exec(s->db, SCHEMA_V2, NULL, NULL, NULL);
	if (rc != SQLITE_OK || sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		set_err(s, err, len, version == 1 ? "migrating the store from version 1" : "making the store");
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

struct store *store_open(const char *db, char *err, size_t err_len)
{
	struct store *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	if (sqlite3_open_v2(db ? db : ":memory:", &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		set_err(s, err, err_len, db ? db : "the store");
		store_close(s);
		return NULL;
	}
	/* several processes adding at once wait for each other's transaction */
	sqlite3_busy_timeout(s->db, 60000);
	if (schema(s, err, err_len)) {
		store_close(s);
		return NULL;
	}
	return s;
}

void store_close(struct store *s)
{
	if (s) {
		sqlite3_close(s->db);
		free(s);
	}
}

struct sqlite3 *store_db(struct store *s)
{
	return s->db;
}

int store_insert(struct store *s, const char *table, const char *run_id, int n, ...)
{
	char sql[512];
	size_t off;
	sqlite3_stmt *st;
	va_list ap;
	int rc;

	off = (size_t)snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO %s VALUES (?", table);
	for (int i = 0; i < n && off < sizeof(sql); i++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, ", ?");
	if (off < sizeof(sql))
		snprintf(sql + off, sizeof(sql) - off, ")");
	/* prepared once per table and kept by SQLite's statement cache would be
	 * quicker; a run is hundreds of rows */
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		struct store_val v = va_arg(ap, struct store_val);

		if (v.type == STORE_T_INT)
			sqlite3_bind_int64(st, i + 2, v.i);
		else if (v.type == STORE_T_REAL)
			sqlite3_bind_double(st, i + 2, v.r);
		else if (v.text)
			sqlite3_bind_text(st, i + 2, v.text, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st, i + 2);
	}
	va_end(ap);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

int store_delete_run(struct store *s, const char *run_id)
{
	for (size_t i = 0; i < sizeof(TABLES) / sizeof(TABLES[0]); i++) {
		char sql[128];
		sqlite3_stmt *st;
		int ok;

		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE run_id = ?", TABLES[i]);
		if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
			return -1;
		sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
		ok = sqlite3_step(st) == SQLITE_DONE;
		sqlite3_finalize(st);
		if (!ok)
			return -1;
	}
	return 0;
}

int store_add_run(struct store *s, const char *dir, char *err, size_t err_len)
{
	struct rundata rd;
	char real[PATH_MAX], started[40], added[40], id[RUN_ID_LEN + 1];
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
	store_run_id(&rd, real, id);
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		set_err(s, err, err_len, dir);
		goto out;
	}
	if (store_run_rows(s, &rd, id, real, started, added) ||
	    sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		set_err(s, err, err_len, dir);
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	rc = 0;
out:
	rundata_free(&rd);
	return rc;
}
