/* Leak groups, their paths' signatures and names, the watches (analyzer_int.h). */
#include "analyze/analyzer.h"
#include "analyze/analyzer_int.h"
#include "util/hugemem.h"
#include "util/clock.h"
#include "graph/matmodel.h"
#include "graph/shallow.h"
#include "graph/strings.h"
#include "util/memtrace.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include "hprof/io.h"
#include "util/vec.h"


static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ull;
	}
	h ^= 0xff; /* separator, so ("ab","c") differs from ("a","bc") */
	return h * 0x100000001b3ull;
}

/* A class the runtime or a library generates, numbered as it goes
 * (jdk.proxy12.$Proxy11, a lambda's $$Lambda$246/0x0000000800c1, a
 * reflection accessor, CGLIB's or ByteBuddy's): the numbers say nothing
 * of the code, so a path through one is the same path through the next. */
static int generated_class(const char *s)
{
	static const char *const marks[] = {"$Proxy", "jdk.proxy", "$$Lambda", "GeneratedMethodAccessor",
					    "GeneratedConstructorAccessor", "GeneratedSerializationConstructorAccessor",
					    "$$EnhancerBy", "$$FastClassBy", "$ByteBuddy$", "$HibernateProxy$"};

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (strstr(s, marks[i]))
			return 1;
	return 0;
}

/* fnv of a class name, a generated class's numbers (decimal, and hex
 * after 0x) folded to one mark */
static uint64_t fnv_class(uint64_t h, const char *s)
{
	char buf[512];
	size_t o = 0;

	if (!generated_class(s))
		return fnv(h, s);
	while (*s && o + 2 < sizeof(buf)) {
		if (s[0] == '0' && s[1] == 'x') {
			s += 2;
			while (isxdigit((unsigned char)*s))
				s++;
			buf[o++] = '*';
		} else if (isdigit((unsigned char)*s)) {
			while (isdigit((unsigned char)*s))
				s++;
			buf[o++] = '*';
		} else {
			buf[o++] = *s++;
		}
	}
	buf[o] = 0;
	return fnv(h, buf);
}

const struct ooms_edge_label *ooms_analysis_label(const struct ooms_analysis *a, uint32_t n)
{
	uint32_t i;

	return u64map_get(&a->label_of, (uint64_t)n + 1, &i) ? &a->labels[i] : NULL;
}

uint64_t ooms_analysis_signature(const struct ooms_analysis *a, const uint32_t *nodes, uint32_t len)
{
	const struct ooms_index *ix = &a->ix;
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint32_t i = 1; i < len; i++) {
		const struct ooms_edge_label *l = ooms_analysis_label(a, nodes[i]);

		if (!l || l->type == REF_NONE) {
			h = fnv(fnv_class(h, ooms_class_name(ix, ooms_cls(ix, nodes[i - 1]))), "?");
			continue;
		}
		h = fnv_class(h, ooms_class_name(ix, l->declared_in));
		if (l->type == REF_ARRAY_ENTRY)
			h = fnv(h, "[]");
		else if (l->type == REF_CLASS_LOADER || l->type == REF_CLASS_OBJECT)
			h = fnv(h, ooms_ref_type_name(l->type));
		else if (l->type == REF_STATIC_FIELD)
			h = fnv(h, ooms_index_str(ix, l->field));
		else
			h = fnv(h, ooms_index_str(ix, ix->fields[l->field].name));
	}
	return fnv_class(h, ooms_class_name(ix, ooms_cls(ix, nodes[len - 1])));
}

static int by_signature(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y; /* (signature, leak index) pairs */

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1];
}

static int by_group_size(const void *x, const void *y)
{
	const struct ooms_path_group *a = x, *b = y;
	/* what each holds, off the heap too (a direct buffer's memory) */
	uint64_t sa = a->retained_sum + a->native_sum, sb = b->retained_sum + b->native_sum;

	if (sa != sb)
		return sa < sb ? 1 : -1;
	return a->count < b->count ? 1 : a->count > b->count ? -1 : (a->signature > b->signature) - (a->signature < b->signature);
}

uint32_t ooms_analysis_path(const struct ooms_analysis *a, uint32_t n, uint32_t *out, uint32_t max)
{
	uint32_t len = 0, i;
	const struct ooms_edge_label *l;

	for (uint32_t x = n;; x = l->from) {
		len++;
		if (!(l = ooms_analysis_label(a, x)))
			break;
	}
	i = len;
	for (uint32_t x = n;; x = l->from) {
		if (--i < max)
			out[i] = x;
		if (!(l = ooms_analysis_label(a, x)))
			break;
	}
	return len;
}

/* A leak reached only across a library leak's reference or from a
 * library's GC root (paths.h) is a library leak: the first such on its
 * path from the root. */
void an_mark_library_leaks(struct ooms_analysis *a)
{
	const struct ooms_index *ix = &a->ix;

	for (size_t i = 0; a->paths.library && i < a->nleaks; i++) {
		uint32_t n = a->leaks[i].node;

		if (!(a->paths.library[n / 8] >> (n % 8) & 1))
			continue;
		uint32_t v = n, r, p;

		for (; v && (p = ooms_paths_parent(&a->paths, v)) && p != OOMS_NONE; v = p) {
			uint32_t m = ooms_edge_mark(ix, p, v);

			if (m >= OOMS_MARK_LIBRARY)
				a->leaks[i].library = m; /* the last found is the nearest the root */
		}
		if (v && (r = ooms_paths_root(ix, v)) != OOMS_NONE && ooms_root_mark(ix, r) >= OOMS_MARK_LIBRARY)
			a->leaks[i].library = ooms_root_mark(ix, r); /* the root itself is a library's */
	}
}

/* Asks for the name of each edge on node n's shortest path, up to a node
 * whose edge is asked for already. 0 or -ENOMEM. */
static int want_labels(struct ooms_analysis *a, uint32_t n, size_t *lcap)
{
	uint32_t p;

	for (uint32_t v = n; v && (p = ooms_paths_parent(&a->paths, v)) && p != OOMS_NONE; v = p) {
		uint32_t dummy;

		if (u64map_get(&a->label_of, (uint64_t)v + 1, &dummy))
			break; /* the rest of this path is known already */
		if (vec_reserve((void **)&a->labels, lcap, a->nlabels + 1, sizeof(*a->labels)))
			return -ENOMEM;
		a->labels[a->nlabels].from = p;
		a->labels[a->nlabels].to = v;
		if (u64map_put(&a->label_of, (uint64_t)v + 1, (uint32_t)a->nlabels++))
			return -ENOMEM;
	}
	return 0;
}

/* While the search's parents are there: the names of the edges on every
 * leak's and suspect's path (one more pass over the dump), each leak's
 * signature, and the groups of equal signatures. */
int an_group_leaks(struct ooms_analysis *a, struct ooms_err *err)
{
	struct ooms_index *ix = &a->ix;
	uint32_t *buf = NULL;
	size_t cap = 0; /* buf's, in elements */
	uint64_t *keys = NULL;
	size_t lcap = 0;
	double t0 = mono_s();
	int e = -ENOMEM;

	if (u64map_init(&a->label_of, (a->nleaks + a->nsuspects) * 8 + 16))
		goto out;
	/* every node on a leak's or a suspect's path needs the name of the edge into it */
	for (size_t i = 0; i < a->nleaks + a->nsuspects; i++)
		if (want_labels(a, i < a->nleaks ? a->leaks[i].node : a->suspects[i - a->nleaks].point, &lcap))
			goto out;
	/* and the largest class loader groups' examples: what keeps each alive */
	for (size_t i = 0; i < a->nloaders && i < OOMS_LOADER_PATHS; i++)
		if (a->loaders[i].example && want_labels(a, a->loaders[i].example, &lcap))
			goto out;
	if ((e = ooms_label_edges(ix, a->path, a->labels, a->nlabels, a->wants, a->nwants, err)))
		goto out;
	a->t_labels = mono_s() - t0;

	e = -ENOMEM;
	keys = huge_malloc((a->nleaks + 1) * 2 * sizeof(*keys));
	if (!keys)
		goto out;
	for (size_t i = 0; i < a->nleaks; i++) {
		uint32_t len = ooms_analysis_path(a, a->leaks[i].node, buf, (uint32_t)cap);

		if (len > cap) {
			if (vec_reserve((void **)&buf, &cap, len, sizeof(*buf)))
				goto out;
			len = ooms_analysis_path(a, a->leaks[i].node, buf, (uint32_t)cap);
		}
		/* the rule is part of the key: one object path, two reasons, two rows */
		keys[2 * i] = ooms_analysis_signature(a, buf, len) ^ ((uint64_t)a->leaks[i].rule * 0x9E3779B97F4A7C15ull);
		keys[2 * i + 1] = i;
	}
	vec_sort(keys, a->nleaks, 2 * sizeof(*keys), by_signature);
	for (size_t i = 0; i < a->nleaks; i++) {
		const struct ooms_leak *lk = &a->leaks[keys[2 * i + 1]];
		struct ooms_path_group *g;

		if (!i || keys[2 * i] != keys[2 * i - 2]) {
			if (!(g = VEC_PUSH(a->groups, a->ngroups, a->groups_cap)))
				goto out;
			memset(g, 0, sizeof(*g));
			g->signature = keys[2 * i];
			g->rule = lk->rule;
			g->library = lk->library;
			g->example = lk->node;
		}
		a->groups[a->ngroups - 1].count++;
	}
	a->leak_keys = keys;
	keys = NULL;
	e = 0;
out:
	free(buf);
	free(keys);
	if (e == -ENOMEM && !ooms_err_said(err))
		ooms_err_set(err, e, "out of memory grouping %zu leaks", a->nleaks);
	return e;
}

/* The records LeakCanary's watch texts need (key, description), asked for
 * in the names pass. */
int an_want_watches(struct ooms_analysis *a, size_t *cap)
{
	for (size_t i = 0; i < a->nleaks; i++) {
		uint32_t w = a->leaks[i].watcher;

		for (int k = 0; w != OOMS_NONE && k < 8; k++) {
			uint64_t v;
			uint32_t inst, chars;

			if (k == 4 || k == 5) /* uptimes: numbers */
				continue;
			if (ooms_probe_get(&a->probes[a->watch_probe[k]], w, &v) &&
			    !ooms_string_nodes(&a->ix, (uint32_t)v, &inst, &chars) &&
			    (ooms_want(&a->wants, &a->nwants, cap, inst) || ooms_want(&a->wants, &a->nwants, cap, chars)))
				return -ENOMEM;
		}
	}
	return 0;
}

/* g's watch, from its example's watcher w (a KeyedWeakReference, or
 * Matrix's DestroyedActivityInfo). */
static void read_watch(struct ooms_analysis *a, struct ooms_path_group *g, uint32_t w)
{
	uint64_t v;
	uint32_t inst, chars;

	g->watched = ooms_index_is_a(&a->ix, ooms_cls(&a->ix, w), OOMS_MATRIX_WATCHER) ? 2 : 1;
	g->watch_uptime_ms = g->retained_uptime_ms = INT64_MIN;
	for (int k = 0; k < 8; k++) /* even: keys; odd: descriptions (1.x name, 2.x description, Matrix's activity) */
		if (k != 4 && k != 5 && ooms_probe_get(&a->probes[a->watch_probe[k]], w, &v) &&
		    !ooms_string_nodes(&a->ix, (uint32_t)v, &inst, &chars))
			ooms_string_text(&a->ix, inst, chars, a->wants, a->nwants, k % 2 ? g->watch_description : g->watch_key,
					 k % 2 ? sizeof(g->watch_description) : sizeof(g->watch_key));
	if (ooms_probe_get(&a->probes[a->watch_probe[4]], w, &v))
		g->watch_uptime_ms = (int64_t)v;
	if (ooms_probe_get(&a->probes[a->watch_probe[5]], w, &v))
		g->retained_uptime_ms = (int64_t)v;
}

/* After the dominators: each group's retained sizes, its example (the
 * member that retains most) and that one's path; largest groups first. */
int an_finish_groups(struct ooms_analysis *a)
{
	size_t at = 0;

	for (size_t i = 0; i < a->ngroups; i++) {
		struct ooms_path_group *g = &a->groups[i];
		uint32_t len;

		uint32_t watcher = OOMS_NONE;

		for (uint32_t k = 0; k < g->count; k++, at++) {
			const struct ooms_leak *lk = &a->leaks[a->leak_keys[2 * at + 1]];
			uint64_t r = ooms_retained(&a->dom, lk->node);

			g->retained_sum += r;
			g->native_sum += ooms_native_retained(&a->native, lk->node);
			if (!k || r > g->retained_max) {
				g->retained_max = r;
				g->example = lk->node;
				watcher = lk->watcher;
			}
		}
		if (watcher != OOMS_NONE)
			read_watch(a, g, watcher);
		len = ooms_analysis_path(a, g->example, NULL, 0);
		g->nodes = huge_malloc((len + 1) * sizeof(*g->nodes));
		if (!g->nodes)
			return -ENOMEM;
		g->len = ooms_analysis_path(a, g->example, g->nodes, len);
		g->root = len ? ooms_paths_root(&a->ix, g->nodes[0]) : OOMS_NONE;
	}
	vec_sort(a->groups, a->ngroups, sizeof(*a->groups), by_group_size);
	return 0;
}

/* The largest class loader groups' examples: their paths from GC roots. */
int an_finish_loaders(struct ooms_analysis *a)
{
	for (size_t i = 0; i < a->nloaders && i < OOMS_LOADER_PATHS; i++) {
		struct ooms_loader_group *g = &a->loaders[i];
		uint32_t len;

		g->root = OOMS_NONE;
		if (!g->example)
			continue; /* the boot loader */
		len = ooms_analysis_path(a, g->example, NULL, 0);
		if (!(g->path = huge_malloc(((size_t)len + 1) * sizeof(*g->path))))
			return -ENOMEM;
		g->len = ooms_analysis_path(a, g->example, g->path, len);
		g->root = g->len ? ooms_paths_root(&a->ix, g->path[0]) : OOMS_NONE;
	}
	return 0;
}

/* Per class: instances, shallow bytes, and the retained size of all its
 * instances together (an instance counts unless an instance of the same
 * class dominates it), by a walk of the dominator tree. */
/* Each suspect's path (GC root -> accumulation point), its root and
 * signature; suspects with one signature merged into the largest. */
int an_finish_suspects(struct ooms_analysis *a)
{
	size_t kept = 0;

	for (size_t i = 0; i < a->nsuspects; i++) {
		struct ooms_suspect *s = &a->suspects[i];
		uint32_t len = ooms_analysis_path(a, s->point, NULL, 0);

		if (!(s->path = huge_malloc(((size_t)len + 1) * sizeof(*s->path))))
			return -ENOMEM;
		s->len = ooms_analysis_path(a, s->point, s->path, len);
		s->root = s->len ? ooms_paths_root(&a->ix, s->path[0]) : OOMS_NONE;
		s->signature = ooms_analysis_signature(a, s->path, s->len) ^ ((uint64_t)s->kind + 1) * 0x9E3779B97F4A7C15ull;
	}
	/* largest first already: a later one with a known signature joins it */
	for (size_t i = 0; i < a->nsuspects; i++) {
		struct ooms_suspect *s = &a->suspects[i];
		size_t k;

		for (k = 0; k < kept && a->suspects[k].signature != s->signature; k++)
			;
		if (k < kept && s->kind == SUSPECT_OBJECT) {
			a->suspects[k].count += s->count;
			a->suspects[k].retained += s->retained;
			free(s->path);
			continue;
		}
		a->suspects[kept++] = *s;
	}
	a->nsuspects = kept;
	return 0;
}

