/* Dominators and retained sizes (user/graph/dominators.c) on hand-made
 * graphs and on random ones checked against a brute-force definition: d
 * dominates v when v cannot be reached from the super-root without d, in
 * VisualVM's graph (referents count as edges but do not make a node
 * reachable; an edge from an unreached object counts as one from the
 * super-root). Also the shortest-path search (paths.c). */
#include <stdlib.h>
#include <string.h>
#include "graph/dominators.h"
#include "graph/vvmodel.h"
#include "graph/shallow.h"
#include "tap.h"

#define MAXN 64

struct g {
	uint32_t n;                 /* nodes, super-root included */
	int adj[MAXN][MAXN];        /* 1 strong, 2 weak (a referent: last edge of its source) */
	uint32_t roots[MAXN], nroots;
	uint32_t array_len[MAXN];   /* > 0: an object array of that many elements (else a 16-byte instance) */
};

/* An index with n nodes (instances of no class: 16 bytes each), the
 * graph's edges in CSR and its roots. */
static void build(struct ooms_index *ix, const struct g *g)
{
	uint32_t e = 0;

	memset(ix, 0, sizeof(*ix));
	ix->nodes = g->n;
	ix->id_size = 8;
	ix->min_inst_size = 16;
	ix->oop_size = 8;
	ix->ids = calloc(g->n, sizeof(*ix->ids));
	uint32_t cls[MAXN], length[MAXN] = {0};
	uint8_t kind[MAXN], heap[MAXN] = {0};
	ix->off = calloc(g->n + 1, sizeof(*ix->off));
	ix->tgt = malloc(MAXN * MAXN * sizeof(*ix->tgt));
	ix->weak_last = calloc(g->n / 8 + 1, 1);
	ix->roots = calloc(g->nroots + 1, sizeof(*ix->roots));
	for (uint32_t v = 0; v < g->n; v++) {
		int weak = -1;

		ix->ids[v] = 0x1000 + 8 * v;
		cls[v] = OOMS_NONE;
		kind[v] = !v ? NODE_ROOT : g->array_len[v] ? NODE_OBJ_ARRAY : NODE_INSTANCE;
		length[v] = g->array_len[v];
		ix->off[v] = e;
		for (uint32_t w = 1; w < g->n; w++) {
			if (g->adj[v][w] == 1)
				ix->tgt[e++] = w;
			else if (g->adj[v][w] == 2)
				weak = (int)w;
		}
		if (weak >= 0) {
			ix->tgt[e++] = (uint32_t)weak;
			ix->weak_last[v / 8] |= (uint8_t)(1 << (v % 8));
		}
	}
	ix->off[g->n] = e;
	ix->nedges = e;
	for (uint32_t i = 0; i < g->nroots; i++) {
		ix->roots[i].node = g->roots[i];
		ix->roots[i].kind = HPROF_ROOT_JNI_GLOBAL;
	}
	ix->nroots = g->nroots;
	ix->main_end = g->n - 1;
	if (ooms_index_set_nodes(ix, kind, cls, length, heap))
		abort();
}

/* Reachable from the super-root over strong edges, without node skip. */
static void reach(const struct g *g, uint32_t skip, int strong_only, const int *reached, int *out)
{
	uint32_t stack[MAXN * MAXN], sp = 0;

	memset(out, 0, sizeof(int) * MAXN);
	out[0] = 1;
	for (uint32_t i = 0; i < g->nroots; i++)
		if (g->roots[i] != skip && !out[g->roots[i]]) {
			out[g->roots[i]] = 1;
			stack[sp++] = g->roots[i];
		}
	/* edges from unreached objects into reached ones come from the super-root */
	if (!strong_only)
		for (uint32_t u = 1; u < g->n; u++)
			if (!reached[u])
				for (uint32_t w = 1; w < g->n; w++)
					if (g->adj[u][w] && reached[w] && w != skip && !out[w]) {
						out[w] = 1;
						stack[sp++] = w;
					}
	while (sp) {
		uint32_t u = stack[--sp];

		for (uint32_t w = 1; w < g->n; w++) {
			if (!g->adj[u][w] || w == skip || out[w])
				continue;
			if (g->adj[u][w] == 2 && strong_only)
				continue;
			if (!strong_only && !reached[w])
				continue;
			out[w] = 1;
			stack[sp++] = w;
		}
	}
}

/* Brute force: dom[d][v] = d dominates v; idom and retained from it. */
static void brute(const struct g *g, uint32_t *idom, uint64_t *retained)
{
	static int dom[MAXN][MAXN];
	int reached[MAXN], r[MAXN];

	reach(g, UINT32_MAX, 1, NULL, reached);
	for (uint32_t d = 0; d < g->n; d++) {
		if (d == 0) {
			for (uint32_t v = 0; v < g->n; v++)
				dom[0][v] = reached[v];
			continue;
		}
		reach(g, d, 0, reached, r);
		for (uint32_t v = 0; v < g->n; v++)
			dom[d][v] = reached[v] && reached[d] && (v == d || !r[v]);
	}
	for (uint32_t v = 0; v < g->n; v++) {
		idom[v] = OOMS_NONE;
		retained[v] = 0;
		if (!reached[v])
			continue;
		if (v == 0) {
			idom[v] = 0;
		} else {
			/* the strict dominator that every other strict dominator dominates */
			for (uint32_t d = 0; d < g->n; d++) {
				int all = 1;

				if (d == v || !dom[d][v])
					continue;
				for (uint32_t e = 0; e < g->n && all; e++)
					if (e != v && dom[e][v] && !dom[e][d])
						all = 0;
				if (all)
					idom[v] = d;
			}
		}
		for (uint32_t w = 1; w < g->n; w++)
			if (dom[v][w])
				retained[v] += 16;
	}
}

/* VisualVM's graph, dominated sums. 0 or -errno. */
static int vv_dominators(struct ooms_index *ix, struct ooms_vvmodel *m, struct ooms_dominators *d)
{
	struct ooms_dom_graph gr;
	int e = ooms_vvmodel_compute(ix, m);

	if (e || (e = ooms_dom_graph_vv(ix, m, &gr)))
		return e;
	e = ooms_dominators_compute(ix, &gr, OOMS_RETAINED_DOMINATED, NULL, 0, d);
	ooms_dom_graph_free(&gr);
	return e;
}

static int check(const struct g *g, const char *name)
{
	struct ooms_index ix;
	struct ooms_vvmodel m;
	struct ooms_dominators d;
	uint32_t want_idom[MAXN];
	uint64_t want_ret[MAXN];
	int ok = 1;

	build(&ix, g);
	brute(g, want_idom, want_ret);
	if (vv_dominators(&ix, &m, &d)) {
		TAP_OK(0, "%s: computed", name);
		return 0;
	}
	for (uint32_t v = 0; v < g->n; v++)
		if (d.idom[v] != want_idom[v] || ooms_retained(&d, v) != want_ret[v]) {
			if (ok)
				printf("#   %s: node %u: idom %u want %u, retained %llu want %llu\n", name, v, d.idom[v],
				       want_idom[v], (unsigned long long)ooms_retained(&d, v), (unsigned long long)want_ret[v]);
			ok = 0;
		}
	ooms_dominators_free(&d);
	ooms_vvmodel_free(&m);
	ooms_index_free(&ix);
	return ok;
}

static void edge(struct g *g, uint32_t a, uint32_t b) { g->adj[a][b] = 1; }

int main(void)
{
	struct g g;
	unsigned seed = 12345;
	int fails = 0;

	/* a chain: each retains the rest */
	memset(&g, 0, sizeof(g));
	g.n = 5;
	g.roots[g.nroots++] = 1;
	edge(&g, 1, 2); edge(&g, 2, 3); edge(&g, 3, 4);
	TAP_OK(check(&g, "chain"), "chain: each object retains the rest");

	/* a diamond: 1 -> 2, 3 -> 4: 4 is 1's, not 2's or 3's */
	memset(&g, 0, sizeof(g));
	g.n = 5;
	g.roots[g.nroots++] = 1;
	edge(&g, 1, 2); edge(&g, 1, 3); edge(&g, 2, 4); edge(&g, 3, 4);
	TAP_OK(check(&g, "diamond"), "diamond: the join is dominated by the fork");

	/* a cycle under a root, entered twice */
	memset(&g, 0, sizeof(g));
	g.n = 6;
	g.roots[g.nroots++] = 1;
	edge(&g, 1, 2); edge(&g, 2, 3); edge(&g, 3, 4); edge(&g, 4, 2); edge(&g, 1, 4); edge(&g, 4, 5);
	TAP_OK(check(&g, "cycle"), "cycle entered twice");

	/* two roots share an object: only the super-root dominates it */
	memset(&g, 0, sizeof(g));
	g.n = 4;
	g.roots[g.nroots++] = 1;
	g.roots[g.nroots++] = 2;
	edge(&g, 1, 3); edge(&g, 2, 3);
	TAP_OK(check(&g, "shared"), "an object two roots hold belongs to neither");

	/* a weak reference does not reach, but it is a reference */
	memset(&g, 0, sizeof(g));
	g.n = 6;
	g.roots[g.nroots++] = 1;
	edge(&g, 1, 2); edge(&g, 2, 3); g.adj[1][4] = 2; g.adj[4][3] = 1; edge(&g, 1, 4);
	g.adj[1][5] = 2; /* 5: only weakly reachable */
	TAP_OK(check(&g, "weak"), "referents: no reach, but they count against dominance");

	/* an unreached object holding a reached one: as if the super-root did */
	memset(&g, 0, sizeof(g));
	g.n = 5;
	g.roots[g.nroots++] = 1;
	edge(&g, 1, 2); edge(&g, 2, 3); edge(&g, 4, 3); /* 4 is garbage */
	TAP_OK(check(&g, "garbage"), "a reference from garbage takes the object from its holder");

	/* retained sizes of 4 GiB and more */
	memset(&g, 0, sizeof(g));
	g.n = 4;
	g.roots[g.nroots++] = 1;
	edge(&g, 1, 2); edge(&g, 2, 3);
	g.array_len[2] = 1u << 30; /* 8 GiB of references */
	{
		struct ooms_index ix;
		struct ooms_vvmodel m;
		struct ooms_dominators d;
		uint64_t big = ((uint64_t)1 << 33) + 24; /* header 16 + length 4, aligned to 8 */

		build(&ix, &g);
		TAP_OK(!vv_dominators(&ix, &m, &d),
		       "a dominator tree over 4 GiB: computed");
		TAP_EQ_INT(ooms_retained(&d, 3), 16, "4 GiB and over: a small object keeps its own size");
		TAP_OK(ooms_retained(&d, 2) == big + 16 && ooms_retained(&d, 1) == big + 32 &&
			       ooms_retained(&d, 0) == big + 32,
		       "4 GiB and over: the array %llu, its holder %llu, the super-root %llu",
		       (unsigned long long)ooms_retained(&d, 2), (unsigned long long)ooms_retained(&d, 1),
		       (unsigned long long)ooms_retained(&d, 0));
		ooms_dominators_free(&d);
		ooms_vvmodel_free(&m);
		ooms_index_free(&ix);
	}

	/* mostly acyclic graphs (what reaches no cycle is settled from its
	 * referrers, the rest by Semi-NCA): forward edges, a few back ones */
	for (int t = 0; t < 400; t++) {
		uint32_t n = 2 + (uint32_t)(rand_r(&seed) % (MAXN - 2));
		char name[32];

		memset(&g, 0, sizeof(g));
		g.n = n;
		for (uint32_t i = 0, k = 1 + (uint32_t)(rand_r(&seed) % 3); i < k; i++)
			g.roots[g.nroots++] = 1 + (uint32_t)(rand_r(&seed) % (n - 1));
		for (uint32_t u = 1; u < n; u++) {
			for (uint32_t k = rand_r(&seed) % 4; k > 0 && u + 1 < n; k--)
				g.adj[u][u + 1 + rand_r(&seed) % (n - u - 1)] = 1;
			if (rand_r(&seed) % 16 == 0) /* a back edge: a cycle */
				g.adj[u][1 + rand_r(&seed) % u] = 1;
			if (rand_r(&seed) % 8 == 0)
				g.adj[u][1 + rand_r(&seed) % (n - 1)] = 2;
		}
		snprintf(name, sizeof(name), "acyclic %d", t);
		fails += !check(&g, name);
	}
	TAP_EQ_INT(fails, 0, "400 mostly acyclic graphs: idom and retained size of every node as the brute force says");
	fails = 0;

	/* random graphs against the brute force */
	for (int t = 0; t < 400; t++) {
		uint32_t n = 2 + (uint32_t)(rand_r(&seed) % (MAXN - 2));
		unsigned density = 1 + (unsigned)(rand_r(&seed) % 4);
		char name[32];

		memset(&g, 0, sizeof(g));
		g.n = n;
		for (uint32_t i = 0, k = 1 + (uint32_t)(rand_r(&seed) % 4); i < k; i++)
			g.roots[g.nroots++] = 1 + (uint32_t)(rand_r(&seed) % (n - 1));
		for (uint32_t u = 1; u < n; u++) {
			for (uint32_t k = 0; k < density; k++)
				g.adj[u][1 + rand_r(&seed) % (n - 1)] = 1;
			if (rand_r(&seed) % 8 == 0) /* a referent, one at most */
				g.adj[u][1 + rand_r(&seed) % (n - 1)] = 2;
		}
		snprintf(name, sizeof(name), "random %d", t);
		fails += !check(&g, name);
	}
	TAP_EQ_INT(fails, 0, "400 random graphs: idom and retained size of every node as the brute force says");
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
