/* Dominators and retained sizes over the index's reference graph, with the
 * super-root (node 0) above every GC root: Semi-NCA (Georgiadis), the
 * Lengauer-Tarjan semi-dominators with a nearest-common-ancestor walk for the
 * immediate dominators, iterative throughout (heaps have chains of millions). */
#ifndef OOMSCOPE_ANALYZE_DOMINATORS_H
#define OOMSCOPE_ANALYZE_DOMINATORS_H

#include <stdint.h>
#include "analyze/index.h"

struct ooms_dominators {
	uint32_t *idom;      /* [nodes] immediate dominator's node; OOMS_NONE when unreachable; idom[0] = 0 */
	uint64_t *retained;  /* [nodes] bytes; unreachable objects retain nothing */
	uint32_t reachable;  /* nodes reachable from the roots, super-root included */
	double seconds;
};

/* 0, or -ENOMEM. */
int ooms_dominators_compute(const struct ooms_index *ix, struct ooms_dominators *d);
void ooms_dominators_free(struct ooms_dominators *d);

#endif
