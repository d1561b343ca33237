/* Shortest strong paths from the GC roots: a breadth-first search over the
 * index's references (weak, soft, phantom and finalizer referents are not in
 * the graph: see index.c), from the roots in Shark's order (thread objects
 * first, so a thread's locals are reached through it; then by kind). What
 * a Java frame's local refers to is taken after every other strong path:
 * a path through a running method's local (a list's old array mid-grow)
 * is named only for what nothing lasting holds. */
#ifndef OOMSCOPE_ANALYZE_PATHS_H
#define OOMSCOPE_ANALYZE_PATHS_H

#include <stdint.h>
#include "graph/index.h"
#include "graph/roots.h"
#include "util/spill.h"

struct ooms_paths {
	uint32_t *parent;   /* [nodes] previous node on the shortest path; 0 for a root; OOMS_NONE unreached;
			     * NULL once in parents (read them with ooms_paths_parent) */
	struct spill parents;
	uint8_t *reach;     /* [nodes/8+1] bit n: n was reached (after ooms_paths_reach_bitmap) */
	int honor_ignores;  /* the search left out --ignore's references */
	uint8_t *late;      /* [nodes/8+1] bit n: n is reached only across a referent that holds last
			     * (Dalvik's FinalizerReference, index.h): never a leak, as Shark has it */
	uint8_t *library;   /* [nodes/8+1] bit n: n is reached only across a library leak's reference */
	double seconds;
};

/* honor_ignores: leave out the references --ignore names (the paths
 * reported); 0: every strong reference (what is reachable, for retained sizes). */
int ooms_paths_compute(const struct ooms_index *ix, struct ooms_paths *p, int honor_ignores);
void ooms_paths_free(struct ooms_paths *p);
/* The reach bitmap from parent[] (1 bit per object instead of 32: the
 * dominators test it for every node, and it stays in cache); parent[] then
 * begins to go to a file, for the few reported paths: parent[] must not
 * change until ooms_paths_spilled frees it. */
int ooms_paths_reach_bitmap(const struct ooms_index *ix, struct ooms_paths *p);
void ooms_paths_spilled(struct ooms_paths *p);
/* parent[] freed, once the reported paths are named. */
void ooms_paths_drop_parents(struct ooms_paths *p);
uint32_t ooms_paths_parent_spilled(const struct ooms_paths *p, uint32_t n);
/* The previous node on n's shortest path (0 for a root; OOMS_NONE unreached). */
static inline uint32_t ooms_paths_parent(const struct ooms_paths *p, uint32_t n)
{
	return p->parent ? p->parent[n] : ooms_paths_parent_spilled(p, n);
}
static inline int ooms_paths_reached(const struct ooms_paths *p, uint32_t n)
{
	return p->reach ? p->reach[n / 8] >> (n % 8) & 1 : p->parent[n] != OOMS_NONE;
}
/* The root record a path starting at node r stands on (the first in the
 * search's order), as an index in ix->roots, or OOMS_NONE. */
uint32_t ooms_paths_root(const struct ooms_index *ix, uint32_t r);
/* The order in which the search takes the roots, by kind (what paths
 * prefer), as names; the last, "other", stands for every other kind. */
extern const char *const ooms_root_order[9];

#endif
