/* What the dominators' two files share (dominators.h): the graph they walk
 * (struct graph: the index's references, the extra edges, the super-root's),
 * each node's state in the classifying search, the edges' walk, and a
 * node's place in the tree as it is settled (jump pointers). Private to
 * dominators.c and dominators_cyclic.c. */
#ifndef OOMSCOPE_GRAPH_DOMINATORS_INT_H
#define OOMSCOPE_GRAPH_DOMINATORS_INT_H

#include <stdint.h>
#include "graph/dominators.h"

/* The graph: every reference into a reached node, plus the class
 * connections (sorted by from, found through a per-node first index). */
struct graph {
	const struct ooms_index *ix;
	const struct ooms_dom_graph *gr;
	const uint32_t *cfrom, *cto;  /* the extra edges by from */
	size_t ncls;
	uint8_t *state;               /* [nodes/4+1] 2 bits a node (enum state) */
	uint8_t *has_cls;             /* [nodes/8+1] bit n: n has class edges */
};

/* A node's state in the classifying search: the nodes that reach a cycle
 * (and the super-root) get Semi-NCA; the rest form a DAG below them. */
enum state { UNSEEN, ON_PATH, ACYCLIC, CYCLIC };

static inline int reached(const struct graph *g, uint32_t v)
{
	return ooms_vvmodel_bit(g->gr->reach, v);
}

/* Is the index's reference into v part of the graph? */
static inline int into(const struct graph *g, uint32_t v)
{
	return ooms_vvmodel_bit(g->gr->reach, v) && !ooms_vvmodel_bit(g->gr->skip, v);
}

static inline enum state state_of(const struct graph *g, uint32_t v)
{
	return (enum state)(g->state[v / 4] >> (v % 4 * 2) & 3);
}

static inline void set_state(struct graph *g, uint32_t v, enum state s)
{
	g->state[v / 4] = (uint8_t)((g->state[v / 4] & ~(3u << (v % 4 * 2))) | (unsigned)s << (v % 4 * 2));
}

/* The class edges of n: [*at, *at + count) */
static inline uint32_t class_edges_of(const struct graph *g, uint32_t n, uint32_t *at)
{
	size_t lo = 0, hi = g->ncls, k;

	if (!(g->has_cls[n / 8] >> (n % 8) & 1)) { /* most nodes: no search */
		*at = (uint32_t)g->ncls;
		return 0;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->cfrom[mid] < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = (uint32_t)lo;
	for (k = lo; k < g->ncls && g->cfrom[k] == n; k++)
		;
	return (uint32_t)(k - lo);
}

/* Calls the body with (from, to) for every edge into a reached node; a
 * reference from a node the search did not reach comes from the super-root
 * (VisualVM's graph) or counts for nothing (MAT's). Edges from acyclic nodes
 * are left out (none of them leads into a cyclic node). */
#define FOR_EACH_EDGE(...)                                                                           \
	do {                                                                                         \
		for (uint32_t i = 0; i < g->gr->nroots; i++) {                                       \
			uint32_t to = g->gr->roots[i], from = 0;                                     \
			__VA_ARGS__;                                                                 \
		}                                                                                    \
		for (uint32_t src = 1; src < ix->nodes; src++) {                                     \
			uint32_t from = reached(g, src) ? src : 0;                                   \
			if (from ? state_of(g, from) == ACYCLIC : !g->gr->unreached_from_root)      \
				continue;                                                            \
			for (uint32_t e_ = ix->off[src]; e_ < ix->off[src + 1]; e_++) {              \
				uint32_t to = ix->tgt[e_];                                           \
				if (!into(g, to))                                                    \
					continue;                                                    \
				__VA_ARGS__;                                                         \
			}                                                                            \
		}                                                                                    \
		for (size_t i = 0; i < g->ncls; i++) {                                               \
			uint32_t to = g->cto[i], from = g->cfrom[i];                                 \
			if (state_of(g, from) == ACYCLIC)                                            \
				continue;                                                            \
			__VA_ARGS__;                                                                 \
		}                                                                                    \
	} while (0)

/* A node's immediate dominator beside its aux (referrers left, then its
 * depth; then children left) and, once it is settled, its jump pointer:
 * one place for what the nearest-common-ancestor walk reads. */
struct dnode {
	uint32_t idom, aux, jump;
};

/* The jump pointer of a node just settled under p (skew-binary, Myers
 * 1983): its target's depth depends on the node's depth alone, so two
 * nodes of one depth jump to one depth, and an ancestor is O(log depth)
 * jumps away. */
static inline uint32_t jump_of(const struct dnode *nd, uint32_t p)
{
	uint32_t j = nd[p].jump, jj = nd[j].jump;

	return nd[p].aux - nd[j].aux == nd[j].aux - nd[jj].aux ? jj : p;
}

/* The nearest common ancestor of a and b in the dominator tree so far
 * (settled nodes: aux is their depth). */
static inline uint32_t nca(const struct dnode *nd, uint32_t a, uint32_t b)
{
	while (nd[a].aux > nd[b].aux)
		a = nd[nd[a].jump].aux >= nd[b].aux ? nd[a].jump : nd[a].idom;
	while (nd[b].aux > nd[a].aux)
		b = nd[nd[b].jump].aux >= nd[a].aux ? nd[b].jump : nd[b].idom;
	while (a != b) {
		if (nd[a].jump != nd[b].jump) {
			a = nd[a].jump;
			b = nd[b].jump;
		} else {
			a = nd[a].idom;
			b = nd[b].idom;
		}
	}
	return a;
}

/* A node and its immediate dominator. */
struct dom_pair {
	uint32_t node, idom;
};

/* dominators_cyclic.c: the extra edges sorted by source (g->cfrom, g->cto);
 * the classifying search (what reaches a cycle); Semi-NCA over that part. */
int dom_sort_extra_edges(struct graph *g, uint32_t **cfrom, uint32_t **cto);
uint32_t dom_classify(struct graph *g, uint32_t *referrers);
int dom_semi_nca(struct graph *g, uint32_t k, uint32_t *aux, struct dom_pair **out, uint32_t *nout);

#endif
