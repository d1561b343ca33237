/* One statement at a time over whichever back end (store_int.h): below the
 * schema and the adding of a run (store.c), a run's rows (store_rows.c) and
 * the lab's questions (store_query.c). */
#include "report/store_int.h"

#include <stdarg.h>
#include <stdio.h>

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
	return s->ops->error(s);
}

int store_insert(struct store *s, const char *table, const char *run_id, int n, ...)
{
	struct store_val v[16];
	char sql[512];
	size_t off;
	va_list ap;

	if (n + 1 > (int)(sizeof(v) / sizeof(v[0])))
		return -1;
	v[0] = STORE_TEXT(run_id);
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		v[i + 1] = va_arg(ap, struct store_val);
	va_end(ap);
	off = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES ($1", table);
	for (int i = 1; i <= n && off < sizeof(sql); i++)
		off += (size_t)snprintf(sql + off, sizeof(sql) - off, ", $%d", i + 1);
	if (off < sizeof(sql))
		snprintf(sql + off, sizeof(sql) - off, ") ON CONFLICT DO NOTHING");
	return s->ops->query(s, sql, n + 1, v, NULL, NULL);
}
