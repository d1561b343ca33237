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

/* Which graph the dominators are computed over, and how retained sizes are
 * summed over their tree. */
enum ooms_retained_model {
	OOMS_RETAINED_MAT,       /* Eclipse MAT's (matmodel.h): the reachable objects only; every object's
				  * shallow size in each of its dominators. The default. */
	OOMS_RETAINED_VISUALVM,  /* VisualVM's graph and sums (vvmodel.h), so figures compare with it */
	OOMS_RETAINED_DOMINATED, /* VisualVM's graph, every object's shallow size, class objects included,
				  * in each of its dominators */
};

/* "mat", "visualvm" or "dominated" (--retained-model's words). */
const char *ooms_retained_model_name(enum ooms_retained_model model);

/* The graph: the super-root's edges (roots), the index's references from
 * reached nodes into reached ones that skip does not leave out, and the
 * extra edges. VisualVM's graph (ooms_dom_graph_vv): the objects its search
 * reached, every reference into them (referents too) and the search's class
 * connections, a reference from an object the search did not reach counting
 * as one from the super-root. MAT's (matmodel.h): the reachable objects, no
 * reference from an unreachable one. */
struct ooms_dom_graph {
	const uint8_t *reach;          /* [nodes/8+1] bit n: n is in the graph */
	const uint32_t *roots;         /* the super-root's edges (repeats allowed) */
	uint32_t nroots;
	const uint8_t *skip;           /* NULL, or [nodes/8+1] bit n: the index's references into n are left out */
	int unreached_from_root;       /* VisualVM's rule for references from unreached objects (above) */
	const struct ooms_class_edge *extra; /* more edges, any order, between reached nodes */
	size_t nextra;
	uint32_t *own_roots;           /* freed by ooms_dom_graph_free */
};

/* VisualVM's graph of m (after its search). 0 or -ENOMEM. */
int ooms_dom_graph_vv(const struct ooms_index *ix, const struct ooms_vvmodel *m, struct ooms_dom_graph *gr);
void ooms_dom_graph_free(struct ooms_dom_graph *gr);

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

/* The dominators of gr and the retained sizes in model (m: VisualVM's tree
 * objects, for OOMS_RETAINED_VISUALVM only; else NULL). max_cyclic_bytes:
 * refuse (-EFBIG, d->cyclic set, nothing else) when the nodes that reach a
 * cycle would need more for Semi-NCA (at most OOMS_MEMORY_PER_CYCLIC each);
 * 0: no limit. gr must stay as it is until the end. */
int ooms_dominators_compute(const struct ooms_index *ix, const struct ooms_dom_graph *gr,
			    enum ooms_retained_model model, const struct ooms_vvmodel *m, uint64_t max_cyclic_bytes,
			    struct ooms_dominators *d);
/* The same in two steps: begin needs only gr (VisualVM's after its search:
 * it can run beside the tree marking); finish needs all of m, and frees w. */
struct ooms_dom_work;
int ooms_dominators_begin(const struct ooms_index *ix, const struct ooms_dom_graph *gr, uint64_t max_cyclic_bytes,
			  uint32_t *cyclic, struct ooms_dom_work **w);
int ooms_dominators_finish(struct ooms_dom_work *w, enum ooms_retained_model model, const struct ooms_vvmodel *m,
			   struct ooms_dominators *d);
/* finish's two halves: the tree alone (d->idom, d->reach; no retained
 * sizes; frees w), then the retained sizes over d->idom. */
int ooms_dominators_tree(struct ooms_dom_work *w, struct ooms_dominators *d);
int ooms_dominators_sum(const struct ooms_index *ix, enum ooms_retained_model model, const struct ooms_vvmodel *m,
			struct ooms_dominators *d);
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
