/* The lab's store: every run's findings in one database, keyed by the run's
 * id (its start record's run_id), so runs from many machines stay apart and
 * a run added twice is stored once. SQLite (a file, or memory); the schema
 * is created and migrated here (store_version), never by hand. What each
 * run contributes: store_rows.c. */
#ifndef OOMSCOPE_REPORT_STORE_H
#define OOMSCOPE_REPORT_STORE_H

#include <stddef.h>
#include "util/err.h"

#define STORE_VERSION 2

struct store;

/* db: an SQLite file (created if missing), NULL for memory only, or a
 * PostgreSQL connection string (postgresql://... or KEY=VALUE ...; through
 * libpq.so.5, loaded then). NULL with err set (code -1). */
struct store *store_open(const char *db, struct ooms_err *err);
void store_close(struct store *s);
/* Adds run directory dir, replacing what the store had of that run: one
 * transaction. 0, or -1 with err set (nothing of it stored). */
int store_add_run(struct store *s, const char *dir, struct ooms_err *err);
/* The same, the run's id into id (33 bytes) when not NULL. */
int store_add_run_id(struct store *s, const char *dir, char *id, struct ooms_err *err);
/* "SQLite" or "PostgreSQL" */
const char *store_backend(const struct store *s);

#endif
