/* The store, whatever its back end: its schema (one text for SQLite and
 * PostgreSQL) and migrations, rows in, a run added in one transaction. */
#define _GNU_SOURCE
#include "report/store_int.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "run/files.h"

static int set_err(struct store *s, struct ooms_err *err, const char *what)
{
	return ooms_err_set(err, -1, "%s: %s", what, s->ops ? store_error(s) : s->err);
}

static int first_int(void *ctx, int ncols, const char *const *cols)
{
	if (ncols > 0 && cols[0])
		*(int64_t *)ctx = strtoll(cols[0], NULL, 10);
	return 0;
}

struct v1_dirs {
	char **dirs;
	size_t n, cap;
};

static int collect_dir(void *ctx, int ncols, const char *const *cols)
{
	struct v1_dirs *d = ctx;

	if (ncols < 1 || !cols[0])
		return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		char **p = realloc(d->dirs, cap * sizeof(*p));

		if (!p)
			return -1;
		d->dirs = p;
		d->cap = cap;
	}
	return (d->dirs[d->n] = strdup(cols[0])) ? (d->n++, 0) : -1;
}

/* The schema at STORE_VERSION, from nothing. */
static int create_latest(struct store *s)
{
	char sql[96];

	snprintf(sql, sizeof(sql), "INSERT INTO store_version VALUES (%d)", STORE_VERSION);
	return store_schema_create(s) || s->ops->exec(s, sql);
}

/* Version 1 (SQLite only: runs and leaks keyed by the run directory's
 * path, one machine's) to the latest: its rows kept, each run under an id
 * derived from its path, copied by the columns' names (so into whatever
 * the latest schema is). */
static int migrate_v1(struct store *s)
{
	struct v1_dirs d = {0};
	int rc = -1;

	if (s->ops->exec(s, "ALTER TABLE runs RENAME TO runs_v1; ALTER TABLE leaks RENAME TO leaks_v1;"
			    "DROP INDEX IF EXISTS leaks_signature;") ||
	    create_latest(s) || s->ops->exec(s, "CREATE TEMP TABLE v1_ids (dir TEXT PRIMARY KEY, run_id TEXT)") ||
	    s->ops->query(s, "SELECT dir FROM runs_v1", 0, NULL, collect_dir, &d))
		goto out;
	for (size_t i = 0; i < d.n; i++) {
		char id[RUN_ID_LEN + 1];
		struct store_val v[2] = {STORE_TEXT(d.dirs[i]), STORE_TEXT(id)};

		run_id_derived(d.dirs[i], strlen(d.dirs[i]), id);
		if (s->ops->query(s, "INSERT INTO v1_ids VALUES ($1, $2)", 2, v, NULL, NULL))
			goto out;
	}
	if (s->ops->exec(s, "INSERT INTO runs (run_id, dir, command, pid, started, added)"
			    "  SELECT i.run_id, r.dir, r.command, r.pid, r.started, r.added FROM runs_v1 r"
			    "  JOIN v1_ids i ON i.dir = r.dir;"
			    "INSERT INTO leaks (run_id, dump, signature, class, instances, retained, reason, gc_root, path,"
			    "  suspect, started)"
			    "  SELECT i.run_id, l.dump, l.signature, l.class, l.instances, l.retained, l.reason, l.gc_root,"
			    "  l.path, l.reason LIKE 'leak suspect (no rule)%', l.started FROM leaks_v1 l"
			    "  JOIN v1_ids i ON i.dir = l.dir ON CONFLICT DO NOTHING;"
			    "INSERT INTO findings SELECT run_id, 'leak', signature, MIN(class), MAX(retained), MIN(started)"
			    "  FROM leaks GROUP BY run_id, signature;"
			    "DROP TABLE runs_v1; DROP TABLE leaks_v1; DROP TABLE v1_ids;"))
		goto out;
	rc = 0;
out:
	for (size_t i = 0; i < d.n; i++)
		free(d.dirs[i]);
	free(d.dirs);
	return rc;
}

/* From version N to N+1, by index N (version 2's is the first): a new
 * column is an ALTER TABLE here and its row in store_schema.c. A store with
 * no schema is made at the latest at once, and version 1's moves to it. */
static const char *const STEPS[STORE_VERSION] = {NULL, NULL};

/* Each step from version to STORE_VERSION, then the version recorded. */
static int migrate(struct store *s, int64_t version)
{
	char sql[96];

	if (version == 0)
		return create_latest(s);
	if (version == 1)
		return migrate_v1(s);
	for (int64_t v = version; v < STORE_VERSION; v++)
		if (!STEPS[v] || s->ops->exec(s, STEPS[v]))
			return -1;
	snprintf(sql, sizeof(sql), "UPDATE store_version SET version = %d", STORE_VERSION);
	return s->ops->exec(s, sql);
}

/* The schema at STORE_VERSION, made or migrated in one transaction that
 * no other process's interleaves with (several may open a new store at once). */
static int schema(struct store *s, struct ooms_err *err)
{
	int64_t version = 0;
	int rc;

	if (s->ops->begin_exclusive(s))
		return set_err(s, err, "the store");
	if (s->ops->table_exists(s, "store_version")) {
		if (s->ops->query(s, "SELECT MAX(version) FROM store_version", 0, NULL, first_int, &version)) {
			set_err(s, err, "the store's version");
			s->ops->exec(s, "ROLLBACK");
			return -1;
		}
	} else if (s->ops->table_exists(s, "runs")) {
		version = 1;
	}
	if (version > STORE_VERSION) {
		s->ops->exec(s, "ROLLBACK");
		return ooms_err_set(err, -1,
				    "the store is of version %" PRId64 ", newer than this oomscope's (%d): use a newer oomscope",
				    version, STORE_VERSION);
	}
	rc = version == STORE_VERSION ? 0 : migrate(s, version);
	if (rc || s->ops->exec(s, "COMMIT")) {
		char what[64];

		snprintf(what, sizeof(what), version ? "migrating the store from version %" PRId64 : "making the store",
			 version);
		set_err(s, err, what);
		s->ops->exec(s, "ROLLBACK");
		return -1;
	}
	return 0;
}

struct store *store_open(const char *db, struct ooms_err *err)
{
	struct store *s = calloc(1, sizeof(*s));
	int pg = db && (!strncmp(db, "postgresql://", 13) || !strncmp(db, "postgres://", 11) || strchr(db, '=') != NULL);

	if (!s) {
		ooms_err_set(err, -1, "out of memory");
		return NULL;
	}
	if (pg ? store_pg_open(s, db) : store_sqlite_open(s, db)) {
		ooms_err_set(err, -1, "%s: %s", pg ? "the PostgreSQL store" : db ? db : "the store",
			     s->ops && s->conn ? s->ops->error(s) : s->err);
		store_close(s);
		return NULL;
	}
	if (schema(s, err)) {
		store_close(s);
		return NULL;
	}
	return s;
}

void store_close(struct store *s)
{
	if (s) {
		if (s->ops && s->conn)
			s->ops->close(s);
		free(s);
	}
}

int store_add_run(struct store *s, const char *dir, struct ooms_err *err)
{
	return store_add_run_id(s, dir, NULL, err);
}

int store_add_run_id(struct store *s, const char *dir, char *id_out, struct ooms_err *err)
{
	struct rundata rd;
	char real[PATH_MAX], started[40], added[40], id[RUN_ID_LEN + 1];
	time_t now = time(NULL);
	struct tm tm;
	int rc = -1;

	if (rundata_load(&rd, dir, err))
		return ooms_err_recode(err, -1);
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
	store_run_id(&rd, id);
	if (id_out)
		memcpy(id_out, id, sizeof(id));
	if (s->ops->begin(s)) {
		set_err(s, err, dir);
		goto out;
	}
	if (store_run_rows(s, &rd, id, real, started, added) || s->ops->exec(s, "COMMIT")) {
		set_err(s, err, dir);
		s->ops->exec(s, "ROLLBACK");
		goto out;
	}
	rc = 0;
out:
	rundata_free(&rd);
	return rc;
}
