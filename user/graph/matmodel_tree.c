/* Each class's referrers' nearest common ancestor in a tree (the search's,
 * a round's): the tree's nodes as nested intervals, then, for each class,
 * the ancestor of its referrers with the smallest and largest start. */
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

uint8_t *mat_locals_bitmap(const struct ooms_index *ix, const struct ooms_matmodel *m)
{
	uint8_t *has = huge_calloc(ix->nodes / 8 + 1, 1);

	for (size_t i = 0; has && i < m->nlocals; i++)
		set_bit(has, m->locals[i].from);
	return has;
}

/* The dominator tree's nodes as nested intervals: v's subtree is
 * [lo[v], lo[v] + size[v]). From idom[] alone: sizes bottom-up, starts
 * top-down. 0 or -ENOMEM. */
static int intervals(const uint32_t *idom, uint32_t n, uint32_t **lo_out, uint32_t **size_out)
{
	uint32_t *left = huge_calloc(n, sizeof(*left)), *size = huge_malloc((size_t)n * sizeof(*size));
	uint32_t *lo = huge_malloc((size_t)n * sizeof(*lo)), *path = NULL;
	size_t npath = 0, cap = 0;
	int e = -ENOMEM;

	if (!left || !size || !lo)
		goto out;
	for (uint32_t v = 0; v < n; v++) {
		size[v] = 1;
		lo[v] = OOMS_NONE;
		if (v && idom[v] != OOMS_NONE)
			left[idom[v]]++;
	}
	/* sizes: from each leaf up while a parent has all its children */
	for (uint32_t v = 1; v < n; v++) {
		if (idom[v] == OOMS_NONE || left[v])
			continue;
		for (uint32_t u = v;;) {
			uint32_t p = idom[u];

			size[p] += size[u];
			left[u] = UINT32_MAX; /* added */
			if (!p || --left[p])
				break;
			u = p;
		}
	}
	/* starts: a child takes the next free place of its parent (left[] now
	 * holds that place) */
	lo[0] = 0;
	left[0] = 1;
	for (uint32_t v = 1; v < n; v++) {
		if (idom[v] == OOMS_NONE || lo[v] != OOMS_NONE)
			continue;
		npath = 0;
		for (uint32_t u = v; lo[u] == OOMS_NONE; u = idom[u]) {
			uint32_t *slot = VEC_PUSH(path, npath, cap);

			if (!slot)
				goto out;
			*slot = u;
		}
		while (npath) {
			uint32_t u = path[--npath], p = idom[u];

			lo[u] = left[p];
			left[p] += size[u];
			left[u] = lo[u] + 1;
		}
	}
	e = 0;
out:
	free(left);
	free(path);
	if (e) {
		free(lo);
		free(size);
		lo = size = NULL;
	}
	*lo_out = lo;
	*size_out = size;
	return e;
}

struct nca_set {
	const uint32_t *lo, *idom;
	/* [nclasses] the referrers with the smallest and largest start, and
	 * those starts (kept beside them: one look-up less a referrer) */
	uint32_t *min, *max, *min_lo, *max_lo;
};

static inline void referrer(struct nca_set *s, const struct ooms_index *ix, const uint8_t *root, uint32_t u,
			    uint32_t t)
{
	uint32_t c, lo;

	if (t == OOMS_NONE || t <= ix->main_end || t == u || bit(root, t) || s->idom[t] == OOMS_NONE)
		return;
	c = ooms_class_of_node(ix, t);
	lo = s->lo[u];
	if (s->min[c] == OOMS_NONE || lo < s->min_lo[c]) {
		s->min[c] = u;
		s->min_lo[c] = lo;
	}
	if (s->max[c] == OOMS_NONE || lo > s->max_lo[c]) {
		s->max[c] = u;
		s->max_lo[c] = lo;
	}
}

/* Each class's nearest common ancestor of its referrers in the tree idom:
 * that of the referrers with the smallest and the largest start. */
int mat_class_ancestors(const struct ooms_index *ix, const struct ooms_matmodel *m, const uint8_t *has_locals,
			const uint32_t *idom, uint32_t *anc)
{
	struct nca_set s = {.idom = idom};
	uint32_t *lo = NULL, *size = NULL;
	int e = -ENOMEM;

	s.min = huge_malloc(((size_t)ix->nclasses + 1) * sizeof(*s.min));
	s.max = huge_malloc(((size_t)ix->nclasses + 1) * sizeof(*s.max));
	s.min_lo = huge_malloc(((size_t)ix->nclasses + 1) * sizeof(*s.min_lo));
	s.max_lo = huge_malloc(((size_t)ix->nclasses + 1) * sizeof(*s.max_lo));
	if (!s.min || !s.max || !s.min_lo || !s.max_lo || intervals(idom, ix->nodes, &lo, &size))
		goto out;
	s.lo = lo;
	for (uint32_t c = 0; c < ix->nclasses; c++)
		s.min[c] = s.max[c] = OOMS_NONE;
	for (uint32_t u = 1; u < ix->nodes; u++) {
		size_t at, nl;

		if (idom[u] == OOMS_NONE)
			continue;
		for (uint32_t x = ix->off[u]; x < ix->off[u + 1]; x++)
			referrer(&s, ix, m->root, u, ix->tgt[x]);
		nl = locals_of(m, has_locals, u, &at);
		for (size_t k = 0; k < nl; k++)
			referrer(&s, ix, m->root, u, m->locals[at + k].to);
		referrer(&s, ix, m->root, u, class_node(ix, u));
		referrer(&s, ix, m->root, u, super_node(ix, u));
	}
	for (uint32_t c = 0; c < ix->nclasses; c++) {
		uint32_t a = s.min[c], b = s.max[c];

		if (a == OOMS_NONE) {
			anc[c] = OOMS_NONE;
			continue;
		}
		while (!(lo[a] <= lo[b] && lo[b] < lo[a] + size[a]))
			a = idom[a];
		anc[c] = a;
	}
	e = 0;
out:
	free(s.min);
	free(s.max);
	free(s.min_lo);
	free(s.max_lo);
	free(lo);
	free(size);
	return e;
}

