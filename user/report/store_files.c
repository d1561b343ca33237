/* Each run-directory file's rows in the store (run_files.c's rows): the
 * groups of a threads or fds snapshot, the memory's growth by culprit, the
 * failing calls, the large allocations. */
#define _GNU_SOURCE
#include "report/store_files.h"
#include "report/store_int.h"

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "run/files.h"
#include "run/frames.h"
#include "run/memory.h"
#include "run/snapshot.h"

/* The groups of one snapshot file (threads: by name; fds: by kind), one
 * row per creation stack. */
int store_snapshot_rows(struct store *s, const char *run_id, const char *snap, const struct run_snapshot *doc)
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
			if (store_insert(s, "resource_groups", run_id, STORE_TEXT(snap), STORE_TEXT(resource),
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
		store_sign(what, by ? &by : NULL, by ? 1 : 0, sig);
		e = store_insert(s, "resource_groups", run_id, STORE_TEXT(snap), STORE_TEXT("memory"), STORE_TEXT(kind),
				 STORE_INT(c[i].bytes), STORE_TEXT(sig), STORE_TEXT(by),
				 STORE_INT(by != NULL && strcmp(kind, "mapped file") != 0));
	}
	run_memory_culprits_free(c, nc);
	return e ? -1 : 0;
}

/* A crossing's memory-N.json, read and stored (0 when it is none). */
int store_memory_crossing_rows(struct store *s, const struct rundata *rd, const char *run_id, const char *file)
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

int store_failures_rows(struct store *s, const struct rundata *rd, const char *run_id)
{
	for (size_t i = 0; rd->have_failures && i < rd->failures.n; i++) {
		const struct run_fail_group *g = &rd->failures.groups[i];
		char what[200], sig[STORE_SIG_LEN + 1];

		snprintf(what, sizeof(what), "failure %s %s", g->syscall ? g->syscall : "?", g->err ? g->err : "?");
		store_signature(what, run_frames_for_signature(g->obj), sig);
		if (store_insert(s, "failures", run_id, STORE_TEXT(g->kind), STORE_TEXT(g->syscall), STORE_TEXT(g->err),
				 STORE_INT((int64_t)g->count), STORE_TEXT(sig), STORE_TEXT(g->called_by)))
			return -1;
	}
	return 0;
}

int store_allocs_rows(struct store *s, const struct rundata *rd, const char *run_id)
{
	for (size_t i = 0; rd->have_allocs && i < rd->allocs.ngroups; i++) {
		const struct run_alloc_group *g = &rd->allocs.groups[i];
		char sig[STORE_SIG_LEN + 1];

		store_frames_signature("alloc", &g->frames, sig);
		if (store_insert(s, "allocs", run_id, STORE_INT((int64_t)g->count), STORE_INT((int64_t)g->total_bytes),
				 STORE_INT((int64_t)g->largest_bytes), STORE_TEXT(sig), STORE_TEXT(g->allocated_by)))
			return -1;
	}
	return 0;
}

int store_fds_rows(struct store *s, const struct rundata *rd, const char *run_id)
{
	return rd->have_fds ? store_snapshot_rows(s, run_id, RUN_FDS, &rd->fds) : 0;
}

int store_threads_rows(struct store *s, const struct rundata *rd, const char *run_id)
{
	return rd->have_threads ? store_snapshot_rows(s, run_id, RUN_THREADS, &rd->threads) : 0;
}

int store_memory_file_rows(struct store *s, const struct rundata *rd, const char *run_id)
{
	return rd->have_memory ? memory_rows(s, run_id, RUN_MEMORY, &rd->memory) : 0;
}
