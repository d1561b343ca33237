/* Dominators and retained sizes (dominators.h): the graph classified and
 * its cyclic part given Semi-NCA (dominators_cyclic.c), then the acyclic
 * part settled from its referrers, the sums, the tree's children. */
#include "graph/dominators_int.h"
#include "util/hugemem.h"
#include "util/clock.h"
#include "util/memtrace.h"
#include "util/release.h"
#include "util/vec.h"
#include "graph/shallow.h"
#include "graph/vvmodel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


/* An acyclic node's referrer u is settled: its dominator so far meets u's
 * chain; once every referrer is, it is settled itself (aux: referrers
 * left, then its depth). */
static inline int settle_one(struct dnode *nd, uint32_t u, uint32_t v)
{
	nd[v].idom = nd[v].idom == OOMS_NONE ? u : nca(nd, nd[v].idom, u);
	if (--nd[v].aux)
		return 0;
	nd[v].aux = nd[nd[v].idom].aux + 1;
	nd[v].jump = jump_of(nd, nd[v].idom);
	return 1;
}

/* The acyclic nodes' dominators, in topological order from their settled
 * referrers: a DAG node's dominator is the nearest common ancestor of its
 * referrers'. aux: their referrers' counts (classify), the cyclic nodes'
 * depths. 0 or -ENOMEM. */
static int settle_acyclic(struct graph *g, struct dnode *nd)
{
	const struct ooms_index *ix = g->ix;
	uint32_t *ready = NULL;
	size_t nready = 0, cap = 0;

	FOR_EACH_EDGE({
		if (state_of(g, to) != ACYCLIC)
			continue;
		if (!settle_one(nd, from, to))
			continue;
		if (vec_reserve((void **)&ready, &cap, nready + 1, sizeof(*ready)))
			return -ENOMEM;
		ready[nready++] = to;
		while (nready) { /* what it settles in turn, depth first */
			uint32_t u = ready[--nready], at, nc = class_edges_of(g, u, &at);

			for (uint32_t x = ix->off[u]; x < ix->off[u + 1] + nc; x++) {
				uint32_t t = x < ix->off[u + 1] ? ix->tgt[x] : g->cto[at + x - ix->off[u + 1]];

				if (!(x < ix->off[u + 1] ? into(g, t) : reached(g, t)) || !settle_one(nd, u, t))
					continue;
				if (vec_reserve((void **)&ready, &cap, nready + 1, sizeof(*ready))) {
					free(ready);
					return -ENOMEM;
				}
				ready[nready++] = t;
			}
		}
	});
	free(ready);
	return 0;
}

/* A node's own part of the retained sizes, in the model. */
static uint64_t own_size(const struct ooms_index *ix, const struct ooms_vvmodel *m, enum ooms_retained_model model,
			 uint32_t v)
{
	if (model != OOMS_RETAINED_VISUALVM)
		return ooms_shallow_size(ix, v);
	if (ooms_vvmodel_bit(m->tree, v))
		return ooms_vvmodel_tree_size(ix, m, v);
	return ooms_kind(ix, v) == NODE_CLASS ? 0 : ooms_shallow_size(ix, v);
}

/* Retained sizes up the dominator tree, children before their dominator:
 * aux counts each node's children not yet added. */
static int set_retained(struct ooms_dominators *d, uint32_t n, uint64_t bytes)
{
	uint32_t i;

	if (bytes < UINT32_MAX) {
		d->retained32[n] = (uint32_t)bytes;
		return 0;
	}
	d->retained32[n] = UINT32_MAX;
	if (u64map_get(&d->big, (uint64_t)n + 1, &i)) {
		d->bigs[i] = bytes;
		return 0;
	}
	if (vec_reserve((void **)&d->bigs, &d->bigs_cap, d->nbigs + 1, sizeof(*d->bigs)) ||
	    u64map_put(&d->big, (uint64_t)n + 1, (uint32_t)d->nbigs))
		return -ENOMEM;
	d->bigs[d->nbigs++] = bytes;
	return 0;
}

int ooms_dominators_sum(const struct ooms_index *ix, enum ooms_retained_model model, const struct ooms_vvmodel *m,
			struct ooms_dominators *d)
{
	double t0 = mono_s();
	uint32_t n = ix->nodes, *left = huge_calloc(n, sizeof(*left)); /* children not added yet */
	const uint32_t *idom = d->idom;
	int e = -ENOMEM;

	if (!left || !(d->retained32 = huge_malloc((size_t)n * sizeof(*d->retained32))) || u64map_init(&d->big, 16))
		goto out;
	for (uint32_t v = 1; v < n; v++) {
		if (set_retained(d, v, idom[v] == OOMS_NONE ? 0 : own_size(ix, m, model, v)))
			goto out;
		if (idom[v] != OOMS_NONE)
			left[idom[v]]++;
	}
	d->retained32[0] = 0;
	for (uint32_t v = 1; v < n; v++) {
		if (idom[v] == OOMS_NONE || left[v])
			continue;
		for (uint32_t u = v;;) {
			uint32_t p = idom[u];

			/* VisualVM: sizes go up the dominator chain to the first tree
			 * object, and a class object's tree goes nowhere (vvmodel.h) */
			if (model != OOMS_RETAINED_VISUALVM ||
			    (!ooms_vvmodel_bit(m->tree, p) && !(ooms_vvmodel_bit(m->tree, u) && ooms_kind(ix, u) == NODE_CLASS)))
				if (set_retained(d, p, ooms_retained(d, p) + ooms_retained(d, u)))
					goto out;
			left[u] = UINT32_MAX; /* added */
			if (!p || --left[p])
				break;
			u = p;
		}
	}
	e = 0;
	memtrace("dom sum");
out:
	free(left);
	d->seconds += mono_s() - t0;
	return e;
}

struct ooms_dom_work {
	struct graph g;
	uint32_t *cfrom, *cto;
	uint32_t *aux;        /* [nodes] referrers left, dfs numbers, depths, children left (by phase) */
	uint32_t k;           /* nodes that reach a cycle */
	double seconds;
};

static void work_free(struct ooms_dom_work *w)
{
	if (!w)
		return;
	free(w->g.state);
	free(w->g.has_cls);
	free(w->aux);
	free(w->cfrom);
	free(w->cto);
	free(w);
}

void ooms_dominators_abandon(struct ooms_dom_work *w)
{
	work_free(w);
}

int ooms_dominators_begin(const struct ooms_index *ix, const struct ooms_dom_graph *gr, uint64_t max_cyclic_bytes,
			  uint32_t *cyclic, struct ooms_dom_work **out)
{
	double t0 = mono_s();
	size_t n = ix->nodes;
	struct ooms_dom_work *w = huge_calloc(1, sizeof(*w));

	*out = NULL;
	*cyclic = 0;
	if (!w)
		return -ENOMEM;
	w->g.ix = ix;
	w->g.gr = gr;
	w->g.state = huge_calloc(n / 4 + 1, 1);
	w->aux = huge_calloc(n, sizeof(*w->aux));
	if (!w->g.state || !w->aux || dom_sort_extra_edges(&w->g, &w->cfrom, &w->cto) || !(w->k = dom_classify(&w->g, w->aux))) {
		work_free(w);
		return -ENOMEM;
	}
	memtrace("dom classify");
	*cyclic = w->k;
	if (max_cyclic_bytes && (uint64_t)w->k * OOMS_MEMORY_PER_CYCLIC > max_cyclic_bytes) {
		work_free(w);
		return -EFBIG;
	}
	w->seconds = mono_s() - t0;
	*out = w;
	return 0;
}

int ooms_dominators_tree(struct ooms_dom_work *w, struct ooms_dominators *d)
{
	double t0 = mono_s();
	size_t n = w->g.ix->nodes;
	struct dom_pair *cyc = NULL;
	struct dnode *nd = NULL;
	uint32_t ncyc = 0;
	int e = -ENOMEM;

	memset(d, 0, sizeof(*d));
	d->cyclic = w->k;
	if ((e = dom_semi_nca(&w->g, w->k, w->aux, &cyc, &ncyc)))
		goto out;
	memtrace("dom semi-nca");
	/* aux[] spread into dnodes, in place from the end */
	e = -ENOMEM;
	if (!(nd = huge_realloc(w->aux, n * sizeof(*nd))))
		goto out;
	w->aux = NULL;
	for (size_t v = n; v-- > 0;) {
		uint32_t a = ((const uint32_t *)nd)[v];

		nd[v] = (struct dnode){OOMS_NONE, a, 0};
	}
	nd[0] = (struct dnode){0, 0, 0};
	for (uint32_t i = 0; i < ncyc; i++) /* dfs order: the dominator's depth first */
		nd[cyc[i].node] = (struct dnode){cyc[i].idom, nd[cyc[i].idom].aux + 1, jump_of(nd, cyc[i].idom)};
	free(cyc);
	cyc = NULL;
	if ((e = settle_acyclic(&w->g, nd)))
		goto out;
	memtrace("dom settle");
	e = -ENOMEM;
	if (!(d->reach = huge_calloc(n / 8 + 1, 1)))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (nd[i].idom != OOMS_NONE) {
			d->reachable++;
			d->reach[i / 8] |= (uint8_t)(1 << (i % 8));
		}
	/* the dominators alone, in place from the start */
	d->idom = (uint32_t *)nd;
	for (size_t v = 0; v < n; v++)
		d->idom[v] = nd[v].idom;
	nd = NULL;
	{
		uint32_t *q = huge_realloc(d->idom, n * sizeof(*d->idom));

		if (q)
			d->idom = q;
	}
	e = 0;
out:
	free(cyc);
	free(nd);
	if (e)
		ooms_dominators_free(d);
	d->seconds = w->seconds + mono_s() - t0;
	work_free(w);
	return e;
}

int ooms_dominators_finish(struct ooms_dom_work *w, enum ooms_retained_model model, const struct ooms_vvmodel *m,
			   struct ooms_dominators *d)
{
	const struct ooms_index *ix = w->g.ix;
	int e = ooms_dominators_tree(w, d);

	if (!e && (e = ooms_dominators_sum(ix, model, m, d)))
		ooms_dominators_free(d);
	return e;
}

int ooms_dominators_compute(const struct ooms_index *ix, const struct ooms_dom_graph *gr,
			    enum ooms_retained_model model, const struct ooms_vvmodel *m, uint64_t max_cyclic_bytes,
			    struct ooms_dominators *d)
{
	struct ooms_dom_work *w;
	int e = ooms_dominators_begin(ix, gr, max_cyclic_bytes, &d->cyclic, &w);

	if (e) {
		uint32_t k = d->cyclic;

		memset(d, 0, sizeof(*d));
		d->cyclic = k; /* kept: the -EFBIG message says it */
		return e;
	}
	return ooms_dominators_finish(w, model, m, d);
}

const char *ooms_retained_model_name(enum ooms_retained_model model)
{
	switch (model) {
	case OOMS_RETAINED_MAT:
		return "mat";
	case OOMS_RETAINED_VISUALVM:
		return "visualvm";
	case OOMS_RETAINED_DOMINATED:
		return "dominated";
	}
	return "?";
}

int ooms_dom_graph_vv(const struct ooms_index *ix, const struct ooms_vvmodel *m, struct ooms_dom_graph *gr)
{
	uint32_t *roots = huge_malloc(((size_t)ix->nroots + 1) * sizeof(*roots));

	memset(gr, 0, sizeof(*gr));
	if (!roots)
		return -ENOMEM;
	for (uint32_t i = 0; i < ix->nroots; i++)
		roots[i] = ix->roots[i].node;
	gr->reach = m->reach;
	gr->roots = gr->own_roots = roots;
	gr->nroots = ix->nroots;
	gr->unreached_from_root = 1;
	gr->extra = m->class_edges;
	gr->nextra = m->nclass_edges;
	return 0;
}

void ooms_dom_graph_free(struct ooms_dom_graph *gr)
{
	free(gr->own_roots);
	gr->own_roots = NULL;
	gr->roots = NULL;
}

void ooms_dominators_free(struct ooms_dominators *d)
{
	free(d->idom);
	free(d->retained32);
	free(d->reach);
	d->reach = NULL;
	free(d->bigs);
	u64map_free(&d->big);
	d->idom = NULL;
	d->retained32 = NULL;
	d->bigs = NULL;
	d->nbigs = d->bigs_cap = 0;
}

/* The children by a counting sort of idom[], read in node order (so each
 * one's children come in node order) and given back to the kernel as it is
 * read: the tree is built in about the memory of idom[] and first[]. */
int ooms_domtree_build(struct ooms_dominators *d, uint32_t n, struct ooms_domtree *t)
{
	uint32_t *first = huge_calloc((size_t)n + 1, sizeof(uint32_t)), *idom = d->idom, count = 0;
	size_t released = 0;

	t->first = first;
	t->child = NULL;
	if (!first) {
		ooms_domtree_free(t);
		return -ENOMEM;
	}
	for (uint32_t v = 1; v < n; v++)
		if (idom[v] != OOMS_NONE) {
			first[idom[v] + 1]++;
			count++;
		}
	if (!(t->child = huge_malloc(((size_t)count + 1) * sizeof(uint32_t)))) {
		ooms_domtree_free(t);
		return -ENOMEM;
	}
	for (uint32_t v = 1; v <= n; v++)
		first[v] += first[v - 1];
	for (uint32_t v = 1; v < n; v++) {
		if (idom[v] != OOMS_NONE)
			t->child[first[idom[v]]++] = v;
		if (v % 65536 == 0)
			release_below(idom, (size_t)v * sizeof(*idom), &released);
	}
	free(idom);
	d->idom = NULL;
	for (uint32_t v = n; v > 0; v--)
		first[v] = first[v - 1];
	first[0] = 0;
	return 0;
}

void ooms_domtree_free(struct ooms_domtree *t)
{
	free(t->first);
	free(t->child);
	t->first = t->child = NULL;
}
