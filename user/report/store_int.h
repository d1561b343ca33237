/* Between the store's generic part (store.c: schema, a run added), its
 * statements (store_db.c), its back ends (store_sqlite.c, store_pg.c: one
 * connection, SQL with $1..$n parameters, rows as text) and what a run
 * contributes (store_rows.c). */
#ifndef OOMSCOPE_REPORT_STORE_INT_H
#define OOMSCOPE_REPORT_STORE_INT_H

#include <stddef.h>
#include <stdint.h>
#include "report/rundata.h"
#include "report/store.h"
#include "run/run_id.h"

#define STORE_SIG_LEN 16

enum store_type { STORE_T_TEXT, STORE_T_INT, STORE_T_REAL };
struct store_val {
	enum store_type type;
	const char *text; /* NULL: SQL NULL */
	int64_t i;
	double r;
};
#define STORE_TEXT(x) ((struct store_val){STORE_T_TEXT, (x), 0, 0})
#define STORE_INT(x) ((struct store_val){STORE_T_INT, NULL, (x), 0})
#define STORE_REAL(x) ((struct store_val){STORE_T_REAL, NULL, 0, (x)})

/* One row of a query: its columns as text (NULL for SQL NULL). Returns 0
 * to go on. */
typedef int (*store_row_fn)(void *ctx, int ncols, const char *const *cols);

struct store_ops {
	const char *name;                                  /* "SQLite", "PostgreSQL" */
	/* statements without parameters (several, ';' between) */
	int (*exec)(struct store *s, const char *sql);
	/* one statement with $1..$n, its rows to fn (may be NULL) */
	int (*query)(struct store *s, const char *sql, int n, const struct store_val *params, store_row_fn fn, void *ctx);
	/* a transaction for a run's rows (its runs row, written first, holds
	 * off another adding the same run), and one that no other writer of
	 * the store interleaves with (the schema) */
	int (*begin)(struct store *s);
	int (*begin_exclusive)(struct store *s);
	int (*table_exists)(struct store *s, const char *table);
	const char *(*error)(struct store *s);
	void (*close)(struct store *s);
};

struct store {
	const struct store_ops *ops;
	void *conn;
	char err[512]; /* a back end's own message, when it has no connection to ask */
	char fault[160]; /* oomscope's own (a row that does not fit its table), before the back end's */
};

/* The schema, one row per table (store_schema.c), in the order made. */
#define STORE_MAX_COLS 16
#define STORE_MAX_INDEXES 4
struct store_table {
	const char *name;
	int of_a_run;                              /* led by run_id: a run's rows, replaced when it is added again */
	const char *cols[STORE_MAX_COLS];          /* "name TYPE", in the order of a row's values */
	const char *key;                           /* the primary key's columns, or NULL */
	const char *indexes[STORE_MAX_INDEXES];    /* "NAME ON table (columns)" */
};
extern const struct store_table store_tables[];
extern const size_t store_ntables;
const struct store_table *store_table(const char *name);
int store_table_ncols(const struct store_table *t);
/* Every table and index of the schema (store_version's row is the caller's). */
int store_schema_create(struct store *s);

int store_sqlite_open(struct store *s, const char *path);
/* conninfo: a libpq connection string or URI; libpq.so.5 loaded here. */
int store_pg_open(struct store *s, const char *conninfo);

/* A statement with $1..$n, its rows to fn (may be NULL). 0 or -1 (store_error says why). */
int store_query(struct store *s, const char *sql, int n, const struct store_val *params, store_row_fn fn, void *ctx);
const char *store_error(struct store *s);

/* A row of table: run_id, then the values in the table's column order
 * (store_schema.c), counted here and checked against the table's columns:
 * 0, or -1 (store_error says why). */
int store_insert_row(struct store *s, const char *table, const char *run_id, const struct store_val *v, size_t n);
#define store_insert(s, table, run_id, ...)                                                                    \
	store_insert_row(s, table, run_id, (const struct store_val[]){__VA_ARGS__},                           \
			 sizeof((const struct store_val[]){__VA_ARGS__}) / sizeof(struct store_val))

/* A finding's signature from what it is and its stack's frames (objects
 * with "symbol" and "module", or Java frames as strings): 16 hex digits. */
struct json_object;
void store_signature(const char *what, struct json_object *frames, char out[STORE_SIG_LEN + 1]);
/* The same from a stack read (struct run_frames), and from names given. */
struct run_frames;
void store_frames_signature(const char *what, const struct run_frames *fr, char out[STORE_SIG_LEN + 1]);
void store_sign(const char *what, const char *const *names, size_t n, char out[STORE_SIG_LEN + 1]);
/* The run's id: its start record's, or one derived for a run from before ids. */
void store_run_id(const struct rundata *rd, char out[RUN_ID_LEN + 1]);
/* Every row of the run. */
int store_run_rows(struct store *s, const struct rundata *rd, const char *run_id, const char *real_dir,
		   const char *started, const char *added);

#endif
