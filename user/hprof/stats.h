/* What `oomscope hprof check` reports: counts and bytes per record tag, per
 * sub-record tag and per heap, built by a visitor over the parser. */
#ifndef OOMSCOPE_HPROF_STATS_H
#define OOMSCOPE_HPROF_STATS_H

#include <stdint.h>
#include <stdio.h>
#include "hprof/parser.h"

struct hprof_count {
	uint64_t count, bytes;
};

#define HPROF_MAX_HEAPS 8

struct hprof_heap_stats {
	uint32_t heap_id;
	uint64_t name_id;
	struct hprof_count instances, obj_arrays, prim_arrays, prim_nodata, classes;
	uint64_t prim_content_bytes; /* bytes of primitive array elements */
};

struct hprof_stats {
	struct hprof_header header;
	uint64_t file_bytes;
	struct hprof_count records[256];
	struct hprof_count subs[256];
	struct hprof_heap_stats heaps[HPROF_MAX_HEAPS];
	int nheaps, cur_heap;
	uint64_t gc_roots;
	uint64_t prim_content_bytes; /* all heaps */
	uint64_t prim_content_original_bytes; /* counting NODATA arrays at their element size */
	struct hprof_heap_count dumps;        /* heap dumps in the file (the hprof agent writes two) */
	int later_dump;
	uint64_t first_objects, first_classes; /* in the first heap dump, which analyzers read */
};

void hprof_stats_init(struct hprof_stats *st);
/* A visitor that fills st; chain it by calling hprof_stats_visitor(). */
void hprof_stats_visitor(struct hprof_stats *st, struct hprof_visitor *v);
/* Human summary, or one JSON object. */
void hprof_stats_print(const struct hprof_stats *st, FILE *f, int json);
/* Name of an Android heap id: "default", "app", "image", "zygote", "jit", or the number. */
const char *hprof_heap_name(uint32_t heap_id, char *buf, size_t len);

#endif
