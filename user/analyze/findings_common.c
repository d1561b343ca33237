/* The helpers the analysis writers share (findings_int.h), below findings.c and
 * its parts (findings_growth.c, findings_suspects.c, findings_threads.c): a
 * path's reference texts and its KOOM-style JSON, a node's class, sizes for
 * people. */
#include "analyze/findings_int.h"
#include "util/units.h"

#include <inttypes.h>
#include <stdio.h>
#include "run/analysis.h"

/* The thread object whose serial is s, or 0. */
static uint32_t thread_node(const struct ooms_index *ix, uint32_t s)
{
	for (uint32_t i = 0; i < ix->nroots; i++)
		if (ix->roots[i].kind == HPROF_ROOT_THREAD_OBJECT && ix->roots[i].thread_serial == s)
			return ix->roots[i].node;
	return 0;
}

static int is_local_root(uint8_t kind)
{
	return kind == HPROF_ROOT_JAVA_FRAME || kind == HPROF_ROOT_JNI_LOCAL || kind == HPROF_ROOT_NATIVE_STACK ||
	       kind == HPROF_ROOT_THREAD_BLOCK;
}

/* One path element's reference text, KOOM style: "Class.field",
 * "Type[][3]", or the local's thread. */
void report_reference_text(const struct ooms_analysis *a, uint32_t from, const struct ooms_edge_label *l,
			   char *buf, size_t len)
{
	const struct ooms_index *ix = &a->ix;

	if (!l || l->type == REF_NONE) {
		snprintf(buf, len, "%s.?", ooms_class_name(ix, ooms_cls(ix, from)));
	} else if (l->type == REF_ARRAY_ENTRY) {
		snprintf(buf, len, "%s[%u]", ooms_class_name(ix, ooms_cls(ix, from)), l->index);
	} else if (l->type == REF_CLASS_LOADER) {
		snprintf(buf, len, "%s.<classLoader>", ooms_class_name(ix, l->declared_in));
	} else if (l->type == REF_CLASS_OBJECT) {
		snprintf(buf, len, "%s.<class>", ooms_class_name(ix, ooms_cls(ix, from)));
	} else if (l->type == REF_STATIC_FIELD) {
		snprintf(buf, len, "%s.%s", ooms_class_name(ix, l->declared_in), ooms_index_str(ix, l->field));
	} else {
		snprintf(buf, len, "%s.%s", ooms_class_name(ix, ooms_cls(ix, from)),
			 ooms_index_str(ix, ix->fields[l->field].name));
	}
}

static const char *declared_class(const struct ooms_analysis *a, uint32_t from, const struct ooms_edge_label *l)
{
	const struct ooms_index *ix = &a->ix;

	if (l && l->type != REF_NONE && l->declared_in != OOMS_NONE)
		return ooms_class_name(ix, l->declared_in);
	return ooms_class_name(ix, ooms_cls(ix, from));
}

/* The class name of node n: the class itself for class objects. */
const char *report_node_class(const struct ooms_index *ix, uint32_t n)
{
	if (ooms_kind(ix, n) == NODE_CLASS)
		return ooms_class_name(ix, ooms_class_of_node(ix, n));
	return ooms_class_name(ix, ooms_cls(ix, n));
}

/* A path (GC root first) in KOOM's gcPaths form; the last node's
 * referenceType is last_type. */
void report_json_path(struct json *j, const struct ooms_analysis *a, const uint32_t *nodes, uint32_t len,
		      uint32_t root_index, const char *last_type)
{
	const struct ooms_index *ix = &a->ix;
	const struct ooms_root *root = root_index != OOMS_NONE ? &ix->roots[root_index] : NULL;
	char ref[1024];

	run_anw_path_begin(j);
	if (root && is_local_root(root->kind)) {
		uint32_t t = thread_node(ix, root->thread_serial);

		if (t)
			snprintf(ref, sizeof(ref), "%s@0x%" PRIx64 " local%s", report_node_class(ix, t), ooms_index_id(ix, t),
				 root->frame >= 0 ? " (java frame)" : "");
		else
			snprintf(ref, sizeof(ref), "thread %u local", root->thread_serial);
		run_anw_step(j, &(struct run_anw_step){ref, "LOCAL", t ? report_node_class(ix, t) : "java.lang.Thread", 0, 0});
	}
	for (uint32_t i = 0; i + 1 < len; i++) {
		uint32_t from = nodes[i];
		const struct ooms_edge_label *l = ooms_analysis_label(a, nodes[i + 1]);

		report_reference_text(a, from, l, ref, sizeof(ref));
		run_anw_step(j, &(struct run_anw_step){ref, ooms_ref_type_name(l ? l->type : REF_NONE),
						       declared_class(a, from, l), 1, ooms_index_id(ix, from)});
	}
	if (len) {
		uint32_t last = nodes[len - 1];

		run_anw_step(j, &(struct run_anw_step){report_node_class(ix, last), last_type, report_node_class(ix, last),
						       1, ooms_index_id(ix, last)});
	}
	run_anw_path_end(j);
}


void report_human_bytes(uint64_t b, char *buf, size_t len)
{
	units_bytes((double)b, buf, len);
}
