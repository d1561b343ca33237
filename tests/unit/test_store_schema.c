/* The store's schema as a table (report/store_schema.c): the store made
 * from it in SQLite, a row counted against its table's columns, the tables
 * of a run's rows, a store reopened at its version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/store_int.h"
#include "tap.h"

static int count_rows(void *ctx, int ncols, const char *const *cols)
{
	(void)ncols;
	(void)cols;
	(*(int *)ctx)++;
	return 0;
}

static int first_text(void *ctx, int ncols, const char *const *cols)
{
	if (ncols > 0 && cols[0])
		snprintf(ctx, 64, "%s", cols[0]);
	return 0;
}

int main(void)
{
	char dir[] = "/tmp/oomscope-store-schema.XXXXXX", db[128], version[64] = "";
	struct ooms_err err = {0};
	struct store *s;
	int rows = 0, runs = 0;

	if (!mkdtemp(dir))
		return 1;
	snprintf(db, sizeof(db), "%s/lab.db", dir);
	s = store_open(db, &err);
	TAP_OK(s != NULL, "a new SQLite store made from the table: %s", err.msg);
	if (!s)
		return tap_done();
	store_query(s, "SELECT version FROM store_version", 0, NULL, first_text, version);
	TAP_EQ_INT(atoi(version), STORE_VERSION, "at the latest version");
	for (size_t i = 0; i < store_ntables; i++) {
		char sql[128];
		int n = 0;

		snprintf(sql, sizeof(sql), "SELECT * FROM %s", store_tables[i].name);
		TAP_OK(!store_query(s, sql, 0, NULL, count_rows, &n), "table %s made", store_tables[i].name);
		runs += store_tables[i].of_a_run;
	}
	TAP_EQ_INT(runs, (int)store_ntables - 1, "every table but runs holds a run's rows");
	TAP_EQ_INT(store_table_ncols(store_table("labels")), 3, "labels: run_id, key, value");
	TAP_EQ_INT(store_insert(s, "labels", "r1", STORE_TEXT("build"), STORE_TEXT("42")), 0, "a row that fits is stored");
	store_query(s, "SELECT * FROM labels", 0, NULL, count_rows, &rows);
	TAP_EQ_INT(rows, 1, "and read back");
	TAP_EQ_INT(store_insert(s, "labels", "r1", STORE_TEXT("build"), STORE_TEXT("42"), STORE_INT(7)), -1,
		   "a row of one value too many is refused");
	TAP_OK(strstr(store_error(s), "4 values for labels, which has 3 columns") != NULL, "and says so: %s",
	       store_error(s));
	TAP_EQ_INT(store_insert(s, "nothing", "r1", STORE_INT(1)), -1, "a table the schema has not: refused");
	store_close(s);
	s = store_open(db, &err);
	TAP_OK(s != NULL, "the store reopened at its version: %s", err.msg);
	store_close(s);
	for (const char *const *x = (const char *const[]){"", "-wal", "-shm", "-journal", NULL}; *x; x++) {
		char f[160];

		snprintf(f, sizeof(f), "%s%s", db, *x);
		unlink(f);
	}
	TAP_OK(rmdir(dir) == 0, "nothing left behind");
	return tap_done();
}
