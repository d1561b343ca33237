/* What one run found, as the store's rows (store.h): its identity and
 * labels, crossings, the fd and thread groups of each snapshot, failing
 * calls, its death, the Java leaks and suspects, the large allocations.
 * Each finding carries a signature that stays the same across builds where
 * the code did not change: the kind of finding and the function names of
 * its stack's top frames (a frame without a symbol counts by its module's
 * name, never by an address or an offset). */
#define _GNU_SOURCE
#include "report/store_int.h"

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

#define SIG_FRAMES 5

/* The module's file name of a frame ("libc.so.6" of "/usr/lib/x86_64-linux-gnu/libc.so.6"). */
static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

static void sign(const char *what, const char *const *names, size_t n, char out[STORE_SIG_LEN + 1])
{
	uint64_t h = fnv1a_str(FNV1A_BASIS, what);

	for (size_t i = 0, used = 0; i < n && used < SIG_FRAMES; i++) {
		if (!names[i])
			continue;
		h = fnv1a_str(fnv1a_str(h, "|"), names[i]);
		used++;
	}
	snprintf(out, STORE_SIG_LEN + 1, "%016llx", (unsigned long long)h);
}

void store_signature(const char *what, struct json_object *frames, char out[STORE_SIG_LEN + 1])
{
	const char *names[SIG_FRAMES];
	size_t n = frames && json_object_is_type(frames, json_type_array) ? json_object_array_length(frames) : 0, k = 0;

	for (size_t i = 0; i < n && k < SIG_FRAMES; i++) {
		int is_module;
		const char *name = run_frames_sig_name(frames, i, &is_module);

		if ((name = is_module ? base_name(name) : name))
			names[k++] = name;
	}
	sign(what, names, k, out);
}

/* The same of a stack read: each frame's symbol, else its module's name. */
static void frames_signature(const char *what, const struct run_frames *fr, char out[STORE_SIG_LEN + 1])
{
	const char *names[SIG_FRAMES];
	size_t k = 0;

	for (size_t i = 0; i < fr->n && k < SIG_FRAMES; i++) {
		const char *name = fr->v[i].symbol ? fr->v[i].symbol : base_name(fr->v[i].module);

		if (name)
			names[k++] = name;
	}
	sign(what, names, k, out);
}

/* The groups of one snapshot file (threads: by name; fds: by kind), one
 * row per creation stack. */
static int snapshot_rows(struct store *s, const char *run_id, const char *snap, const struct run_snapshot *doc)
{
	const char *resource = ooms_snap_base[doc->kind];

	for (size_t i = 0; i < doc->ngroups; i++) {
		const struct run_snap_group *g = &doc->groups[i];

		for (size_t k = 0; k < g->nstacks; k++) {
			const struct run_snap_stack *x = &g->stacks[k];
			char what[300], sig[STORE_SIG_LEN + 1];

			snprintf(what, sizeof(what), "%s %s %s", resource, g->name ? g->name : "?", x->syscall ? x->syscall : "");
			store_signature(what, run_frames_for_signature(x->obj), sig);
			/* known: made while watched, with its creation stack (not "existed at attach") */
			if (store_insert(s, "resource_groups", run_id, 7, STORE_TEXT(snap), STORE_TEXT(resource),
					 STORE_TEXT(g->name), STORE_INT((int64_t)x->count), STORE_TEXT(sig),
					 STORE_TEXT(x->created_by ? x->created_by : x->unknown), STORE_INT(x->created_by != NULL)))
				return -1;
		}
	}
	return 0;
}

/* A memory snapshot's growth by code: a row per culprit (the first frame of
 * the program's own code: the stacks that reach it are one finding), its
 * bytes as its count; growth of mapped files is page cache, reclaimable,
 * never a finding (known 0) */
static int memory_rows(struct store *s, const char *run_id, const char *snap, const struct run_memory *m)
{
	struct run_memory_culprit *c;
	size_t nc;
	int e = 0;

	if (run_memory_culprits(m, &c, &nc))
		return -1;
	for (size_t i = 0; i < nc && !e; i++) {
		const char *kind = run_memory_backing(c[i].anon, c[i].file, c[i].shared);
		const char *by = c[i].created_by;
		char what[64], sig[STORE_SIG_LEN + 1];

		snprintf(what, sizeof(what), "memory %s", kind);
		sign(what, by ? &by : NULL, by ? 1 : 0, sig);
		e = store_insert(s, "resource_groups", run_id, 7, STORE_TEXT(snap), STORE_TEXT("memory"), STORE_TEXT(kind),
				 STORE_INT(c[i].bytes), STORE_TEXT(sig), STORE_TEXT(by),
				 STORE_INT(by != NULL && strcmp(kind, "mapped file") != 0));
	}
	run_memory_culprits_free(c, nc);
	return e ? -1 : 0;
}

/* A crossing's memory-N.json, read and stored (0 when it is none). */
static int memory_crossing_rows(struct store *s, const struct rundata *rd, const char *run_id, const char *file)
{
	struct json_object *doc;
	struct run_memory m;
	int bad;

	if (run_memory_load(rd->dir, file, &doc, &m))
		return 0;
	bad = memory_rows(s, run_id, file, &m);
	run_memory_free(&m);
	json_object_put(doc);
	return bad;
}

static int crossing_rows(struct store *s, const struct rundata *rd, const char *run_id)
{
	int seq = 0;

	for (size_t i = 0; i < rd->nevents; i++) {
		const struct rd_event *e = &rd->events[i];
		struct json_object *doc;
		struct run_snapshot snap;

		if (e->kind != REC_CROSSING)
			continue;
		if (store_insert(s, "crossings", run_id, 6, STORE_INT(++seq), STORE_REAL(e->t), STORE_TEXT(e->rule),
				 STORE_REAL(e->value), STORE_REAL(e->limit), STORE_TEXT(e->text)))
			return -1;
		/* its snapshot's groups (the fd and thread rules write one; not
		 * kept: the first, the largest and the last are) */
		if (e->file[0] && memory_crossing_rows(s, rd, run_id, e->file))
			return -1;
		if (!e->file[0] || run_snapshot_load(rd->dir, e->file, &doc, &snap))
			continue;
		{
			int bad = snapshot_rows(s, run_id, e->file, &snap);

			run_snapshot_free(&snap);
			json_object_put(doc);
			if (bad)
				return -1;
		}
	}
	return 0;
}

static int failure_rows(struct store *s, const struct rundata *rd, const char *run_id)
{
	for (size_t i = 0; rd->have_failures && i < rd->failures.n; i++) {
		const struct run_fail_group *g = &rd->failures.groups[i];
		char what[200], sig[STORE_SIG_LEN + 1];

		snprintf(what, sizeof(what), "failure %s %s", g->syscall ? g->syscall : "?", g->err ? g->err : "?");
		store_signature(what, run_frames_for_signature(g->obj), sig);
		if (store_insert(s, "failures", run_id, 6, STORE_TEXT(g->kind), STORE_TEXT(g->syscall), STORE_TEXT(g->err),
				 STORE_INT((int64_t)g->count), STORE_TEXT(sig), STORE_TEXT(g->called_by)))
			return -1;
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
			if (store_insert(s, "leaks", run_id, 10, STORE_INT(rd->analysis_seq[a]),
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
			if (store_insert(s, "leaks", run_id, 10, STORE_INT(rd->analysis_seq[a]),
					 STORE_TEXT(g->signature ? g->signature : "?"), STORE_TEXT(what),
					 STORE_INT(whole(g->count)), STORE_INT(whole(g->retained_size)), STORE_TEXT(why),
					 STORE_TEXT(g->path.gc_root), STORE_TEXT(line), STORE_INT(1), STORE_TEXT(started)))
				return -1;
		}
	}
	return 0;
}

static int alloc_rows(struct store *s, const struct rundata *rd, const char *run_id)
{
	for (size_t i = 0; rd->have_allocs && i < rd->allocs.ngroups; i++) {
		const struct run_alloc_group *g = &rd->allocs.groups[i];
		char sig[STORE_SIG_LEN + 1];

		frames_signature("alloc", &g->frames, sig);
		if (store_insert(s, "allocs", run_id, 5, STORE_INT((int64_t)g->count), STORE_INT((int64_t)g->total_bytes),
				 STORE_INT((int64_t)g->largest_bytes), STORE_TEXT(sig), STORE_TEXT(g->allocated_by)))
			return -1;
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

/* The tables below runs (schema in store.c), each led by run_id. */
static const char *const CHILD_TABLES[] = {"labels", "crossings", "resource_groups", "failures", "leaks", "allocs",
					   "findings"};

static int delete_run(struct store *s, const char *run_id)
{
	struct store_val v = STORE_TEXT(run_id);

	for (size_t i = 0; i < sizeof(CHILD_TABLES) / sizeof(CHILD_TABLES[0]); i++) {
		char sql[128];

		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE run_id = $1", CHILD_TABLES[i]);
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
		if (store_insert(s, "labels", run_id, 2, STORE_TEXT(rd->start_rec.label_key[i]),
				 STORE_TEXT(rd->start_rec.label_value[i])))
			return -1;
	if (crossing_rows(s, rd, run_id) || (rd->have_fds && snapshot_rows(s, run_id, RUN_FDS, &rd->fds)) ||
	    (rd->have_memory && memory_rows(s, run_id, RUN_MEMORY, &rd->memory)) ||
	    (rd->have_threads && snapshot_rows(s, run_id, RUN_THREADS, &rd->threads)) || failure_rows(s, rd, run_id) ||
	    leak_rows(s, rd, run_id, started) || alloc_rows(s, rd, run_id) || run_findings(s, run_id))
		return -1;
	return 0;
}
