/* One statement at a time over whichever back end (store_int.h): below the
 * schema and the adding of a run (store.c), a run's rows (store_rows.c) and
 * the lab's questions (store_query.c). */
#include "report/store_int.h"

#include <stdio.h>
#include <string.h>

const char *store_backend(const struct store *s)
{
	return s->ops->name;
}

int store_query(struct store *s, const char *sql, int n, const struct store_val *params, store_row_fn fn, void *ctx)
{
	return s->ops->query(s, sql, n, params, fn, ctx);
}

const char *store_error(struct store *s)
{
	return s->fault[0] ? s->fault : s->ops->error(s);
}

int store_insert_row(struct store *s, const char *table, const char *run_id, const struct store_val *vals, size_t n)
{
	const struct store_table *t = store_table(table);
	struct store_val v[STORE_MAX_COLS];
	char sql[512];
	size_t off;

	s->fault[0] = 0;
	if (!t || (size_t)store_table_ncols(t) != n + 1) {
		snprintf(s->fault, sizeof(s->fault), "a row of %zu values for %s, which has %d columns (store_schema.c)",
			 n + 1, table, t ? store_table_ncols(t) : 0);
		return -1;
	}
	v[0] = STORE_TEXT(run_id);
	memcpy(v + 1, vals, n * sizeof(*vals));
	off = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES ($1", table);
	for (size_t i = 1; i <= n && off < sizeof(sql); i++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, ", $%zu", i + 1);
	if (off < sizeof(sql))
		snprintf(sql + off, sizeof(sql) - off, ") ON CONFLICT DO NOTHING");
	return s->ops->query(s, sql, (int)n + 1, v, NULL, NULL);
}
