/* Android's NativeAllocationRegistry: native memory (a Bitmap's pixels, a
 * font, a matrix) that a Java object frees when it is collected, through a
 * sun.misc.Cleaner whose thunk is the registry's CleanerThunk. The registry's
 * size is added, as ahat does, to the object the Cleaner watches (its
 * referent), and up its dominators as their retained native size; Java
 * retained sizes do not change (they stay VisualVM's).
 *
 * HotSpot's direct buffers the same way: a java.nio.DirectByteBuffer's
 * memory is freed by a Cleaner (jdk.internal.ref.Cleaner, JDK 8's
 * sun.misc.Cleaner) whose thunk, DirectByteBuffer$Deallocator, holds its
 * size: counted to the buffer and its dominators, kept apart in the totals. */
#ifndef OOMSCOPE_GRAPH_NATIVE_H
#define OOMSCOPE_GRAPH_NATIVE_H

#include <stddef.h>
#include <stdint.h>
#include "graph/index.h"
#include "util/u64map.h"

/* The fields the index must record, as probes (ooms_probe). */
#define OOMS_NATIVE_PROBES 5
extern const char *const ooms_native_probe_fields[OOMS_NATIVE_PROBES][2];

struct ooms_native {
	uint64_t objects, bytes;  /* referents with a registered size, and the sizes' sum */
	uint64_t direct_objects, direct_bytes; /* DirectByteBuffers and their sizes */
	struct u64map at;         /* node + 1 -> index in retained[] */
	uint64_t *retained;       /* each dominator's retained native size */
	size_t n, cap;
};

/* From the probes (in ooms_native_probe_fields' order: Cleaner.thunk,
 * CleanerThunk.this$0, Registry.size, jdk.internal.ref.Cleaner.thunk,
 * Deallocator.size) and the dominator tree (idom[node]). 0 or -ENOMEM. */
int ooms_native_compute(const struct ooms_index *ix, const struct ooms_probe *probes, const uint32_t *idom,
			struct ooms_native *nat);
/* Node n's retained native size (0 when none). */
uint64_t ooms_native_retained(const struct ooms_native *nat, uint32_t n);
void ooms_native_free(struct ooms_native *nat);

#endif
