#include "analyze/findings.h"
#include "util/vec.h"
#include "analyze/findings_int.h"
#include "graph/shallow.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "util/json.h"
#include "run/analysis.h"

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

/* runningInfo's figures. */
static void info_of(const struct ooms_analysis *a, struct run_anw_info *in, struct run_anw_count *kinds)
{
	const struct ooms_index *ix = &a->ix;

	*in = (struct run_anw_info){
		.file = a->path, .format = ix->header.orig_format,
		.stripped = ix->header.strip_mode[0] ? ix->header.strip_mode : NULL, .id_size = ix->id_size,
		.runtime = runtime_name(a->runtime), .dump_bytes = ix->file_bytes, .objects = ix->nodes - 1,
		.classes = ix->nclasses, .gc_roots = ix->nroots, .references = ix->nedges,
		.weak_references = ix->weak_refs, .dangling_references = ix->dangling,
		.reachable_objects = a->dom.reachable ? a->dom.reachable - 1 : 0, .shallow_size = a->total_shallow,
		.reachable_shallow_size = a->reachable_shallow, .native_allocation_registry = a->native_registry,
		.native_objects = a->native.objects, .native_bytes = a->native.bytes,
		.direct_objects = a->native.direct_objects, .direct_bytes = a->native.direct_bytes,
		.root_kinds = kinds,
		.retained_model = ooms_retained_model_name(a->retained_model),
		.model_rounds = a->retained_model == OOMS_RETAINED_MAT ? a->mat.rounds : 0,
		.unreachable_objects = a->mat.unreachable, .unreachable_shallow_size = a->mat.unreachable_bytes,
		.root_order = ooms_root_order, .nroot_order = sizeof(ooms_root_order) / sizeof(ooms_root_order[0]),
		.not_crossed = "Weak, Soft, Final, Phantom (and Cleaner) referents; a finalizer's referent that holds "
			       "(Dalvik) only when nothing else reaches it",
		.stack_traces = ix->ntraces, .stack_frames = ix->nframes, .seconds = a->t_total, .threads = a->nthreads,
	};
	for (size_t k = 0; k < OOMS_ROOT_KINDS; k++) { /* root records by kind, as Shark names them */
		uint64_t count = 0;

		for (uint32_t i = 0; i < ix->nroots; i++)
			count += ix->roots[i].kind == ooms_root_kinds[k];
		if (count)
			kinds[in->nroot_kinds++] = (struct run_anw_count){ooms_root_kind_name(ooms_root_kinds[k]), count};
	}
}

static void leak_groups_json(struct json *j, const struct ooms_analysis *a)
{
	const struct ooms_index *ix = &a->ix;

	run_anw_list(j, RUN_AN_GC_PATHS);
	for (size_t i = 0; i < a->ngroups; i++) {
		const struct ooms_path_group *g = &a->groups[i];
		char sig[20];

		snprintf(sig, sizeof(sig), "%016" PRIx64, g->signature);
		run_anw_leak_begin(j, &(struct run_anw_leak){
			.instance_count = g->count, .leak_reason = a->rules.rules[g->rule].reason,
			.library_leak = g->library ? ix->library[g->library - OOMS_MARK_LIBRARY] : NULL,
			.watcher = g->watched == 2 ? RUN_AN_MATRIX : g->watched ? RUN_AN_LEAKCANARY : RUN_AN_UNWATCHED,
			.watch_key = g->watch_key, .watch_description = g->watch_description,
			.watch_uptime_ms = g->watch_uptime_ms, .retained_uptime_ms = g->retained_uptime_ms,
			.gc_root = g->root != OOMS_NONE ? ooms_root_kind_name(ix->roots[g->root].kind) : "?",
			.signature = sig, .class_name = report_node_class(ix, g->example),
			.retained_native_size = ooms_native_retained(&a->native, g->example),
			.leak_object_id = ooms_index_id(ix, g->example), .retained_size = g->retained_max,
			.retained_size_total = g->retained_sum, .native_size_total = g->native_sum, .path_length = g->len,
		});
		report_json_path(j, a, g->nodes, g->len, g->root, "LEAKING_INSTANCE");
		run_anw_item_end(j);
	}
	run_anw_list_end(j);
}

/* --ran-out metaspace: class loaders by their class, and the class names
 * more than one defines. */
static void loaders_json(struct json *j, const struct ooms_analysis *a, unsigned top)
{
	const struct ooms_index *ix = &a->ix;

	run_anw_list(j, RUN_AN_CLASS_LOADERS);
	for (size_t i = 0; i < a->nloaders && i < top; i++) {
		const struct ooms_loader_group *g = &a->loaders[i];

		run_anw_loader_begin(j, &(struct run_anw_loader){
			.class_name = g->cls == OOMS_NONE ? "<bootstrap>" : ooms_class_name(ix, g->cls),
			.loaders = g->loaders, .classes = g->classes, .retained_size = g->retained,
			.example_id = g->example ? ooms_index_id(ix, g->example) : 0, .has_path = g->path != NULL,
			.gc_root = g->root != OOMS_NONE ? ooms_root_kind_name(ix->roots[g->root].kind) : NULL,
		});
		if (g->path) /* what keeps the example alive */
			report_json_path(j, a, g->path, g->len, g->root, "CLASS_LOADER");
		run_anw_item_end(j);
	}
	run_anw_list_end(j);
	run_anw_list(j, RUN_AN_DUPLICATE_CLASSES);
	for (size_t i = 0; i < a->ndups && i < top; i++)
		run_anw_duplicate(j, &(struct run_anw_duplicate){ooms_class_name(ix, a->dups[i].cls), a->dups[i].loaders,
								  a->dups[i].classes});
	run_anw_list_end(j);
	run_anw_duplicate_names(j, a->ndups);
}

void ooms_analysis_json(const struct ooms_analysis *a, unsigned top, FILE *f)
{
	const struct ooms_index *ix = &a->ix;
	struct run_anw_count kinds[OOMS_ROOT_KINDS];
	struct run_anw_info info;
	struct json j;
	size_t nt = 0;
	uint32_t *t;

	json_init(&j, f, 0);
	info_of(a, &info, kinds);
	run_anw_begin(&j, &info);
	run_anw_list(&j, RUN_AN_CLASS_INFOS);
	for (size_t i = 0; i < a->rules.n; i++) {
		const struct ooms_leak_rule *r = &a->rules.rules[i];

		run_anw_class_info(&j, &(struct run_anw_class_info){r->class_name, r->reason, r->instances, r->leaks});
	}
	run_anw_list_end(&j);
	leak_groups_json(&j, a);
	report_suspects_json(&j, a);
	report_threads_json(&j, a);
	report_growth_json(&j, a);
	if (a->loaders)
		loaders_json(&j, a, top);

	run_anw_list(&j, RUN_AN_TOP_RETAINERS); /* objects by retained size */
	t = top_retained(a, top, &nt);
	for (size_t i = 0; t && i < nt; i++) {
		uint32_t n = t[i];

		run_anw_retainer(&j, &(struct run_anw_retainer){
			.object_id = ooms_index_id(ix, n), .class_name = report_node_class(ix, n),
			.is_class = ooms_kind(ix, n) == NODE_CLASS, .shallow_size = ooms_shallow_size(ix, n),
			.retained_size = ooms_retained(&a->dom, n),
			.retained_native_size = ooms_native_retained(&a->native, n),
		});
	}
	free(t);
	run_anw_list_end(&j);

	run_anw_list(&j, RUN_AN_CLASS_HISTOGRAM);
	t = top_by(ix->nclasses, ix->nclasses, a->class_stats, sizeof(*a->class_stats),
		   offsetof(struct ooms_class_stat, retained), &nt);
	for (size_t i = 0; t && i < nt; i++) {
		const struct ooms_class_stat *s = &a->class_stats[t[i]];

		if (s->count)
			run_anw_class(&j, &(struct run_anw_class){ooms_class_name(ix, t[i]), s->count, s->shallow,
								  s->retained});
	}
	free(t);
	run_anw_list_end(&j);

	run_anw_list(&j, RUN_AN_UNREACHABLE); /* MAT's unreachable objects histogram */
	t = top_by(ix->nclasses, ix->nclasses, a->class_stats, sizeof(*a->class_stats),
		   offsetof(struct ooms_class_stat, unreachable_shallow), &nt);
	for (size_t i = 0; t && i < nt; i++) {
		const struct ooms_class_stat *s = &a->class_stats[t[i]];

		if (s->unreachable)
			run_anw_unreachable(&j, &(struct run_anw_class){ooms_class_name(ix, t[i]), s->unreachable,
									 s->unreachable_shallow, 0});
	}
	free(t);
	run_anw_list_end(&j);

	run_anw_end(&j, &(struct run_anw_timings){
		.index_pass1 = ix->seconds_pass1, .index_pass2 = ix->seconds_pass2, .dominators = a->t_dominators,
		.shortest_paths = a->t_paths, .leak_rules = a->t_leaks, .reference_names = a->t_labels,
		.model_search = a->t_model, .class_histogram = a->t_histogram, .suspects = a->t_suspects,
		.threads = a->t_threads, .total = a->t_total,
	});
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
	if (a->mat.unreachable) {
		report_human_bytes(a->mat.unreachable_bytes, b1, sizeof(b1));
		fprintf(f, "unreachable %" PRIu64 " objects (%s) no GC root reaches: garbage the dump kept, left out of "
			   "retained sizes (by class below)\n",
			a->mat.unreachable, b1);
	}
	switch (a->retained_model) {
	case OOMS_RETAINED_MAT:
		fprintf(f, "retained    as Eclipse MAT counts it: reachable objects only (--retained-model mat)\n");
		fprintf(f, "time        %.2f s (index %.2f + %.2f, dominators %.2f%s beside paths %.2f, names %.2f)\n",
			a->t_total, ix->seconds_pass1, ix->seconds_pass2, a->t_dominators,
			a->mat.exact ? " (the graph as it is)" : a->mat.rounds > 1 ? " (in rounds)" : "", a->t_paths,
			a->t_labels);
		break;
	case OOMS_RETAINED_DOMINATED:
	case OOMS_RETAINED_VISUALVM:
		fprintf(f, "retained    %s\n", a->retained_model == OOMS_RETAINED_DOMINATED
						      ? "every object's shallow size in each of its dominators, VisualVM's graph (--retained-model dominated)"
						      : "as VisualVM's heap library counts it (--retained-model visualvm)");
		fprintf(f, "time        %.2f s (index %.2f + %.2f, dominators %.2f, paths %.2f beside VisualVM's tree objects %.2f, names %.2f)\n",
			a->t_total, ix->seconds_pass1, ix->seconds_pass2, a->t_dominators, a->t_paths, a->t_model,
			a->t_labels);
		break;
	}

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
	if (a->mat.unreachable) {
		fprintf(f, "\nunreachable objects by class (no GC root reaches them; not in any retained size)\n");
		fprintf(f, "  %12s %12s  %s\n", "shallow", "objects", "class");
		t = top_by(ix->nclasses, top, a->class_stats, sizeof(*a->class_stats),
			   offsetof(struct ooms_class_stat, unreachable_shallow), &nt);
		for (size_t i = 0; t && i < nt; i++) {
			const struct ooms_class_stat *s = &a->class_stats[t[i]];

			if (!s->unreachable)
				continue;
			report_human_bytes(s->unreachable_shallow, b1, sizeof(b1));
			fprintf(f, "  %12s %12" PRIu64 "  %s\n", b1, s->unreachable, ooms_class_name(ix, t[i]));
		}
		free(t);
	}
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

		fprintf(f, "%" PRIx64 "\t%" PRIu64 "\t%" PRIu64 "%s%s\n", ooms_index_id(ix, v), ooms_shallow_size(ix, v),
			ooms_retained(&a->dom, v), ooms_kind(ix, v) == NODE_CLASS ? "\tclass" : "",
			ooms_dominated(&a->dom, v) ? "" : "\tunreachable");
	}
	free(order);
	return ferror(f) ? -1 : 0;
}
