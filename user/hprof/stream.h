/* A stripping pipeline fed bytes: an hprof stream in (any chunk sizes, as a
 * JVM writes it), stripped (app or koom mode) and compressed on the way out
 * to a file descriptor. Used where the dump is produced elsewhere and only
 * passes through: a fork-dump child's writer, a FIFO the JVM's own dumper
 * writes to, a write interposition. Memory stays bounded. No I/O besides
 * writes to the given fd. */
#ifndef OOMSCOPE_HPROF_STREAM_H
#define OOMSCOPE_HPROF_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include "hprof/io.h"
#include "hprof/parser.h"
#include "hprof/transform.h"
#include "hprof/writer.h"

struct hprof_strip_stream {
	struct hprof_sink sink;
	struct hprof_writer w;
	struct hprof_transform t;
	struct hprof_visitor v;
	struct hprof_parser *p;
	int err;               /* first error (-errno); the stream then swallows input */
	char msg[256];         /* what went wrong, for the caller to tell */
};

/* op: HPROF_OP_STRIP_APP or HPROF_OP_STRIP_KOOM; codec and level as
 * hprof_sink_open. 0 or -errno. */
int hprof_strip_stream_open(struct hprof_strip_stream *s, int fd, enum hprof_op op, int codec, int level);
/* Bytes of the input dump. 0 or the stream's first error. */
int hprof_strip_stream_feed(struct hprof_strip_stream *s, const void *buf, size_t n);
/* The input ended: checks it ended on a record boundary and flushes
 * everything (gzip trailer included). 0 or -errno (s->msg says why). */
int hprof_strip_stream_finish(struct hprof_strip_stream *s);
void hprof_strip_stream_free(struct hprof_strip_stream *s);

#endif
