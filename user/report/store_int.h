/* Between store.c (the database) and store_rows.c (what a run contributes). */
#ifndef OOMSCOPE_REPORT_STORE_INT_H
#define OOMSCOPE_REPORT_STORE_INT_H

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

/* A row of table: run_id, then n values (struct store_val) in the table's
 * column order. 0 or -1 (the database's error kept for store_add_run). */
int store_insert(struct store *s, const char *table, const char *run_id, int n, ...);
/* Every row of run_id, in every table. */
int store_delete_run(struct store *s, const char *run_id);

/* A finding's signature from what it is and its stack's frames (objects
 * with "symbol" and "module", or Java frames as strings): 16 hex digits. */
struct json_object;
void store_signature(const char *what, struct json_object *frames, char out[STORE_SIG_LEN + 1]);
/* The run's id: its start record's, or one derived for a run from before ids. */
void store_run_id(const struct rundata *rd, const char *real_dir, char out[RUN_ID_LEN + 1]);
/* Every row of the run. */
int store_run_rows(struct store *s, const struct rundata *rd, const char *run_id, const char *real_dir,
		   const char *started, const char *added);

#endif
