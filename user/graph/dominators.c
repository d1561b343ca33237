#include "graph/dominators.h"
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


/* The graph: every reference into a reached node, plus the class
 * connections (sorted by from, found through a per-node first index). */
struct graph {
	const struct ooms_index *ix;
	const struct ooms_dom_graph *gr;
	const uint32_t *cfrom, *cto;  /* the extra edges by from */
	size_t ncls;
	uint8_t *state;               /* [nodes/4+1] 2 bits a node (enum state) */
	uint8_t *has_cls;             /* [nodes/8+1] bit n: n has class edges */
};

/* A node's state in the classifying search: the nodes that reach a cycle
 * (and the super-root) get Semi-NCA; the rest form a DAG below them. */
enum state { UNSEEN, ON_PATH, ACYCLIC, CYCLIC };

static inline int reached(const struct graph *g, uint32_t v)
{
	return ooms_vvmodel_bit(g->gr->reach, v);
}

/* Is the index's reference into v part of the graph? */
static inline int into(const struct graph *g, uint32_t v)
{
	return ooms_vvmodel_bit(g->gr->reach, v) && !ooms_vvmodel_bit(g->gr->skip, v);
}

static inline enum state state_of(const struct graph *g, uint32_t v)
{
	return (enum state)(g->state[v / 4] >> (v % 4 * 2) & 3);
}

static inline void set_state(struct graph *g, uint32_t v, enum state s)
{
	g->state[v / 4] = (uint8_t)((g->state[v / 4] & ~(3u << (v % 4 * 2))) | (unsigned)s << (v % 4 * 2));
}

/* The class edges of n: [*at, *at + count) */
static uint32_t class_edges_of(const struct graph *g, uint32_t n, uint32_t *at)
{
	size_t lo = 0, hi = g->ncls, k;

	if (!(g->has_cls[n / 8] >> (n % 8) & 1)) { /* most nodes: no search */
		*at = (uint32_t)g->ncls;
		return 0;
	}
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

/* Calls the body with (from, to) for every edge into a reached node; a
 * reference from a node the search did not reach comes from the super-root
 * (VisualVM's graph) or counts for nothing (MAT's). Edges from acyclic nodes
 * are left out (none of them leads into a cyclic node). */
#define FOR_EACH_EDGE(...)                                                                           \
	do {                                                                                         \
		for (uint32_t i = 0; i < g->gr->nroots; i++) {                                       \
			uint32_t to = g->gr->roots[i], from = 0;                                     \
			__VA_ARGS__;                                                                 \
		}                                                                                    \
		for (uint32_t src = 1; src < ix->nodes; src++) {                                     \
			uint32_t from = reached(g, src) ? src : 0;                                   \
			if (from ? state_of(g, from) == ACYCLIC : !g->gr->unreached_from_root)      \
				continue;                                                            \
			for (uint32_t e_ = ix->off[src]; e_ < ix->off[src + 1]; e_++) {              \
				uint32_t to = ix->tgt[e_];                                           \
				if (!into(g, to))                                                    \
					continue;                                                    \
				__VA_ARGS__;                                                         \
			}                                                                            \
		}                                                                                    \
		for (size_t i = 0; i < g->ncls; i++) {                                               \
			uint32_t to = g->cto[i], from = g->cfrom[i];                                 \
			if (state_of(g, from) == ACYCLIC)                                            \
				continue;                                                            \
			__VA_ARGS__;                                                                 \
		}                                                                                    \
	} while (0)

/* The class connections sorted by their source. 0 or -ENOMEM. */
static int sort_class_edges(struct graph *g, uint32_t **cfrom, uint32_t **cto)
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
static uint32_t classify(struct graph *g, uint32_t *referrers)
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

/* A node's immediate dominator beside its aux (referrers left, then its
 * depth; then children left) and, once it is settled, its jump pointer:
 * one place for what the nearest-common-ancestor walk reads. */
struct dnode {
	uint32_t idom, aux, jump;
};

/* The jump pointer of a node just settled under p (skew-binary, Myers
 * 1983): its target's depth depends on the node's depth alone, so two
 * nodes of one depth jump to one depth, and an ancestor is O(log depth)
 * jumps away. */
static inline uint32_t jump_of(const struct dnode *nd, uint32_t p)
{
	uint32_t j = nd[p].jump, jj = nd[j].jump;

	return nd[p].aux - nd[j].aux == nd[j].aux - nd[jj].aux ? jj : p;
}

/* The nearest common ancestor of a and b in the dominator tree so far
 * (settled nodes: aux is their depth). */
static inline uint32_t nca(const struct dnode *nd, uint32_t a, uint32_t b)
{
	while (nd[a].aux > nd[b].aux)
		a = nd[nd[a].jump].aux >= nd[b].aux ? nd[a].jump : nd[a].idom;
	while (nd[b].aux > nd[a].aux)
		b = nd[nd[b].jump].aux >= nd[a].aux ? nd[b].jump : nd[b].idom;
	while (a != b) {
		if (nd[a].jump != nd[b].jump) {
			a = nd[a].jump;
			b = nd[b].jump;
		} else {
			a = nd[a].idom;
			b = nd[b].idom;
		}
	}
	return a;
}

/* A node and its immediate dominator. */
struct dom_pair {
	uint32_t node, idom;
};

/* Semi-NCA (Georgiadis) over the cyclic nodes: *out gets each one's
 * immediate dominator in dfs order (a dominator before what it dominates),
 * *nout of them; aux[] (the cyclic nodes' entries) holds dfs numbers
 * meanwhile. Over 100 lines on purpose: its phases share their arrays and
 * read best as one algorithm, as in the paper. 0 or -ENOMEM. */
static int semi_nca(struct graph *g, uint32_t k, uint32_t *aux, struct dom_pair **out, uint32_t *nout)
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
	if (!w->g.state || !w->aux || sort_class_edges(&w->g, &w->cfrom, &w->cto) || !(w->k = classify(&w->g, w->aux))) {
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
	if ((e = semi_nca(&w->g, w->k, w->aux, &cyc, &ncyc)))
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
