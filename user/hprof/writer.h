/* Writes an hprof stream whose record lengths are right although the
 * sub-records it is given differ in size from the input's: heap dump
 * sub-records are collected into a segment buffer and written as a
 * HEAP_DUMP_SEGMENT with its length once the buffer fills or the input's heap
 * record ends. A sub-record larger than the buffer gets a segment of its own,
 * its length known from its head, and streams through. Memory stays bounded.
 * An input HEAP_DUMP record (a whole dump, no HEAP_DUMP_END: JDK 5 to 8)
 * that fits the buffer is written as one again, so a strip and a restore
 * give back the input's records. */
#ifndef OOMSCOPE_HPROF_WRITER_H
#define OOMSCOPE_HPROF_WRITER_H

#include <stdint.h>
#include "hprof/io.h"

struct hprof_writer {
	struct hprof_sink *sink;
	uint8_t *seg;
	size_t seg_len, seg_cap;   /* seg_cap: the most a segment may buffer */
	size_t seg_alloc;          /* what seg holds now: grown as segments need it */
	uint32_t seg_time;
	uint64_t direct_left;   /* bytes still due to a sub-record streaming in its own segment */
	int need_end;           /* heap records written; no HEAP_DUMP_END yet */
	uint8_t in_tag;         /* the input's current heap record: HEAP_DUMP or HEAP_DUMP_SEGMENT */
	int split;              /* part of the current input record was written already */
	int err;
};

int hprof_writer_init(struct hprof_writer *w, struct hprof_sink *sink, size_t seg_cap);
void hprof_writer_free(struct hprof_writer *w);
int hprof_writer_header(struct hprof_writer *w, const char *format, unsigned id_size, uint64_t time_ms);
/* A non-heap record: its head now, its body through hprof_writer_body. */
int hprof_writer_record(struct hprof_writer *w, uint8_t tag, uint32_t time, uint32_t len);
int hprof_writer_body(struct hprof_writer *w, const void *p, size_t n);
/* A heap dump sub-record of total_len bytes, written by the next
 * hprof_writer_sub_bytes calls. */
int hprof_writer_sub_begin(struct hprof_writer *w, uint32_t time, uint64_t total_len);
int hprof_writer_sub_bytes(struct hprof_writer *w, const void *p, size_t n);
/* An input heap record begins (tag HEAP_DUMP or HEAP_DUMP_SEGMENT). */
void hprof_writer_heap_begin(struct hprof_writer *w, uint8_t tag);
/* Ends the current segment (at the end of an input heap record). */
int hprof_writer_heap_flush(struct hprof_writer *w);
int hprof_writer_heap_end(struct hprof_writer *w, uint32_t time);
/* Flushes; adds HEAP_DUMP_END if heap records were written without one. */
int hprof_writer_finish(struct hprof_writer *w);

#endif
