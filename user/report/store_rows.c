/* What one run found, as the store's rows (store.h): its identity and
 * labels, crossings, the fd and thread groups of each snapshot, failing
 * calls, its death, the Java leaks and suspects, the large allocations.
 * Each finding carries a signature that stays the same across builds where
 * the code did not change: the kind of finding and the function names of
 * its stack's top frames (a frame without a symbol counts by its module's
 * name, never by an address or an offset). */
#define _GNU_SOURCE
#include "report/store_int.h"
#include "report/run_files.h"
#include "report/store_files.h"

#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "run/files.h"
#include "run/frames.h"
#include "run/snapshot.h"
#include "run/run_id.h"
#include "util/hash.h"

static int crossing_rows(struct store *s, const struct rundata *rd, const char *run_id)
{
	int seq = 0;

	for (size_t i = 0; i < rd->nevents; i++) {
		const struct rd_event *e = &rd->events[i];
		struct json_object *doc;
		struct run_snapshot snap;

		if (e->kind != REC_CROSSING)
			continue;
		if (store_insert(s, "crossings", run_id, STORE_INT(++seq), STORE_REAL(e->t), STORE_TEXT(e->rule),
				 STORE_REAL(e->value), STORE_REAL(e->limit), STORE_TEXT(e->text)))
			return -1;
		/* its snapshot's groups (the fd and thread rules write one; not
		 * kept: the first, the largest and the last are) */
		if (e->file[0] && store_memory_crossing_rows(s, rd, run_id, e->file))
			return -1;
		if (!e->file[0] || run_snapshot_load(rd->dir, e->file, &doc, &snap))
			continue;
		{
			int bad = store_snapshot_rows(s, run_id, e->file, &snap);

			run_snapshot_free(&snap);
			json_object_put(doc);
			if (bad)
				return -1;
		}
	}
	return 0;
}

/* "GC root KIND -> step -> step" of a leak group's or suspect's path */
static void path_line(const struct run_an_path *p, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s", p->gc_root ? p->gc_root : "?");

	for (size_t i = 0; i < p->nsteps && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " -> %s", p->steps[i].reference ? p->steps[i].reference : "(null)");
}

static int64_t whole(double v)
{
	return isnan(v) ? 0 : (int64_t)v;
}

/* What a suspect is, for a person reading the store: what accumulates where
 * ("LeakyService$Session in LeakyService$SessionCache.CLOSED": the class it
 * accumulates, in the field nearest the accumulation point that is static,
 * else an instance field), else the class of the object it is about. */
static void suspect_what(const struct run_an_suspect *g, char *out, size_t len)
{
	const char *where = NULL;

	for (size_t k = g->path.nsteps; k-- > 0 && !where;)
		if (g->path.steps[k].reference_type && !strcmp(g->path.steps[k].reference_type, "STATIC_FIELD"))
			where = g->path.steps[k].reference;
	for (size_t k = g->path.nsteps; k-- > 0 && !where;)
		if (g->path.steps[k].reference_type && !strcmp(g->path.steps[k].reference_type, "INSTANCE_FIELD"))
			where = g->path.steps[k].reference;
	if (g->accumulates && where)
		snprintf(out, len, "%s in %s", g->accumulates, where);
	else if (g->accumulates)
		snprintf(out, len, "%s in a %s", g->accumulates, g->class_name ? g->class_name : "?");
	else
		snprintf(out, len, "%s", g->class_name ? g->class_name : "?");
}

/* The leak groups (by rule) and the suspects (no rule) of each dump's analysis. */
static int leak_rows(struct store *s, const struct rundata *rd, const char *run_id, const char *started)
{
	for (size_t a = 0; a < rd->nanalyses; a++) {
		const struct run_analysis *an = &rd->an[a];
		char why[2100], line[8192];

		for (size_t i = 0; i < an->nleaks; i++) {
			const struct run_an_leak *g = &an->leaks[i];

			path_line(&g->path, line, sizeof(line));
			if (store_insert(s, "leaks", run_id, STORE_INT(rd->analysis_seq[a]),
					 STORE_TEXT(g->signature ? g->signature : "?"), STORE_TEXT(g->class_name),
					 STORE_INT(whole(g->instance_count)), STORE_INT(whole(g->retained_size_total)),
					 STORE_TEXT(g->leak_reason), STORE_TEXT(g->path.gc_root), STORE_TEXT(line), STORE_INT(0),
					 STORE_TEXT(started)))
				return -1;
		}
		for (size_t i = 0; i < an->nsuspects; i++) {
			const struct run_an_suspect *g = &an->suspects[i];
			char what[600];

			snprintf(why, sizeof(why), "leak suspect (no rule): %s", g->description ? g->description : "?");
			path_line(&g->path, line, sizeof(line));
			suspect_what(g, what, sizeof(what));
			if (store_insert(s, "leaks", run_id, STORE_INT(rd->analysis_seq[a]),
					 STORE_TEXT(g->signature ? g->signature : "?"), STORE_TEXT(what),
					 STORE_INT(whole(g->count)), STORE_INT(whole(g->retained_size)), STORE_TEXT(why),
					 STORE_TEXT(g->path.gc_root), STORE_TEXT(line), STORE_INT(1), STORE_TEXT(started)))
				return -1;
		}
	}
	return 0;
}

void store_run_id(const struct rundata *rd, char out[RUN_ID_LEN + 1])
{
	const char *id = rd->start_rec.run_id;
	const char *text;

	if (run_id_valid(id)) {
		snprintf(out, RUN_ID_LEN + 1, "%s", id);
		return;
	}
	/* a run from before ids: one from its start record's text (a copy of
	 * the directory is the same run) */
	text = rd->start ? json_object_to_json_string_ext(rd->start, JSON_C_TO_STRING_PLAIN) : "";
	run_id_derived(text, strlen(text), out);
}

static int delete_run(struct store *s, const char *run_id)
{
	struct store_val v = STORE_TEXT(run_id);

	for (size_t i = 0; i < store_ntables; i++) { /* the tables of a run's rows (store_schema.c) */
		char sql[128];

		if (!store_tables[i].of_a_run)
			continue;
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE run_id = $1", store_tables[i].name);
		if (s->ops->query(s, sql, 1, &v, NULL, NULL))
			return -1;
	}
	return 0;
}

/* A run's findings ($1: its id), from its rows: one per kind and
 * signature (so a count of rows is a count of runs), with the run's start
 * beside it (the questions then read this table alone) */
#define RUN_STARTED "(SELECT started FROM runs WHERE run_id = $1)"
static const char FINDINGS_OF_RUN[] =
	"INSERT INTO findings"
	"  SELECT run_id, 'leak', signature, MIN(class), MAX(retained), " RUN_STARTED " FROM leaks WHERE run_id = $1"
	"    GROUP BY run_id, signature"
	"  UNION ALL SELECT run_id, resource, signature, MIN(kind || ' <- ' || created_by), MAX(count), " RUN_STARTED
	"    FROM resource_groups WHERE run_id = $1 AND known = 1 GROUP BY run_id, resource, signature"
	"  UNION ALL SELECT run_id, 'failure', signature,"
	"    MIN(syscall || ' ' || errno || ' <- ' || COALESCE(called_by, '?')), SUM(count), " RUN_STARTED
	"    FROM failures WHERE run_id = $1 GROUP BY run_id, signature"
	"  UNION ALL SELECT run_id, 'alloc', signature, MIN(COALESCE(allocated_by, '?')), SUM(total_bytes), " RUN_STARTED
	"    FROM allocs WHERE run_id = $1 GROUP BY run_id, signature";

static int run_findings(struct store *s, const char *run_id)
{
	struct store_val v = STORE_TEXT(run_id);

	return s->ops->query(s, FINDINGS_OF_RUN, 1, &v, NULL, NULL);
}

int store_run_rows(struct store *s, const struct rundata *rd, const char *run_id, const char *real_dir,
		   const char *started, const char *added)
{
	const char *how = rd->have_death ? rd->death.how : NULL;
	char cause[96];

	/* a memory kill by its killer: deaths are counted by cause and killer */
	if (rd->have_death && rd->death.has_memory_kill && rd->death.memory_kill.killer && rd->death.cause &&
	    !strcmp(rd->death.cause, "memory-killer"))
		snprintf(cause, sizeof(cause), "%s: %s", rd->death.cause ? rd->death.cause : "?", rd->death.memory_kill.killer);
	else
		snprintf(cause, sizeof(cause), "%s", rd->have_death && rd->death.cause ? rd->death.cause : "");

	struct store_val run[11] = {STORE_TEXT(run_id), STORE_TEXT(rd->start_rec.host), STORE_TEXT(real_dir),
				    STORE_TEXT(rd->command), STORE_TEXT(rd->mode), STORE_INT(rd->pid), STORE_TEXT(started),
				    STORE_REAL(rd->ended ? rd->end_t : -1),
				    STORE_TEXT(how ? how : rd->ended ? rd->end_reason : NULL),
				    STORE_TEXT(cause[0] ? cause : NULL), STORE_TEXT(added)};

	/* the runs row first: written or updated, it holds off another process
	 * adding the same run until this transaction ends; then the run's rows
	 * replaced */
	if (store_query(s,
			"INSERT INTO runs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (run_id) DO UPDATE"
			" SET host = excluded.host, dir = excluded.dir, command = excluded.command, mode = excluded.mode,"
			" pid = excluded.pid, started = excluded.started, length_s = excluded.length_s,"
			" how_ended = excluded.how_ended, cause = excluded.cause, added = excluded.added",
			11, run, NULL, NULL) ||
	    delete_run(s, run_id))
		return -1;
	for (size_t i = 0; i < rd->start_rec.nlabels; i++)
		if (store_insert(s, "labels", run_id, STORE_TEXT(rd->start_rec.label_key[i]),
				 STORE_TEXT(rd->start_rec.label_value[i])))
			return -1;
	/* the run directory's files each add their rows (run_files.c) */
	if (crossing_rows(s, rd, run_id) || rd_files_store(s, rd, run_id) || leak_rows(s, rd, run_id, started) ||
	    run_findings(s, run_id))
		return -1;
	return 0;
}
