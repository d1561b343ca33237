/* The run directory's files as the report side knows them (run_files.h):
 * the table, and each row's load and free where it fills rundata's typed
 * fields. */
#define _GNU_SOURCE
#include "report/run_files.h"
#include "report/html_int.h"
#include "report/store_files.h"
#include "report/story_files.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "run/files.h"

/* ---- each file's load and free ---- */

static int load_threads(struct rundata *rd, struct json_object *doc, void **slot)
{
	(void)slot;
	return !(rd->have_threads = run_snapshot_read(doc, SNAP_THREADS, &rd->threads) == 0);
}

static void free_threads(struct rundata *rd, void *slot)
{
	(void)slot;
	run_snapshot_free(&rd->threads);
}

static int load_fds(struct rundata *rd, struct json_object *doc, void **slot)
{
	(void)slot;
	return !(rd->have_fds = run_snapshot_read(doc, SNAP_FDS, &rd->fds) == 0);
}

static void free_fds(struct rundata *rd, void *slot)
{
	(void)slot;
	run_snapshot_free(&rd->fds);
}

static int alloc_by_time(const void *a, const void *b)
{
	const struct rd_alloc *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

/* allocs.json, and its allocations in time order (damaged ones left out) */
static int load_allocs(struct rundata *rd, struct json_object *doc, void **slot)
{
	size_t n;

	(void)slot;
	if (!(rd->have_allocs = run_allocs_read(doc, &rd->allocs) == 0))
		return -1;
	n = rd->allocs.nallocations;
	if (!n || !(rd->alloc_list = calloc(n, sizeof(*rd->alloc_list))))
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct run_alloc *a = &rd->allocs.allocations[i];
		struct rd_alloc r = {a->t, (double)a->bytes, (double)a->tid, a->function, a->thread, a->allocated_by,
				     a->state};

		if (!isnan(r.t) && r.t >= 0)
			rd->alloc_list[rd->nalloc_list++] = r;
	}
	qsort(rd->alloc_list, rd->nalloc_list, sizeof(*rd->alloc_list), alloc_by_time);
	return 0;
}

static void free_allocs(struct rundata *rd, void *slot)
{
	(void)slot;
	run_allocs_free(&rd->allocs);
	free(rd->alloc_list);
	rd->alloc_list = NULL;
	rd->nalloc_list = 0;
}

static int load_memory(struct rundata *rd, struct json_object *doc, void **slot)
{
	(void)slot;
	return !(rd->have_memory = run_memory_read(doc, &rd->memory) == 0);
}

static void free_memory(struct rundata *rd, void *slot)
{
	(void)slot;
	run_memory_free(&rd->memory);
}

static int load_death(struct rundata *rd, struct json_object *doc, void **slot)
{
	(void)slot;
	return !(rd->have_death = run_death_read(doc, &rd->death) == 0);
}

static void free_death(struct rundata *rd, void *slot)
{
	(void)slot;
	run_death_free(&rd->death);
}

static int load_failures(struct rundata *rd, struct json_object *doc, void **slot)
{
	(void)slot;
	return !(rd->have_failures = run_failures_read(doc, &rd->failures) == 0);
}

static void free_failures(struct rundata *rd, void *slot)
{
	(void)slot;
	run_failures_free(&rd->failures);
}

/* ---- when the page links a file ---- */

static int always(const struct rundata *rd)
{
	(void)rd;
	return 1;
}

static int has_allocs(const struct rundata *rd)
{
	return rd->have_allocs;
}

static int has_memory(const struct rundata *rd)
{
	return rd->have_memory;
}

static int has_memory_growth(const struct rundata *rd)
{
	return rd->have_memory && rd->memory.ngroups;
}

static int has_death(const struct rundata *rd)
{
	return rd->have_death;
}

static int has_failures(const struct rundata *rd)
{
	return rd->have_failures;
}

/* ---- the table ---- */

static const struct rd_file timeline = {.name = RUN_TIMELINE, .linked = always};
static const struct rd_file death = {.name = RUN_DEATH, .part = RD_HEAD, .load = load_death, .free = free_death,
				     .linked = has_death, .story = story_death, .page = html_death};
static const struct rd_file failures = {.name = RUN_FAILURES, .part = RD_BODY, .load = load_failures,
					.free = free_failures, .linked = has_failures, .story = story_failures,
					.page = html_failures, .store = store_failures_rows};
static const struct rd_file memory = {.name = RUN_MEMORY, .part = RD_BODY, .load = load_memory, .free = free_memory,
				      .linked = has_memory, .story = story_memory, .page = html_memory_section,
				      .store = store_memory_file_rows};
static const struct rd_file memory_pprof = {.name = RUN_PPROF_MEMORY, .linked = has_memory_growth};
static const struct rd_file allocs = {.name = RUN_ALLOCS, .part = RD_BODY, .load = load_allocs, .free = free_allocs,
				      .story = story_allocs, .page = html_allocations, .store = store_allocs_rows};
static const struct rd_file allocs_text = {.name = RUN_ALLOCS_TEXT};
static const struct rd_file allocs_pprof = {.name = RUN_PPROF, .linked = has_allocs};
static const struct rd_file fds = {.name = RUN_FDS, .part = RD_TAIL, .load = load_fds, .free = free_fds,
				   .story = story_fds, .page = html_fds, .store = store_fds_rows};
static const struct rd_file threads = {.name = RUN_THREADS, .part = RD_TAIL, .load = load_threads,
				       .free = free_threads, .story = story_threads, .page = html_threads,
				       .store = store_threads_rows};
static const struct rd_file vmsize = {.name = RUN_VMSIZE};
static const struct rd_file trace = {.name = RUN_TRACE, .linked = always}; /* written after the page */

const struct rd_file *const rd_files[] = {
	&timeline, &death, &failures, &memory, &memory_pprof, &allocs, &allocs_text, &allocs_pprof,
	&fds, &threads, &vmsize, &trace, NULL,
};

_Static_assert(sizeof(rd_files) / sizeof(rd_files[0]) - 1 <= RD_FILES_MAX, "rundata's slots: raise RD_FILES_MAX");

/* ---- walking it ---- */

int rd_file_index(const struct rd_file *f)
{
	for (int i = 0; rd_files[i]; i++)
		if (rd_files[i] == f)
			return i;
	return -1;
}

int rd_file_linked(const struct rundata *rd, const struct rd_file *f)
{
	char path[4400];

	if (f->linked)
		return f->linked(rd);
	snprintf(path, sizeof(path), "%s/%s", rd->dir, f->name);
	return access(path, F_OK) == 0;
}

void rd_files_story(struct story *s, const struct rundata *rd, enum rd_part part)
{
	for (const struct rd_file *const *r = rd_files; *r; r++)
		if ((*r)->story && (*r)->part == part)
			(*r)->story(s, rd);
}

void rd_files_page(FILE *f, const struct rundata *rd, enum rd_part part)
{
	for (const struct rd_file *const *r = rd_files; *r; r++)
		if ((*r)->page && (*r)->part == part)
			(*r)->page(f, rd);
}

int rd_files_store(struct store *s, const struct rundata *rd, const char *run_id)
{
	for (const struct rd_file *const *r = rd_files; *r; r++)
		if ((*r)->store && (*r)->store(s, rd, run_id))
			return -1;
	return 0;
}
