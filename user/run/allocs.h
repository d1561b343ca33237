/* allocs.json (and allocs-N.json, a native target's crossing): the large
 * allocations, grouped by stack, and each one; the writer (the collector's
 * allocs.c hands it its records) beside the reader (the report, pprof, the
 * lab's store). The timeline's big_alloc records share each allocation's
 * fields. Strings read point into the parsed object. */
#ifndef OOMSCOPE_RUN_ALLOCS_H
#define OOMSCOPE_RUN_ALLOCS_H

#include <stddef.h>
#include <stdint.h>
#include "run/frames.h"

struct json;
struct json_object;

struct run_allocs_head {
	uint64_t threshold_bytes;
	const char *mode;            /* "uprobe", "syscall" */
	int return_probes;           /* live bytes known */
	uint64_t stack_depth, count, frees_without_record;
};

#define RUN_ALLOC_FUNCTIONS 8

struct run_alloc_group {
	uint64_t stack_id, count, total_bytes, largest_bytes;
	uint64_t live_bytes;         /* with return probes (has_live) */
	int has_live;
	const char *functions[RUN_ALLOC_FUNCTIONS]; /* "malloc", "mmap", ... */
	size_t nfunctions;
	const char *allocated_by;    /* NULL: no culprit found */
	struct run_frames frames;    /* read; the writer calls write_frames */
	void (*write_frames)(struct json *j, void *ctx);
	void *frames_ctx;
};

struct run_alloc {
	double t;                    /* made, s since attach */
	uint64_t bytes, tid, stack_id;
	const char *function, *thread, *state, *allocated_by;
	uint64_t address;            /* 0: none */
};

struct run_allocs {
	struct run_allocs_head head;
	struct run_alloc_group *groups;
	size_t ngroups;
	struct run_alloc *allocations; /* in the order written; damaged ones have t NAN */
	size_t nallocations;
};

/* The writer, in the file's order: head, each group, then each allocation. */
void run_allocs_begin(struct json *j, const struct run_allocs_head *h);
void run_alloc_group_write(struct json *j, const struct run_alloc_group *g);
void run_allocs_between(struct json *j);   /* the groups end, the allocations begin */
void run_alloc_write(struct json *j, const struct run_alloc *a); /* an element */
void run_alloc_fields(struct json *j, const struct run_alloc *a); /* its keys (a big_alloc record's too) */
void run_allocs_end(struct json *j);
/* The timeline's big_alloc (or alloc_freed: freed) record: when it was
 * seen, the allocation's keys, its stack (frames written by
 * write_frames(j, ctx)). */
void run_alloc_record(struct json *j, const struct run_alloc *a, double t_seen, int freed,
		      void (*write_frames)(struct json *j, void *ctx), void *ctx);

/* doc (allocs.json parsed) into out (arrays allocated; run_allocs_free).
 * 0, -EINVAL (not an allocs document) or -ENOMEM. */
int run_allocs_read(struct json_object *doc, struct run_allocs *out);
void run_allocs_free(struct run_allocs *a);

#endif
