/* Dominators and retained sizes over the index's reference graph, with the
 * super-root (node 0) above every GC root. Most of a heap reaches no cycle
 * (strings, arrays, lists below the structures that hold them): there a
 * node's dominator is the nearest common ancestor of its referrers', in
 * topological order, with no reverse graph. What reaches a cycle gets
 * Semi-NCA (Georgiadis): the Lengauer-Tarjan semi-dominators with a
 * nearest-common-ancestor walk for the immediate dominators. Iterative
 * throughout (heaps have chains of millions). */
#ifndef OOMSCOPE_GRAPH_DOMINATORS_H
#define OOMSCOPE_GRAPH_DOMINATORS_H

#include <stdint.h>
#include "graph/index.h"
#include "graph/vvmodel.h"

struct ooms_dominators {
	uint32_t *idom;      /* [nodes] immediate dominator's node; OOMS_NONE when unreachable; idom[0] = 0;
			      * NULL once the dominator tree is built */
	uint8_t *reach;      /* [nodes/8+1] bit n: n is reachable (has a dominator) */
	uint32_t *retained32; /* [nodes] bytes (read with ooms_retained); unreachable objects retain
			       * nothing; UINT32_MAX: 4 GiB or more, the size in big */
	struct u64map big;    /* node + 1 -> index in bigs */
	uint64_t *bigs;
	size_t nbigs, bigs_cap;
	uint32_t reachable;  /* nodes reachable from the roots, super-root included */
	uint32_t cyclic;     /* of them, those that reach a cycle (Semi-NCA's share) */
	double seconds;
};

/* How retained sizes are summed over the dominator tree. */
enum ooms_retained_model {
	OOMS_RETAINED_VISUALVM,  /* VisualVM's (vvmodel.h): the default, so figures compare */
	OOMS_RETAINED_DOMINATED, /* every object's shallow size, class objects included, in each dominator */
};

/* The graph is VisualVM's: the objects its search reached (m), with every
 * reference into them as an edge: strong ones, Reference.referent ones, the
 * search's class connections; a reference from an object the search did not
 * reach counts as one from the super-root. 0, or -ENOMEM. */
/* Node n's retained size in bytes. */
static inline int ooms_dominated(const struct ooms_dominators *d, uint32_t n)
{
	return d->reach[n / 8] >> (n % 8) & 1;
}

static inline uint64_t ooms_retained(const struct ooms_dominators *d, uint32_t n)
{
	uint32_t i;

	if (d->retained32[n] != UINT32_MAX)
		return d->retained32[n];
	return u64map_get(&d->big, (uint64_t)n + 1, &i) ? d->bigs[i] : UINT32_MAX;
}

/* max_cyclic_bytes: refuse (-EFBIG, d->cyclic set, nothing else) when the
 * nodes that reach a cycle would need more for Semi-NCA (at most
 * OOMS_MEMORY_PER_CYCLIC each); 0: no limit. */
int ooms_dominators_compute(const struct ooms_index *ix, struct ooms_vvmodel *m, enum ooms_retained_model model,
			    uint64_t max_cyclic_bytes, struct ooms_dominators *d);
/* The same in two steps: begin needs only the search's reach and class
 * connections (m after its search: it can run beside the tree marking);
 * finish needs all of m, and frees w. */
struct ooms_dom_work;
int ooms_dominators_begin(const struct ooms_index *ix, const struct ooms_vvmodel *m, uint64_t max_cyclic_bytes,
			  uint32_t *cyclic, struct ooms_dom_work **w);
int ooms_dominators_finish(struct ooms_dom_work *w, enum ooms_retained_model model, struct ooms_dominators *d);
/* Frees a begun w that will not be finished (NULL: nothing). */
void ooms_dominators_abandon(struct ooms_dom_work *w);
void ooms_dominators_free(struct ooms_dominators *d);

/* The dominator tree's children, CSR: the children of n are
 * child[first[n] .. first[n + 1]). */
struct ooms_domtree {
	uint32_t *first;     /* [nodes + 1] */
	uint32_t *child;     /* [nodes] */
};

/* Frees d->idom (read for the last time). 0 or -ENOMEM (d->idom kept). */
int ooms_domtree_build(struct ooms_dominators *d, uint32_t nodes, struct ooms_domtree *t);
void ooms_domtree_free(struct ooms_domtree *t);

#endif
