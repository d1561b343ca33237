/* Shallow sizes: how many bytes one object takes, in the model of VisualVM's
 * heap library (so retained sizes can be compared with it). hprof records
 * carry field bytes and element counts, not object sizes; the header and
 * alignment are this model's estimate. */
#ifndef OOMSCOPE_ANALYZE_SHALLOW_H
#define OOMSCOPE_ANALYZE_SHALLOW_H

#include <stdint.h>
#include "analyze/index.h"

/* The shallow size of node n (kind, cls and length already set). */
uint64_t ooms_shallow_size(const struct ooms_index *ix, uint32_t n);

#endif
