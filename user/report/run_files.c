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

/* ---- the parts that need no slot (their data in rundata's fields) ---- */

#define STORY(fn) \
	static void fn##_(struct story *s, const struct rundata *rd, const void *slot) { (void)slot; fn(s, rd); }
#define PAGE(fn) \
	static void fn##_(FILE *f, const struct rundata *rd, const void *slot) { (void)slot; fn(f, rd); }
#define STORE(fn) \
	static int fn##_(struct store *s, const struct rundata *rd, const char *run_id, const void *slot) \
	{ (void)slot; return fn(s, rd, run_id); }
STORY(story_death) STORY(story_failures) STORY(story_memory) STORY(story_allocs) STORY(story_fds) STORY(story_threads)
PAGE(html_death) PAGE(html_failures) PAGE(html_memory_section) PAGE(html_allocations) PAGE(html_fds) PAGE(html_threads)
STORE(store_failures_rows) STORE(store_memory_file_rows) STORE(store_allocs_rows) STORE(store_fds_rows)
STORE(store_threads_rows)

/* ---- when the page links a file ---- */

static int always(const struct rundata *rd, const void *slot)
{
	(void)slot;
	(void)rd;
	return 1;
}

static int has_allocs(const struct rundata *rd, const void *slot)
{
	(void)slot;
	return rd->have_allocs;
}

static int has_memory(const struct rundata *rd, const void *slot)
{
	(void)slot;
	return rd->have_memory;
}

static int has_memory_growth(const struct rundata *rd, const void *slot)
{
	(void)slot;
	return rd->have_memory && rd->memory.ngroups;
}

static int has_death(const struct rundata *rd, const void *slot)
{
	(void)slot;
	return rd->have_death;
}

static int has_failures(const struct rundata *rd, const void *slot)
{
	(void)slot;
	return rd->have_failures;
}

/* ---- the table ---- */

static const struct rd_file timeline = {.name = RUN_TIMELINE, .linked = always};
static const struct rd_file death = {.name = RUN_DEATH, .part = RD_HEAD, .load = load_death, .free = free_death,
				     .linked = has_death, .story = story_death_, .page = html_death_};
static const struct rd_file failures = {.name = RUN_FAILURES, .part = RD_BODY, .load = load_failures,
					.free = free_failures, .linked = has_failures, .story = story_failures_,
					.page = html_failures_, .store = store_failures_rows_};
static const struct rd_file memory = {.name = RUN_MEMORY, .part = RD_BODY, .load = load_memory, .free = free_memory,
				      .linked = has_memory, .story = story_memory_, .page = html_memory_section_,
				      .store = store_memory_file_rows_};
static const struct rd_file memory_pprof = {.name = RUN_PPROF_MEMORY, .linked = has_memory_growth};
static const struct rd_file allocs = {.name = RUN_ALLOCS, .part = RD_BODY, .load = load_allocs, .free = free_allocs,
				      .story = story_allocs_, .page = html_allocations_, .store = store_allocs_rows_};
static const struct rd_file allocs_text = {.name = RUN_ALLOCS_TEXT};
static const struct rd_file allocs_pprof = {.name = RUN_PPROF, .linked = has_allocs};
static const struct rd_file fds = {.name = RUN_FDS, .part = RD_TAIL, .load = load_fds, .free = free_fds,
				   .story = story_fds_, .page = html_fds_, .store = store_fds_rows_};
static const struct rd_file threads = {.name = RUN_THREADS, .part = RD_TAIL, .load = load_threads,
				       .free = free_threads, .story = story_threads_, .page = html_threads_,
				       .store = store_threads_rows_};
static const struct rd_file vmsize = {.name = RUN_VMSIZE};
static const struct rd_file trace = {.name = RUN_TRACE, .linked = always}; /* written after the page */
extern const struct rd_file rd_file_direct; /* rf_direct.c */

const struct rd_file *const rd_files[] = {
	&timeline, &death, &failures, &memory, &memory_pprof, &rd_file_direct, &allocs, &allocs_text, &allocs_pprof,
	&fds, &threads, &vmsize, &trace, NULL,
};

_Static_assert(sizeof(rd_files) / sizeof(rd_files[0]) - 1 <= RD_FILES_MAX, "rundata's slots: raise RD_FILES_MAX");

/* ---- walking it ---- */

int rd_file_linked(const struct rundata *rd, const struct rd_file *f)
{
	char path[4400];

	if (f->linked) {
		for (size_t i = 0; rd_files[i]; i++)
			if (rd_files[i] == f)
				return f->linked(rd, rd->file_slots[i]);
		return f->linked(rd, NULL);
	}
	snprintf(path, sizeof(path), "%s/%s", rd->dir, f->name);
	return access(path, F_OK) == 0;
}

void rd_files_story(struct story *s, const struct rundata *rd, enum rd_part part)
{
	for (size_t i = 0; rd_files[i]; i++)
		if (rd_files[i]->story && rd_files[i]->part == part)
			rd_files[i]->story(s, rd, rd->file_slots[i]);
}

void rd_files_page(FILE *f, const struct rundata *rd, enum rd_part part)
{
	for (size_t i = 0; rd_files[i]; i++)
		if (rd_files[i]->page && rd_files[i]->part == part)
			rd_files[i]->page(f, rd, rd->file_slots[i]);
}

int rd_files_store(struct store *s, const struct rundata *rd, const char *run_id)
{
	for (size_t i = 0; rd_files[i]; i++)
		if (rd_files[i]->store && rd_files[i]->store(s, rd, run_id, rd->file_slots[i]))
			return -1;
	return 0;
}
