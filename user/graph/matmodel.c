/* MAT's graph (matmodel.h): its GC roots and thread edges, and the search for what they reach. */
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

static int by_edge(const void *a, const void *b)
{
	const struct ooms_class_edge *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
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
	if (m->nlocals && !(has_locals = mat_locals_bitmap(ix, m)))
		goto out;
	if ((e = search(ix, m, has_locals, parent)))
		goto out;
	/* the search tree is a subgraph: its ancestors of a class's referrers
	 * are a place to start the rounds from (design.md) */
	if ((e = mat_class_ancestors(ix, m, has_locals, parent, m->tree_anc)))
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

