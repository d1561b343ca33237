#include "graph/vvmodel.h"
#include "util/hugemem.h"
#include "graph/roots.h"
#include "graph/shallow.h"
#include "util/clock.h"
#include "util/memtrace.h"
#include "util/release.h"
#include "util/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline void set_bit(uint8_t *m, uint32_t n)
{
	m[n / 8] |= (uint8_t)(1 << (n % 8));
}

static inline void clear_bit(uint8_t *m, uint32_t n)
{
	m[n / 8] &= (uint8_t)~(1 << (n % 8));
}

uint64_t ooms_vvmodel_class_size(const struct ooms_index *ix)
{
	return ix->class_class != OOMS_NONE ? ix->inst_sizes[ix->class_class] : 0;
}

uint64_t ooms_vvmodel_size(const struct ooms_index *ix, uint32_t n)
{
	return ooms_kind(ix, n) == NODE_CLASS ? ooms_vvmodel_class_size(ix) : ooms_shallow_size(ix, n);
}

struct work {
	const struct ooms_index *ix;
	struct ooms_vvmodel *m;
	uint32_t *parent;   /* the search's: 0 for a root, OOMS_NONE unreached */
	uint8_t *refs;      /* distinct referrers, counted to two */
	uint8_t *mark;      /* scratch bits, clear between uses */
	uint8_t *queued;    /* bit: on the tree search's first level */
	uint32_t *level;    /* the tree search's current level */
	size_t nlevel, level_cap;
};

/* Referrers per node, each counted once, as LongMap.Entry's reference list
 * has them: every object's references, reached or not, referents included. */
static void count_referrers(struct work *w)
{
	const struct ooms_index *ix = w->ix;

	for (uint32_t u = 1; u < ix->nodes; u++) {
		for (uint32_t e = ix->off[u]; e < ix->off[u + 1]; e++) {
			uint32_t t = ix->tgt[e];

			if (ooms_vvmodel_bit(w->mark, t))
				continue;
			set_bit(w->mark, t);
			if (w->refs[t] < 2)
				w->refs[t]++;
		}
		for (uint32_t e = ix->off[u]; e < ix->off[u + 1]; e++)
			clear_bit(w->mark, ix->tgt[e]);
	}
}

/* NearestGCRoot.writeLeaf: a leaf is a tree object of its own size; its
 * parent, when it is the only referrer, starts the tree search. */
/* u's parent onto list, when u has no other referrer and the parent is not
 * there yet (queued marks what is on a list). 0 or -ENOMEM. */
static int queue_parent(struct work *w, uint32_t u, uint32_t **list, size_t *n, size_t *cap)
{
	uint32_t p = w->parent[u], *slot;

	if (w->refs[u] != 1 || p == 0 || p == OOMS_NONE || ooms_vvmodel_bit(w->queued, p))
		return 0;
	if (!(slot = VEC_PUSH(*list, *n, *cap)))
		return -ENOMEM;
	*slot = p;
	set_bit(w->queued, p);
	return 0;
}

static inline int leaf(struct work *w, uint32_t u)
{
	set_bit(w->m->tree, u);
	return queue_parent(w, u, &w->level, &w->nlevel, &w->level_cap);
}

static inline int reach(struct work *w, uint32_t from, uint32_t t, uint32_t *queue, size_t *tail)
{
	if (ooms_vvmodel_bit(w->m->reach, t))
		return 0;
	set_bit(w->m->reach, t);
	w->parent[t] = from;
	queue[(*tail)++] = t;
	return 1;
}

/* NearestGCRoot.computeGCRoots: breadth first from the roots (a root listed
 * twice is expanded twice), an object's fields in order but not the
 * referents of Weak/Soft/Final/Phantom references, then, for the first
 * instance of its class the search meets, its class object. An object with
 * no reference at all (and no new class connection) is a leaf. */
static int search(struct work *w)
{
	const struct ooms_index *ix = w->ix;
	struct ooms_vvmodel *m = w->m;
	size_t cap = (size_t)ix->nodes + ix->nroots, head = 0, tail = 0, released = 0;
	uint32_t *queue = huge_malloc(cap * sizeof(*queue));
	uint8_t *seen_class = huge_calloc(ix->nclasses / 8 + 1, 1);
	int e = -ENOMEM;

	if (!queue || !seen_class)
		goto out;
	for (uint32_t i = 0; i < ix->nroots; i++) {
		set_bit(m->reach, ix->roots[i].node);
		w->parent[ix->roots[i].node] = 0;
	}
	for (size_t k = 0; k < OOMS_ROOT_KINDS; k++) /* as HprofGCRoots lists them, then file order */
		for (uint32_t i = 0; i < ix->nroots; i++)
			if (ix->roots[i].kind == ooms_root_kinds[k])
				queue[tail++] = ix->roots[i].node;
	while (head < tail) {
		uint32_t u = queue[head++], c = ooms_cls(ix, u);
		int has = 0;

		if (head % 65536 == 0)
			release_below(queue, head * sizeof(*queue), &released);
		if (ooms_kind(ix, u) == NODE_PRIM_ARRAY) {
			if ((e = leaf(w, u)))
				goto out;
			continue;
		}
		for (uint32_t x = ix->off[u]; x < ix->off[u + 1]; x++) {
			if (ooms_edge_is_weak(ix, u, x) && (c == OOMS_NONE || !ix->classes[c].referent_late))
				continue;
			has = 1;
			reach(w, u, ix->tgt[x], queue, &tail);
		}
		if (ooms_kind(ix, u) != NODE_OBJ_ARRAY && c != OOMS_NONE && !ooms_vvmodel_bit(seen_class, c)) {
			uint32_t v = ix->classes[c].node;

			set_bit(seen_class, c);
			if (v != OOMS_NONE && reach(w, u, v, queue, &tail)) {
				struct ooms_class_edge *ce = VEC_PUSH(m->class_edges, m->nclass_edges, m->class_edges_cap);
				int field = 0;

				if (!ce)
					goto out;
				*ce = (struct ooms_class_edge){u, v};
				for (uint32_t x = ix->off[u]; x < ix->off[u + 1] && !field; x++)
					field = ix->tgt[x] == v;
				if (!field && w->refs[v] < 2)
					w->refs[v]++;
				has = 1;
			}
		}
		if (!has && (e = leaf(w, u)))
			goto out;
	}
	e = 0;
out:
	free(queue);
	free(seen_class);
	return e;
}

/* TreeObject.computeTrees: level by level up from the leaves' parents, an
 * object all of whose references are tree objects with one referrer is a
 * tree object; its parent, when it is the only referrer, is tried on the
 * next level. done[] gets each in the order it became one, so every tree
 * object there comes after those it references. */
static int trees(struct work *w, uint32_t **done, size_t *ndone)
{
	const struct ooms_index *ix = w->ix;
	struct ooms_vvmodel *m = w->m;
	uint32_t *next = NULL;
	size_t nnext = 0, next_cap = 0, done_cap = 0;
	int changed;

	do {
		changed = 0;
		nnext = 0;
		for (size_t i = 0; i < w->nlevel; i++) {
			uint32_t u = w->level[i];
			int ok = 1;

			for (uint32_t x = ix->off[u]; x < ix->off[u + 1] && ok; x++) {
				uint32_t t = ix->tgt[x];

				ok = w->refs[t] == 1 && ooms_vvmodel_bit(m->tree, t);
			}
			if (!ok)
				continue;
			changed = 1;
			if (!ooms_vvmodel_bit(m->tree, u)) {
				uint32_t *d = VEC_PUSH(*done, *ndone, done_cap);

				if (!d)
					goto nomem;
				*d = u;
				set_bit(m->tree, u);
			}
			if (queue_parent(w, u, &next, &nnext, &next_cap)) /* unique within the level */
				goto nomem;
		}
		for (size_t i = 0; i < nnext; i++)
			clear_bit(w->queued, next[i]);
		{ /* the next level becomes the current one */
			uint32_t *t = w->level;
			size_t tc = w->level_cap;

			w->level = next;
			w->level_cap = next_cap;
			w->nlevel = nnext;
			next = t;
			next_cap = tc;
		}
	} while (changed);
	free(next);
	return 0;
nomem:
	free(next);
	return -ENOMEM;
}

/* The trees' sizes, in the order they became tree objects: each its own
 * size and that of what it references (each counted once; a leaf's is its
 * own), kept for the ones that are not leaves only. */
static int tree_sizes(struct work *w, const uint32_t *done, size_t ndone)
{
	const struct ooms_index *ix = w->ix;
	struct ooms_vvmodel *m = w->m;
	size_t words = (size_t)ix->nodes / 64 + 1;
	uint32_t total = 0;

	m->summed = huge_calloc(words, sizeof(*m->summed));
	m->rank = huge_malloc(words * sizeof(*m->rank));
	m->sums = huge_malloc((ndone + 1) * sizeof(*m->sums));
	if (!m->summed || !m->rank || !m->sums)
		return -ENOMEM;
	for (size_t i = 0; i < ndone; i++)
		m->summed[done[i] / 64] |= 1ull << (done[i] % 64);
	for (size_t k = 0; k < words; k++) {
		m->rank[k] = total;
		total += (uint32_t)__builtin_popcountll(m->summed[k]);
	}
	for (size_t i = 0; i < ndone; i++) {
		uint32_t u = done[i], word = u / 64;
		uint64_t sum = ooms_vvmodel_size(ix, u);

		for (uint32_t x = ix->off[u]; x < ix->off[u + 1]; x++) {
			uint32_t t = ix->tgt[x];

			if (!ooms_vvmodel_bit(w->mark, t)) {
				set_bit(w->mark, t);
				sum += ooms_vvmodel_tree_size(ix, m, t);
			}
		}
		for (uint32_t x = ix->off[u]; x < ix->off[u + 1]; x++)
			clear_bit(w->mark, ix->tgt[x]);
		m->sums[m->rank[word] + __builtin_popcountll(m->summed[word] & ((1ull << (u % 64)) - 1))] = sum;
	}
	return 0;
}

int ooms_vvmodel_compute(const struct ooms_index *ix, struct ooms_vvmodel *m)
{
	return ooms_vvmodel_compute_then(ix, m, NULL, NULL);
}

int ooms_vvmodel_compute_then(const struct ooms_index *ix, struct ooms_vvmodel *m, void (*searched)(void *, int),
			      void *ctx)
{
	double t0 = mono_s();
	size_t bits = (size_t)ix->nodes / 8 + 1;
	struct work w = {.ix = ix, .m = m};
	uint32_t *done = NULL;
	size_t ndone = 0;
	int e = -ENOMEM;

	memset(m, 0, sizeof(*m));
	m->reach = huge_calloc(bits, 1);
	m->tree = huge_calloc(bits, 1);
	w.parent = huge_malloc((size_t)ix->nodes * sizeof(*w.parent));
	w.refs = huge_calloc(ix->nodes, 1);
	w.mark = huge_calloc(bits, 1);
	w.queued = huge_calloc(bits, 1);
	if (!m->reach || !m->tree || !w.parent || !w.refs || !w.mark || !w.queued)
		goto out;
	memset(w.parent, 0xff, (size_t)ix->nodes * sizeof(*w.parent));
	memtrace("vv start");
	count_referrers(&w);
	memtrace("vv referrers");
	e = search(&w);
	if (searched) /* reach and the class connections are final */
		searched(ctx, e);
	searched = NULL;
	if (e)
		goto out;
	memtrace("vv search");
	/* the leaves' parents were queued for good; from here on queued marks
	 * a level's members only */
	memset(w.queued, 0, bits);
	if ((e = trees(&w, &done, &ndone)))
		goto out;
	memtrace("vv trees");
	if ((e = tree_sizes(&w, done, ndone)))
		goto out;
	memtrace("vv sizes");
	for (uint32_t n = 0; n < ix->nodes; n++)
		m->tree_objects += ooms_vvmodel_bit(m->tree, n);
	e = 0;
out:
	if (searched)
		searched(ctx, e);
	free(w.parent);
	free(w.refs);
	free(w.mark);
	free(w.queued);
	free(w.level);
	free(done);
	if (e)
		ooms_vvmodel_free(m);
	m->seconds = mono_s() - t0;
	return e;
}

void ooms_vvmodel_free(struct ooms_vvmodel *m)
{
	free(m->reach);
	free(m->class_edges);
	free(m->tree);
	free(m->summed);
	free(m->rank);
	free(m->sums);
	memset(m, 0, sizeof(*m));
}
