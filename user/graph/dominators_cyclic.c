/* The part of the graph that reaches a cycle (dominators.h): found by one
 * depth-first search, its dominators by Semi-NCA. */
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

/* Depth-first preorder of the cyclic part from the super-root, without a stack: the path is
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

		if (node ? cur[v] < ix->off[node + 1] : cur[v] < g->gr->nroots) {
			t = node ? ix->tgt[cur[v]] : g->gr->roots[cur[v]];
			if (node && !into(g, t))
				t = 0;
			cur[v]++;
		} else if (ccur[v] < g->ncls && g->cfrom[ccur[v]] == node) {
			t = g->cto[ccur[v]++];
		} else {
			v = parent[v]; /* done with v: back to its parent */
			continue;
		}
		if (!t || dfn[t] || !reached(g, t) || state_of(g, t) != CYCLIC)
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

/* The class connections sorted by their source. 0 or -ENOMEM. */
int dom_sort_extra_edges(struct graph *g, uint32_t **cfrom, uint32_t **cto)
{
	const struct ooms_class_edge *ce = g->gr->extra;
	size_t nce = g->gr->nextra;
	uint32_t *order = huge_malloc((nce + 1) * sizeof(*order));

	*cfrom = huge_malloc((nce + 1) * sizeof(**cfrom));
	*cto = huge_malloc((nce + 1) * sizeof(**cto));
	if (!order || !*cfrom || !*cto) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nce; i++) {
		order[i] = (uint32_t)i;
		(*cfrom)[i] = ce[i].from;
	}
	sort_from = *cfrom;
	vec_sort(order, nce, sizeof(*order), by_from);
	for (size_t i = 0; i < nce; i++)
		(*cto)[i] = ce[order[i]].to;
	for (size_t i = 0; i < nce; i++)
		(*cfrom)[i] = ce[order[i]].from;
	free(order);
	if (!(g->has_cls = huge_calloc(g->ix->nodes / 8 + 1, 1)))
		return -ENOMEM;
	for (size_t i = 0; i < nce; i++)
		g->has_cls[(*cfrom)[i] / 8] |= (uint8_t)(1 << ((*cfrom)[i] % 8));
	g->ncls = nce;
	g->cfrom = *cfrom;
	g->cto = *cto;
	return 0;
}

/* Which reached nodes reach a cycle (CYCLIC) and which do not (ACYCLIC), by
 * one depth-first search: a node reaches a cycle if an edge of it leads to
 * a node still on the search's path, or to one found cyclic. What reaches a
 * cycle is closed upwards, so its dominators are Semi-NCA's over it alone;
 * the rest is a DAG whose dominators follow from their referrers'. On the
 * way, referrers[] counts each acyclic node's incoming edges (0 for the
 * cyclic ones). Returns the cyclic nodes (the super-root included), or 0
 * when out of memory. */
uint32_t dom_classify(struct graph *g, uint32_t *referrers)
{
	const struct ooms_index *ix = g->ix;
	struct frame { uint32_t node, e, c, cyclic; } *stk = NULL;
	size_t depth = 0, cap = 0;
	uint32_t cyclic = 1;

	if (vec_reserve((void **)&stk, &cap, 64, sizeof(*stk)))
		return 0;
	set_state(g, 0, ON_PATH);
	stk[depth++] = (struct frame){0, 0, (uint32_t)g->ncls, 0};
	while (depth) {
		struct frame *f = &stk[depth - 1];
		uint32_t v = f->node, t;

		if (v ? f->e < ix->off[v + 1] : f->e < g->gr->nroots) {
			t = v ? ix->tgt[f->e] : g->gr->roots[f->e];
			f->e++;
			if (v && !into(g, t))
				continue;
		} else if (f->c < g->ncls && g->cfrom[f->c] == v) {
			t = g->cto[f->c++];
		} else {
			int c = f->cyclic || !v;

			set_state(g, v, c ? CYCLIC : ACYCLIC);
			cyclic += c && v;
			if (--depth && c)
				stk[depth - 1].cyclic = 1;
			continue;
		}
		if (!reached(g, t))
			continue;
		referrers[t]++;
		switch (state_of(g, t)) {
		case UNSEEN:
			if (vec_reserve((void **)&stk, &cap, depth + 1, sizeof(*stk))) {
				free(stk);
				return 0;
			}
			set_state(g, t, ON_PATH);
			stk[depth] = (struct frame){t, ix->off[t], 0, 0};
			class_edges_of(g, t, &stk[depth].c);
			depth++;
			break;
		case ON_PATH:
		case CYCLIC:
			f->cyclic = 1;
			break;
		case ACYCLIC:
			break;
		}
	}
	free(stk);
	/* the references from what the search did not reach (VisualVM: the super-root's) */
	for (uint32_t src = 1; g->gr->unreached_from_root && src < ix->nodes; src++) {
		if (reached(g, src))
			continue;
		for (uint32_t e = ix->off[src]; e < ix->off[src + 1]; e++)
			if (into(g, ix->tgt[e]))
				referrers[ix->tgt[e]]++;
	}
	for (uint32_t v = 0; v < ix->nodes; v++)
		if (state_of(g, v) == CYCLIC)
			referrers[v] = 0;
	return cyclic;
}

/* Semi-NCA (Georgiadis) over the cyclic nodes: *out gets each one's
 * immediate dominator in dfs order (a dominator before what it dominates),
 * *nout of them; aux[] (the cyclic nodes' entries) holds dfs numbers
 * meanwhile. Over 100 lines on purpose: its phases share their arrays and
 * read best as one algorithm, as in the paper. 0 or -ENOMEM. */
int dom_semi_nca(struct graph *g, uint32_t k, uint32_t *aux, struct dom_pair **out, uint32_t *nout)
{
	const struct ooms_index *ix = g->ix;
	size_t scap = 1024;
	uint32_t *dfn = aux, *vertex = huge_malloc(((size_t)k + 2) * sizeof(*vertex));
	uint32_t *parent = huge_malloc(((size_t)k + 2) * sizeof(*parent)), *semi = huge_malloc(((size_t)k + 2) * sizeof(*semi));
	uint32_t *label = huge_malloc(((size_t)k + 2) * sizeof(*label)), *ancestor = NULL;
	uint32_t *pred_off = NULL, *pred = NULL, *stk = huge_malloc(scap * sizeof(*stk)), r;
	int e = -ENOMEM;

	if (!vertex || !parent || !semi || !label || !stk)
		goto out;
	r = dfs(g, dfn, vertex, parent, semi, label);

	/* Predecessors, by dfs number. A vertex with one incoming edge has its
	 * dfs parent as its only predecessor: only the others get a list. A
	 * cyclic node's referrers are cyclic, or the super-root. */
	pred_off = huge_calloc((size_t)r + 2, sizeof(*pred_off));
	if (!pred_off)
		goto out;
	FOR_EACH_EDGE((void)from; if (state_of(g, to) == CYCLIC) pred_off[dfn[to]]++);
	{
		uint32_t sum = 0;

		for (uint32_t v = 1; v <= r + 1; v++) {
			uint32_t c = v <= r ? pred_off[v] : 0;

			pred_off[v] = sum;
			sum += c > 1 ? c : 0;
		}
		pred = huge_malloc(((size_t)sum + 1) * sizeof(*pred));
		if (!pred)
			goto out;
	}
	{
		uint32_t *fill = label; /* label is free until the semi phase */

		for (uint32_t v = 0; v <= r; v++)
			fill[v] = 0;
		FOR_EACH_EDGE({
			if (state_of(g, to) == CYCLIC) {
				uint32_t w = dfn[to];

				if (pred_off[w + 1] > pred_off[w])
					pred[pred_off[w] + fill[w]++] = dfn[from] ? dfn[from] : 1;
			}
		});
	}
	ancestor = huge_calloc((size_t)r + 1, sizeof(*ancestor));
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
	/* idom by dfs number, in place of parent[]: walk up from the parent to
	 * the first vertex at or above the semi-dominator */
	for (uint32_t w = 2; w <= r; w++) {
		uint32_t x = parent[w];

		while (x > semi[w])
			x = parent[x];
		parent[w] = x;
	}
	/* by node, in dfs order (an idom's dfs number is smaller than its node's) */
	if (!(*out = huge_malloc((size_t)r * sizeof(**out))))
		goto out;
	*nout = 0;
	for (uint32_t w = 2; w <= r; w++)
		(*out)[(*nout)++] = (struct dom_pair){vertex[w], vertex[parent[w]]};
	e = 0;
out:
	free(vertex);
	free(parent);
	free(semi);
	free(label);
	free(ancestor);
	free(pred_off);
	free(pred);
	free(stk);
	return e;
}

