#include "analyze/analyzer.h"
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
static void mark_library_leaks(struct ooms_analysis *a)
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
static int group_leaks(struct ooms_analysis *a, char *err, size_t errlen)
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
	if ((e = ooms_label_edges(ix, a->path, a->labels, a->nlabels, a->wants, a->nwants, err, errlen)))
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
	if (e == -ENOMEM && !err[0])
		snprintf(err, errlen, "out of memory grouping %zu leaks", a->nleaks);
	return e;
}

/* The records LeakCanary's watch texts need (key, description), asked for
 * in the names pass. */
static int want_watches(struct ooms_analysis *a, size_t *cap)
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
static int finish_groups(struct ooms_analysis *a)
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
static int finish_loaders(struct ooms_analysis *a)
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
static int finish_suspects(struct ooms_analysis *a)
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

/* Per class: instances, shallow bytes, what no GC root reaches (MAT's
 * unreachable objects histogram), and the retained size of all instances
 * together: each counted at its topmost instance in the dominator tree. */
static int class_histogram(struct ooms_analysis *a)
{
	const struct ooms_index *ix = &a->ix;
	const uint32_t *first = a->tree.first, *child = a->tree.child;
	uint32_t n = ix->nodes, *active = huge_calloc(ix->nclasses + 1, sizeof(uint32_t));
	struct frame { uint32_t node, next; } *stack = NULL;
	size_t depth = 0, cap = 0;

	a->class_stats = huge_calloc(ix->nclasses + 1, sizeof(*a->class_stats));
	if (!active || !a->class_stats || vec_reserve((void **)&stack, &cap, 1024, sizeof(*stack))) {
		free(active);
		return -ENOMEM;
	}
	for (uint32_t v = 1; v < n; v++) {
		uint32_t c = ooms_cls(ix, v);
		uint64_t s = ooms_shallow_size(ix, v);

		a->total_shallow += s;
		if (c != OOMS_NONE) {
			a->class_stats[c].count++;
			a->class_stats[c].shallow += s;
			if (!ooms_matmodel_reached(&a->mat, v)) {
				a->class_stats[c].unreachable++;
				a->class_stats[c].unreachable_shallow += s;
			}
		}
		if (ooms_dominated(&a->dom, v))
			a->reachable_shallow += s;
	}
	stack[depth].node = 0;
	stack[depth++].next = first[0];
	while (depth) {
		uint32_t u = stack[depth - 1].node, c;

		if (stack[depth - 1].next < first[u + 1]) {
			uint32_t v = child[stack[depth - 1].next++];

			c = ooms_cls(ix, v);
			if (c != OOMS_NONE && !active[c]++)
				a->class_stats[c].retained += ooms_retained(&a->dom, v);
			if (vec_reserve((void **)&stack, &cap, depth + 1, sizeof(*stack))) {
				free(active);
				free(stack);
				return -ENOMEM;
			}
			stack[depth].node = v;
			stack[depth++].next = first[v];
			continue;
		}
		depth--;
		c = ooms_cls(ix, u);
		if (u && c != OOMS_NONE)
			active[c]--;
	}
	free(active);
	free(stack);
	return 0;
}

static void phase(const struct ooms_analyze_opts *o, int which)
{
	{ char w[16]; snprintf(w, sizeof w, "phase %d", which); memtrace(w); }
	if (o->progress)
		o->progress(o->pctx, which, 0, 0);
}

/* The runtime from the dump's header: Android for JAVA PROFILE 1.0.3. */
static int sniff_runtime(const char *path, enum ooms_runtime *rt, char *err, size_t errlen)
{
	char head[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct hprof_source src;
	long n = 0;

	if (fd < 0) {
		int e = -errno;

		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return e;
	}
	if (!hprof_source_open(&src, fd)) {
		n = hprof_source_read(&src, head, sizeof(head) - 1);
		hprof_source_free(&src);
	}
	close(fd);
	head[n > 0 ? n : 0] = 0;
	*rt = strstr(head, "JAVA PROFILE 1.0.3") ? RUNTIME_ANDROID : RUNTIME_JVM;
	return 0;
}

/* The leak rules and the probes the index reads for them and for the
 * threads' names. The runtime decides the built-in rules, which decide the
 * probes, so for auto the header is read first (the index reads it again). */
static int set_rules(struct ooms_analysis *a, const char *path, const struct ooms_analyze_opts *o, char *err,
		     size_t errlen)
{
	enum ooms_runtime rt = o->runtime;
	int e;

	if (rt == RUNTIME_AUTO && (e = sniff_runtime(path, &rt, err, errlen)))
		return e;
	a->runtime = rt;
	if ((e = ooms_leak_rules_builtin(&a->rules, rt, o->bitmap_w, o->bitmap_h)))
		goto nomem;
	for (size_t i = 0; i < o->nleak_classes; i++)
		if ((e = ooms_leak_rules_add_class(&a->rules, o->leak_classes[i])))
			goto nomem;
	if (o->ran_out == OOMS_RAN_OUT_DIRECT &&
	    (e = ooms_leak_rules_add_class_why(&a->rules, "java.nio.DirectByteBuffer",
					       "Direct buffer memory ran out: each java.nio.DirectByteBuffer holds its "
					       "size of it (native)")))
		goto nomem;
	if (o->ran_out == OOMS_RAN_OUT_METASPACE &&
	    (e = ooms_leak_rules_add_class_why(&a->rules, "java.lang.ClassLoader",
					       "Metaspace ran out: each class loader holds its classes' metadata "
					       "until it is collected")))
		goto nomem;
	for (size_t i = 0; i < o->nleak_ifs; i++)
		if ((e = ooms_leak_rules_add_if(&a->rules, o->leak_ifs[i], err, errlen)))
			return e;
	if ((e = ooms_leak_probes(&a->rules, &a->probes, &a->nprobes)))
		goto nomem;
	/* and the threads' names and LeakCanary's watches */
	{
		static const char *const extra[9][2] = {
			{"java.lang.Thread", "name"},
			{"com.squareup.leakcanary.KeyedWeakReference", "key"},
			{"com.squareup.leakcanary.KeyedWeakReference", "name"},
			{"leakcanary.KeyedWeakReference", "key"},
			{"leakcanary.KeyedWeakReference", "description"},
			{"leakcanary.KeyedWeakReference", "watchUptimeMillis"},
			{"leakcanary.KeyedWeakReference", "retainedUptimeMillis"},
			{OOMS_MATRIX_WATCHER, "mKey"},
			{OOMS_MATRIX_WATCHER, "mActivityName"},
		};
		struct ooms_probe *p = huge_realloc(a->probes, (a->nprobes + 9 + OOMS_NATIVE_PROBES) * sizeof(*p));

		if (!p) {
			e = -ENOMEM;
			goto nomem;
		}
		a->probes = p;
		for (int k = 0; k < 9 + OOMS_NATIVE_PROBES; k++) {
			memset(&a->probes[a->nprobes], 0, sizeof(*a->probes));
			a->probes[a->nprobes].class_name = k < 9 ? extra[k][0] : ooms_native_probe_fields[k - 9][0];
			a->probes[a->nprobes].field_name = k < 9 ? extra[k][1] : ooms_native_probe_fields[k - 9][1];
			if (k == 9)
				a->native_probe = (uint32_t)a->nprobes;
			else if (k && k < 9)
				a->watch_probe[k - 1] = (uint32_t)a->nprobes;
			else if (!k)
				a->name_probe = (uint32_t)a->nprobes;
			a->nprobes++;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return e;
}

/* The retained sizes need nothing of the paths: they are computed on the
 * second core while the paths are searched. MAT's model (matmodel.h): its
 * search, then its dominator rounds. VisualVM's (vvmodel.h): its search and
 * tree objects; once its search is done, the dominators' first step runs
 * beside its tree marking. */
struct dom_job {
	const struct ooms_index *ix;
	enum ooms_retained_model model;
	uint64_t max_cyclic;          /* 0: no limit */
	struct ooms_matmodel mat;
	struct ooms_dominators dom;   /* MAT's */
	struct ooms_vvmodel vv;
	int e, search_e;
	sem_t searched;               /* VisualVM's search is done */
};

static void vv_searched(void *ctx, int e)
{
	struct dom_job *j = ctx;

	j->search_e = e;
	sem_post(&j->searched);
}

static void *dom_run(void *arg)
{
	struct dom_job *j = arg;

	if (j->model == OOMS_RETAINED_MAT) {
		if (!(j->e = ooms_matmodel_compute(j->ix, &j->mat)))
			j->e = ooms_matmodel_dominators(j->ix, &j->mat, OOMS_MAT_AUTO, j->max_cyclic, &j->dom);
		return NULL;
	}
	j->e = ooms_vvmodel_compute_then(j->ix, &j->vv, vv_searched, j);
	return NULL;
}

static void cyclic_message(const struct ooms_analysis *a, uint32_t cyclic, uint64_t max_memory, char *err,
			   size_t errlen)
{
	uint64_t base = a->ix.memory_estimate;

	snprintf(err, errlen, "the analysis needs up to about %llu MB (%.1f M of the objects reach a cycle); --max-memory allows %llu MB",
		 (unsigned long long)((base + (uint64_t)cyclic * OOMS_MEMORY_PER_CYCLIC + (1 << 20) - 1) >> 20),
		 cyclic / 1e6, (unsigned long long)(max_memory >> 20));
}

/* MAT's dominators, from the second core (joined). */
static int mat_dominators(struct ooms_analysis *a, struct dom_job *j, pthread_t *thread, uint64_t max_memory,
			  char *err, size_t errlen)
{
	ooms_paths_spilled(&a->paths); /* written while the paths' search went on */
	if (thread)
		pthread_join(*thread, NULL);
	a->mat = j->mat;
	memset(&j->mat, 0, sizeof(j->mat));
	a->dom = j->dom;
	memset(&j->dom, 0, sizeof(j->dom));
	a->retained_model = OOMS_RETAINED_MAT;
	a->t_model = a->mat.seconds; /* beside the paths, on the other core */
	if (j->e == -EFBIG)
		cyclic_message(a, a->dom.cyclic, max_memory, err, errlen);
	return j->e;
}

/* Dominators and retained sizes in VisualVM's model: its own search,
 * whatever --ignore leaves out of the reported paths, so retained sizes
 * never depend on the paths asked for. Waits for the search, then for the
 * whole of VisualVM's model (join). MAT's search is made too, for the
 * unreachable objects. */
static int vv_dominators(struct ooms_analysis *a, struct dom_job *j, pthread_t *thread, enum ooms_retained_model model,
			 uint64_t max_memory, char *err, size_t errlen)
{
	struct ooms_dom_graph gr = {0};
	struct ooms_dom_work *w = NULL;
	uint32_t cyclic = 0;
	int e;

	while (sem_wait(&j->searched) && errno == EINTR)
		;
	ooms_paths_spilled(&a->paths); /* written while the search ran */
	if (!(e = j->search_e) && !(e = ooms_dom_graph_vv(&a->ix, &j->vv, &gr)))
		e = ooms_dominators_begin(&a->ix, &gr, j->max_cyclic, &cyclic, &w);
	if (thread)
		pthread_join(*thread, NULL);
	if (!e && j->e)
		e = j->e;
	if (e) {
		ooms_dominators_abandon(w);
		ooms_dom_graph_free(&gr);
		if (e == -EFBIG) /* the heap's cycles need more than the first estimate allowed for */
			cyclic_message(a, cyclic, max_memory, err, errlen);
		return e;
	}
	a->tree_objects = j->vv.tree_objects;
	a->retained_model = model;
	e = ooms_dominators_finish(w, model, &j->vv, &a->dom);
	ooms_dom_graph_free(&gr);
	a->t_model = j->vv.seconds; /* beside the paths, on the other core */
	ooms_vvmodel_free(&j->vv);
	if (!e)
		e = ooms_matmodel_compute(&a->ix, &a->mat);
	return e;
}

static int analyze(struct ooms_analysis *a, const char *path, const struct ooms_analyze_opts *o, char *err,
		   size_t errlen)
{
	double t0 = mono_s(), t;
	struct dom_job dj = {0};
	pthread_t dom_thread;
	int e, dom_started = 0;

	memset(a, 0, sizeof(*a));
	a->path = path;
	err[0] = 0;
	if ((e = set_rules(a, path, o, err, errlen)))
		return e;
	if ((e = ooms_index_build(&a->ix, path,
				  &(struct ooms_index_opts){a->probes, a->nprobes, o->ignores, o->nignores, o->library,
							    o->nlibrary, o->max_memory, o->progress, o->pctx},
				  err, errlen)))
		return e;
	if ((e = ooms_shallow_setup(&a->ix))) /* the size model, from the indexed classes */
		goto nomem;
	a->t_index = mono_s() - t0;
	phase(o, OOMS_PHASE_PATHS);
	dj.ix = &a->ix;
	dj.model = o->retained_model;
	if (o->max_memory) { /* what is left for the cycles past the first estimate */
		uint64_t base = a->ix.memory_estimate;

		dj.max_cyclic = o->max_memory > base ? o->max_memory - base : 1;
	}
	if (sem_init(&dj.searched, 0, 0)) {
		e = -errno;
		goto nomem;
	}
	dom_started = !pthread_create(&dom_thread, NULL, dom_run, &dj);
	if (!dom_started)
		dom_run(&dj); /* no second thread: in turn */
	if ((e = ooms_paths_compute(&a->ix, &a->paths, 1)))
		goto nomem;
	a->t_paths = a->paths.seconds;
	t = mono_s();
	if ((e = ooms_leaks_find(&a->ix, &a->rules, a->probes, a->paths.parent, a->paths.late, &a->leaks, &a->nleaks)))
		goto nomem;
	{
		uint32_t c = ooms_index_class_by_name(&a->ix, "libcore.util.NativeAllocationRegistry");

		for (uint32_t v = 1; c != OOMS_NONE && v < a->ix.nodes; v++)
			a->native_registry += ooms_kind(&a->ix, v) == NODE_INSTANCE && ooms_cls(&a->ix, v) == c;
	}
	mark_library_leaks(a);
	a->t_leaks = mono_s() - t;
	if ((e = ooms_paths_reach_bitmap(&a->ix, &a->paths)))
		goto nomem;
	phase(o, OOMS_PHASE_DOMINATORS);
	if (o->retained_model == OOMS_RETAINED_MAT)
		e = mat_dominators(a, &dj, dom_started ? &dom_thread : NULL, o->max_memory, err, errlen);
	else
		e = vv_dominators(a, &dj, dom_started ? &dom_thread : NULL, o->retained_model, o->max_memory, err,
				  errlen);
	dom_started = 0;
	sem_destroy(&dj.searched);
	if (e)
		goto nomem;
	a->t_dominators = a->dom.seconds;
	memtrace("dominators");
	if ((e = ooms_native_compute(&a->ix, &a->probes[a->native_probe], a->dom.idom, &a->native)) ||
	    (e = ooms_domtree_build(&a->dom, a->ix.nodes, &a->tree)))
		goto nomem;
	if (o->ran_out == OOMS_RAN_OUT_METASPACE && ((e = ooms_loaders_group(&a->ix, &a->dom, &a->loaders, &a->nloaders)) ||
						     (e = ooms_duplicate_classes(&a->ix, &a->dups, &a->ndups))))
		goto nomem;
	t = mono_s();
	phase(o, OOMS_PHASE_HISTOGRAM);
	if ((e = class_histogram(a)))
		goto nomem;
	a->t_histogram = mono_s() - t;
	t = mono_s();
	a->suspect_share = o->suspect_share > 0 ? o->suspect_share : OOMS_SUSPECT_SHARE;
	if ((e = ooms_suspects_find(&a->ix, &a->dom, &a->tree, a->reachable_shallow, a->suspect_share, &a->suspects,
				    &a->nsuspects)))
		goto nomem;
	a->t_suspects = mono_s() - t;
	ooms_domtree_free(&a->tree);
	t = mono_s();
	{
		size_t wcap = 0;

		if ((e = ooms_threads_find(&a->ix, &a->dom, &a->probes[a->name_probe], &a->threads)) ||
		    (e = ooms_threads_wants(&a->ix, &a->threads, &a->wants, &a->nwants, &wcap)) ||
		    (e = want_watches(a, &wcap)))
			goto nomem;
	}
	a->t_threads = mono_s() - t;
	/* the paths of leaks and suspects named: the search's parents are used
	 * here for the last time */
	phase(o, OOMS_PHASE_NAMES);
	if ((e = group_leaks(a, err, errlen)))
		return e;
	ooms_paths_drop_parents(&a->paths);
	if ((e = finish_groups(a)) || (e = finish_suspects(a)) || (e = finish_loaders(a)))
		goto nomem;
	ooms_threads_finish(&a->ix, &a->threads, a->wants, a->nwants);
	free(a->wants);
	a->wants = NULL;
	a->nwants = 0;
	a->t_total = mono_s() - t0;
	memtrace("end");
	return 0;
nomem:
	if (dom_started) {
		pthread_join(dom_thread, NULL);
		sem_destroy(&dj.searched);
	}
	ooms_vvmodel_free(&dj.vv);
	ooms_matmodel_free(&dj.mat);
	ooms_dominators_free(&dj.dom);
	if (!err[0])
		snprintf(err, errlen, "out of memory");
	return e;
}

int ooms_analyze(struct ooms_analysis *a, const char *path, const struct ooms_analyze_opts *o, char *err,
		 size_t errlen)
{
	int e = analyze(a, path, o, err, errlen);

	if (e) /* nothing kept of what failed */
		ooms_analysis_free(a);
	return e;
}

void ooms_analysis_free(struct ooms_analysis *a)
{
	for (size_t i = 0; i < a->ngroups; i++)
		free(a->groups[i].nodes);
	free(a->groups);
	free(a->leak_keys);
	free(a->labels);
	free(a->leaks);
	free(a->class_stats);
	ooms_suspects_free(a->suspects, a->nsuspects);
	ooms_domtree_free(&a->tree);
	ooms_threads_free(&a->threads);
	ooms_native_free(&a->native);
	ooms_loaders_free(a->loaders, a->nloaders);
	free(a->dups);
	free(a->wants);
	u64map_free(&a->label_of);
	ooms_probes_free(a->probes, a->nprobes);
	free(a->probes);
	ooms_leak_rules_free(&a->rules);
	ooms_paths_free(&a->paths);
	ooms_dominators_free(&a->dom);
	ooms_matmodel_free(&a->mat);
	ooms_index_free(&a->ix);
	memset(a, 0, sizeof(*a));
}
