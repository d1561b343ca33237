/* The heap index's builder, shared by its passes: index.c (driving, look-ups),
 * index_pass1.c (names, classes, roots, the object table), index_between.c
 * (class names, layouts and probes resolved, each node's class) with
 * index_marks.c (the paths' marks) and index_ids.c (the ids sorted and
 * partitioned, their look-up), index_pass2.c (the references). Private to them; index.h is the interface. */
#ifndef OOMSCOPE_GRAPH_INDEX_BUILD_H
#define OOMSCOPE_GRAPH_INDEX_BUILD_H

#include "graph/index.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hprof/io.h"
#include "util/vec.h"
#define READ_CHUNK (1u << 20)
#define MAX_NAME 4096 /* longer names are cut: they only label output */

struct raw_root {
	uint64_t id;
	uint8_t kind;
	uint32_t thread_serial;
	int32_t frame;
	uint32_t trace_serial;
};

struct build {
	struct ooms_index *ix;
	struct ooms_probe *probes;
	size_t nprobes;
	struct ooms_err *err;     /* the caller's (split_pass gives its second half one of its own) */
	int pass;

	/* a non-heap record being buffered (STRING, LOAD_CLASS) */
	uint8_t rtag;
	uint8_t rbuf[MAX_NAME + 16];
	size_t rlen;

	/* pass 1 */
	size_t node_cap;
	size_t node_hint;         /* the objects a plain file can hold at most (its bytes / 14): the
				   * per-node arrays' first size, only touched as they fill */
	uint64_t *cls_ids;        /* [nodes] class id, element type, or class index */
	/* [nodes] the plain per-node arrays, until ooms_index_set_nodes compacts them */
	uint8_t *kind, *heap_of;
	uint32_t *length, *cls;
	struct u64map load_names; /* class id -> name string id (LOAD_CLASS) */
	uint64_t *load_keys;      /* name string ids, by load_names' values */
	size_t nload, load_cap;
	struct raw_root *rroots;
	size_t nroots, roots_cap;
	size_t classes_cap, fields_cap, statics_cap;
	size_t frames_cap, traces_cap, trace_frames_cap, segs_cap;
	const char *const *ignores;  /* --ignore 'Class#field' */
	size_t nignores;
	const char *const *library;  /* --library-leak 'Class#field' */
	size_t nlibrary;
	uint64_t max_memory;
	uint8_t heap;
	struct hprof_heap_count heaps; /* the pass's count of heap dumps */
	int later_dump;           /* the current record is in a later heap dump: skipped */
	uint32_t scale_class[4], scale_value[4], nscale;

	/* pass 2 */
	uint32_t node;            /* the node being read */
	uint8_t *data;            /* instance data being collected */
	size_t dlen, dcap;
	uint8_t carry[8];         /* object array: a part of an id */
	size_t carry_len;
	uint32_t elem;            /* object array: elements seen */
	/* what pass 2 finds, merged into the index afterwards (pass 2 may run
	 * as two builds, each over half of the heap's records) */
	uint32_t *tgt;            /* references, in node order; off[] relative to it */
	uint32_t nedges;
	size_t edges_cap;
	size_t edges_hint;        /* every reference slot and class edge: tgt's first size (pass 2) */
	uint64_t dangling, weak_refs;
	struct ixb_mark { uint32_t u, v, mark; } *marks; /* path marks (--ignore, library leaks) */
	size_t nmarks, marks_cap;
};

int ixb_fail(struct build *b, int e, const char *fmt, ...);
uint32_t ixb_arena_add(struct ooms_index *ix, const char *s, size_t n);
uint32_t ixb_string_of(const struct ooms_index *ix, uint64_t id);
int ixb_p1_header(void *ctx, const struct hprof_header *h);
int ixb_rec_begin(void *ctx, const struct hprof_record *r);
int ixb_rec_data(void *ctx, const uint8_t *p, size_t n);
int ixb_rec_end(void *ctx, const struct hprof_record *r);
int ixb_add_node(struct build *b, uint64_t id, uint8_t kind, uint64_t cls, uint32_t length);
int ixb_p1_sub(void *ctx, const struct hprof_sub *s);
/* index_marks.c: the paths' marks (late referents, library leaks, --ignore) */
int ixb_mark_late_referents(struct ooms_index *ix);
int ixb_mark_paths(struct build *b);
/* index_ids.c: class objects after the rest, the id look-up, ids compacted */
int ixb_partition_classes(struct build *b);
int ixb_build_lookup(struct build *b);
int ixb_compact_ids(struct ooms_index *ix);
int ixb_between_passes(struct build *b);
int ixb_add_edge(struct build *b, uint64_t id);
/* Records that paths do not cross the reference from u to v (--ignore). */
int ixb_ignore_edge(struct build *b, uint32_t u, uint32_t v, uint32_t mark);
/* Pass 2 over the dump at path: the references, the probes' values, the
 * path marks; in two halves on two threads where the file allows. 0 or -errno. */
int ixb_pass2(struct build *b, const char *path, ooms_progress_fn progress, void *pctx);
int ixb_p2_rec_begin(void *ctx, const struct hprof_record *r);
int ixb_p2_sub_begin(void *ctx, const struct hprof_sub *s);
int ixb_p2_sub_data(void *ctx, const uint8_t *p, size_t len);
int ixb_p2_sub_end(void *ctx, const struct hprof_sub *s);

#endif
