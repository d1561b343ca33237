/* Eclipse MAT's object graph, for its reachable-only dominator tree (MAT's
 * default: the objects no GC root reaches are removed before the tree is
 * built, and are reported apart). Its edges, beside the index's references
 * (Reference.referent ones included: MAT counts them for retained sizes):
 *  - an instance or array -> its class object; a class object -> its
 *    superclass and java.lang.Class (the index gives its statics and loader);
 *  - a thread object -> its frames' objects: a JNI_LOCAL, JAVA_FRAME,
 *    NATIVE_STACK or THREAD_BLOCK root record whose thread an earlier
 *    THREAD_OBJECT record named is an edge from that thread object, not a
 *    GC root (MAT's Pass1Parser; a record of a thread not named yet stays a
 *    root).
 * GC roots: every other root record's object (UNREACHABLE records are not
 * roots), and, in a dump with no STICKY_CLASS root at all, every class of
 * the boot loader that is not an array class (MAT's rule for such dumps).
 *
 * Every instance refers to its class, and a class to its loader, whose list
 * of classes refers back: computed as they stand, nearly every object would
 * reach a cycle, and the dominators of the whole heap would be Semi-NCA's
 * (dominators.h), in memory the heap cannot spare. So the tree is computed
 * over a graph where the references into a class object that is not a root
 * are replaced by two: from the search's first referrer of it, and from the
 * nearest common ancestor of all its referrers in the last tree computed
 * (at first, in the search's own tree); repeated until that ancestor stays
 * the same for every class. A GC root's
 * incoming references are left out (they change no dominator). Why the
 * result is the dominator tree of MAT's graph: docs/design.md. Where most
 * of the heap reaches a cycle anyway, the graph as it is costs less. */
#ifndef OOMSCOPE_GRAPH_MATMODEL_H
#define OOMSCOPE_GRAPH_MATMODEL_H

#include <stddef.h>
#include <stdint.h>
#include "graph/dominators.h"
#include "graph/index.h"

/* How the tree is computed: by rounds unless most of the heap reaches a
 * cycle anyway (auto), or always one way (the tests compare them). */
enum ooms_mat_way { OOMS_MAT_AUTO, OOMS_MAT_ROUNDS, OOMS_MAT_EXACT };

struct ooms_matmodel {
	uint8_t *root;         /* [nodes/8+1] bit n: a GC root */
	uint8_t *reach;        /* [nodes/8+1] bit n: reachable from a GC root */
	uint32_t *roots;       /* the GC roots, each once */
	uint32_t nroots;
	struct ooms_class_edge *locals; /* thread object -> a frame's object, by from */
	size_t nlocals;
	uint32_t *first_ref;   /* [nclasses] the node the search first reached class c's object from;
				* OOMS_NONE: a root, unreached, or no class object */
	uint32_t *tree_anc;    /* [nclasses] the nearest common ancestor of class c's referrers in the
				* search's tree (where the rounds start) */
	uint32_t reachable;    /* objects (the super-root not counted) */
	uint64_t unreachable, unreachable_bytes; /* objects and their shallow bytes */
	uint32_t rounds;       /* rounds begun (the last may have given way to the exact graph) */
	int exact;             /* the tree is the exact graph's (most of the heap reached a cycle anyway) */
	double seconds;        /* the search */
};

/* The roots, the thread edges and the search. 0 or -ENOMEM. */
int ooms_matmodel_compute(const struct ooms_index *ix, struct ooms_matmodel *m);
/* The dominators of MAT's graph over the reachable objects, and retained
 * sizes: every object's shallow size in each of its dominators. 0,
 * -ENOMEM, or -EFBIG (d->cyclic set) past max_cyclic_bytes (dominators.h). */
int ooms_matmodel_dominators(const struct ooms_index *ix, struct ooms_matmodel *m, enum ooms_mat_way way,
			     uint64_t max_cyclic_bytes, struct ooms_dominators *d);
void ooms_matmodel_free(struct ooms_matmodel *m);

static inline int ooms_matmodel_reached(const struct ooms_matmodel *m, uint32_t n)
{
	return m->reach[n / 8] >> (n % 8) & 1;
}

#endif
