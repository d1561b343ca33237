/* The store's schema as one table (store_int.h): each table's columns in
 * the order its rows' values come, its key and its indexes. The schema is
 * made from it, a run's rows are deleted from every table it marks as a
 * run's, and a row's values are counted against it. Types both back ends
 * know (BIGINT: PostgreSQL's INTEGER is 32 bits; DOUBLE PRECISION: its
 * REAL is 4 bytes). */
#include "report/store_int.h"

#include <stdio.h>
#include <string.h>

#define RUN_ID "run_id TEXT NOT NULL"

const struct store_table store_tables[] = {
	{"runs", 0, {"run_id TEXT PRIMARY KEY", "host TEXT", "dir TEXT", "command TEXT", "mode TEXT", "pid BIGINT",
		     "started TEXT", "length_s DOUBLE PRECISION", "how_ended TEXT", "cause TEXT", "added TEXT"}, NULL, {NULL}},
	{"labels", 1, {RUN_ID, "key TEXT NOT NULL", "value TEXT"}, "run_id, key", {"labels_key ON labels (key, value)"}},
	{"crossings", 1,
	 {RUN_ID, "seq BIGINT NOT NULL", "t DOUBLE PRECISION", "rule TEXT", "value DOUBLE PRECISION",
	  "threshold DOUBLE PRECISION", "reason TEXT"},
	 "run_id, seq", {NULL}},
	{"resource_groups", 1,
	 {RUN_ID, "snapshot TEXT", "resource TEXT", "kind TEXT", "count BIGINT", "signature TEXT", "created_by TEXT",
	  "known BIGINT"},
	 NULL,
	 {"resource_groups_run ON resource_groups (run_id)", "resource_groups_signature ON resource_groups (signature)"}},
	{"failures", 1,
	 {RUN_ID, "kind TEXT", "syscall TEXT", "errno TEXT", "count BIGINT", "signature TEXT", "called_by TEXT"}, NULL,
	 {"failures_run ON failures (run_id)", "failures_signature ON failures (signature)"}},
	{"leaks", 1,
	 {RUN_ID, "dump BIGINT NOT NULL", "signature TEXT NOT NULL", "class TEXT", "instances BIGINT", "retained BIGINT",
	  "reason TEXT", "gc_root TEXT", "path TEXT", "suspect BIGINT NOT NULL", "started TEXT"},
	 "run_id, dump, signature, suspect", {"leaks_signature ON leaks (signature)"}},
	{"allocs", 1,
	 {RUN_ID, "count BIGINT", "total_bytes BIGINT", "largest_bytes BIGINT", "signature TEXT", "allocated_by TEXT"},
	 NULL, {"allocs_run ON allocs (run_id)"}},
	/* every finding of a run by its signature, with what it is and a measure
	 * (a leak's retained bytes, a group's largest count, a failure's count,
	 * an allocation's bytes): what the lab's questions ask about, made from
	 * the tables above as each run is added (store_rows.c) */
	{"findings", 1, {RUN_ID, "kind TEXT", "signature TEXT", "what TEXT", "measure BIGINT", "started TEXT"}, NULL,
	 {"findings_run ON findings (run_id)", "findings_signature ON findings (signature, run_id)",
	  "findings_kind_signature ON findings (kind, signature)"}},
};
const size_t store_ntables = sizeof(store_tables) / sizeof(store_tables[0]);

const struct store_table *store_table(const char *name)
{
	for (size_t i = 0; i < store_ntables; i++)
		if (!strcmp(store_tables[i].name, name))
			return &store_tables[i];
	return NULL;
}

int store_table_ncols(const struct store_table *t)
{
	int n = 0;

	while (n < STORE_MAX_COLS && t->cols[n])
		n++;
	return n;
}

/* Appends to buf at *off; 0, or -1 when it does not fit. */
static int put(char *buf, size_t len, size_t *off, const char *fmt, const char *a, const char *b)
{
	int n = snprintf(buf + *off, len - *off, fmt, a, b);

	if (n < 0 || (size_t)n >= len - *off)
		return -1;
	*off += (size_t)n;
	return 0;
}

int store_schema_create(struct store *s)
{
	if (s->ops->exec(s, "CREATE TABLE store_version (version BIGINT NOT NULL)"))
		return -1;
	for (size_t i = 0; i < store_ntables; i++) {
		const struct store_table *t = &store_tables[i];
		char sql[1024];
		size_t off = 0;

		if (put(sql, sizeof(sql), &off, "CREATE TABLE %s (%s", t->name, t->cols[0]))
			return -1;
		for (int c = 1; c < store_table_ncols(t); c++)
			if (put(sql, sizeof(sql), &off, "%s%s", ", ", t->cols[c]))
				return -1;
		if (t->key && put(sql, sizeof(sql), &off, "%s%s", ", PRIMARY KEY (", t->key))
			return -1;
		if (put(sql, sizeof(sql), &off, "%s%s", t->key ? ")" : "", ")") || s->ops->exec(s, sql))
			return -1;
		for (size_t k = 0; k < STORE_MAX_INDEXES && t->indexes[k]; k++) {
			off = 0;
			if (put(sql, sizeof(sql), &off, "%s%s", "CREATE INDEX ", t->indexes[k]) || s->ops->exec(s, sql))
				return -1;
		}
	}
	return 0;
}
