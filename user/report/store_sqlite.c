/* The store in SQLite (Debian's libsqlite3): a file, or memory. */
#include "report/store_int.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

static sqlite3 *db_of(struct store *s)
{
	return s->conn;
}

static int sq_exec(struct store *s, const char *sql)
{
	return sqlite3_exec(db_of(s), sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

static int sq_query(struct store *s, const char *sql, int n, const struct store_val *params, store_row_fn fn, void *ctx)
{
	sqlite3_stmt *st;
	int rc = 0, step;

	if (sqlite3_prepare_v2(db_of(s), sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	for (int i = 0; i < n; i++) {
		char name[16];
		int k;

		/* $N is a named parameter to SQLite: bound by its name */
		snprintf(name, sizeof(name), "$%d", i + 1);
		if (!(k = sqlite3_bind_parameter_index(st, name)))
			continue;
		if (params[i].type == STORE_T_INT)
			sqlite3_bind_int64(st, k, params[i].i);
		else if (params[i].type == STORE_T_REAL)
			sqlite3_bind_double(st, k, params[i].r);
		else if (params[i].text)
			sqlite3_bind_text(st, k, params[i].text, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st, k);
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int nc = sqlite3_column_count(st);
		const char *cols[32];

		if (!fn)
			continue;
		for (int i = 0; i < nc && i < 32; i++)
			cols[i] = (const char *)sqlite3_column_text(st, i);
		if (fn(ctx, nc < 32 ? nc : 32, cols)) {
			step = SQLITE_DONE;
			rc = -1;
			break;
		}
	}
	if (step != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	return rc;
}

static int sq_begin(struct store *s)
{
	return sq_exec(s, "BEGIN IMMEDIATE");
}

static int sq_table_exists(struct store *s, const char *table)
{
	sqlite3_stmt *st;
	int found;

	if (sqlite3_prepare_v2(db_of(s), "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

static const char *sq_error(struct store *s)
{
	return sqlite3_errmsg(db_of(s));
}

static void sq_close(struct store *s)
{
	sqlite3_close(db_of(s));
	s->conn = NULL;
}

static const struct store_ops SQLITE_OPS = {
	"SQLite", sq_exec, sq_query, sq_begin, sq_begin, sq_table_exists, sq_error, sq_close,
};

int store_sqlite_open(struct store *s, const char *path)
{
	sqlite3 *db = NULL;

	s->ops = &SQLITE_OPS;
	if (sqlite3_open_v2(path ? path : ":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		snprintf(s->err, sizeof(s->err), "%s", db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -1;
	}
	s->conn = db;
	/* several processes adding at once wait for each other's transaction */
	sqlite3_busy_timeout(db, 60000);
	return 0;
}
