#include "analyze/dominators.h"
#include "util/clock.h"
#include "util/vec.h"
#include "analyze/shallow.h"
#include "analyze/vvmodel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


/* The graph: every reference into a reached node, plus the class
 * connections (sorted by from, found through a per-node first index). */
struct graph {
	const struct ooms_index *ix;
	const struct ooms_vvmodel *m;
	const uint32_t *cfrom, *cto;  /* class edges by from */
	size_t ncls;
};

static inline int reached(const struct graph *g, uint32_t v)
{
	return ooms_vvmodel_bit(g->m->reach, v);
}

/* The class edges of n: [*at, *at + count) */
static uint32_t class_edges_of(const struct graph *g, uint32_t n, uint32_t *at)
{
	size_t lo = 0, hi = g->ncls, k;

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

/* Path compression of the link-eval forest, without recursion. */
static int compress(uint32_t v, uint32_t *ancestor, uint32_t *label, const uint32_t *semi, uint32_t **stk,
		    size_t *cap)
{
	size_t n = 0;

	while (ancestor[ancestor[v]]) {
		if (vec_reserve((void **)stk, cap, n + 1, sizeof(**stk)))
			return -ENOMEM;
		(*stk)[n++] = v;
		v = ancestor[v];
	}
	while (n) {
		uint32_t x = (*stk)[--n], a = ancestor[x];

		if (semi[label[a]] < semi[label[x]])
			label[x] = label[a];
		ancestor[x] = ancestor[a];
	}
	return 0;
}

static const uint32_t *sort_from;

static int by_from(const void *a, const void *b)
{
	uint32_t x = sort_from[*(const uint32_t *)a], y = sort_from[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

/* Depth-first preorder from the super-root, without a stack: the path is
 * parent[], each vertex's next edge is in cur[] and its next class edge in
 * ccur[] (arrays the caller reuses afterwards). dfn[node] (0 = unreached),
 * vertex[dfn], parent[dfn]; numbers from 1. Returns the count. */
static uint32_t dfs(const struct graph *g, uint32_t *dfn, uint32_t *vertex, uint32_t *parent, uint32_t *cur,
		    uint32_t *ccur)
{
	const struct ooms_index *ix = g->ix;
	uint32_t count = 1, v = 1;

	dfn[0] = 1;
	vertex[1] = 0;
	parent[1] = 0;
	cur[1] = 0;
	ccur[1] = (uint32_t)g->ncls; /* the super-root has no class edges */
	while (v) {
		uint32_t node = vertex[v], t;

		if (node ? cur[v] < ix->off[node + 1] : cur[v] < ix->nroots) {
			t = node ? ix->tgt[cur[v]] : ix->roots[cur[v]].node;
			cur[v]++;
		} else if (ccur[v] < g->ncls && g->cfrom[ccur[v]] == node) {
			t = g->cto[ccur[v]++];
		} else {
			v = parent[v]; /* done with v: back to its parent */
			continue;
		}
		if (dfn[t] || !reached(g, t))
			continue;
		dfn[t] = ++count;
		vertex[count] = t;
		parent[count] = v;
		cur[count] = ix->off[t];
		class_edges_of(g, t, &ccur[count]);
		v = count;
	}
	return count;
}

/* Calls BODY with (from, to) for every edge into a reached node. */
#define FOR_EACH_EDGE(BODY)                                                                  \
	do {                                                                                 \
		for (uint32_t i = 0; i < ix->nroots; i++) {                                  \
			uint32_t to = ix->roots[i].node, from = 0;                           \
			BODY;                                                                \
		}                                                                            \
		for (uint32_t from = 1; from < ix->nodes; from++)                            \
			for (uint32_t e = ix->off[from]; e < ix->off[from + 1]; e++) {       \
				uint32_t to = ix->tgt[e];                                    \
				if (!reached(&g, to))                                        \
					continue;                                            \
				BODY;                                                        \
			}                                                                    \
		for (size_t i = 0; i < g.ncls; i++) {                                        \
			uint32_t to = g.cto[i], from = g.cfrom[i];                           \
			BODY;                                                                \
		}                                                                            \
	} while (0)

/* Over 100 lines on purpose: Semi-NCA's phases (DFS numbering, semi-
 * dominators, immediate dominators, retained sizes) share its arrays and
 * read best as one algorithm, as in the paper. */
int ooms_dominators_compute(const struct ooms_index *ix, struct ooms_vvmodel *m, enum ooms_retained_model model,
			    struct ooms_dominators *d)
{
	double t0 = mono_s();
	size_t n = ix->nodes, scap = 1024;
	uint32_t *dfn = calloc(n, sizeof(*dfn)), *vertex = malloc((n + 1) * sizeof(*vertex));
	uint32_t *parent = malloc((n + 1) * sizeof(*parent)), *semi = malloc((n + 1) * sizeof(*semi));
	uint32_t *label = malloc((n + 1) * sizeof(*label)), *ancestor = NULL;
	uint32_t *pred_off = NULL, *pred = NULL, *stk = malloc(scap * sizeof(*stk));
	uint32_t *cfrom = NULL, *cto = NULL, *order = NULL, r;
	struct graph g = {.ix = ix, .m = m};
	int e = -ENOMEM;

	memset(d, 0, sizeof(*d));
	g.ncls = m->nclass_edges;
	cfrom = malloc((g.ncls + 1) * sizeof(*cfrom));
	cto = malloc((g.ncls + 1) * sizeof(*cto));
	order = malloc((g.ncls + 1) * sizeof(*order));
	if (!dfn || !vertex || !parent || !semi || !label || !stk || !cfrom || !cto || !order)
		goto out;
	for (size_t i = 0; i < g.ncls; i++) {
		order[i] = (uint32_t)i;
		cfrom[i] = m->class_edges[i].from;
	}
	sort_from = cfrom;
	qsort(order, g.ncls, sizeof(*order), by_from);
	for (size_t i = 0; i < g.ncls; i++)
		cto[i] = m->class_edges[order[i]].to;
	for (size_t i = 0; i < g.ncls; i++)
		cfrom[i] = m->class_edges[order[i]].from;
	free(order);
	order = NULL;
	g.cfrom = cfrom;
	g.cto = cto;
	r = dfs(&g, dfn, vertex, parent, semi, label);
	d->reachable = r;

	/* Predecessors, by dfs number. A vertex with one incoming edge has its
	 * dfs parent as its only predecessor: only the others get a list (most
	 * objects have one referrer). An unreached source is the super-root. */
	pred_off = calloc((size_t)r + 2, sizeof(*pred_off));
	if (!pred_off)
		goto out;
	FOR_EACH_EDGE((void)from; pred_off[dfn[to]]++);
	{
		uint32_t sum = 0;

		for (uint32_t v = 1; v <= r + 1; v++) {
			uint32_t c = v <= r ? pred_off[v] : 0;

			pred_off[v] = sum;
			sum += c > 1 ? c : 0;
		}
		pred = malloc(((size_t)sum + 1) * sizeof(*pred));
		if (!pred)
			goto out;
	}
	{
		uint32_t *fill = label; /* label is free until the semi phase */

		for (uint32_t v = 0; v <= r; v++)
			fill[v] = 0;
		FOR_EACH_EDGE({
			uint32_t w = dfn[to];

			if (pred_off[w + 1] > pred_off[w])
				pred[pred_off[w] + fill[w]++] = dfn[from] ? dfn[from] : 1;
		});
	}
	free(dfn);
	dfn = NULL;

	ancestor = calloc((size_t)r + 1, sizeof(*ancestor));
	if (!ancestor)
		goto out;
	for (uint32_t v = 0; v <= r; v++)
		semi[v] = label[v] = v;
	for (uint32_t w = r; w >= 2; w--) {
		if (pred_off[w + 1] == pred_off[w]) {
			semi[w] = parent[w]; /* its only predecessor */
		} else {
			for (uint32_t i = pred_off[w]; i < pred_off[w + 1]; i++) {
				uint32_t v = pred[i], u = v;

				if (ancestor[v]) {
					if (compress(v, ancestor, label, semi, &stk, &scap))
						goto out;
					u = label[v];
				}
				if (semi[u] < semi[w])
					semi[w] = semi[u];
			}
		}
		ancestor[w] = parent[w];
	}
	free(pred);
	pred = NULL;
	free(pred_off);
	pred_off = NULL;
	free(label);
	label = NULL;
	free(ancestor);
	ancestor = NULL;

	/* idom by dfs number, in place of parent[]: walk up from the parent to
	 * the first vertex at or above the semi-dominator */
	for (uint32_t w = 2; w <= r; w++) {
		uint32_t x = parent[w];

		while (x > semi[w])
			x = parent[x];
		parent[w] = x;
	}
	free(semi);
	semi = NULL;
	d->idom = malloc(n * sizeof(*d->idom));
	d->retained = malloc(n * sizeof(*d->retained));
	if (!d->idom || !d->retained)
		goto out;
	for (size_t i = 0; i < n; i++)
		d->idom[i] = OOMS_NONE;
	for (uint32_t w = 1; w <= r; w++) {
		uint32_t v = vertex[w];

		d->idom[v] = vertex[w > 1 ? parent[w] : 1];
		if (model == OOMS_RETAINED_DOMINATED)
			d->retained[v] = ooms_shallow_size(ix, v);
		else if (!ooms_vvmodel_bit(m->tree, v))
			d->retained[v] = ix->kind[v] == NODE_CLASS ? 0 : ooms_shallow_size(ix, v);
		else
			d->retained[v] = ooms_vvmodel_tree_size(ix, m, v);
	}
	for (uint32_t w = r; w >= 2; w--) {
		uint32_t v = vertex[w], p = vertex[parent[w]];

		if (model == OOMS_RETAINED_DOMINATED)
			d->retained[p] += d->retained[v];
		/* VisualVM: sizes go up the dominator chain to the first tree
		 * object, and a class object's tree goes nowhere (vvmodel.h) */
		else if (!ooms_vvmodel_bit(m->tree, p) && !(ooms_vvmodel_bit(m->tree, v) && ix->kind[v] == NODE_CLASS))
			d->retained[p] += d->retained[v];
	}
	for (uint32_t i = 0; i < n; i++) /* nothing for what is not reached */
		if (d->idom[i] == OOMS_NONE)
			d->retained[i] = 0;
	e = 0;
out:
	free(dfn);
	free(vertex);
	free(parent);
	free(semi);
	free(label);
	free(ancestor);
	free(pred_off);
	free(pred);
	free(stk);
	free(cfrom);
	free(cto);
	free(order);
	if (e)
		ooms_dominators_free(d);
	d->seconds = mono_s() - t0;
	return e;
}

void ooms_dominators_free(struct ooms_dominators *d)
{
	free(d->idom);
	free(d->retained);
	d->idom = NULL;
	d->retained = NULL;
}

int ooms_domtree_build(const struct ooms_dominators *d, uint32_t n, struct ooms_domtree *t)
{
	uint32_t *first = calloc((size_t)n + 1, sizeof(uint32_t)), *child = malloc(((size_t)n + 1) * sizeof(uint32_t));

	t->first = first;
	t->child = child;
	if (!first || !child) {
		ooms_domtree_free(t);
		return -ENOMEM;
	}
	/* count, prefix sums, place, then shift back to starts */
	for (uint32_t v = 1; v < n; v++)
		if (d->idom[v] != OOMS_NONE)
			first[d->idom[v] + 1]++;
	for (uint32_t v = 1; v <= n; v++)
		first[v] += first[v - 1];
	for (uint32_t v = 1; v < n; v++)
		if (d->idom[v] != OOMS_NONE)
			child[first[d->idom[v]]++] = v;
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
