/* One analysis of one dump (analyzer.h): the index, the rules, the dominators
 * of the retained-size model beside the paths, the class histogram, the
 * suspects, the threads, then the names pass (analyzer_groups.c names what
 * was found). */
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
static int sniff_runtime(const char *path, enum ooms_runtime *rt, struct ooms_err *err)
{
	char head[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct hprof_source src;
	long n = 0;

	if (fd < 0)
		return ooms_err_set(err, -errno, "%s: %s", path, strerror(errno));
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
static int set_rules(struct ooms_analysis *a, const char *path, const struct ooms_analyze_opts *o,
		     struct ooms_err *err)
{
	enum ooms_runtime rt = o->runtime;
	int e;

	if (rt == RUNTIME_AUTO && (e = sniff_runtime(path, &rt, err)))
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
		if ((e = ooms_leak_rules_add_if(&a->rules, o->leak_ifs[i], err)))
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
	return ooms_err_set(err, e, "out of memory");
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

/* -EFBIG said: what the cycles need against --max-memory. */
static void cyclic_message(const struct ooms_analysis *a, uint32_t cyclic, uint64_t max_memory, struct ooms_err *err)
{
	uint64_t base = a->ix.memory_estimate;

	ooms_err_set(err, -EFBIG,
		     "the analysis needs up to about %llu MB (%.1f M of the objects reach a cycle); --max-memory allows %llu MB",
		     (unsigned long long)((base + (uint64_t)cyclic * OOMS_MEMORY_PER_CYCLIC + (1 << 20) - 1) >> 20),
		     cyclic / 1e6, (unsigned long long)(max_memory >> 20));
}

/* MAT's dominators, from the second core (joined). */
static int mat_dominators(struct ooms_analysis *a, struct dom_job *j, pthread_t *thread, uint64_t max_memory,
			  struct ooms_err *err)
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
		cyclic_message(a, a->dom.cyclic, max_memory, err);
	return j->e;
}

/* Dominators and retained sizes in VisualVM's model: its own search,
 * whatever --ignore leaves out of the reported paths, so retained sizes
 * never depend on the paths asked for. Waits for the search, then for the
 * whole of VisualVM's model (join). MAT's search is made too, for the
 * unreachable objects. */
static int vv_dominators(struct ooms_analysis *a, struct dom_job *j, pthread_t *thread, enum ooms_retained_model model,
			 uint64_t max_memory, struct ooms_err *err)
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
			cyclic_message(a, cyclic, max_memory, err);
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

static int analyze(struct ooms_analysis *a, const char *path, const struct ooms_analyze_opts *o, struct ooms_err *err)
{
	double t0 = mono_s(), t;
	struct dom_job dj = {0};
	pthread_t dom_thread;
	int e, dom_started = 0;

	memset(a, 0, sizeof(*a));
	a->path = path;
	ooms_err_clear(err);
	if ((e = set_rules(a, path, o, err)))
		return e;
	/* the second pass's halves, then the dominators' search beside the paths */
	a->nthreads = o->threads ? o->threads : sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
	if ((e = ooms_index_build(&a->ix, path,
				  &(struct ooms_index_opts){a->probes, a->nprobes, o->ignores, o->nignores, o->library,
							    o->nlibrary, o->max_memory, o->progress, o->pctx, a->nthreads},
				  err)))
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
	dom_started = a->nthreads > 1 && !pthread_create(&dom_thread, NULL, dom_run, &dj);
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
	an_mark_library_leaks(a);
	a->t_leaks = mono_s() - t;
	if ((e = ooms_paths_reach_bitmap(&a->ix, &a->paths)))
		goto nomem;
	phase(o, OOMS_PHASE_DOMINATORS);
	if (o->retained_model == OOMS_RETAINED_MAT)
		e = mat_dominators(a, &dj, dom_started ? &dom_thread : NULL, o->max_memory, err);
	else
		e = vv_dominators(a, &dj, dom_started ? &dom_thread : NULL, o->retained_model, o->max_memory, err);
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
		    (e = an_want_watches(a, &wcap)))
			goto nomem;
	}
	a->t_threads = mono_s() - t;
	/* the paths of leaks and suspects named: the search's parents are used
	 * here for the last time */
	phase(o, OOMS_PHASE_NAMES);
	if ((e = an_group_leaks(a, err)))
		return e;
	ooms_paths_drop_parents(&a->paths);
	if ((e = an_finish_groups(a)) || (e = an_finish_suspects(a)) || (e = an_finish_loaders(a)))
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
	if (!ooms_err_said(err))
		ooms_err_set(err, e, "out of memory");
	return e;
}

int ooms_analyze(struct ooms_analysis *a, const char *path, const struct ooms_analyze_opts *o, struct ooms_err *err)
{
	int e = analyze(a, path, o, err);

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

static const char *const ran_out_names[] = {
	[OOMS_RAN_OUT_HEAP] = "heap", [OOMS_RAN_OUT_DIRECT] = "direct", [OOMS_RAN_OUT_METASPACE] = "metaspace"};

const char *ooms_ran_out_name(enum ooms_ran_out r)
{
	return (unsigned)r < sizeof(ran_out_names) / sizeof(ran_out_names[0]) ? ran_out_names[r] : "heap";
}

int ooms_ran_out_parse(const char *name, enum ooms_ran_out *out)
{
	for (size_t i = 0; i < sizeof(ran_out_names) / sizeof(ran_out_names[0]); i++)
		if (!strcmp(name, ran_out_names[i])) {
			*out = (enum ooms_ran_out)i;
			return 0;
		}
	return -1;
}
