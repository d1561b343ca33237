/* oomscope aggregate: run directories into the lab's store (store.c), then
 * the Java leak table, or one of the lab's questions (store_query.c). */
#define _GNU_SOURCE
#include "report/aggregate.h"

#include <stdlib.h>
#include <string.h>
#include "report/store_int.h"
#include "report/store_query.h"
#include "util/json.h"

/* the leak groups and suspects by signature, most runs first (ties in a
 * fixed order: both back ends answer alike) */
static const char QUERY[] =
	"SELECT signature, MIN(class), COUNT(DISTINCT run_id), MIN(started), MAX(started), MAX(retained), SUM(instances),"
	"  (SELECT path FROM leaks l2 WHERE l2.signature = l.signature ORDER BY retained DESC, path LIMIT 1),"
	"  (SELECT reason FROM leaks l3 WHERE l3.signature = l.signature ORDER BY reason LIMIT 1)"
	" FROM leaks l GROUP BY signature ORDER BY COUNT(DISTINCT run_id) DESC, MAX(retained) DESC, signature";

struct table {
	int json, rows;
	FILE *out;
	struct json j; /* --json: the table's writer */
};

static const char *col(const char *const *cols, int n, int i)
{
	return i < n && cols[i] ? cols[i] : "";
}

static long long inum(const char *const *cols, int n, int i)
{
	return i < n && cols[i] ? strtoll(cols[i], NULL, 10) : 0;
}

static int count_row(void *ctx, int n, const char *const *cols)
{
	*(long long *)ctx = inum(cols, n, 0);
	return 0;
}

static int leak_row(void *ctx, int n, const char *const *c)
{
	static const char *const keys[] = {"signature", "className", NULL, "firstSeen", "lastSeen", NULL, NULL,
					   "examplePath", "leakReason"};
	struct table *t = ctx;

	t->rows++;
	if (t->json) {
		json_obj(&t->j);
		json_kint(&t->j, "runs", inum(c, n, 2));
		json_kint(&t->j, "retainedMax", inum(c, n, 5));
		json_kint(&t->j, "instances", inum(c, n, 6));
		for (int k = 0; k < 9; k++)
			if (keys[k])
				json_kstr(&t->j, keys[k], col(c, n, k));
		json_obj_end(&t->j);
	} else {
		fprintf(t->out, "%-16s %5lld %-20s %-20s %12lld  %s\n", col(c, n, 0), inum(c, n, 2), col(c, n, 3),
			col(c, n, 4), inum(c, n, 5), col(c, n, 1));
		fprintf(t->out, "%16s       %s\n", "", col(c, n, 7));
	}
	return 0;
}

int ooms_aggregate(const char *dbpath, char *const *dirs, size_t ndirs, const struct store_query *q, int as_json,
		   FILE *out, size_t *added, struct ooms_err *err)
{
	struct store *store = store_open(dbpath, err);
	struct table t = {.json = as_json, .out = out};
	long long runs = 0;
	int rc = -1;

	*added = 0;
	if (!store)
		return -1;
	for (size_t i = 0; i < ndirs; i++) {
		if (store_add_run(store, dirs[i], err))
			goto out;
		(*added)++;
	}
	if (q) {
		rc = store_query_run(store, q, as_json, out, err) < 0 ? -1 : 0;
		goto out;
	}
	if (store_query(store, "SELECT COUNT(*) FROM runs", 0, NULL, count_row, &runs)) {
		ooms_err_set(err, -1, "query: %s", store_error(store));
		goto out;
	}
	if (!as_json) {
		/* the text answers with every finding (leaks, fd and thread groups,
		 * failing calls, large allocations, memory growth): --signatures' table */
		struct store_query all = {.kind = SQ_SIGNATURES};

		fprintf(out, "%lld run(s); ", runs);
		rc = store_query_run(store, &all, 0, out, err) < 0 ? -1 : 0;
		goto out;
	}
	if (as_json) {
		json_init(&t.j, out, 0);
		json_obj(&t.j);
		json_kstr(&t.j, "schema", "oomscope-aggregate/1");
		json_kint(&t.j, "runs", runs);
		json_key(&t.j, "leaks");
		json_arr(&t.j);
	} else {
		fprintf(out, "%lld run(s); leaks by signature, most runs first:\n", runs);
		fprintf(out, "%-16s %5s %-20s %-20s %12s  %s\n", "signature", "runs", "first seen", "last seen",
			"retained max", "class");
	}
	if (store_query(store, QUERY, 0, NULL, leak_row, &t)) {
		ooms_err_set(err, -1, "query: %s", store_error(store));
		goto out;
	}
	if (as_json) {
		json_arr_end(&t.j);
		json_obj_end(&t.j);
		json_end_line(&t.j);
	} else if (!t.rows)
		fprintf(out, "(no leaks in these runs' analyses)\n");
	rc = 0;
out:
	store_close(store);
	return rc;
}
