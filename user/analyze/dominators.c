#include "analyze/dominators.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The graph: edges of reached nodes into reached nodes, plus the class
 * connections (sorted by from, found through a per-node first index). */
struct graph {
	const struct ooms_index *ix;
	const struct ooms_paths *p;
	const uint32_t *cfrom, *cto;  /* class edges by from */
	size_t ncls;
};

static inline int reached(const struct graph *g, uint32_t v)
{
	return g->p->parent[v] != OOMS_NONE;
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

/* Depth-first preorder from the super-root: dfn[node] (0 = unreached),
 * vertex[dfn] and parent[dfn], numbers from 1. Returns the count. */
static int64_t dfs(const struct graph *g, uint32_t *dfn, uint32_t *vertex, uint32_t *parent)
{
	const struct ooms_index *ix = g->ix;
	struct frame { uint32_t node, next, end, cat, cn; } *stack;
	size_t depth = 0, cap = 1024;
	uint32_t count = 0;

	stack = malloc(cap * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	dfn[0] = ++count;
	vertex[count] = 0;
	parent[count] = 0;
	stack[depth++] = (struct frame){0, 0, ix->nroots, 0, 0};
	while (depth) {
		struct frame *f = &stack[depth - 1];
		uint32_t t;

		if (f->next < f->end) {
			t = f->node ? ix->tgt[f->next] : ix->roots[f->next].node;
			f->next++;
		} else if (f->cn) {
			t = g->cto[f->cat++];
			f->cn--;
		} else {
			depth--;
			continue;
		}
		if (dfn[t] || !reached(g, t))
			continue;
		dfn[t] = ++count;
		vertex[count] = t;
		parent[count] = dfn[f->node];
		if (depth == cap) {
			struct frame *s = realloc(stack, cap * 2 * sizeof(*stack));

			if (!s) {
				free(stack);
				return -ENOMEM;
			}
			stack = s;
			cap *= 2;
		}
		stack[depth].node = t;
		stack[depth].next = ix->off[t];
		stack[depth].end = ix->off[t + 1];
		stack[depth].cn = class_edges_of(g, t, &stack[depth].cat);
		depth++;
	}
	free(stack);
	return count;
}

/* Path compression of the link-eval forest, without recursion. */
static int compress(uint32_t v, uint32_t *ancestor, uint32_t *label, const uint32_t *semi, uint32_t **stk,
		    size_t *cap)
{
	size_t n = 0;

	while (ancestor[ancestor[v]]) {
		if (n == *cap) {
			uint32_t *s = realloc(*stk, *cap * 2 * sizeof(**stk));

			if (!s)
				return -ENOMEM;
			*stk = s;
			*cap *= 2;
		}
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

/* Calls add(v_dfn, pred_dfn) for every edge into a reached node. */
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

int ooms_dominators_compute(const struct ooms_index *ix, const struct ooms_paths *paths, struct ooms_dominators *d)
{
	double t0 = now_s();
	size_t n = ix->nodes, scap = 1024;
	uint32_t *dfn = calloc(n, sizeof(*dfn)), *vertex = malloc((n + 1) * sizeof(*vertex));
	uint32_t *parent = malloc((n + 1) * sizeof(*parent)), *semi = NULL, *label = NULL, *ancestor = NULL;
	uint32_t *pred_off = NULL, *pred = NULL, *stk = malloc(scap * sizeof(*stk));
	uint32_t *cfrom = NULL, *cto = NULL, *order = NULL;
	struct graph g = {.ix = ix, .p = paths};
	uint64_t *ret = NULL;
	int64_t r;
	int e = -ENOMEM;

	memset(d, 0, sizeof(*d));
	g.ncls = paths->nclass_edges;
	cfrom = malloc((g.ncls + 1) * sizeof(*cfrom));
	cto = malloc((g.ncls + 1) * sizeof(*cto));
	order = malloc((g.ncls + 1) * sizeof(*order));
	if (!dfn || !vertex || !parent || !stk || !cfrom || !cto || !order)
		goto out;
	{
		uint32_t *f = malloc((g.ncls + 1) * sizeof(*f));

		if (!f)
			goto out;
		for (size_t i = 0; i < g.ncls; i++) {
			order[i] = (uint32_t)i;
			f[i] = paths->class_edges[i].from;
		}
		sort_from = f;
		qsort(order, g.ncls, sizeof(*order), by_from);
		for (size_t i = 0; i < g.ncls; i++) {
			cfrom[i] = paths->class_edges[order[i]].from;
			cto[i] = paths->class_edges[order[i]].to;
		}
		free(f);
	}
	g.cfrom = cfrom;
	g.cto = cto;
	r = dfs(&g, dfn, vertex, parent);
	if (r < 0)
		goto out;
	d->reachable = (uint32_t)r;

	/* predecessors by dfs number; an unreached source is the super-root */
	pred_off = calloc((size_t)r + 2, sizeof(*pred_off));
	if (!pred_off)
		goto out;
	FOR_EACH_EDGE((void)from; pred_off[dfn[to] + 1]++);
	for (uint32_t v = 1; v <= r + 1; v++)
		pred_off[v] += pred_off[v - 1];
	pred = malloc(((size_t)pred_off[r + 1] + 1) * sizeof(*pred));
	if (!pred)
		goto out;
	FOR_EACH_EDGE(pred[pred_off[dfn[to]]++] = dfn[from] ? dfn[from] : 1);
	for (uint32_t v = r + 1; v > 0; v--) /* pred_off[v] now ends v's list: shift back */
		pred_off[v] = pred_off[v - 1];
	pred_off[0] = 0;

	semi = malloc(((size_t)r + 1) * sizeof(*semi));
	label = malloc(((size_t)r + 1) * sizeof(*label));
	ancestor = calloc((size_t)r + 1, sizeof(*ancestor));
	if (!semi || !label || !ancestor)
		goto out;
	for (uint32_t v = 0; v <= r; v++)
		semi[v] = label[v] = v;
	for (uint32_t w = (uint32_t)r; w >= 2; w--) {
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
		ancestor[w] = parent[w];
	}
	free(pred);
	pred = NULL;
	free(pred_off);
	pred_off = NULL;
	free(label);
	label = NULL;

	/* idom by dfs number, in ancestor[]: walk up from the parent to the
	 * first vertex at or above the semi-dominator */
	{
		uint32_t *idom = ancestor;

		idom[1] = 1;
		for (uint32_t w = 2; w <= r; w++) {
			uint32_t x = parent[w];

			while (x > semi[w])
				x = idom[x];
			idom[w] = x;
		}
		ret = calloc((size_t)r + 1, sizeof(*ret));
		d->idom = malloc(n * sizeof(*d->idom));
		d->retained = calloc(n, sizeof(*d->retained));
		if (!ret || !d->idom || !d->retained)
			goto out;
		for (uint32_t w = 1; w <= r; w++)
			ret[w] = ooms_index_shallow(ix, vertex[w]);
		for (uint32_t w = (uint32_t)r; w >= 2; w--)
			ret[idom[w]] += ret[w];
		for (size_t i = 0; i < n; i++)
			d->idom[i] = OOMS_NONE;
		for (uint32_t w = 1; w <= r; w++) {
			d->idom[vertex[w]] = vertex[idom[w]];
			d->retained[vertex[w]] = ret[w];
		}
	}
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
	free(ret);
	free(cfrom);
	free(cto);
	free(order);
	if (e)
		ooms_dominators_free(d);
	d->seconds = now_s() - t0;
	return e;
}

void ooms_dominators_free(struct ooms_dominators *d)
{
	free(d->idom);
	free(d->retained);
	d->idom = NULL;
	d->retained = NULL;
}
