/* Leak suspects in the analysis' text and JSON: one sentence each, in the
 * words of MAT's leak-suspects report, with the path from its GC root to
 * the accumulation point and what accumulates there. */
#include "analyze/findings.h"
#include "analyze/findings_int.h"
#include "run/analysis.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define PATH_HEAD 8 /* a path longer than these in the text: its first and last steps */
#define PATH_TAIL 4

static double share(const struct ooms_analysis *a, uint64_t bytes)
{
	return a->reachable_shallow ? 100.0 * (double)bytes / (double)a->reachable_shallow : 0;
}

/* The holder of what accumulates: the collection around the accumulation
 * point when the point is its backing array (ArrayList.elementData), else
 * the point; its position on the path. */
static uint32_t holder_at(const struct ooms_analysis *a, const struct ooms_suspect *s)
{
	const struct ooms_index *ix = &a->ix;
	const struct ooms_edge_label *l;
	uint32_t at = s->len - 1;

	if (s->len >= 2 && (ooms_kind(ix, s->point) == NODE_OBJ_ARRAY || ooms_kind(ix, s->point) == NODE_PRIM_ARRAY) &&
	    ooms_kind(ix, s->path[at - 1]) == NODE_INSTANCE && (l = ooms_analysis_label(a, s->point)) &&
	    l->type == REF_INSTANCE_FIELD)
		return at - 1;
	return at;
}

/* How the holder at path position at is reached: "static `A.f`",
 * "`A.f`", "`A[3]`" or "GC root StickyClass". */
static void held_by(const struct ooms_analysis *a, const struct ooms_suspect *s, uint32_t at, char *buf, size_t len)
{
	const struct ooms_index *ix = &a->ix;
	const struct ooms_edge_label *l;
	char ref[512];

	if (at == 0) {
		snprintf(buf, len, "GC root %s",
			 s->root != OOMS_NONE ? ooms_root_kind_name(ix->roots[s->root].kind) : "?");
		return;
	}
	l = ooms_analysis_label(a, s->path[at]);
	report_reference_text(a, s->path[at - 1], l, ref, sizeof(ref));
	snprintf(buf, len, "%s`%s`", l && l->type == REF_STATIC_FIELD ? "static " : "", ref);
}

static const char *accumulated_class(const struct ooms_analysis *a, uint32_t c)
{
	return c < a->ix.nclasses ? ooms_class_name(&a->ix, c) : "(class objects)";
}

int ooms_analysis_suspect_line(const struct ooms_analysis *a, size_t i, char *buf, size_t len)
{
	const struct ooms_suspect *s;
	char by[600], b1[32];
	size_t n;

	if (i >= a->nsuspects || !len)
		return -1;
	s = &a->suspects[i];
	if (s->kind == SUSPECT_INSTANCES) {
		report_human_bytes(s->retained, b1, sizeof(b1));
		snprintf(buf, len, "%u `%s` instances that no one object holds (each a GC root or held from more than "
			 "one place), retain %s together, %.0f %% of the heap",
			 s->count, accumulated_class(a, s->cls), b1, share(a, s->retained));
		return 0;
	}
	{
		uint32_t at = holder_at(a, s);

		held_by(a, s, at, by, sizeof(by));
		n = (size_t)snprintf(buf, len, "%u `%s` referenced by %s", s->count,
				     report_node_class(&a->ix, s->path[at]), by);
	}
	if (!s->ntop) {
		report_human_bytes(s->point_retained, b1, sizeof(b1));
		snprintf(buf + n, n < len ? len - n : 0, " retains %s, %.0f %% of the heap", b1,
			 share(a, s->point_retained));
		return 0;
	}
	report_human_bytes(s->top[0].retained, b1, sizeof(b1));
	n += (size_t)snprintf(buf + n, n < len ? len - n : 0, " accumulates %" PRIu64 " `%s`", s->top[0].count,
			      accumulated_class(a, s->top[0].cls));
	if (s->chain_cls != OOMS_NONE && n < len)
		n += (size_t)snprintf(buf + n, len - n, " along a chain of %" PRIu64 " `%s`", s->chain_len,
				      accumulated_class(a, s->chain_cls));
	if (n < len)
		snprintf(buf + n, len - n, ", %s, %.0f %% of the heap", b1, share(a, s->top[0].retained));
	return 0;
}

void report_suspects_json(struct json *j, const struct ooms_analysis *a)
{
	const struct ooms_index *ix = &a->ix;
	char line[2048], sig[20];

	run_anw_list(j, RUN_AN_SUSPECTS);
	for (size_t i = 0; i < a->nsuspects; i++) {
		const struct ooms_suspect *s = &a->suspects[i];
		struct run_anw_accumulated acc[sizeof(s->top) / sizeof(s->top[0])];

		ooms_analysis_suspect_line(a, i, line, sizeof(line));
		snprintf(sig, sizeof(sig), "%016" PRIx64, s->signature);
		for (uint32_t k = 0; k < s->ntop; k++)
			acc[k] = (struct run_anw_accumulated){accumulated_class(a, s->top[k].cls), s->top[k].count,
							     s->top[k].retained};
		run_anw_suspect_begin(j, &(struct run_anw_suspect){
			.instances = s->kind == SUSPECT_INSTANCES, .description = line,
			.class_name = report_node_class(ix, s->node), .signature = sig,
			.gc_root = s->root != OOMS_NONE ? ooms_root_kind_name(ix->roots[s->root].kind) : "?",
			.is_class = ooms_kind(ix, s->node) == NODE_CLASS, .object_id = ooms_index_id(ix, s->node),
			.count = s->count, .retained_size = s->retained, .heap_share = share(a, s->retained) / 100,
			.point_class = report_node_class(ix, s->point), .point_id = ooms_index_id(ix, s->point),
			.point_retained_size = s->point_retained, .point_children = s->children,
			.chain_class = s->chain_cls != OOMS_NONE ? accumulated_class(a, s->chain_cls) : NULL,
			.chain_length = s->chain_len, .accumulates = acc, .naccumulates = s->ntop, .path_length = s->len,
		});
		report_json_path(j, a, s->path, s->len, s->root, "ACCUMULATION_POINT");
		run_anw_item_end(j);
	}
	run_anw_list_end(j);
}

void report_suspects_text(const struct ooms_analysis *a, unsigned top, FILE *f)
{
	const struct ooms_index *ix = &a->ix;
	char line[2048], b1[32], ref[1024];

	fprintf(f, "\nsuspects: %zu (objects or classes over %.0f %% of the reachable heap; no rule needed)\n",
		a->nsuspects, a->suspect_share * 100);
	for (size_t i = 0; i < a->nsuspects && i < top; i++) {
		const struct ooms_suspect *s = &a->suspects[i];
		const struct ooms_root *root = s->root != OOMS_NONE ? &ix->roots[s->root] : NULL;

		ooms_analysis_suspect_line(a, i, line, sizeof(line));
		fprintf(f, "\n#%zu  %s  [%016" PRIx64 "]\n", i + 1, line, s->signature);
		report_human_bytes(s->retained, b1, sizeof(b1));
		fprintf(f, "    suspect %s%s@0x%" PRIx64 " retains %s (%.0f %%)\n", ooms_kind(ix, s->node) == NODE_CLASS ? "class " : "",
			report_node_class(ix, s->node), ooms_index_id(ix, s->node), b1, share(a, s->retained));
		fprintf(f, "    GC root %s: %s@0x%" PRIx64 "\n", root ? ooms_root_kind_name(root->kind) : "?",
			s->len ? report_node_class(ix, s->path[0]) : "?", s->len ? ooms_index_id(ix, s->path[0]) : 0);
		for (uint32_t k = 0; k + 1 < s->len; k++) {
			const struct ooms_edge_label *l = ooms_analysis_label(a, s->path[k + 1]);

			if (k == PATH_HEAD && s->len > PATH_HEAD + PATH_TAIL + 2) { /* a long path: its ends */
				fprintf(f, "      %-16s (%u more)\n", "...", s->len - 1 - PATH_HEAD - PATH_TAIL);
				k = s->len - 1 - PATH_TAIL - 1;
				continue;
			}
			report_reference_text(a, s->path[k], l, ref, sizeof(ref));
			fprintf(f, "      %-16s %s\n", ooms_ref_type_name(l ? l->type : REF_NONE), ref);
		}
		report_human_bytes(s->point_retained, b1, sizeof(b1));
		fprintf(f, "      %-16s %s@0x%" PRIx64 " retains %s over %" PRIu64 " dominated objects\n", "ACCUMULATION",
			report_node_class(ix, s->point), ooms_index_id(ix, s->point), b1, s->children);
		for (uint32_t k = 0; k < s->ntop; k++) {
			report_human_bytes(s->top[k].retained, b1, sizeof(b1));
			fprintf(f, "    %s %" PRIu64 " x %s, %s\n", k ? "           " : "accumulates", s->top[k].count,
				accumulated_class(a, s->top[k].cls), b1);
		}
	}
	if (a->nsuspects > top)
		fprintf(f, "\n(%zu more suspects: --top or --json)\n", a->nsuspects - top);
}
