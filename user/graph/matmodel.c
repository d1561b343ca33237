#include "graph/matmodel.h"
#include "util/hugemem.h"
#include "graph/shallow.h"
#include "hprof/hprof.h"
#include "util/clock.h"
#include "util/memtrace.h"
#include "util/u64map.h"
#include "util/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Rounds of the classes' ancestors before the exact graph is used instead
 * (a dump where they have not settled by then: none seen). */
#define MAX_ROUNDS 32

static inline void set_bit(uint8_t *m, uint32_t n)
{
	m[n / 8] |= (uint8_t)(1 << (n % 8));
}

static inline int bit(const uint8_t *m, uint32_t n)
{
	return m[n / 8] >> (n % 8) & 1;
}

/* The class object of n's class (an instance's or array's class;
 * java.lang.Class for a class object), or OOMS_NONE. */
static inline uint32_t class_node(const struct ooms_index *ix, uint32_t n)
{
	uint32_t c = ooms_cls(ix, n);

	return c == OOMS_NONE ? OOMS_NONE : ix->classes[c].node;
}

/* A class object's superclass's object, or OOMS_NONE (n any node). */
static inline uint32_t super_node(const struct ooms_index *ix, uint32_t n)
{
	uint32_t s;

	if (n <= ix->main_end || n >= ix->nodes)
		return OOMS_NONE;
	s = ix->classes[ooms_class_of_node(ix, n)].super;
	return s == OOMS_NONE ? OOMS_NONE : ix->classes[s].node;
}

static int by_edge(const void *a, const void *b)
{
	const struct ooms_class_edge *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* The locals of thread node u: [*at, *at + count) of m->locals. */
static size_t locals_of(const struct ooms_matmodel *m, const uint8_t *has, uint32_t u, size_t *at)
{
	size_t lo = 0, hi = m->nlocals, k;

	*at = 0;
	if (!has || !bit(has, u))
		return 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->locals[mid].from < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < m->nlocals && m->locals[k].from == u; k++)
		;
	*at = lo;
	return k - lo;
}

/* GC roots and thread edges, as MAT's Pass1Parser reads the root records
 * (file order: a frame's record names its thread by serial; the thread's
 * own record must have come first). */
static int find_roots(const struct ooms_index *ix, struct ooms_matmodel *m)
{
	struct u64map thread = {0};
	size_t cap = 0, rcap = 0;
	int sticky = 0, e = -ENOMEM;

	if (u64map_init(&thread, 16))
		return -ENOMEM;
	for (uint32_t i = 0; i < ix->nroots; i++)
		sticky |= ix->roots[i].kind == HPROF_ROOT_STICKY_CLASS;
	for (uint32_t i = 0; i < ix->nroots; i++) {
		const struct ooms_root *r = &ix->roots[i];
		uint32_t t;

		switch (r->kind) {
		case HPROF_ROOT_THREAD_OBJECT:
			if (u64map_put(&thread, (uint64_t)r->thread_serial + 1, r->node))
				goto out;
			break;
		case HPROF_ROOT_JNI_LOCAL:
		case HPROF_ROOT_JAVA_FRAME:
		case HPROF_ROOT_NATIVE_STACK:
		case HPROF_ROOT_THREAD_BLOCK:
			if (u64map_get(&thread, (uint64_t)r->thread_serial + 1, &t)) {
				struct ooms_class_edge *le = VEC_PUSH(m->locals, m->nlocals, cap);

				if (!le)
					goto out;
				*le = (struct ooms_class_edge){t, r->node};
				continue;
			}
			break;
		default:
			break;
		}
		if (!bit(m->root, r->node)) {
			uint32_t *slot = VEC_PUSH(m->roots, m->nroots, rcap);

			if (!slot)
				goto out;
			*slot = r->node;
			set_bit(m->root, r->node);
		}
	}
	for (uint32_t c = 0; !sticky && c < ix->nclasses; c++) {
		const struct ooms_class *k = &ix->classes[c];
		uint32_t *slot;

		if (k->node == OOMS_NONE || k->loader || k->is_array_class || bit(m->root, k->node))
			continue;
		if (!(slot = VEC_PUSH(m->roots, m->nroots, rcap)))
			goto out;
		*slot = k->node;
		set_bit(m->root, k->node);
	}
	vec_sort(m->locals, m->nlocals, sizeof(*m->locals), by_edge);
	e = 0;
out:
	u64map_free(&thread);
	return e;
}

struct search {
	const struct ooms_index *ix;
	struct ooms_matmodel *m;
	const uint8_t *has_locals;
	uint32_t *parent;   /* [nodes] the search tree: who reached each node first (0: a root) */
	uint32_t *stack;
	size_t n, cap;
};

static inline int visit(struct search *s, uint32_t from, uint32_t t)
{
	const struct ooms_index *ix = s->ix;
	uint32_t *slot;

	if (t == OOMS_NONE || bit(s->m->reach, t))
		return 0;
	set_bit(s->m->reach, t);
	s->parent[t] = from;
	if (t > ix->main_end && !bit(s->m->root, t))
		s->m->first_ref[ooms_class_of_node(ix, t)] = from;
	if (!(slot = VEC_PUSH(s->stack, s->n, s->cap)))
		return -ENOMEM;
	*slot = t;
	return 0;
}

/* Depth first from what the stack holds; with_class: an instance's or
 * array's reference to its class is followed too. */
static int drain(struct search *s, int with_class)
{
	const struct ooms_index *ix = s->ix;

	while (s->n) {
		uint32_t u = s->stack[--s->n];
		size_t at, nl = locals_of(s->m, s->has_locals, u, &at);

		for (uint32_t x = ix->off[u]; x < ix->off[u + 1]; x++)
			if (visit(s, u, ix->tgt[x]))
				return -ENOMEM;
		for (size_t k = 0; k < nl; k++)
			if (visit(s, u, s->m->locals[at + k].to))
				return -ENOMEM;
		if (u > ix->main_end) {
			if (visit(s, u, super_node(ix, u)) || visit(s, u, class_node(ix, u)))
				return -ENOMEM;
		} else if (with_class && visit(s, u, class_node(ix, u))) {
			return -ENOMEM;
		}
	}
	return 0;
}

/* Everything the roots reach. The references to classes from their
 * instances are followed last, so a class's first referrer is, where it
 * has one, a reference that is not its instances' (its loader's list):
 * more often the nearest common ancestor of them all than an instance. */
static int search(const struct ooms_index *ix, struct ooms_matmodel *m, const uint8_t *has_locals,
		  uint32_t *parent)
{
	struct search s = {ix, m, has_locals, parent, NULL, 0, 0};
	int e = -ENOMEM;

	for (uint32_t v = 0; v < ix->nodes; v++)
		parent[v] = OOMS_NONE;
	parent[0] = 0;
	for (uint32_t i = 0; i < m->nroots; i++) {
		uint32_t *slot = VEC_PUSH(s.stack, s.n, s.cap);

		if (!slot)
			goto out;
		*slot = m->roots[i];
		set_bit(m->reach, m->roots[i]);
		parent[m->roots[i]] = 0;
	}
	if (drain(&s, 0))
		goto out;
	for (uint32_t u = 1; u <= ix->main_end; u++) {
		if (!bit(m->reach, u))
			continue;
		if (visit(&s, u, class_node(ix, u)) || drain(&s, 1))
			goto out;
	}
	e = 0;
out:
	free(s.stack);
	return e;
}

static uint8_t *locals_bitmap(const struct ooms_index *ix, const struct ooms_matmodel *m)
{
	uint8_t *has = huge_calloc(ix->nodes / 8 + 1, 1);

	for (size_t i = 0; has && i < m->nlocals; i++)
		set_bit(has, m->locals[i].from);
	return has;
}

static int class_ancestors(const struct ooms_index *ix, const struct ooms_matmodel *m, const uint8_t *has_locals,
			   const uint32_t *idom, uint32_t *anc);

int ooms_matmodel_compute(const struct ooms_index *ix, struct ooms_matmodel *m)
{
	double t0 = mono_s();
	uint8_t *has_locals = NULL;
	uint32_t *parent = NULL;
	int e = -ENOMEM;

	memset(m, 0, sizeof(*m));
	m->root = huge_calloc(ix->nodes / 8 + 1, 1);
	m->reach = huge_calloc(ix->nodes / 8 + 1, 1);
	m->first_ref = huge_malloc(((size_t)ix->nclasses + 1) * sizeof(*m->first_ref));
	m->tree_anc = huge_malloc(((size_t)ix->nclasses + 1) * sizeof(*m->tree_anc));
	parent = huge_malloc(((size_t)ix->nodes + 1) * sizeof(*parent));
	if (!m->root || !m->reach || !m->first_ref || !m->tree_anc || !parent)
		goto out;
	for (uint32_t c = 0; c < ix->nclasses; c++)
		m->first_ref[c] = OOMS_NONE;
	if ((e = find_roots(ix, m)))
		goto out;
	e = -ENOMEM;
	if (m->nlocals && !(has_locals = locals_bitmap(ix, m)))
		goto out;
	if ((e = search(ix, m, has_locals, parent)))
		goto out;
	/* the search tree is a subgraph: its ancestors of a class's referrers
	 * are a place to start the rounds from (design.md) */
	if ((e = class_ancestors(ix, m, has_locals, parent, m->tree_anc)))
		goto out;
	for (uint32_t v = 1; v < ix->nodes; v++) {
		if (bit(m->reach, v)) {
			m->reachable++;
			continue;
		}
		m->unreachable++;
		m->unreachable_bytes += ooms_shallow_size(ix, v);
	}
	m->seconds = mono_s() - t0;
	memtrace("mat search");
out:
	free(has_locals);
	free(parent);
	if (e)
		ooms_matmodel_free(m);
	return e;
}

void ooms_matmodel_free(struct ooms_matmodel *m)
{
	free(m->root);
	free(m->reach);
	free(m->roots);
	free(m->locals);
	free(m->first_ref);
	free(m->tree_anc);
	memset(m, 0, sizeof(*m));
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
static int class_ancestors(const struct ooms_index *ix, const struct ooms_matmodel *m, const uint8_t *has_locals,
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
	uint8_t *skip = skip_bitmap(ix, m, 0), *has_locals = m->nlocals ? locals_bitmap(ix, m) : NULL;
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
		if ((e = class_ancestors(ix, m, has_locals, d->idom, next)))
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
