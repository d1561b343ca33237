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

/* Successors of node n: the roots for the super-root, else its references. */
static inline uint32_t nsucc(const struct ooms_index *ix, uint32_t n)
{
	return n ? ix->off[n + 1] - ix->off[n] : ix->nroots;
}

static inline uint32_t succ(const struct ooms_index *ix, uint32_t n, uint32_t i)
{
	return n ? ix->tgt[ix->off[n] + i] : ix->roots[i].node;
}

/* Depth-first preorder from the super-root: dfn[node] (0 = unreached),
 * vertex[dfn] and parent[dfn], numbers from 1. Returns the count. */
static int64_t dfs(const struct ooms_index *ix, uint32_t *dfn, uint32_t *vertex, uint32_t *parent)
{
	struct frame { uint32_t node, next; } *stack;
	size_t depth = 0, cap = 1024;
	uint32_t count = 0;

	stack = malloc(cap * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	dfn[0] = ++count;
	vertex[count] = 0;
	parent[count] = 0;
	stack[depth++] = (struct frame){0, 0};
	while (depth) {
		struct frame *f = &stack[depth - 1];
		uint32_t t;

		if (f->next >= nsucc(ix, f->node)) {
			depth--;
			continue;
		}
		t = succ(ix, f->node, f->next++);
		if (dfn[t])
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
		stack[depth++] = (struct frame){t, 0};
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

int ooms_dominators_compute(const struct ooms_index *ix, struct ooms_dominators *d)
{
	double t0 = now_s();
	size_t n = ix->nodes, scap = 1024;
	uint32_t *dfn = calloc(n, sizeof(*dfn)), *vertex = malloc((n + 1) * sizeof(*vertex));
	uint32_t *parent = malloc((n + 1) * sizeof(*parent)), *semi = NULL, *label = NULL, *ancestor = NULL;
	uint32_t *pred_off = NULL, *pred = NULL, *stk = malloc(scap * sizeof(*stk));
	uint64_t *ret = NULL;
	int64_t r;
	int e = -ENOMEM;

	memset(d, 0, sizeof(*d));
	if (!dfn || !vertex || !parent || !stk)
		goto out;
	r = dfs(ix, dfn, vertex, parent);
	if (r < 0)
		goto out;
	d->reachable = (uint32_t)r;

	/* predecessors by dfs number, reachable sources only */
	pred_off = calloc((size_t)r + 2, sizeof(*pred_off));
	if (!pred_off)
		goto out;
	for (uint32_t v = 1; v <= r; v++) {
		uint32_t node = vertex[v];

		for (uint32_t i = 0, k = nsucc(ix, node); i < k; i++)
			pred_off[dfn[succ(ix, node, i)] + 1]++;
	}
	for (uint32_t v = 1; v <= r + 1; v++)
		pred_off[v] += pred_off[v - 1];
	pred = malloc(((size_t)pred_off[r + 1] + 1) * sizeof(*pred));
	if (!pred)
		goto out;
	for (uint32_t v = 1; v <= r; v++) {
		uint32_t node = vertex[v];

		for (uint32_t i = 0, k = nsucc(ix, node); i < k; i++)
			pred[pred_off[dfn[succ(ix, node, i)]]++] = v;
	}
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
