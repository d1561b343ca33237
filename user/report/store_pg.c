/* The store in PostgreSQL, through libpq. libpq.so.5 is loaded when a
 * PostgreSQL store is asked for (dlopen), so oomscope needs it only then
 * and the static build for phones carries none of it. libpq-fe.h gives the
 * types and constants (Debian's libpq-dev). */
#define _GNU_SOURCE
#include "report/store_int.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	void *lib;
	PGconn *(*connectdb)(const char *);
	ConnStatusType (*status)(const PGconn *);
	char *(*error_message)(const PGconn *);
	void (*finish)(PGconn *);
	PGresult *(*exec)(PGconn *, const char *);
	PGresult *(*exec_params)(PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *,
				 int);
	ExecStatusType (*result_status)(const PGresult *);
	int (*ntuples)(const PGresult *);
	int (*nfields)(const PGresult *);
	char *(*getvalue)(const PGresult *, int, int);
	int (*getisnull)(const PGresult *, int, int);
	void (*clear)(PGresult *);
	PQnoticeProcessor (*set_notice_processor)(PGconn *, PQnoticeProcessor, void *);
} pq;

static int load_libpq(char *err, size_t len)
{
	static const char *const names[] = {"libpq.so.5", "libpq.so"};

	if (pq.lib)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !pq.lib; i++)
		pq.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!pq.lib) {
		snprintf(err, len, "libpq.so.5 not found: install libpq5 (Debian) for a PostgreSQL store");
		return -1;
	}
#define SYM(field, name)                                                                          \
	if (!(*(void **)&pq.field = dlsym(pq.lib, name))) {                                       \
		snprintf(err, len, "libpq.so.5 has no %s", name);                                 \
		dlclose(pq.lib);                                                                   \
		pq.lib = NULL;                                                                     \
		return -1;                                                                         \
	}
	SYM(connectdb, "PQconnectdb")
	SYM(status, "PQstatus")
	SYM(error_message, "PQerrorMessage")
	SYM(finish, "PQfinish")
	SYM(exec, "PQexec")
	SYM(exec_params, "PQexecParams")
	SYM(result_status, "PQresultStatus")
	SYM(ntuples, "PQntuples")
	SYM(nfields, "PQnfields")
	SYM(getvalue, "PQgetvalue")
	SYM(getisnull, "PQgetisnull")
	SYM(clear, "PQclear")
	SYM(set_notice_processor, "PQsetNoticeProcessor")
#undef SYM
	return 0;
}

static PGconn *conn_of(struct store *s)
{
	return s->conn;
}

static int ok_result(PGresult *r)
{
	ExecStatusType st = r ? pq.result_status(r) : PGRES_FATAL_ERROR;

	return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

static int pg_exec(struct store *s, const char *sql)
{
	PGresult *r = pq.exec(conn_of(s), sql);
	int rc = ok_result(r) ? 0 : -1;

	pq.clear(r);
	return rc;
}

static int pg_query(struct store *s, const char *sql, int n, const struct store_val *params, store_row_fn fn, void *ctx)
{
	char bufs[16][32];
	const char *values[16];
	PGresult *r;
	int rc = 0;

	if (n > 16)
		return -1;
	for (int i = 0; i < n; i++) {
		if (params[i].type == STORE_T_INT) {
			snprintf(bufs[i], sizeof(bufs[i]), "%" PRId64, params[i].i);
			values[i] = bufs[i];
		} else if (params[i].type == STORE_T_REAL) {
			snprintf(bufs[i], sizeof(bufs[i]), "%.17g", params[i].r);
			values[i] = bufs[i];
		} else {
			values[i] = params[i].text;
		}
	}
	r = pq.exec_params(conn_of(s), sql, n, NULL, values, NULL, NULL, 0);
	if (!ok_result(r)) {
		pq.clear(r);
		return -1;
	}
	for (int row = 0; fn && row < pq.ntuples(r) && !rc; row++) {
		int nc = pq.nfields(r);
		const char *cols[32];

		for (int c = 0; c < nc && c < 32; c++)
			cols[c] = pq.getisnull(r, row, c) ? NULL : pq.getvalue(r, row, c);
		rc = fn(ctx, nc < 32 ? nc : 32, cols) ? -1 : 0;
	}
	pq.clear(r);
	return rc;
}

static int pg_begin(struct store *s)
{
	return pg_exec(s, "BEGIN");
}

/* one key for the whole store: making the schema is done by one at a time */
static int pg_begin_exclusive(struct store *s)
{
	return pg_exec(s, "BEGIN; SELECT pg_advisory_xact_lock(7400202611)");
}

static int one(void *ctx, int ncols, const char *const *cols)
{
	(void)ncols;
	(void)cols;
	*(int *)ctx = 1;
	return 0;
}

static int pg_table_exists(struct store *s, const char *table)
{
	struct store_val v = STORE_TEXT(table);
	int found = 0;

	if (pg_query(s, "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = $1", 1, &v,
		     one, &found))
		return 0;
	return found;
}

static const char *pg_error(struct store *s)
{
	static char msg[512];
	const char *e = pq.error_message(conn_of(s));

	/* one line: libpq's message ends with a newline, may hold a DETAIL line */
	snprintf(msg, sizeof(msg), "%.*s", (int)strcspn(e, "\n"), e);
	return msg;
}

static void pg_close(struct store *s)
{
	pq.finish(conn_of(s));
	s->conn = NULL;
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message; /* NOTICEs (an index that exists) are not the user's business */
}

static const struct store_ops PG_OPS = {
	"PostgreSQL", pg_exec, pg_query, pg_begin, pg_begin_exclusive, pg_table_exists, pg_error, pg_close,
};

int store_pg_open(struct store *s, const char *conninfo)
{
	PGconn *c;

	if (load_libpq(s->err, sizeof(s->err)))
		return -1;
	s->ops = &PG_OPS;
	c = pq.connectdb(conninfo);
	if (!c || pq.status(c) != CONNECTION_OK) {
		const char *e = c ? pq.error_message(c) : "out of memory";

		snprintf(s->err, sizeof(s->err), "%.*s", (int)strcspn(e, "\n"), e);
		if (c)
			pq.finish(c);
		return -1;
	}
	pq.set_notice_processor(c, quiet, NULL);
	s->conn = c;
	return 0;
}
