/* VisualVM's retained-size model, emulated so that oomscope's retained sizes
 * equal those of VisualVM's heap library (org.graalvm.visualvm.lib.jfluid.heap)
 * object by object, on every producer's dumps.
 *
 * VisualVM's dominator tree is the true one over its reference graph, but its
 * retained sizes are not plain sums over it. It first marks "tree objects"
 * (NearestGCRoot's leaves, then TreeObject's bottom-up levels: an object all
 * of whose references lead to tree objects with no other referrer), gives
 * each its tree's size, and then adds every other instance's and array's
 * size up its dominator chain, stopping at the first tree object. Class
 * objects are never in that last loop: a class object's own size (an
 * instance of java.lang.Class) counts only inside a tree, and a tree that
 * starts at a class object counts nowhere above it. This module redoes the
 * search in VisualVM's order (roots by kind as HprofGCRoots lists them, then
 * file order; an instance's class connected from the first instance the
 * search meets) and the tree marking, for the dominators to sum with
 * (dominators.h). Objects deeper than VisualVM's DEEP_LEVEL (10,000 levels)
 * get its ordinary rule, not its deep-path pass. */
#ifndef OOMSCOPE_GRAPH_VVMODEL_H
#define OOMSCOPE_GRAPH_VVMODEL_H

#include <stddef.h>
#include <stdint.h>
#include "graph/index.h"

struct ooms_class_edge {
	uint32_t from, to;
};

struct ooms_vvmodel {
	uint8_t *reach;       /* [nodes/8+1] bit n: a root, or reached by the search */
	struct ooms_class_edge *class_edges; /* instance -> its class object, as the search connected them */
	size_t nclass_edges, class_edges_cap;
	uint8_t *tree;        /* [nodes/8+1] bit n: a tree object */
	/* the sizes of the tree objects that are not leaves (a leaf's is its
	 * own), in node order: bit n of summed, and rank[] counting the bits
	 * before each 64-node word, place n in sums[] */
	uint64_t *summed;     /* [nodes/64+1] */
	uint32_t *rank;       /* [nodes/64+1] */
	uint64_t *sums;
	uint32_t tree_objects;
	double seconds;
};

/* The search, the class connections and the tree objects. 0 or -ENOMEM. */
int ooms_vvmodel_compute(const struct ooms_index *ix, struct ooms_vvmodel *m);
/* The same, calling searched(ctx, 0 or -errno) once the search is done (or
 * failed): from then on m->reach and m->class_edges do not change, while
 * the tree objects are marked. */
int ooms_vvmodel_compute_then(const struct ooms_index *ix, struct ooms_vvmodel *m, void (*searched)(void *, int),
			      void *ctx);
void ooms_vvmodel_free(struct ooms_vvmodel *m);

static inline int ooms_vvmodel_bit(const uint8_t *bits, uint32_t n)
{
	return bits && bits[n / 8] >> (n % 8) & 1;
}

/* A class object's size in VisualVM's model: an instance of java.lang.Class. */
uint64_t ooms_vvmodel_class_size(const struct ooms_index *ix);
/* Node n's own size in VisualVM's model. */
uint64_t ooms_vvmodel_size(const struct ooms_index *ix, uint32_t n);

/* A tree object's size (its tree's). */
static inline uint64_t ooms_vvmodel_tree_size(const struct ooms_index *ix, const struct ooms_vvmodel *m, uint32_t n)
{
	uint64_t word = m->summed[n / 64], bit = 1ull << (n % 64);

	if (!(word & bit))
		return ooms_vvmodel_size(ix, n); /* a leaf */
	return m->sums[m->rank[n / 64] + __builtin_popcountll(word & (bit - 1))];
}

#endif
