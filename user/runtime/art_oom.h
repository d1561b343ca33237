/* What ART's OutOfMemoryError messages say, read from their text (the words
 * are ART's own, heap.cc and its spaces'): the kind of error, the failed
 * allocation, what was free, and whether the heap was fragmented. Pure. */
#ifndef OOMSCOPE_RUNTIME_ART_OOM_H
#define OOMSCOPE_RUNTIME_ART_OOM_H

#include <stddef.h>
#include <stdint.h>

struct ooms_art_oom {
	const char *kind;      /* "heap", "threads" or "other" */
	int64_t bytes;         /* the allocation that failed; -1 unknown */
	int64_t free_bytes;    /* free in the heap when it failed; -1 */
	int64_t until_oom;     /* what was left below the growth limit (PrettySize, so rounded); -1 */
	int64_t largest;       /* the largest contiguous free block, when ART said fragmentation; -1 */
	int below_min_free;    /* "giving up on allocation because <1% of heap free after GC" */
};

/* Reads msg into o (always filled: unknowns -1). */
void ooms_art_oom_parse(const char *msg, struct ooms_art_oom *o);
/* One line saying why it failed ("fragmented: ..."), or 0 bytes written
 * when the message says nothing more than its text. */
size_t ooms_art_oom_explain(const struct ooms_art_oom *o, char *buf, size_t len);

#endif
