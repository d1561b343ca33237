/* What the files of MAT's model share (matmodel.h): bits, a node's class
 * and superclass objects, a thread's locals, and each class's referrers'
 * nearest common ancestor in a tree (matmodel_tree.c). Private to
 * matmodel.c, matmodel_tree.c and matmodel_rounds.c. */
#ifndef OOMSCOPE_GRAPH_MATMODEL_INT_H
#define OOMSCOPE_GRAPH_MATMODEL_INT_H

#include <stddef.h>
#include <stdint.h>
#include "graph/matmodel.h"

static inline void set_bit(uint8_t *m, uint32_t n)
{
	m[n / 8] |= (uint8_t)(1 << (n % 8));
}

static inline int bit(const uint8_t *m, uint32_t n)
{
	return m[n / 8] >> (n % 8) & 1;
}

/* The class object of n's class (an instance's or array's class;
 * java.lang.Class for a class object), or OOMS_NONE. */
static inline uint32_t class_node(const struct ooms_index *ix, uint32_t n)
{
	uint32_t c = ooms_cls(ix, n);

	return c == OOMS_NONE ? OOMS_NONE : ix->classes[c].node;
}

/* A class object's superclass's object, or OOMS_NONE (n any node). */
static inline uint32_t super_node(const struct ooms_index *ix, uint32_t n)
{
	uint32_t s;

	if (n <= ix->main_end || n >= ix->nodes)
		return OOMS_NONE;
	s = ix->classes[ooms_class_of_node(ix, n)].super;
	return s == OOMS_NONE ? OOMS_NONE : ix->classes[s].node;
}

/* The locals of thread node u: [*at, *at + count) of m->locals (has:
 * mat_locals_bitmap's, NULL when there are none). */
static inline size_t locals_of(const struct ooms_matmodel *m, const uint8_t *has, uint32_t u, size_t *at)
{
	size_t lo = 0, hi = m->nlocals, k;

	*at = 0;
	if (!has || !bit(has, u))
		return 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->locals[mid].from < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < m->nlocals && m->locals[k].from == u; k++)
		;
	*at = lo;
	return k - lo;
}

/* A bit for every thread with locals, or NULL (out of memory). */
uint8_t *mat_locals_bitmap(const struct ooms_index *ix, const struct ooms_matmodel *m);
/* Each class's nearest common ancestor of its referrers (every node with
 * a reference into its class object, in MAT's graph) in the tree idom
 * (OOMS_NONE: not in it), in anc[class]: OOMS_NONE for a class with none
 * (a root, or unreached). 0 or -ENOMEM. */
int mat_class_ancestors(const struct ooms_index *ix, const struct ooms_matmodel *m, const uint8_t *has_locals,
			const uint32_t *idom, uint32_t *anc);

#endif
