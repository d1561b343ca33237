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

/* The tables a run's rows go to, each led by run_id; their columns in the
 * order store_rows.c gives the values. Types both back ends know (BIGINT:
 * PostgreSQL's INTEGER is 32 bits; DOUBLE PRECISION: its REAL is 4 bytes). */
static const char SCHEMA_V2[] =
	"CREATE TABLE store_version (version BIGINT NOT NULL);"
	"CREATE TABLE runs (run_id TEXT PRIMARY KEY, host TEXT, dir TEXT, command TEXT, mode TEXT, pid BIGINT,"
	"  started TEXT, length_s DOUBLE PRECISION, how_ended TEXT, cause TEXT, added TEXT);"
	"CREATE TABLE labels (run_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT, PRIMARY KEY (run_id, key));"
	"CREATE TABLE crossings (run_id TEXT NOT NULL, seq BIGINT NOT NULL, t DOUBLE PRECISION, rule TEXT,"
	"  value DOUBLE PRECISION, threshold DOUBLE PRECISION, reason TEXT, PRIMARY KEY (run_id, seq));"
	"CREATE TABLE resource_groups (run_id TEXT NOT NULL, snapshot TEXT, resource TEXT, kind TEXT, count BIGINT,"
	"  signature TEXT, created_by TEXT, known BIGINT);"
	"CREATE TABLE failures (run_id TEXT NOT NULL, kind TEXT, syscall TEXT, errno TEXT, count BIGINT,"
	"  signature TEXT, called_by TEXT);"
	"CREATE TABLE leaks (run_id TEXT NOT NULL, dump BIGINT NOT NULL, signature TEXT NOT NULL, class TEXT,"
	"  instances BIGINT, retained BIGINT, reason TEXT, gc_root TEXT, path TEXT, suspect BIGINT NOT NULL, started TEXT,"
	"  PRIMARY KEY (run_id, dump, signature, suspect));"
	"CREATE TABLE allocs (run_id TEXT NOT NULL, count BIGINT, total_bytes BIGINT, largest_bytes BIGINT,"
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
	 * an allocation's bytes): what the lab's questions ask about, made from
	 * the tables above as each run is added (store_rows.c) */
	"CREATE TABLE findings (run_id TEXT NOT NULL, kind TEXT, signature TEXT, what TEXT, measure BIGINT,"
	"  started TEXT);"
	"CREATE INDEX findings_run ON findings (run_id);"
	"CREATE INDEX findings_signature ON findings (signature, run_id);"
	"CREATE INDEX findings_kind_signature ON findings (kind, signature);"
	"INSERT INTO store_version VALUES (2);";

static int set_err(struct store *s, struct ooms_err *err, const char *what)
{
	return ooms_err_set(err, -1, "%s: %s", what, s->ops ? s->ops->error(s) : s->err);
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

/* Version 1 (SQLite only: runs and leaks keyed by the run directory's
 * path, one machine's): its rows kept, each run under an id derived from
 * its path. */
static int migrate_v1(struct store *s)
{
	struct v1_dirs d = {0};
	int rc = -1;

	if (s->ops->exec(s, "ALTER TABLE runs RENAME TO runs_v1; ALTER TABLE leaks RENAME TO leaks_v1;"
			    "DROP INDEX IF EXISTS leaks_signature;") ||
	    s->ops->exec(s, SCHEMA_V2) || s->ops->exec(s, "CREATE TEMP TABLE v1_ids (dir TEXT PRIMARY KEY, run_id TEXT)") ||
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
	rc = version == STORE_VERSION ? 0 : version == 1 ? migrate_v1(s) : s->ops->exec(s, SCHEMA_V2);
	if (rc || s->ops->exec(s, "COMMIT")) {
		set_err(s, err, version == 1 ? "migrating the store from version 1" : "making the store");
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
