/* MAT's graph and its dominators (user/graph/matmodel.c) on random heaps
 * with classes, loaders, threads and garbage, checked against a brute
 * force over the graph as MAT builds it (every instance -> its class, a
 * class -> its superclass, loader, statics and java.lang.Class, a thread
 * -> its frames' objects; roots as MAT's Pass1Parser reads them): d
 * dominates v when v cannot be reached from the GC roots without d. Both
 * ways of computing it (rounds over the classes' ancestors, and the graph
 * as it is) must give the brute force's tree and retained sizes. */
#include <stdlib.h>
#include <string.h>
#include "graph/matmodel.h"
#include "graph/shallow.h"
#include "hprof/hprof.h"
#include "tap.h"

#define MAXN 48
#define MAXC 6

struct heap {
	uint32_t n;              /* nodes, the super-root included */
	uint32_t main_end;       /* objects 1..main_end; class objects after, one per class */
	uint32_t nclasses;       /* class 0 is java.lang.Class */
	uint32_t cls[MAXN];      /* an object's class (class objects: 0) */
	uint32_t super[MAXC];    /* a class's superclass, or OOMS_NONE */
	uint32_t loader[MAXC];   /* a class's loader object, or 0 (the boot loader) */
	int array[MAXC];         /* an array class */
	int adj[MAXN][MAXN];     /* the index's references (a class object's: statics) */
	struct ooms_root roots[MAXN];
	uint32_t nroots;
	uint32_t size[MAXN];     /* shallow sizes the index gives */
};

static uint32_t class_node(const struct heap *h, uint32_t c)
{
	return h->main_end + 1 + c;
}

/* The index of h: instances of its classes, class objects with their statics
 * and loader as references, the roots. */
static void build(struct ooms_index *ix, struct heap *h)
{
	uint32_t e = 0, cls[MAXN], length[MAXN] = {0};
	uint8_t kind[MAXN], heap[MAXN] = {0};

	memset(ix, 0, sizeof(*ix));
	ix->nodes = h->n;
	ix->main_end = h->main_end;
	ix->id_size = 8;
	ix->oop_size = 4;
	ix->min_inst_size = 16;
	ix->ids = calloc(h->n, sizeof(*ix->ids));
	ix->off = calloc(h->n + 1, sizeof(*ix->off));
	ix->tgt = malloc(MAXN * (MAXN + 1) * sizeof(*ix->tgt));
	ix->weak_last = calloc(h->n / 8 + 1, 1);
	ix->classes = calloc(h->nclasses, sizeof(*ix->classes));
	ix->nclasses = h->nclasses;
	ix->class_class = 0;
	ix->inst_sizes = calloc(h->nclasses, sizeof(*ix->inst_sizes));
	for (uint32_t c = 0; c < h->nclasses; c++) {
		ix->classes[c] = (struct ooms_class){.id = 0x100000 + c, .node = class_node(h, c), .super = h->super[c],
						     .loader = h->loader[c], .name = OOMS_NONE, .weak_slot = OOMS_NONE,
						     .is_array_class = (uint8_t)h->array[c]};
		ix->inst_sizes[c] = 16 + 8 * c;
	}
	for (uint32_t v = 0; v < h->n; v++) {
		ix->ids[v] = 0x1000 + 8 * v;
		kind[v] = !v ? NODE_ROOT : v <= h->main_end ? NODE_INSTANCE : NODE_CLASS;
		cls[v] = !v ? OOMS_NONE : v <= h->main_end ? h->cls[v] : 0;
		if (v > h->main_end)
			length[v] = v - h->main_end - 1;
		ix->off[v] = e;
		for (uint32_t w = 1; w < h->n; w++)
			if (h->adj[v][w])
				ix->tgt[e++] = w;
		if (v > h->main_end && h->loader[v - h->main_end - 1])
			ix->tgt[e++] = h->loader[v - h->main_end - 1];
	}
	ix->off[h->n] = e;
	ix->nedges = e;
	ix->roots = calloc(h->nroots + 1, sizeof(*ix->roots));
	memcpy(ix->roots, h->roots, h->nroots * sizeof(*ix->roots));
	ix->nroots = h->nroots;
	if (ooms_index_set_nodes(ix, kind, cls, length, heap))
		abort();
	for (uint32_t v = 1; v < h->n; v++)
		h->size[v] = (uint32_t)ooms_shallow_size(ix, v);
}

/* MAT's graph of h, as a matrix, and its roots (brute force's own reading). */
static void mat_graph(const struct heap *h, int g[MAXN][MAXN], int *root)
{
	int sticky = 0;
	uint32_t thread[64];

	memset(root, 0, sizeof(int) * MAXN);
	for (uint32_t i = 0; i < 64; i++)
		thread[i] = OOMS_NONE;
	for (uint32_t u = 0; u < h->n; u++)
		for (uint32_t v = 0; v < h->n; v++)
			g[u][v] = h->adj[u][v];
	for (uint32_t u = 1; u <= h->main_end; u++)
		g[u][class_node(h, h->cls[u])] = 1;
	for (uint32_t c = 0; c < h->nclasses; c++) {
		uint32_t n = class_node(h, c);

		g[n][class_node(h, 0)] = 1;
		if (h->super[c] != OOMS_NONE)
			g[n][class_node(h, h->super[c])] = 1;
		if (h->loader[c])
			g[n][h->loader[c]] = 1;
	}
	for (uint32_t i = 0; i < h->nroots; i++)
		sticky |= h->roots[i].kind == HPROF_ROOT_STICKY_CLASS;
	for (uint32_t i = 0; i < h->nroots; i++) {
		const struct ooms_root *r = &h->roots[i];

		if (r->kind == HPROF_ROOT_THREAD_OBJECT)
			thread[r->thread_serial] = r->node;
		if ((r->kind == HPROF_ROOT_JAVA_FRAME || r->kind == HPROF_ROOT_JNI_LOCAL) &&
		    thread[r->thread_serial] != OOMS_NONE) {
			g[thread[r->thread_serial]][r->node] = 1;
			continue;
		}
		root[r->node] = 1;
	}
	for (uint32_t c = 0; !sticky && c < h->nclasses; c++)
		if (!h->loader[c] && !h->array[c])
			root[class_node(h, c)] = 1;
}

/* Reachable from the roots, without node skip. */
static void reach(const struct heap *h, int g[MAXN][MAXN], const int *root, uint32_t skip, int *out)
{
	uint32_t stack[MAXN * MAXN], sp = 0;

	memset(out, 0, sizeof(int) * MAXN);
	for (uint32_t v = 1; v < h->n; v++)
		if (root[v] && v != skip && !out[v]) {
			out[v] = 1;
			stack[sp++] = v;
		}
	while (sp) {
		uint32_t u = stack[--sp];

		for (uint32_t w = 1; w < h->n; w++)
			if (g[u][w] && w != skip && !out[w]) {
				out[w] = 1;
				stack[sp++] = w;
			}
	}
}

static void brute(const struct heap *h, uint32_t *idom, uint64_t *retained, int *reached)
{
	static int g[MAXN][MAXN], dom[MAXN][MAXN];
	int root[MAXN], r[MAXN];

	mat_graph(h, g, root);
	reach(h, g, root, UINT32_MAX, reached);
	reached[0] = 1;
	for (uint32_t d = 0; d < h->n; d++) {
		if (!d) {
			for (uint32_t v = 0; v < h->n; v++)
				dom[0][v] = reached[v];
			continue;
		}
		reach(h, g, root, d, r);
		for (uint32_t v = 1; v < h->n; v++)
			dom[d][v] = reached[v] && reached[d] && (v == d || !r[v]);
	}
	for (uint32_t v = 0; v < h->n; v++) {
		idom[v] = OOMS_NONE;
		retained[v] = 0;
		if (!reached[v])
			continue;
		if (!v)
			idom[v] = 0;
		for (uint32_t d = 0; v && d < h->n; d++) {
			int all = 1;

			if (d == v || !dom[d][v])
				continue;
			for (uint32_t e = 0; e < h->n && all; e++)
				if (e != v && dom[e][v] && !dom[e][d])
					all = 0;
			if (all)
				idom[v] = d;
		}
		for (uint32_t w = 1; w < h->n; w++)
			if (dom[v][w])
				retained[v] += h->size[w];
	}
}

static unsigned rounds_seen[8];

static int check(struct heap *h, enum ooms_mat_way way, const char *name)
{
	struct ooms_index ix;
	struct ooms_matmodel m;
	struct ooms_dominators d;
	uint32_t want_idom[MAXN];
	uint64_t want_ret[MAXN];
	int want_reach[MAXN], ok = 1;

	build(&ix, h);
	brute(h, want_idom, want_ret, want_reach);
	if (ooms_matmodel_compute(&ix, &m) || ooms_matmodel_dominators(&ix, &m, way, 0, &d)) {
		TAP_OK(0, "%s: computed", name);
		return 0;
	}
	if (way == OOMS_MAT_ROUNDS)
		rounds_seen[m.rounds < 7 ? m.rounds : 7]++;
	for (uint32_t v = 0; v < h->n; v++) {
		int got_reach = v ? ooms_matmodel_reached(&m, v) : 1;

		if (d.idom[v] != want_idom[v] || ooms_retained(&d, v) != want_ret[v] || got_reach != want_reach[v]) {
			if (ok)
				printf("#   %s: node %u: idom %u want %u, retained %llu want %llu, reached %d want %d\n", name,
				       v, d.idom[v], want_idom[v], (unsigned long long)ooms_retained(&d, v),
				       (unsigned long long)want_ret[v], got_reach, want_reach[v]);
			ok = 0;
		}
	}
	ooms_dominators_free(&d);
	ooms_matmodel_free(&m);
	ooms_index_free(&ix);
	return ok;
}

static uint32_t rnd(unsigned *seed, uint32_t n)
{
	return (uint32_t)rand_r(seed) % n;
}

/* A random heap: objects of a few classes, each class object with statics,
 * some loaded by an object (a loader whose fields hold its classes), a few
 * threads with frames (some named before their thread's record, some
 * after), garbage that refers into the live objects. */
static void random_heap(struct heap *h, unsigned *seed, unsigned density)
{
	memset(h, 0, sizeof(*h));
	h->nclasses = 2 + rnd(seed, MAXC - 1);
	h->main_end = 2 + rnd(seed, MAXN - MAXC - 3);
	h->n = h->main_end + 1 + h->nclasses;
	for (uint32_t c = 0; c < h->nclasses; c++) {
		h->super[c] = c && rnd(seed, 3) ? rnd(seed, c) : OOMS_NONE;
		h->loader[c] = c && rnd(seed, 2) ? 1 + rnd(seed, h->main_end) : 0;
		h->array[c] = c && !rnd(seed, 5);
		for (uint32_t k = rnd(seed, 3); k > 0; k--) /* statics */
			h->adj[class_node(h, c)][1 + rnd(seed, h->main_end)] = 1;
	}
	for (uint32_t u = 1; u <= h->main_end; u++) {
		h->cls[u] = 1 + rnd(seed, h->nclasses - 1);
		for (uint32_t k = 0; k < density; k++)
			if (rnd(seed, 3))
				h->adj[u][1 + rnd(seed, h->n - 1)] = 1; /* class objects too (a loader's list) */
	}
	for (uint32_t c = 1; c < h->nclasses; c++) /* a loader refers to what it loaded */
		if (h->loader[c] && rnd(seed, 4))
			h->adj[h->loader[c]][class_node(h, c)] = 1;
	for (uint32_t i = 0, k = 1 + rnd(seed, 6); i < k; i++) {
		struct ooms_root *r = &h->roots[h->nroots++];
		uint32_t what = rnd(seed, 5);

		r->thread_serial = 1 + rnd(seed, 3);
		r->frame = -1;
		switch (what) {
		case 0:
			r->kind = HPROF_ROOT_STICKY_CLASS;
			r->node = class_node(h, rnd(seed, h->nclasses));
			break;
		case 1:
			r->kind = HPROF_ROOT_THREAD_OBJECT;
			r->node = 1 + rnd(seed, h->main_end);
			break;
		case 2:
		case 3:
			r->kind = what == 2 ? HPROF_ROOT_JAVA_FRAME : HPROF_ROOT_JNI_LOCAL;
			r->node = 1 + rnd(seed, h->n - 1);
			r->frame = 0;
			break;
		default:
			r->kind = HPROF_ROOT_JNI_GLOBAL;
			r->node = 1 + rnd(seed, h->main_end);
			break;
		}
	}
}

int main(void)
{
	static const enum ooms_mat_way ways[] = {OOMS_MAT_ROUNDS, OOMS_MAT_EXACT, OOMS_MAT_AUTO};
	static const char *const way_names[] = {"rounds", "the graph as it is", "auto"};
	struct heap h;
	unsigned seed = 4242;

	/* the demo's shape: a static list whose array holds the sessions; old
	 * copies of the array (garbage) hold them too */
	memset(&h, 0, sizeof(h));
	h.nclasses = 3; /* Class, Cache (its static: the list), Session */
	h.main_end = 7; /* 1 list, 2 array, 3..5 sessions, 6 old array, 7 older array */
	h.n = h.main_end + 1 + h.nclasses;
	h.super[0] = h.super[1] = h.super[2] = OOMS_NONE;
	for (uint32_t u = 1; u <= h.main_end; u++)
		h.cls[u] = u >= 3 && u <= 5 ? 2 : 1;
	h.adj[class_node(&h, 1)][1] = 1;
	h.adj[1][2] = 1;
	for (uint32_t s = 3; s <= 5; s++)
		h.adj[2][s] = h.adj[6][s] = 1;
	h.adj[7][3] = 1;
	h.roots[h.nroots++] = (struct ooms_root){.node = class_node(&h, 1), .kind = HPROF_ROOT_STICKY_CLASS, .frame = -1};
	for (int w = 0; w < 3; w++) {
		struct ooms_index ix;
		struct ooms_matmodel m;
		struct ooms_dominators d;

		build(&ix, &h);
		TAP_OK(!ooms_matmodel_compute(&ix, &m) && !ooms_matmodel_dominators(&ix, &m, ways[w], 0, &d),
		       "garbage into the live list (%s): computed", way_names[w]);
		TAP_OK(d.idom[3] == 2 && d.idom[4] == 2 && d.idom[5] == 2 && d.idom[2] == 1,
		       "garbage into the live list (%s): the array holds every session, not the garbage arrays", way_names[w]);
		TAP_OK(!ooms_matmodel_reached(&m, 6) && !ooms_matmodel_reached(&m, 7) && m.unreachable == 2,
		       "garbage into the live list (%s): the old arrays are unreachable", way_names[w]);
		ooms_dominators_free(&d);
		ooms_matmodel_free(&m);
		ooms_index_free(&ix);
	}
	TAP_OK(check(&h, OOMS_MAT_AUTO, "garbage"), "garbage into the live list: every node as the brute force says");

	/* a frame's local belongs to its thread: held by the thread object */
	memset(&h, 0, sizeof(h));
	h.nclasses = 2;
	h.main_end = 3; /* 1 thread, 2 local, 3 what the local holds */
	h.n = h.main_end + 1 + h.nclasses;
	h.super[0] = h.super[1] = OOMS_NONE;
	h.cls[1] = h.cls[2] = h.cls[3] = 1;
	h.adj[2][3] = 1;
	h.roots[h.nroots++] = (struct ooms_root){.node = 1, .kind = HPROF_ROOT_THREAD_OBJECT, .thread_serial = 5, .frame = -1};
	h.roots[h.nroots++] = (struct ooms_root){.node = 2, .kind = HPROF_ROOT_JAVA_FRAME, .thread_serial = 5, .frame = 0};
	TAP_OK(check(&h, OOMS_MAT_AUTO, "thread"), "a frame's local: under its thread object");
	{
		struct ooms_index ix;
		struct ooms_matmodel m;
		struct ooms_dominators d;

		build(&ix, &h);
		TAP_OK(!ooms_matmodel_compute(&ix, &m) && !ooms_matmodel_dominators(&ix, &m, OOMS_MAT_AUTO, 0, &d) &&
			       d.idom[2] == 1 && d.idom[3] == 2 && ooms_retained(&d, 1) == 3 * 24,
		       "a frame's local: the thread retains it and what it holds (%llu B)",
		       (unsigned long long)ooms_retained(&d, 1));
		/* the boot loader's classes are roots when no STICKY_CLASS record says which are */
		TAP_OK(ooms_matmodel_reached(&m, class_node(&h, 0)) && m.nroots == 1 + h.nclasses,
		       "no STICKY_CLASS roots: the boot loader's classes are roots (%u roots)", m.nroots);
		ooms_dominators_free(&d);
		ooms_matmodel_free(&m);
		ooms_index_free(&ix);
	}

	for (int w = 0; w < 3; w++) {
		int fails = 0;

		for (int t = 0; t < 400; t++) {
			char name[48];

			random_heap(&h, &seed, 1 + (unsigned)(t % 4));
			snprintf(name, sizeof(name), "random %d (%s)", t, way_names[w]);
			fails += !check(&h, ways[w], name);
		}
		TAP_EQ_INT(fails, 0, "400 random heaps with classes, loaders and threads (%s): idom, retained size and "
				     "reach of every node as the brute force says",
			   way_names[w]);
	}
	TAP_OK(rounds_seen[2] + rounds_seen[3] + rounds_seen[4] >= 40,
	       "the random heaps need rounds: 1 round %u, 2 rounds %u, 3 %u, 4 %u, more %u", rounds_seen[1], rounds_seen[2],
	       rounds_seen[3], rounds_seen[4], rounds_seen[5] + rounds_seen[6] + rounds_seen[7]);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
