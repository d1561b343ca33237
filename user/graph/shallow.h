/* Shallow sizes: how many bytes one object takes, in the model of VisualVM's
 * heap library, so retained sizes can be compared with it. hprof records
 * carry field bytes and element counts, not object sizes:
 *  - references take 4 bytes with compressed oops: 4-byte ids, or, for 8-byte
 *    ids, Unsafe.ARRAY_OBJECT_INDEX_SCALE (a static int every JDK dump has;
 *    VisualVM reads a system property string instead, which stripped dumps
 *    no longer hold: both say the same);
 *  - the header is id size + reference size (12 with compressed oops), or,
 *    when the class dumps carry real instance sizes (java.lang.Object's is
 *    not 0, as ART writes them), java.lang.Object's size;
 *  - an instance is header + its fields up its class chain, 8-byte aligned
 *    (or the class dump's size as it is); an array is header + 4 + elements,
 *    8-byte aligned. Class objects count 0 where the dump has no sizes
 *    (HotSpot: VisualVM gives them none), and java.lang.Class's instance
 *    size where it has them (Android: VisualVM lists them as instances of
 *    java.lang.Class). */
#ifndef OOMSCOPE_GRAPH_SHALLOW_H
#define OOMSCOPE_GRAPH_SHALLOW_H

#include <stdint.h>
#include "graph/index.h"

/* Decides the model for the indexed classes (after names and superclasses). */
int ooms_shallow_setup(struct ooms_index *ix);
/* The shallow size of node n (kind, cls and length already set). */
uint64_t ooms_shallow_size(const struct ooms_index *ix, uint32_t n);

#endif
