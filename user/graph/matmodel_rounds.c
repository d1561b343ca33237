/* MAT's dominators (matmodel.h): the rounds over the classes' entries,
 * or the graph as it is. */
#include "graph/matmodel_int.h"
#include "graph/shallow.h"
#include "hprof/hprof.h"
#include "util/clock.h"
#include "util/hugemem.h"
#include "util/memtrace.h"
#include "util/u64map.h"
#include "util/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Rounds of the classes' ancestors before the exact graph is used instead
 * (a dump where they have not settled by then: none seen). */
#define MAX_ROUNDS 32

/* The graph of one round: the class objects that are not roots entered
 * from their first referrer and from anc[] (the super-root's: a root of
 * this graph); the locals, where they do not lead into a root or a class
 * (those are referrers of the class). exact: every reference as it is
 * instead (the instances' to their classes as extra edges). */
static int round_graph(const struct ooms_index *ix, const struct ooms_matmodel *m, const uint8_t *skip,
		       const uint32_t *anc, int exact, struct ooms_dom_graph *gr, struct ooms_class_edge **extra)
{
	size_t n = 0, cap = 0, rcap = 0;
	uint32_t nroots = 0, *roots = NULL;

	memset(gr, 0, sizeof(*gr));
	*extra = NULL;
	for (uint32_t i = 0; i < m->nroots; i++) {
		uint32_t *slot = VEC_PUSH(roots, nroots, rcap);

		if (!slot)
			goto nomem;
		*slot = m->roots[i];
	}
	for (size_t i = 0; i < m->nlocals; i++) {
		struct ooms_class_edge *ce;

		if (!exact && bit(skip, m->locals[i].to))
			continue;
		if (bit(m->root, m->locals[i].to))
			continue;
		if (!(ce = VEC_PUSH(*extra, n, cap)))
			goto nomem;
		*ce = m->locals[i];
	}
	for (uint32_t c = 0; !exact && c < ix->nclasses; c++) {
		uint32_t first = m->first_ref[c], node = ix->classes[c].node;
		struct ooms_class_edge *ce;

		if (first == OOMS_NONE)
			continue; /* a root, or unreached */
		if (!(ce = VEC_PUSH(*extra, n, cap)))
			goto nomem;
		*ce = (struct ooms_class_edge){first, node};
		if (anc[c] == first || anc[c] == OOMS_NONE)
			continue;
		if (anc[c] == 0) {
			uint32_t *slot = VEC_PUSH(roots, nroots, rcap);

			if (!slot)
				goto nomem;
			*slot = node;
			continue;
		}
		if (!(ce = VEC_PUSH(*extra, n, cap)))
			goto nomem;
		*ce = (struct ooms_class_edge){anc[c], node};
	}
	for (uint32_t u = 1; exact && u < ix->nodes; u++) {
		uint32_t t[2] = {class_node(ix, u), super_node(ix, u)};

		if (!bit(m->reach, u))
			continue;
		for (int k = 0; k < 2; k++) {
			struct ooms_class_edge *ce;

			if (t[k] == OOMS_NONE || bit(m->root, t[k]))
				continue;
			if (!(ce = VEC_PUSH(*extra, n, cap)))
				goto nomem;
			*ce = (struct ooms_class_edge){u, t[k]};
		}
	}
	gr->reach = m->reach;
	gr->roots = gr->own_roots = roots;
	gr->nroots = nroots;
	gr->skip = skip;
	gr->extra = *extra;
	gr->nextra = n;
	return 0;
nomem:
	free(roots);
	free(*extra);
	*extra = NULL;
	return -ENOMEM;
}

/* skip: the GC roots (their references change no dominator) and, unless
 * exact, every class object (its referrers enter through round_graph). */
static uint8_t *skip_bitmap(const struct ooms_index *ix, const struct ooms_matmodel *m, int exact)
{
	size_t bytes = ix->nodes / 8 + 1;
	uint8_t *skip = huge_malloc(bytes);

	if (!skip)
		return NULL;
	memcpy(skip, m->root, bytes);
	for (uint32_t n = ix->main_end + 1; !exact && n < ix->nodes; n++)
		set_bit(skip, n);
	return skip;
}

/* One round's graph and the first step of its dominators (classify):
 * *w to finish, *gr and *extra to free after. */
struct round {
	struct ooms_dom_graph gr;
	struct ooms_class_edge *extra;
	struct ooms_dom_work *w;
	uint32_t cyclic;
};

static int round_begin(const struct ooms_index *ix, const struct ooms_matmodel *m, const uint8_t *skip,
		       const uint32_t *anc, int exact, uint64_t max_cyclic_bytes, struct round *r)
{
	int e;

	memset(r, 0, sizeof(*r));
	if ((e = round_graph(ix, m, skip, anc, exact, &r->gr, &r->extra)))
		return e;
	return ooms_dominators_begin(ix, &r->gr, max_cyclic_bytes, &r->cyclic, &r->w);
}

static void round_end(struct round *r)
{
	ooms_dominators_abandon(r->w); /* NULL once finished */
	ooms_dom_graph_free(&r->gr);
	free(r->extra);
	memset(r, 0, sizeof(*r));
}

/* The tree of round r (begun). */
static int round_tree(struct round *r, struct ooms_dominators *d)
{
	int e = ooms_dominators_tree(r->w, d);

	r->w = NULL;
	round_end(r);
	return e;
}

/* The tree of the exact graph, if its cycles fit in max_cyclic_bytes. */
static int exact_tree(const struct ooms_index *ix, struct ooms_matmodel *m, uint64_t max_cyclic_bytes,
		      struct ooms_dominators *d)
{
	struct round r = {0};
	uint8_t *skip = skip_bitmap(ix, m, 1);
	int e = -ENOMEM;

	if (skip && !(e = round_begin(ix, m, skip, NULL, 1, max_cyclic_bytes, &r)))
		e = round_tree(&r, d);
	else
		round_end(&r);
	if (e == -EFBIG)
		d->cyclic = r.cyclic;
	free(skip);
	m->exact = 1;
	return e;
}

int ooms_matmodel_dominators(const struct ooms_index *ix, struct ooms_matmodel *m, enum ooms_mat_way way,
			     uint64_t max_cyclic_bytes, struct ooms_dominators *d)
{
	double t0 = mono_s();
	uint32_t *anc = huge_malloc(((size_t)ix->nclasses + 1) * sizeof(*anc));
	uint32_t *next = huge_malloc(((size_t)ix->nclasses + 1) * sizeof(*next));
	uint8_t *skip = skip_bitmap(ix, m, 0), *has_locals = m->nlocals ? mat_locals_bitmap(ix, m) : NULL;
	struct round r = {0};
	int e = -ENOMEM, exact = 0;

	memset(d, 0, sizeof(*d));
	if (!anc || !next || !skip || (m->nlocals && !has_locals))
		goto out;
	memcpy(anc, m->tree_anc, ix->nclasses * sizeof(*anc));
	if (way == OOMS_MAT_EXACT) {
		exact = 1;
		m->rounds = 0;
	}
	for (m->rounds = 1; !exact; m->rounds++) {
		uint32_t moved = 0;

		if ((e = round_begin(ix, m, skip, anc, 0, max_cyclic_bytes, &r))) {
			d->cyclic = r.cyclic;
			round_end(&r);
			goto out;
		}
		/* where most of the heap reaches a cycle anyway, the exact graph
		 * costs less than the rounds (a compiler's symbol tables), when
		 * its cycles fit in max_cyclic_bytes */
		if (way == OOMS_MAT_AUTO && m->rounds == 1 && (uint64_t)r.cyclic * 2 > m->reachable) {
			round_end(&r);
			e = exact_tree(ix, m, max_cyclic_bytes, d);
			if (e != -EFBIG)
				goto summed;
			m->exact = 0;
			way = OOMS_MAT_ROUNDS;
			m->rounds = 0;
			continue;
		}
		if ((e = round_tree(&r, d)))
			goto out;
		if (m->rounds == MAX_ROUNDS && way != OOMS_MAT_ROUNDS) {
			exact = 1; /* not settled: the exact graph */
			break;
		}
		if ((e = mat_class_ancestors(ix, m, has_locals, d->idom, next)))
			goto out;
		for (uint32_t c = 0; c < ix->nclasses; c++)
			moved += m->first_ref[c] != OOMS_NONE && next[c] != anc[c];
		if (!moved)
			break;
		memcpy(anc, next, ix->nclasses * sizeof(*anc));
		ooms_dominators_free(d);
		memtrace("mat round");
	}
	if (exact) {
		ooms_dominators_free(d);
		if ((e = exact_tree(ix, m, max_cyclic_bytes, d)))
			goto out;
	}
summed:
	if (e)
		goto out;
	e = ooms_dominators_sum(ix, OOMS_RETAINED_MAT, NULL, d);
out:
	if (e)
		ooms_dominators_free(d);
	free(anc);
	free(next);
	free(skip);
	free(has_locals);
	d->seconds = mono_s() - t0;
	return e;
}
