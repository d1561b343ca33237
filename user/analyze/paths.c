#include "analyze/paths.h"
#include "util/hugemem.h"
#include "util/clock.h"
#include "util/release.h"
#include "util/spill.h"
#include "util/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const ooms_root_order[9] = {"ThreadObject", "StickyClass", "JniGlobal", "JavaFrame", "JniLocal",
					 "NativeStack", "ThreadBlock", "MonitorUsed", "other"};

/* Shark sorts roots so thread objects come before the java frames that
 * belong to them; the rest keep a fixed order by kind, then file order
 * (ooms_root_order names it). */
static int root_rank(uint8_t kind)
{
	switch (kind) {
	case HPROF_ROOT_THREAD_OBJECT: return 0;
	case HPROF_ROOT_STICKY_CLASS: return 1;
	case HPROF_ROOT_JNI_GLOBAL: return 2;
	case HPROF_ROOT_JAVA_FRAME: return 3;
	case HPROF_ROOT_JNI_LOCAL: return 4;
	case HPROF_ROOT_NATIVE_STACK: return 5;
	case HPROF_ROOT_THREAD_BLOCK: return 6;
	case HPROF_ROOT_MONITOR_USED: return 7;
	}
	return 8;
}


struct late_edge {
	uint32_t u, v;  /* u 0: v is a GC root taken last */
	uint32_t mark;  /* OOMS_MARK_NONE: a finalizer's referent; else a library leak's reference or root */
};

static int bit(const uint8_t *m, uint32_t n)
{
	return m && (m[n / 8] >> (n % 8) & 1);
}

static void set_bit(uint8_t *m, uint32_t n)
{
	m[n / 8] |= (uint8_t)(1 << (n % 8));
}

/* v, reached from u, is late (a finalizer's referent on its way) or under a
 * library leak's reference as u is. */
static void inherit(struct ooms_paths *p, uint32_t u, uint32_t v)
{
	if (bit(p->late, u))
		set_bit(p->late, v);
	if (bit(p->library, u))
		set_bit(p->library, v);
}

/* The search's step from u: its strong references, then its class. A
 * referent that holds only as a last resort, and a library leak's
 * reference, are put aside in late; a Java frame's local's references
 * (frame_root: u is a root by a frame alone) in low, taken before late. */
static int visit(const struct ooms_index *ix, struct ooms_paths *p, uint32_t u, uint32_t *queue, uint32_t *tail,
		 uint8_t *seen, struct late_edge **late, size_t *nlate, size_t *late_cap, const uint8_t *frame_root,
		 struct late_edge **low, size_t *nlow, size_t *low_cap)
{
	uint32_t c = ooms_cls(ix, u);
	int deferred = bit(frame_root, u);

	for (uint32_t e = ix->off[u]; e < ix->off[u + 1]; e++) {
		uint32_t v = ix->tgt[e];

		uint32_t mark = p->honor_ignores ? ooms_edge_mark(ix, u, v) : OOMS_MARK_NONE;

		if (p->parent[v] != OOMS_NONE || mark == OOMS_MARK_IGNORE)
			continue;
		if (mark >= OOMS_MARK_LIBRARY ||
		    (ooms_edge_is_weak(ix, u, e) && c != OOMS_NONE && ix->classes[c].referent_late)) {
			struct late_edge *l = VEC_PUSH(*late, *nlate, *late_cap);

			if (!l)
				return -ENOMEM;
			*l = (struct late_edge){u, v, mark};
			continue;
		}
		if (ooms_edge_is_weak(ix, u, e))
			continue;
		if (deferred) {
			struct late_edge *l = VEC_PUSH(*low, *nlow, *low_cap);

			if (!l)
				return -ENOMEM;
			*l = (struct late_edge){u, v, OOMS_MARK_NONE};
			continue;
		}
		p->parent[v] = u;
		inherit(p, u, v);
		queue[(*tail)++] = v;
	}
	/* the class connection, after the fields: an object holds its class */
	if ((ooms_kind(ix, u) == NODE_INSTANCE || ooms_kind(ix, u) == NODE_CLASS) && c != OOMS_NONE &&
	    !(seen[c / 8] >> (c % 8) & 1)) {
		uint32_t v = ix->classes[c].node;

		seen[c / 8] |= (uint8_t)(1 << (c % 8));
		if (v != OOMS_NONE && p->parent[v] == OOMS_NONE) {
			p->parent[v] = u;
			inherit(p, u, v);
			queue[(*tail)++] = v;
		}
	}
	return 0;
}

/* The edges put aside (u -> v) taken now where v is still unreached, and
 * queued; with marks, v marked late or a library leak's by its edge. */
static void take(struct ooms_paths *p, const struct late_edge *edges, size_t n, int marks, uint32_t *queue,
		 uint32_t *tail)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t v = edges[i].v, u = edges[i].u;

		if (p->parent[v] != OOMS_NONE)
			continue;
		p->parent[v] = u;
		inherit(p, u, v);
		if (marks)
			set_bit(edges[i].mark >= OOMS_MARK_LIBRARY ? p->library : p->late, v);
		queue[(*tail)++] = v;
	}
}

int ooms_paths_compute(const struct ooms_index *ix, struct ooms_paths *p, int honor_ignores)
{
	double t0 = mono_s();
	size_t n = ix->nodes;
	uint32_t *queue = huge_malloc(n * sizeof(*queue)), head = 0, tail = 0;
	size_t released = 0;
	uint8_t *seen = huge_calloc(ix->nclasses / 8 + 1, 1), *frame_root = huge_calloc(n / 8 + 1, 1);
	struct late_edge *late = NULL, *low = NULL;
	size_t nlate = 0, late_cap = 0, nlow = 0, low_cap = 0;
	int e = -ENOMEM;

	memset(p, 0, sizeof(*p));
	p->honor_ignores = honor_ignores;

	p->parent = huge_malloc(n * sizeof(*p->parent));
	if (!queue || !p->parent || !frame_root || !seen)
		goto out;
	memset(p->parent, 0xff, n * sizeof(*p->parent));
	p->parent[0] = 0;
	for (int rank = 0; rank <= 8; rank++)
		for (uint32_t i = 0; i < ix->nroots; i++) {
			uint32_t r = ix->roots[i].node;
			uint8_t mark = honor_ignores ? ooms_root_mark(ix, i) : OOMS_MARK_NONE;

			if (root_rank(ix->roots[i].kind) != rank || p->parent[r] != OOMS_NONE || mark == OOMS_MARK_IGNORE)
				continue;
			if (mark >= OOMS_MARK_LIBRARY) { /* a library's root: taken last */
				struct late_edge *l = VEC_PUSH(late, nlate, late_cap);

				if (!l)
					goto out;
				*l = (struct late_edge){0, r, mark};
				continue;
			}
			p->parent[r] = 0;
			/* a local of a running method: what it holds is reached
			 * through it only when nothing lasting holds it (a method
			 * copying a static's list must not stand for the static) */
			if (ix->roots[i].kind == HPROF_ROOT_JAVA_FRAME)
				set_bit(frame_root, r);
			queue[tail++] = r;
		}
	for (;;) {
		while (head < tail) {
			uint32_t u = queue[head++];

			if (head % 65536 == 0)
				release_below(queue, (size_t)head * sizeof(*queue), &released);
			if (visit(ix, p, u, queue, &tail, seen, &late, &nlate, &late_cap, frame_root, &low, &nlow,
				  &low_cap))
				goto out;
		}
		/* then what frames' locals hold that nothing else did */
		if (nlow) {
			take(p, low, nlow, 0, queue, &tail);
			nlow = 0;
			continue;
		}
		/* then what holds only as a last resort: finalizers' referents, and
		 * library leaks' references (index.h); what they reach is marked */
		if (nlate && ((!p->late && !(p->late = huge_calloc(n / 8 + 1, 1))) ||
			      (!p->library && !(p->library = huge_calloc(n / 8 + 1, 1)))))
			goto out;
		take(p, late, nlate, 1, queue, &tail);
		nlate = 0;
		if (head == tail)
			break;
	}
	p->seconds = mono_s() - t0;
	e = 0;
out:
	free(late);
	free(low);
	free(frame_root);
	free(queue);
	free(seen);
	if (e)
		ooms_paths_free(p);
	return e;
}

void ooms_paths_free(struct ooms_paths *p)
{
	spill_close(&p->parents);
	free(p->parent);
	free(p->reach);
	free(p->late);
	free(p->library);
	p->reach = NULL;
	p->late = NULL;
	p->library = NULL;
	p->parent = NULL;
}


uint32_t ooms_paths_root(const struct ooms_index *ix, uint32_t r)
{
	for (int rank = 0; rank <= 8; rank++)
		for (uint32_t i = 0; i < ix->nroots; i++)
			if (ix->roots[i].node == r && root_rank(ix->roots[i].kind) == rank)
				return i;
	return OOMS_NONE;
}

int ooms_paths_reach_bitmap(const struct ooms_index *ix, struct ooms_paths *p)
{
	p->reach = huge_calloc(ix->nodes / 8 + 1, 1);
	if (!p->reach)
		return -ENOMEM;
	for (uint32_t n = 0; n < ix->nodes; n++)
		if (p->parent[n] != OOMS_NONE)
			p->reach[n / 8] |= (uint8_t)(1 << (n % 8));
	/* from here on only reported paths read parents: to a file (kept in
	 * memory if none can be written), written while the caller waits */
	spill_start(&p->parents, p->parent, sizeof(*p->parent), ix->nodes);
	return 0;
}

void ooms_paths_spilled(struct ooms_paths *p)
{
	if (p->parent && !spill_finish(&p->parents)) {
		free(p->parent);
		p->parent = NULL;
	}
}

uint32_t ooms_paths_parent_spilled(const struct ooms_paths *p, uint32_t n)
{
	uint32_t v;

	return spill_read(&p->parents, n, &v) ? OOMS_NONE : v;
}

void ooms_paths_drop_parents(struct ooms_paths *p)
{
	spill_close(&p->parents); /* first: its writer may still read parent[] */
	free(p->parent);
	p->parent = NULL;
}
