/* Leak suspects with no rule, as Eclipse MAT finds them: the objects (class
 * objects too, which retain their statics) that the super-root dominates
 * directly and that retain more than a share of the heap, each followed
 * down the dominator tree to its accumulation point, the object below
 * which the retained size spreads over many children; and the classes whose
 * many top-level instances together retain more than that share.
 *
 * Unlike MAT, a linked chain (each link dominating the next, all of one
 * class) ends the descent at its head, and what accumulates is counted
 * over all its links: otherwise the point would lie deep inside the chain. */
#ifndef OOMSCOPE_ANALYZE_SUSPECTS_H
#define OOMSCOPE_ANALYZE_SUSPECTS_H

#include <stddef.h>
#include <stdint.h>
#include "graph/dominators.h"
#include "graph/index.h"

#define OOMS_SUSPECT_SHARE 0.10  /* MAT's default threshold */
#define OOMS_SUSPECT_DROP 0.70   /* descend while the largest child keeps this much (MAT's big drop ratio) */
#define OOMS_SUSPECT_TOP 3       /* the dominant classes named per accumulation point */

enum ooms_suspect_kind {
	SUSPECT_OBJECT,      /* one object (or class object) over the share */
	SUSPECT_INSTANCES,   /* many top-level instances of one class, together over the share */
};

struct ooms_accumulated {   /* one class among the accumulation point's dominator children */
	uint32_t cls;            /* class index (class objects: java.lang.Class's, see node_class) */
	uint64_t count, retained;
};

struct ooms_suspect {
	uint8_t kind;            /* enum ooms_suspect_kind */
	uint32_t node;           /* the suspect (instances: the one that retains most) */
	uint32_t point;          /* the accumulation point, dominated by node (instances: node) */
	uint64_t retained;       /* node's (instances: all of them together; merged: the sum) */
	uint64_t point_retained;
	uint32_t count;          /* objects: suspects merged under one signature; instances: how many */
	uint32_t cls;            /* instances: their class; else OOMS_NONE */
	uint64_t children;       /* the accumulation point's dominator children (a chain: all its links') */
	uint32_t chain_cls;      /* the point heads a linked chain of this class (List.tail...), else OOMS_NONE */
	uint64_t chain_len;      /* its links */
	struct ooms_accumulated top[OOMS_SUSPECT_TOP];
	uint32_t ntop;
	/* filled once the path's references are named */
	uint32_t *path, len;     /* GC root -> point, the shortest strong path */
	uint32_t root;           /* index in ix.roots, or OOMS_NONE */
	uint64_t signature;      /* of the path, as leaks'; equal ones are merged */
};

/* The suspects over share of heap_bytes, largest first, in *out (free with
 * ooms_suspects_free). 0 or -ENOMEM. */
int ooms_suspects_find(const struct ooms_index *ix, const struct ooms_dominators *d, const struct ooms_domtree *t,
		       uint64_t heap_bytes, double share, struct ooms_suspect **out, size_t *n);
void ooms_suspects_free(struct ooms_suspect *s, size_t n);

#endif
