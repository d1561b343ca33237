#include "analyze/report.h"
#include "util/vec.h"
#include "analyze/report_int.h"
#include "graph/shallow.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "util/json.h"

static const char *runtime_name(enum ooms_runtime rt)
{
	return rt == RUNTIME_ANDROID ? "android" : "jvm";
}

/* Indices of the top n of count items by key, largest first. */
/* The n nodes (1..nodes-1) that retain most, largest first. */
static uint32_t *top_retained(const struct ooms_analysis *a, size_t n, size_t *out_n)
{
	uint32_t *idx, nodes = a->ix.nodes;
	size_t k = 0;

	if (n > (size_t)nodes - 1)
		n = nodes - 1;
	idx = malloc((n + 1) * sizeof(*idx));
	*out_n = 0;
	if (!idx)
		return NULL;
	for (uint32_t v = 1; v < nodes && n; v++) { /* insertion into a short sorted list */
		uint64_t r = ooms_retained(&a->dom, v);
		size_t at;

		if (k == n && r <= ooms_retained(&a->dom, idx[k - 1]))
			continue;
		at = k < n ? k++ : n - 1;
		while (at > 0 && ooms_retained(&a->dom, idx[at - 1]) < r) {
			idx[at] = idx[at - 1];
			at--;
		}
		idx[at] = v;
	}
	*out_n = k;
	return idx;
}

static uint32_t *top_by(size_t count, size_t n, const void *base, size_t stride, size_t key_off, size_t *out_n)
{
	uint32_t *idx;
	size_t k = 0;

	if (n > count)
		n = count;
	idx = malloc((n + 1) * sizeof(*idx));
	if (!idx) {
		*out_n = 0;
		return NULL;
	}
#define KEY(i) (*(const uint64_t *)((const char *)base + (size_t)(i) * stride + key_off))
	for (size_t i = 0; i < count && n; i++) { /* insertion into a short sorted list */
		uint64_t v = KEY(i);
		size_t at;

		if (k == n && v <= KEY(idx[k - 1]))
			continue;
		at = k < n ? k++ : n - 1;
		while (at > 0 && KEY(idx[at - 1]) < v) {
			idx[at] = idx[at - 1];
			at--;
		}
		idx[at] = (uint32_t)i;
	}
#undef KEY
	*out_n = k;
	return idx;
}

/* Over 100 lines on purpose: the JSON document's fields in schema order;
 * split up, the schema (KOOM's names first) would be scattered. */
void ooms_analysis_json(const struct ooms_analysis *a, unsigned top, FILE *f)
{
	const struct ooms_index *ix = &a->ix;
	struct json j;
	size_t nt = 0;
	uint32_t *t;

	json_init(&j, f, 0);
	json_obj(&j);
	json_kstr(&j, "schema", OOMS_ANALYSIS_SCHEMA);
	json_kbool(&j, "analysisDone", 1);
	json_kint(&j, "reAnalysisTimes", 0);

	json_key(&j, "runningInfo");
	json_obj(&j);
	json_kstr(&j, "file", a->path);
	json_kstr(&j, "format", ix->header.orig_format);
	json_kstr(&j, "stripped", ix->header.strip_mode[0] ? ix->header.strip_mode : NULL);
	json_kint(&j, "idSize", ix->id_size);
	json_kstr(&j, "runtime", runtime_name(a->runtime));
	json_kuint(&j, "dumpBytes", ix->file_bytes);
	json_kuint(&j, "objects", ix->nodes - 1);
	json_kuint(&j, "classes", ix->nclasses);
	json_kuint(&j, "gcRoots", ix->nroots);
	json_kuint(&j, "references", ix->nedges);
	json_kuint(&j, "weakReferences", ix->weak_refs);
	json_kuint(&j, "danglingReferences", ix->dangling);
	json_kuint(&j, "reachableObjects", a->dom.reachable ? a->dom.reachable - 1 : 0);
	json_kuint(&j, "shallowSize", a->total_shallow);
	json_kuint(&j, "reachableShallowSize", a->reachable_shallow);
	json_kuint(&j, "nativeAllocationRegistry", a->native_registry);
	json_key(&j, "nativeRegistered"); /* objects with a NativeAllocationRegistry size, and the sizes' sum */
	json_obj(&j);
	json_kuint(&j, "objects", a->native.objects);
	json_kuint(&j, "bytes", a->native.bytes);
	json_obj_end(&j);
	json_key(&j, "directBuffers"); /* java.nio.DirectByteBuffers with memory to free, and its sum */
	json_obj(&j);
	json_kuint(&j, "objects", a->native.direct_objects);
	json_kuint(&j, "bytes", a->native.direct_bytes);
	json_obj_end(&j);
	json_key(&j, "gcRootKinds"); /* root records by kind, as Shark names them */
	json_obj(&j);
	for (size_t k = 0; k < OOMS_ROOT_KINDS; k++) {
		uint64_t count = 0;

		for (uint32_t i = 0; i < ix->nroots; i++)
			count += ix->roots[i].kind == ooms_root_kinds[k];
		if (count)
			json_kuint(&j, ooms_root_kind_name(ooms_root_kinds[k]), count);
	}
	json_obj_end(&j);
	json_kstr(&j, "retainedModel", a->retained_model == OOMS_RETAINED_DOMINATED ? "dominated" : "visualvm");
	json_key(&j, "gcRootOrder"); /* the kinds paths start from, preferred first */
	json_arr(&j);
	for (size_t i = 0; i < sizeof(ooms_root_order) / sizeof(ooms_root_order[0]); i++)
		json_str(&j, ooms_root_order[i]);
	json_arr_end(&j);
	json_kstr(&j, "referencesNotCrossed", "Weak, Soft, Final, Phantom (and Cleaner) referents; a finalizer's "
					      "referent that holds (Dalvik) only when nothing else reaches it");
	json_kuint(&j, "stackTraces", ix->ntraces);
	json_kuint(&j, "stackFrames", ix->nframes);
	json_kdbl(&j, "analysisSeconds", a->t_total);
	json_obj_end(&j);

	json_key(&j, "classInfos");
	json_arr(&j);
	for (size_t i = 0; i < a->rules.n; i++) {
		const struct ooms_leak_rule *r = &a->rules.rules[i];

		json_obj(&j);
		json_kstr(&j, "className", r->class_name);
		json_kuint(&j, "instanceCount", r->instances);
		json_kuint(&j, "leakInstanceCount", r->leaks);
		json_kstr(&j, "leakReason", r->reason);
		json_obj_end(&j);
	}
	json_arr_end(&j);

	json_key(&j, "gcPaths");
	json_arr(&j);
	for (size_t i = 0; i < a->ngroups; i++) {
		const struct ooms_path_group *g = &a->groups[i];
		char sig[20];

		snprintf(sig, sizeof(sig), "%016" PRIx64, g->signature);
		json_obj(&j);
		json_kuint(&j, "instanceCount", g->count);
		json_kstr(&j, "leakReason", a->rules.rules[g->rule].reason);
		json_kbool(&j, "libraryLeak", g->library != 0);
		json_kstr(&j, "libraryLeakReference", g->library ? ix->library[g->library - OOMS_MARK_LIBRARY] : NULL);
		if (g->watched) {
			json_key(&j, g->watched == 2 ? "matrix" : "leakCanary");
			json_obj(&j);
			json_kstr(&j, "key", g->watch_key);
			json_kstr(&j, "description", g->watch_description);
			if (g->watch_uptime_ms != INT64_MIN)
				json_kint(&j, "watchUptimeMillis", g->watch_uptime_ms);
			if (g->retained_uptime_ms != INT64_MIN)
				json_kint(&j, "retainedUptimeMillis", g->retained_uptime_ms);
			if (g->watch_uptime_ms != INT64_MIN && g->retained_uptime_ms != INT64_MIN && g->retained_uptime_ms >= 0)
				json_kint(&j, "retainedAfterWatchMillis", g->retained_uptime_ms - g->watch_uptime_ms);
			json_obj_end(&j);
		}
		json_kstr(&j, "gcRoot", g->root != OOMS_NONE ? ooms_root_kind_name(ix->roots[g->root].kind) : "?");
		json_kstr(&j, "signature", sig);
		json_kstr(&j, "className", report_node_class(ix, g->example));
		if (ooms_native_retained(&a->native, g->example))
			json_kuint(&j, "retainedNativeSize", ooms_native_retained(&a->native, g->example));
		json_khex(&j, "leakObjectId", ooms_index_id(ix, g->example));
		json_kuint(&j, "retainedSize", g->retained_max);
		json_kuint(&j, "retainedSizeTotal", g->retained_sum);
		if (g->native_sum)
			json_kuint(&j, "nativeSizeTotal", g->native_sum);
		json_kuint(&j, "pathLength", g->len);
		report_json_path(&j, a, g->nodes, g->len, g->root, "LEAKING_INSTANCE");
		json_obj_end(&j);
	}
	json_arr_end(&j);

	report_suspects_json(&j, a);
	report_threads_json(&j, a);
	report_growth_json(&j, a);
	if (a->loaders) { /* --ran-out metaspace */
		json_key(&j, "classLoaders");
		json_arr(&j);
		for (size_t i = 0; i < a->nloaders && i < top; i++) {
			const struct ooms_loader_group *g = &a->loaders[i];

			json_obj(&j);
			json_kstr(&j, "className", g->cls == OOMS_NONE ? "<bootstrap>" : ooms_class_name(ix, g->cls));
			json_kuint(&j, "loaders", g->loaders);
			json_kuint(&j, "classes", g->classes);
			json_kuint(&j, "retainedSize", g->retained);
			if (g->example)
				json_khex(&j, "exampleId", ooms_index_id(ix, g->example));
			if (g->path) { /* what keeps the example alive */
				json_kstr(&j, "gcRoot", g->root != OOMS_NONE ? ooms_root_kind_name(ix->roots[g->root].kind)
									     : NULL);
				report_json_path(&j, a, g->path, g->len, g->root, "CLASS_LOADER");
			}
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_key(&j, "duplicateClasses");
		json_arr(&j);
		for (size_t i = 0; i < a->ndups && i < top; i++) {
			json_obj(&j);
			json_kstr(&j, "className", ooms_class_name(ix, a->dups[i].cls));
			json_kuint(&j, "loaders", a->dups[i].loaders);
			json_kuint(&j, "classes", a->dups[i].classes);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_kuint(&j, "duplicateClassNames", a->ndups);
	}

	/* top retainers: objects by retained size */
	json_key(&j, "topRetainers");
	json_arr(&j);
	t = top_retained(a, top, &nt);
	for (size_t i = 0; t && i < nt; i++) {
		uint32_t n = t[i];

		json_obj(&j);
		json_khex(&j, "objectId", ooms_index_id(ix, n));
		json_kstr(&j, "className", report_node_class(ix, n));
		json_kbool(&j, "isClass", ooms_kind(ix, n) == NODE_CLASS);
		json_kuint(&j, "shallowSize", ooms_shallow_size(ix, n));
		json_kuint(&j, "retainedSize", ooms_retained(&a->dom, n));
		if (ooms_native_retained(&a->native, n))
			json_kuint(&j, "retainedNativeSize", ooms_native_retained(&a->native, n));
		json_obj_end(&j);
	}
	free(t);
	json_arr_end(&j);

	json_key(&j, "classHistogram");
	json_arr(&j);
	t = top_by(ix->nclasses, ix->nclasses, a->class_stats, sizeof(*a->class_stats),
		   offsetof(struct ooms_class_stat, retained), &nt);
	for (size_t i = 0; t && i < nt; i++) {
		const struct ooms_class_stat *s = &a->class_stats[t[i]];

		if (!s->count)
			continue;
		json_obj(&j);
		json_kstr(&j, "className", ooms_class_name(ix, t[i]));
		json_kuint(&j, "instanceCount", s->count);
		json_kuint(&j, "shallowSize", s->shallow);
		json_kuint(&j, "retainedSize", s->retained);
		json_obj_end(&j);
	}
	free(t);
	json_arr_end(&j);

	json_key(&j, "timings");
	json_obj(&j);
	json_kdbl(&j, "indexPass1", ix->seconds_pass1);
	json_kdbl(&j, "indexPass2", ix->seconds_pass2);
	json_kdbl(&j, "dominators", a->t_dominators);
	json_kdbl(&j, "shortestPaths", a->t_paths);
	json_kdbl(&j, "leakRules", a->t_leaks);
	json_kdbl(&j, "referenceNames", a->t_labels);
	json_kdbl(&j, "visualvmModel", a->t_vvmodel);
	json_kdbl(&j, "classHistogram", a->t_histogram);
	json_kdbl(&j, "suspects", a->t_suspects);
	json_kdbl(&j, "threads", a->t_threads);
	json_kdbl(&j, "total", a->t_total);
	json_obj_end(&j);
	json_obj_end(&j);
	json_end_line(&j);
}

int ooms_analysis_leak_line(const struct ooms_analysis *a, size_t i, char *buf, size_t len)
{
	const struct ooms_index *ix = &a->ix;
	const struct ooms_path_group *g;
	const struct ooms_root *root;
	char ref[1024];
	size_t n;

	if (i >= a->ngroups || !len)
		return -1;
	g = &a->groups[i];
	root = g->root != OOMS_NONE ? &ix->roots[g->root] : NULL;
	n = (size_t)snprintf(buf, len, "%s x%u [%016" PRIx64 "] from GC root %s %s", report_node_class(ix, g->example),
			     g->count, g->signature, root ? ooms_root_kind_name(root->kind) : "?",
			     g->len ? report_node_class(ix, g->nodes[0]) : "?");
	for (uint32_t k = 0; k + 1 < g->len && n < len; k++) {
		const struct ooms_edge_label *l = ooms_analysis_label(a, g->nodes[k + 1]);

		report_reference_text(a, g->nodes[k], l, ref, sizeof(ref));
		n += (size_t)snprintf(buf + n, len - n, " -> %s", ref);
	}
	return 0;
}

void ooms_analysis_text(const struct ooms_analysis *a, unsigned top, FILE *f)
{
	const struct ooms_index *ix = &a->ix;
	char b1[32], b2[32], ref[1024];
	size_t nt = 0;
	uint32_t *t;

	report_human_bytes(a->total_shallow, b1, sizeof(b1));
	report_human_bytes(a->reachable_shallow, b2, sizeof(b2));
	fprintf(f, "dump        %s\n", a->path);
	fprintf(f, "format      %s, %u-byte ids%s%s, runtime %s\n", ix->header.orig_format, ix->id_size,
		ix->header.strip_mode[0] ? ", stripped " : "", ix->header.strip_mode, runtime_name(a->runtime));
	fprintf(f, "heap        %u objects (%s), %u reachable (%s), %u classes, %u GC roots, %u references\n",
		ix->nodes - 1, b1, a->dom.reachable ? a->dom.reachable - 1 : 0, b2, ix->nclasses, ix->nroots,
		ix->nedges);
	if (a->native.objects) {
		report_human_bytes(a->native.bytes, b1, sizeof(b1));
		fprintf(f, "native      %" PRIu64 " objects free native memory when collected (NativeAllocationRegistry): %s\n",
			a->native.objects, b1);
	}
	if (a->native.direct_objects) {
		report_human_bytes(a->native.direct_bytes, b1, sizeof(b1));
		fprintf(f, "direct      %" PRIu64 " java.nio.DirectByteBuffer hold %s of direct memory (off the heap: "
			   "counted to what holds them as native)\n",
			a->native.direct_objects, b1);
	}
	fprintf(f, "retained    %s\n", a->retained_model == OOMS_RETAINED_DOMINATED
					      ? "every object's shallow size in each of its dominators (--retained-model dominated)"
					      : "as VisualVM's heap library counts it (--retained-model visualvm)");
	fprintf(f, "time        %.2f s (index %.2f + %.2f, dominators %.2f, paths %.2f beside VisualVM's tree objects %.2f, names %.2f)\n",
		a->t_total, ix->seconds_pass1, ix->seconds_pass2, a->t_dominators, a->t_paths, a->t_vvmodel, a->t_labels);

	fprintf(f, "\nleaks: %zu objects in %zu groups (paths from GC roots: %s, %s, %s first; never across "
		   "weak, soft or phantom referents)\n",
		a->nleaks, a->ngroups, ooms_root_order[0], ooms_root_order[1], ooms_root_order[2]);
	for (size_t i = 0; i < a->ngroups && i < top; i++) {
		const struct ooms_path_group *g = &a->groups[i];
		const struct ooms_root *root = g->root != OOMS_NONE ? &ix->roots[g->root] : NULL;

		report_human_bytes(g->retained_max, b1, sizeof(b1));
		report_human_bytes(g->retained_sum, b2, sizeof(b2));
		fprintf(f, "\n#%zu  %s x%u, retained %s each at most, %s in all", i + 1, report_node_class(ix, g->example),
			g->count, b1, b2);
		if (g->native_sum) {
			report_human_bytes(g->native_sum, b1, sizeof(b1));
			fprintf(f, " (and %s native)", b1);
		}
		fprintf(f, "  [%016" PRIx64 "]\n", g->signature);
		fprintf(f, "    %s\n", a->rules.rules[g->rule].reason);
		if (g->library)
			fprintf(f, "    Library Leak (no fault of the app): %s\n", ix->library[g->library - OOMS_MARK_LIBRARY]);
		if (g->watched)
			fprintf(f, "    %s watch: key %s%s%s\n", g->watched == 2 ? "Matrix" : "LeakCanary",
				g->watch_key[0] ? g->watch_key : "?",
				g->watch_description[0] ? ", " : "", g->watch_description);
		fprintf(f, "    GC root %s: %s@0x%" PRIx64 "\n", root ? ooms_root_kind_name(root->kind) : "?",
			g->len ? report_node_class(ix, g->nodes[0]) : "?", g->len ? ooms_index_id(ix, g->nodes[0]) : 0);
		for (uint32_t k = 0; k + 1 < g->len; k++) {
			const struct ooms_edge_label *l = ooms_analysis_label(a, g->nodes[k + 1]);

			report_reference_text(a, g->nodes[k], l, ref, sizeof(ref));
			fprintf(f, "      %-16s %s\n", ooms_ref_type_name(l ? l->type : REF_NONE), ref);
		}
		if (g->len)
			fprintf(f, "      %-16s %s@0x%" PRIx64 "\n", "LEAKING", report_node_class(ix, g->example),
				ooms_index_id(ix, g->example));
	}
	if (a->ngroups > top)
		fprintf(f, "\n(%zu more groups: --top or --json)\n", a->ngroups - top);

	if (a->loaders) { /* --ran-out metaspace */
		fprintf(f, "\nclass loaders by their class (the classes they define hold Metaspace until they are collected)\n");
		for (size_t i = 0; i < a->nloaders && i < top; i++) {
			const struct ooms_loader_group *g = &a->loaders[i];

			report_human_bytes(g->retained, b1, sizeof(b1));
			fprintf(f, "  %8" PRIu64 " loader(s) %8" PRIu64 " classes  %10s  %s\n", g->loaders, g->classes, b1,
				g->cls == OOMS_NONE ? "<bootstrap>" : ooms_class_name(ix, g->cls));
			if (!g->path)
				continue;
			/* what keeps one of them (the one defining the most) alive */
			if (g->root == OOMS_NONE) {
				fprintf(f, "      (no path from a GC root: garbage at the dump)\n");
				continue;
			}
			fprintf(f, "      GC root %s: %s@0x%" PRIx64 "\n", ooms_root_kind_name(ix->roots[g->root].kind),
				report_node_class(ix, g->path[0]), ooms_index_id(ix, g->path[0]));
			for (uint32_t k = 0; k + 1 < g->len; k++) {
				const struct ooms_edge_label *l = ooms_analysis_label(a, g->path[k + 1]);

				report_reference_text(a, g->path[k], l, ref, sizeof(ref));
				fprintf(f, "        %-16s %s\n", ooms_ref_type_name(l ? l->type : REF_NONE), ref);
			}
		}
		if (a->ndups) {
			fprintf(f, "\nclass names defined by more than one loader (%zu names; MAT's duplicate classes)\n",
				a->ndups);
			for (size_t i = 0; i < a->ndups && i < top; i++)
				fprintf(f, "  %8" PRIu64 " loader(s) %8" PRIu64 " classes  %s\n", a->dups[i].loaders,
					a->dups[i].classes, ooms_class_name(ix, a->dups[i].cls));
		}
	}
	report_suspects_text(a, top, f);
	report_growth_text(a, top, f);

	fprintf(f, "\ntop retainers\n");
	t = top_retained(a, top, &nt);
	for (size_t i = 0; t && i < nt; i++) {
		uint32_t n = t[i];

		report_human_bytes(ooms_retained(&a->dom, n), b1, sizeof(b1));
		fprintf(f, "  %12s  %s%s@0x%" PRIx64, b1, ooms_kind(ix, n) == NODE_CLASS ? "class " : "",
			report_node_class(ix, n), ooms_index_id(ix, n));
		if (ooms_native_retained(&a->native, n)) {
			report_human_bytes(ooms_native_retained(&a->native, n), b1, sizeof(b1));
			fprintf(f, "  (and %s native)", b1);
		}
		fputc('\n', f);
	}
	free(t);

	fprintf(f, "\nclasses by retained size (all instances together)\n");
	fprintf(f, "  %12s %12s %12s  %s\n", "retained", "shallow", "instances", "class");
	t = top_by(ix->nclasses, top, a->class_stats, sizeof(*a->class_stats),
		   offsetof(struct ooms_class_stat, retained), &nt);
	for (size_t i = 0; t && i < nt; i++) {
		const struct ooms_class_stat *s = &a->class_stats[t[i]];

		report_human_bytes(s->retained, b1, sizeof(b1));
		report_human_bytes(s->shallow, b2, sizeof(b2));
		fprintf(f, "  %12s %12s %12" PRIu64 "  %s\n", b1, b2, s->count, ooms_class_name(ix, t[i]));
	}
	free(t);
	fprintf(f, "\nclasses by instance count\n");
	t = top_by(ix->nclasses, top, a->class_stats, sizeof(*a->class_stats),
		   offsetof(struct ooms_class_stat, count), &nt);
	for (size_t i = 0; t && i < nt; i++)
		fprintf(f, "  %12" PRIu64 "  %s\n", a->class_stats[t[i]].count, ooms_class_name(ix, t[i]));
	free(t);
	fprintf(f, "\nclasses by shallow size\n");
	t = top_by(ix->nclasses, top, a->class_stats, sizeof(*a->class_stats),
		   offsetof(struct ooms_class_stat, shallow), &nt);
	for (size_t i = 0; t && i < nt; i++) {
		report_human_bytes(a->class_stats[t[i]].shallow, b1, sizeof(b1));
		fprintf(f, "  %12s  %s\n", b1, ooms_class_name(ix, t[i]));
	}
	free(t);
	report_threads_text(a, f);
}

static const struct ooms_index *tsv_ix;

static int by_id(const void *x, const void *y)
{
	uint64_t a = ooms_index_id(tsv_ix, *(const uint32_t *)x), b = ooms_index_id(tsv_ix, *(const uint32_t *)y);

	return a < b ? -1 : a > b;
}

int ooms_analysis_retained_tsv(const struct ooms_analysis *a, FILE *f)
{
	const struct ooms_index *ix = &a->ix;
	uint32_t *order = malloc((size_t)ix->nodes * sizeof(*order)), n = 0;

	if (!order)
		return -1;
	for (uint32_t v = 1; v < ix->nodes; v++)
		order[n++] = v;
	tsv_ix = ix;
	vec_sort(order, n, sizeof(*order), by_id);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = order[i];

		fprintf(f, "%" PRIx64 "\t%" PRIu64 "\t%" PRIu64 "%s\n", ooms_index_id(ix, v), ooms_shallow_size(ix, v),
			ooms_retained(&a->dom, v), ooms_kind(ix, v) == NODE_CLASS ? "\tclass" : "");
	}
	free(order);
	return ferror(f) ? -1 : 0;
}
