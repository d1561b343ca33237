/* Reading ahead: a dump's (decompressed) bytes read on a thread of their
 * own into a few buffers while the caller parses the ones before, so that
 * the copy out of the page cache (and gzip's or xz's inflating) runs on the
 * second core. */
#ifndef OOMSCOPE_HPROF_READAHEAD_H
#define OOMSCOPE_HPROF_READAHEAD_H

#include <stddef.h>
#include <stdint.h>
#include "hprof/io.h"

struct hprof_readahead;

/* Starts reading src in chunks of chunk bytes. 0 or -errno (then read src
 * yourself). src must stay until hprof_readahead_stop. */
int hprof_readahead_start(struct hprof_readahead **ra, struct hprof_source *src, size_t chunk);
/* The next chunk in *buf (valid until the next call): its length, 0 at the
 * end, or what hprof_source_read returned in error. *done: the source's
 * bytes read up to this chunk (for progress). */
long hprof_readahead_next(struct hprof_readahead *ra, const uint8_t **buf, uint64_t *done);
/* Stops the reader (at once, even mid-file) and frees ra. */
void hprof_readahead_stop(struct hprof_readahead *ra);

#endif
