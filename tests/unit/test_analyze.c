/* One analysis of a dump (user/analyze/analyzer.c) and its parts: the
 * shortest paths from GC roots and their root kinds (paths.c, alone and in
 * the analysis), the leak
 * rules (leaks.c: --leak-class, --leak-if, Android's built-in rules,
 * Matrix's watch), leaks grouped by path signature, --ignore and
 * --library-leak, MAT's retained sizes and unreachable objects, the class
 * histogram; the report's leak lines and JSON (report.c); and bad input. On "the world" (heapgen.h) and tests/tools'
 * synthetic Android dumps, whose answers are worked out by hand. */
#include <errno.h>
#define _GNU_SOURCE
#include <json-c/json.h>
#include "analyze/analyzer.h"
#include "analyze/findings.h"
#include "tap.h"
#include "heapgen.h"

static struct hg_tmp tmp;

/* the command's defaults (KOOM's Bitmap bar), then what a test sets */
#define OPTS(...) ((struct ooms_analyze_opts){__VA_ARGS__})

static int run(struct ooms_analysis *a, const char *path, struct ooms_analyze_opts o, struct ooms_err *err)
{
	int e;

	if (!o.bitmap_w)
		o.bitmap_w = 768, o.bitmap_h = 1366;
	e = ooms_analyze(a, path, &o, err);

	if (!e)
		ooms_index_load_ids(&a->ix);
	return e;
}

static uint32_t node_of(const struct ooms_index *ix, uint64_t id)
{
	for (uint32_t n = 1; n < ix->nodes; n++)
		if (ooms_index_id(ix, n) == id)
			return n;
	return OOMS_NONE;
}

static uint32_t cnode(const struct ooms_index *ix, const char *name)
{
	uint32_t c = ooms_index_class_by_name(ix, name);

	return c == OOMS_NONE ? OOMS_NONE : ix->classes[c].node;
}

/* The group whose example is the object of id, or NULL. */
static const struct ooms_path_group *group_of(const struct ooms_analysis *a, uint64_t id)
{
	for (size_t i = 0; i < a->ngroups; i++)
		if (ooms_index_id(&a->ix, a->groups[i].example) == id)
			return &a->groups[i];
	return NULL;
}

/* The ids of the leaks, as a bit per id in want[] (ids given), all and only. */
static int leaks_are(const struct ooms_analysis *a, const uint64_t *ids, size_t n)
{
	if (a->nleaks != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < a->nleaks && ooms_index_id(&a->ix, a->leaks[k].node) != ids[i]; k++)
			;
		if (k == a->nleaks)
			return 0;
	}
	return 1;
}

static const char *root_kind(const struct ooms_analysis *a, uint32_t root)
{
	return root == OOMS_NONE ? "none" : ooms_root_kind_name(a->ix.roots[root].kind);
}

static const char *label_field(const struct ooms_analysis *a, uint32_t n)
{
	const struct ooms_edge_label *l = ooms_analysis_label(a, n);

	if (!l)
		return "(no label)";
	if (l->type == REF_INSTANCE_FIELD)
		return ooms_index_str(&a->ix, a->ix.fields[l->field].name);
	if (l->type == REF_STATIC_FIELD)
		return ooms_index_str(&a->ix, l->field);
	return ooms_ref_type_name(l->type);
}

static void world(const char *path)
{
	const char *cls[] = {"com.example.Session"};
	struct ooms_analysis a;
	struct ooms_err err = {0};
	const struct ooms_path_group *g;
	uint32_t out[8], holder, b, arr;

	TAP_EQ_INT(run(&a, path, OPTS(.leak_classes = cls, .nleak_classes = 1), &err), 0, "the world analyzed (%s)", err.msg);
	TAP_OK(a.runtime == RUNTIME_JVM && a.retained_model == OOMS_RETAINED_MAT, "a 1.0.2 dump: the JVM; MAT's model by default");
	TAP_OK(a.rules.n == 4 && a.rules.rules[3].instances == 11 && a.rules.rules[3].leaks == 11 &&
		       strstr(a.rules.rules[3].reason, "--leak-class"),
	       "--leak-class Session: 11 instances (one of a subclass), all leaks (after LeakCanary's and Matrix's rules)");
	holder = cnode(&a.ix, "com.example.Holder");
	b = node_of(&a.ix, O_B);
	arr = node_of(&a.ix, O_A);
	TAP_EQ_INT(a.ngroups, 3, "three paths, three groups (array slots do not split a path)");
	g = &a.groups[0];
	TAP_OK(g->count == 9 && g->retained_sum == 9 * 1056 && g->retained_max == 1056 && g->len == 4 &&
		       g->nodes[0] == holder && g->nodes[1] == b && g->nodes[2] == arr &&
		       ooms_cls(&a.ix, g->nodes[3]) == ooms_index_class_by_name(&a.ix, "com.example.Session"),
	       "largest group: 9 sessions, Holder -> Bag -> Object[] -> Session, 1056 bytes each");
	TAP_EQ_STR(root_kind(&a, g->root), "StickyClass", "its GC root: the Holder class (sticky)");
	TAP_OK(!strcmp(label_field(&a, b), "sessions") && !strcmp(label_field(&a, arr), "elems") &&
		       !strcmp(label_field(&a, g->nodes[3]), "ARRAY_ENTRY") && !g->library && !g->watched,
	       "its references named: Holder.sessions, Bag.elems, an array entry");
	g = group_of(&a, O_SA);
	TAP_OK(g == &a.groups[1] && g->count == 1 && g->retained_sum == 1064 && g->len == 2 &&
		       g->nodes[0] == node_of(&a.ix, O_R) && !strcmp(label_field(&a, g->nodes[1]), "current"),
	       "second: the AuditSession (1064 bytes) by Registry.current");
	TAP_EQ_STR(root_kind(&a, g->root), "JniGlobal", "its root: a JNI global");
	g = group_of(&a, O_S(0));
	TAP_OK(g == &a.groups[2] && g->count == 1 && g->len == 2 && !strcmp(label_field(&a, g->nodes[1]), "backup"),
	       "S_0: its shortest path (2 steps by Registry.backup, not 4 by Holder)");
	TAP_OK(ooms_analysis_path(&a, node_of(&a.ix, O_S(5)), out, 8) == 4 && out[0] == holder && out[3] == node_of(&a.ix, O_S(5)) &&
		       ooms_analysis_path(&a, node_of(&a.ix, O_S(5)), out, 2) == 4 && out[1] == b,
	       "a leak's path from the labels: its length, root first (cut to the buffer given)");
	TAP_OK(ooms_analysis_signature(&a, (uint32_t[]){holder, b, arr, node_of(&a.ix, O_S(2))}, 4) ==
		       ooms_analysis_signature(&a, (uint32_t[]){holder, b, arr, node_of(&a.ix, O_S(8))}, 4) &&
		       ooms_analysis_signature(&a, (uint32_t[]){holder, b, arr}, 3) !=
		       ooms_analysis_signature(&a, (uint32_t[]){holder, b, arr, node_of(&a.ix, O_S(8))}, 4),
	       "signatures: another slot, the same; a shorter path, another");
	/* reach: the paths' search and MAT's */
	TAP_OK(!ooms_paths_reached(&a.paths, node_of(&a.ix, O_X)) && ooms_matmodel_reached(&a.mat, node_of(&a.ix, O_X)),
	       "a weak referent: no path reaches it; MAT's graph does (its Reference retains it)");
	TAP_OK(ooms_paths_reached(&a.paths, node_of(&a.ix, O_Z)) &&
		       (a.paths.late[node_of(&a.ix, O_Z) / 8] >> (node_of(&a.ix, O_Z) % 8) & 1),
	       "the referent of a Reference of no known kind: reached last, marked late");
	TAP_OK(!ooms_paths_reached(&a.paths, node_of(&a.ix, O_U)) && !ooms_matmodel_reached(&a.mat, node_of(&a.ix, O_U)) &&
		       a.mat.unreachable == 1 && a.mat.unreachable_bytes == 16,
	       "garbage: one unreachable object of 16 bytes");
	/* MAT's retained sizes, by hand */
	TAP_OK(ooms_retained(&a.dom, arr) == 104 + 9 * 1056 && ooms_retained(&a.dom, b) == 32 + 104 + 9 * 1056 &&
		       ooms_retained(&a.dom, holder) == 32 + 104 + 9 * 1056,
	       "retained: the array 9608 (S_0 is shared), the Bag and its class 9640");
	TAP_OK(ooms_retained(&a.dom, node_of(&a.ix, O_R)) == 32 + 40 + 1024 && ooms_retained(&a.dom, node_of(&a.ix, O_S(0))) == 1056 &&
		       ooms_retained(&a.dom, node_of(&a.ix, O_N(0))) == 20 * 152 && ooms_retained(&a.dom, node_of(&a.ix, O_W)) == 40 &&
		       ooms_retained(&a.dom, node_of(&a.ix, O_T)) == 24 + 32 + 32 + 5024 + 16,
	       "retained: Registry 1096, S_0 1056, the chain 3040, W with its referent 40, the thread with its locals 5128");
	TAP_OK(a.reachable_shallow == 20112 && a.total_shallow == 20128, "the heap: 20112 bytes reachable of 20128");
	{
		const struct ooms_class_stat *s = &a.class_stats[ooms_index_class_by_name(&a.ix, "com.example.Session")];
		const struct ooms_class_stat *o = &a.class_stats[ooms_index_class_by_name(&a.ix, "java.lang.Object")];
		const struct ooms_class_stat *by = &a.class_stats[a.ix.prim_class[HPROF_T_BYTE]];

		TAP_OK(s->count == 10 && s->shallow == 320 && s->retained == 10 * 1056 && !s->unreachable,
		       "histogram: Session x10, 320 bytes, retaining 10560 together");
		TAP_OK(o->count == 3 && o->unreachable == 1 && o->unreachable_shallow == 16,
		       "histogram: Object x3, one unreachable");
		TAP_OK(by->count == 10 + 23 && by->retained == 10 * 1024 + 1024 + 20 * 120 + 32 + 5024,
		       "histogram: byte[] x33 (arrays by their pseudo-class)");
	}
	{ /* the report: a group's line, the JSON */
		char line[512], *js = NULL;
		size_t n = 0;
		FILE *f;
		struct json_object *j, *ri, *p0;

		TAP_OK(!ooms_analysis_leak_line(&a, 0, line, sizeof(line)) && !strncmp(line, "com.example.Session x9 [", 23) &&
			       strstr(line, "] from GC root StickyClass com.example.Holder -> com.example.Holder.sessions -> "
					    "com.example.Bag.elems -> java.lang.Object[]["),
		       "leak line: %s", line);
		TAP_OK(ooms_analysis_leak_line(&a, 3, line, sizeof(line)) == -1, "no fourth group: -1");
		f = open_memstream(&js, &n);
		ooms_analysis_json(&a, 5, f);
		fclose(f);
		j = json_tokener_parse(js);
		ri = json_object_object_get(j, "runningInfo");
		p0 = json_object_array_get_idx(json_object_object_get(j, "gcPaths"), 0);
		TAP_OK(j && json_object_get_boolean(json_object_object_get(j, "analysisDone")) &&
			       json_object_get_int(json_object_object_get(ri, "gcRoots")) == 26 &&
			       json_object_get_int(json_object_object_get(ri, "unreachableObjects")) == 1 &&
			       json_object_array_length(json_object_object_get(j, "gcPaths")) == 3 &&
			       json_object_get_int(json_object_object_get(p0, "retainedSizeTotal")) == 9504 &&
			       json_object_get_int(json_object_object_get(p0, "instanceCount")) == 9 &&
			       !strcmp(json_object_get_string(json_object_object_get(p0, "gcRoot")), "StickyClass") &&
			       !strcmp(json_object_get_string(json_object_object_get(
					       json_object_array_get_idx(json_object_object_get(p0, "path"), 0), "reference")),
				       "com.example.Holder.sessions"),
		       "JSON: KOOM's fields: analysisDone, runningInfo (26 roots, 1 unreachable), gcPaths with the group's path");
		json_object_put(j);
		free(js);
	}
	ooms_analysis_free(&a);
}

static void leak_ifs(const char *path)
{
	static const struct {
		const char *expr;
		size_t n;
		uint64_t ids[6];
	} cases[] = {
		{"com.example.Session.closed==true", 6, {O_S(1), O_S(3), O_S(5), O_S(7), O_S(9), O_SA}},
		{"com.example.Session.closed!=true", 5, {O_S(0), O_S(2), O_S(4), O_S(6), O_S(8)}},
		{"com.example.Session.closed==0", 5, {O_S(0), O_S(2), O_S(4), O_S(6), O_S(8)}},
		{"com.example.Bag.size==10", 1, {O_B}},
		{"com.example.Registry.backup!=null", 1, {O_R}},
		{"com.example.Registry.backup==null", 0, {0}},
		{"com.example.Victim.nothing==1", 0, {0}},
	};
	static const char *const bad[][2] = {
		{"nonsense", "expected Class.field==value"},
		{"com.example.Session.closed==maybe", "must be true, false, null or an integer"},
		{"closed==true", "expected a dotted class name"},
	};
	struct ooms_analysis a;
	struct ooms_err err = {0};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TAP_OK(!run(&a, path, OPTS(.leak_ifs = &cases[i].expr, .nleak_ifs = 1), &err) &&
			       leaks_are(&a, cases[i].ids, cases[i].n),
		       "--leak-if %s: %zu leaks, the right ones", cases[i].expr, cases[i].n);
		ooms_analysis_free(&a);
	}
	{
		const char *two[] = {"com.example.Session.closed==true", "com.example.Session.closed==false"};

		TAP_OK(!run(&a, path, OPTS(.leak_ifs = two, .nleak_ifs = 2), &err) && a.nleaks == 11 &&
			       a.rules.rules[3].leaks == 6 && a.rules.rules[4].leaks == 5 && a.ngroups == 4,
		       "two rules: each object once, the rule part of the group (4 groups: 2 paths x 2 rules)");
		ooms_analysis_free(&a);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		TAP_OK(run(&a, path, OPTS(.leak_ifs = &bad[i][0], .nleak_ifs = 1), &err) == -EINVAL && strstr(err.msg, bad[i][1]) &&
			       a.ix.nodes == 0 && !a.leaks,
		       "--leak-if %s refused: %s", bad[i][0], err.msg);
}

static void ignores(const char *path)
{
	const char *cls[] = {"com.example.Session"}, *ign[] = {"com.example.Registry#backup"},
		   *lib[] = {"com.example.Registry#current"}, *victim[] = {"com.example.Victim"};
	struct ooms_analysis a;
	struct ooms_err err = {0};
	const struct ooms_path_group *g;

	TAP_OK(!run(&a, path, OPTS(.leak_classes = cls, .nleak_classes = 1, .ignores = ign, .nignores = 1), &err) &&
		       a.ngroups == 2 && a.groups[0].count == 10 && a.groups[0].len == 4 && a.groups[1].count == 1,
	       "--ignore Registry#backup: S_0 joins the Holder path (10), the AuditSession alone");
	TAP_EQ_INT(ooms_retained(&a.dom, node_of(&a.ix, O_A)), 9608, "--ignore moves paths, not retained sizes");
	ooms_analysis_free(&a);
	TAP_OK(!run(&a, path, OPTS(.leak_classes = cls, .nleak_classes = 1, .library = lib, .nlibrary = 1), &err) &&
		       a.nleaks == 11 && (g = group_of(&a, O_SA)) && g->library == OOMS_MARK_LIBRARY &&
		       a.ix.nlibrary == 1 && strstr(a.ix.library[0], "--library-leak") && !a.groups[0].library,
	       "--library-leak Registry#current: the AuditSession's group is a library leak, the others not");
	ooms_analysis_free(&a);
	TAP_OK(!run(&a, path, OPTS(.leak_classes = victim, .nleak_classes = 1), &err) && a.nleaks == 0 &&
		       a.rules.rules[3].instances == 1 && a.rules.rules[3].leaks == 0,
	       "an object reached only through a finalizer-like referent is on its way out: no leak");
	ooms_analysis_free(&a);
	{
		const char *nope[] = {"com.example.Nope#x"};

		TAP_OK(run(&a, path, OPTS(.ignores = nope, .nignores = 1), &err) == -EINVAL && strstr(err.msg, "no class"),
		       "--ignore of a class the dump lacks: refused (%s)", err.msg);
	}
	TAP_OK(!run(&a, path, OPTS(.leak_classes = cls, .nleak_classes = 1, .retained_model = OOMS_RETAINED_VISUALVM), &err) &&
		       a.retained_model == OOMS_RETAINED_VISUALVM && a.nleaks == 11 && a.ngroups == 3 &&
		       ooms_retained(&a.dom, node_of(&a.ix, O_SD(4))) == 1024 &&
		       ooms_retained(&a.dom, node_of(&a.ix, O_S(4))) == 1056,
	       "VisualVM's model: the same leaks; a leaf and its holder retain the same");
	ooms_analysis_free(&a);
}

/* The search alone (paths.c), on the index: parents, root kinds, ignores,
 * the class connection, and the parents read back from their file. */
static void paths(const char *path)
{
	const char *ign[] = {"com.example.Registry#backup"};
	struct ooms_index ix;
	struct ooms_paths p;
	struct ooms_err err = {0};
	uint32_t s0, holder, parents[8];
	int same = 1;

	if (ooms_index_build(&ix, path, &(struct ooms_index_opts){.ignores = ign, .nignores = 1}, &err) ||
	    ooms_index_load_ids(&ix)) {
		TAP_OK(0, "the world indexed: %s", err.msg);
		return;
	}
	s0 = node_of(&ix, O_S(0));
	holder = cnode(&ix, "com.example.Holder");
	TAP_OK(!ooms_paths_compute(&ix, &p, 1) && ooms_paths_parent(&p, s0) == node_of(&ix, O_A) &&
		       ooms_paths_parent(&p, node_of(&ix, O_A)) == node_of(&ix, O_B) && ooms_paths_parent(&p, node_of(&ix, O_B)) == holder &&
		       ooms_paths_parent(&p, holder) == 0 && ooms_paths_parent(&p, node_of(&ix, O_SA)) == node_of(&ix, O_R),
	       "the search with --ignore: S_0 by the Holder's path; the AuditSession by Registry.current");
	TAP_OK(ooms_paths_parent(&p, node_of(&ix, O_X)) == OOMS_NONE && ooms_paths_parent(&p, node_of(&ix, O_U)) == OOMS_NONE &&
		       ooms_paths_parent(&p, node_of(&ix, O_TNAME_B)) == node_of(&ix, O_TNAME),
	       "no parent for a weak referent or garbage; a thread's name under it");
	TAP_OK(ooms_paths_root(&ix, node_of(&ix, O_L)) == 2 && ix.roots[2].kind == HPROF_ROOT_JAVA_FRAME &&
		       ooms_paths_root(&ix, node_of(&ix, O_T)) == 0 && ooms_paths_root(&ix, node_of(&ix, O_B)) == OOMS_NONE,
	       "a path's root record: the first in the search's order (L's frame 0 record); none for a non-root");
	TAP_OK(!strcmp(ooms_root_order[0], "ThreadObject") && !strcmp(ooms_root_order[1], "StickyClass") &&
		       !strcmp(ooms_root_order[8], "other"),
	       "roots taken thread objects first, then sticky classes...");
	for (uint32_t i = 0; i < 8; i++)
		parents[i] = ooms_paths_parent(&p, node_of(&ix, O_S(i)));
	TAP_EQ_INT(ooms_paths_reach_bitmap(&ix, &p), 0, "the reach bitmap made, the parents on their way to a file");
	ooms_paths_spilled(&p);
	for (uint32_t i = 0; i < 8; i++)
		same &= ooms_paths_parent(&p, node_of(&ix, O_S(i))) == parents[i];
	TAP_OK(same && !p.parent && ooms_paths_reached(&p, s0) && !ooms_paths_reached(&p, node_of(&ix, O_X)),
	       "parents read back from their file, reach from the bitmap");
	ooms_paths_free(&p);
	TAP_OK(!ooms_paths_compute(&ix, &p, 0) && ooms_paths_parent(&p, s0) == node_of(&ix, O_R),
	       "the search for retained sizes crosses what --ignore names (S_0 by Registry.backup)");
	ooms_paths_free(&p);
	ooms_index_free(&ix);
	{ /* the class connection: a class that is no root is reached from its first instance visited */
		struct buf b = make_android_app(8, 0);

		if (!ooms_index_build(&ix, hg_tmp_dump(&tmp, "conn.hprof", &b), &(struct ooms_index_opts){0}, &err) &&
		    !ooms_index_load_ids(&ix) && !ooms_paths_compute(&ix, &p, 1)) {
			TAP_OK(ooms_paths_parent(&p, cnode(&ix, "com.example.MainActivity")) == node_of(&ix, 0x3002) &&
				       ooms_paths_parent(&p, node_of(&ix, 0x3001)) == cnode(&ix, "com.example.App"),
			       "MainActivity's class by the live one (a root, visited before App's static's target)");
			ooms_paths_free(&p);
			ooms_index_free(&ix);
		} else {
			TAP_OK(0, "the app indexed: %s", err.msg);
		}
		free(b.p);
	}
}

/* A running method's local holds a copy of a static's list (ArrayList.grow
 * mid-copy): what the static holds is pathed through the static, however
 * shorter the local's way; what only the local holds, through the local. */
static void frame_locals_last(void)
{
	enum { C_OBJ = 0x1000, C_ARR = 0x1008, C_POOL = 0x1010, C_THREAD = 0x1018, C_LIST = 0x1020,
	       L_LIST = 0x5000, L_NEW = 0x5008, L_OLD = 0x5010, I_0 = 0x5100, I_1 = 0x5108, I_LOCAL = 0x5110,
	       T_0 = 0x5200 };
	const struct hg_static s_pool[] = {{"POOL", HPROF_T_OBJECT, L_LIST}};
	const struct hg_field f_list[] = {{"elementData", HPROF_T_OBJECT}};
	struct ooms_index ix;
	struct ooms_paths p;
	struct ooms_err err = {0};
	struct buf d = {0}, b;
	struct hg g;

	hg_begin(&g, 8, 0);
	hg_load(&g, 1, C_OBJ, "java/lang/Object");
	hg_load(&g, 2, C_ARR, "[Ljava/lang/Object;");
	hg_load(&g, 3, C_POOL, "com/example/Pool");
	hg_load(&g, 4, C_THREAD, "java/lang/Thread");
	hg_load(&g, 5, C_LIST, "java/util/ArrayList");
	hg_root(&g, HPROF_ROOT_THREAD_OBJECT, T_0, 1, 0);
	hg_root(&g, HPROF_ROOT_JAVA_FRAME, L_OLD, 1, 0); /* the old array, a local of grow() */
	for (uint64_t c = C_OBJ; c <= C_LIST; c += 8)
		hg_root(&g, HPROF_ROOT_STICKY_CLASS, c, 0, 0);
	hg_class(&g, C_OBJ, 0, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, C_ARR, C_OBJ, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, C_POOL, C_OBJ, 0, 0, s_pool, 1, NULL, 0);
	hg_class(&g, C_THREAD, C_OBJ, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, C_LIST, C_OBJ, 0, 8, NULL, 0, f_list, 1);
	id(&d, L_NEW);
	hg_inst(&g, L_LIST, C_LIST, &d);
	hg_objarr(&g, L_NEW, C_ARR, 2, (const uint64_t[]){I_0, I_1});
	hg_objarr(&g, L_OLD, C_ARR, 3, (const uint64_t[]){I_0, I_1, I_LOCAL});
	hg_inst(&g, I_0, C_OBJ, &d);
	hg_inst(&g, I_1, C_OBJ, &d);
	hg_inst(&g, I_LOCAL, C_OBJ, &d);
	hg_inst(&g, T_0, C_THREAD, &d);
	free(d.p);
	b = hg_end(&g);
	if (ooms_index_build(&ix, hg_tmp_dump(&tmp, "frame.hprof", &b), &(struct ooms_index_opts){0}, &err) ||
	    ooms_index_load_ids(&ix) || ooms_paths_compute(&ix, &p, 1)) {
		TAP_OK(0, "the pool indexed and searched: %s", err.msg);
		free(b.p);
		return;
	}
	TAP_OK(ooms_paths_parent(&p, node_of(&ix, I_0)) == node_of(&ix, L_NEW) &&
		       ooms_paths_parent(&p, node_of(&ix, I_1)) == node_of(&ix, L_NEW) &&
		       ooms_paths_parent(&p, node_of(&ix, L_NEW)) == node_of(&ix, L_LIST) &&
		       ooms_paths_parent(&p, node_of(&ix, L_LIST)) == cnode(&ix, "com.example.Pool"),
	       "the pool's items by Pool.POOL's list (4 steps), not by the frame's old array (1)");
	TAP_OK(ooms_paths_parent(&p, node_of(&ix, I_LOCAL)) == node_of(&ix, L_OLD) &&
		       ooms_paths_parent(&p, node_of(&ix, L_OLD)) == 0,
	       "what only the local holds: by the local, a root");
	ooms_paths_free(&p);
	ooms_index_free(&ix);
	free(b.p);
}

/* Android's built-in rules on tests/tools' synthetic app (synth_android_app.h). */
static void android(void)
{
	for (unsigned idsz = 4; idsz <= 8; idsz += 4) {
		struct buf b = make_android_app(idsz, 0), bi = make_android_app(idsz, 1);
		const char *p = hg_tmp_dump(&tmp, idsz == 4 ? "app4.hprof" : "app8.hprof", &b);
		const char *pi = hg_tmp_dump(&tmp, idsz == 4 ? "img4.hprof" : "img8.hprof", &bi);
		struct ooms_analysis a;
		const struct ooms_path_group *g;
		struct ooms_err err = {0};

		TAP_OK(!run(&a, p, OPTS(0), &err) && a.runtime == RUNTIME_ANDROID &&
			       leaks_are(&a, (const uint64_t[]){0x3001, 0x3003, 0x3004, 0x3006}, 4),
		       "ids %u: the destroyed Activity, its Window, the 1080x1920 Bitmap, the detached Fragment; not the live ones",
		       idsz);
		g = group_of(&a, 0x3001);
		TAP_OK(g && !strcmp(a.rules.rules[g->rule].class_name, "android.app.Activity") && g->len == 2 &&
			       g->nodes[0] == cnode(&a.ix, "com.example.App") && !strcmp(label_field(&a, g->nodes[1]), "sLeaked"),
		       "ids %u: the Activity by App.sLeaked, a sticky class", idsz);
		g = group_of(&a, 0x3004);
		TAP_OK(g && g->len == 3 && g->retained_sum == (idsz == 4 ? 20u : 24u) + 8 + 4 + 1080 * 1920 * 4 + 4 &&
			       strstr(a.rules.rules[g->rule].reason, "768x1366"),
		       "ids %u: the Bitmap retains its stripped pixels", idsz);
		g = group_of(&a, 0x3006);
		TAP_OK(g && g->len == 3 && !strcmp(label_field(&a, g->nodes[2]), "ARRAY_ENTRY") &&
			       strstr(a.rules.rules[g->rule].reason, "Fragment Leak"),
		       "ids %u: the Fragment through App.sFragments[0]", idsz);
		ooms_analysis_free(&a);
		TAP_OK(!run(&a, pi, OPTS(0), &err) && leaks_are(&a, (const uint64_t[]){0x3001, 0x3004, 0x3006}, 3),
		       "ids %u: a destroyed Window in ART's image heap is no leak", idsz);
		ooms_analysis_free(&a);
		TAP_OK(!run(&a, p, OPTS(.bitmap_w = 2000, .bitmap_h = 2000), &err) && a.nleaks == 3,
		       "ids %u: a higher Bitmap bar leaves it out", idsz);
		ooms_analysis_free(&a);
		TAP_OK(!run(&a, p, OPTS(.runtime = RUNTIME_JVM), &err) && a.nleaks == 0, "ids %u: read as a JVM dump, no Android rule", idsz);
		ooms_analysis_free(&a);
		free(b.p);
		free(bi.p);
	}
	{ /* Matrix's watch and registered native sizes (synth_android_art.h) */
		struct buf b = make_android_art(8);
		struct ooms_analysis a;
		const struct ooms_path_group *g;
		struct ooms_err err = {0};

		TAP_OK(!run(&a, hg_tmp_dump(&tmp, "art.hprof", &b), OPTS(0), &err) && (g = group_of(&a, 0x3001)) &&
			       g->watched == 2 && !strcmp(g->watch_key, "MATRIX_REFKEY_com.example.MainActivity_5f2c01") &&
			       !strcmp(g->watch_description, "com.example.MainActivity"),
		       "Matrix: the destroyed Activity its record still reaches, with the key and name read");
		TAP_OK(a.native.objects == 2 && a.native.bytes == 8298496 && a.native_registry == 2 &&
			       (g = group_of(&a, 0x3031)) && g->native_sum == 8294400,
		       "native: two registered sizes; the big Bitmap's group holds 8294400 native bytes");
		ooms_analysis_free(&a);
		free(b.p);
	}
}

static void bad_input(const struct buf *b, const char *whole)
{
	const char *path = hg_tmp_file(&tmp, "cut.hprof");
	struct ooms_analysis a;
	struct ooms_err err = {0};
	size_t cuts[] = {10, b->len / 3, b->len / 2, b->len - 3};
	int ok = 1;

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		int e;

		hg_write(path, b->p, cuts[i]);
		e = run(&a, path, OPTS(0), &err);
		if (!(e == -EBADMSG && strstr(err.msg, path) && strstr(err.msg, "truncated") && a.ix.nodes == 0 && !a.leaks)) {
			printf("#   cut at %zu: %d %s\n", cuts[i], e, err.msg);
			ok = 0;
		}
	}
	TAP_OK(ok, "a cut dump: -EBADMSG, the file and the cut said, nothing kept");
	TAP_OK(run(&a, "/nonexistent.hprof", OPTS(0), &err) == -ENOENT && strstr(err.msg, "/nonexistent.hprof"),
	       "a missing dump: -ENOENT, named (%s)", err.msg);
	TAP_OK(run(&a, whole, OPTS(.max_memory = 1 << 20), &err) == -EFBIG && err.code == -EFBIG &&
		       strstr(err.msg, "--max-memory"),
	       "--max-memory 1 MB: refused (%s)", err.msg);
}

int main(void)
{
	struct buf b;
	const char *path;

	if (hg_tmp_init(&tmp))
		return 1;
	b = make_world(8, 10);
	path = hg_tmp_dump(&tmp, "world.hprof", &b);
	world(path);
	leak_ifs(path);
	ignores(path);
	paths(path);
	frame_locals_last();
	android();
	bad_input(&b, path);
	free(b.p);
	hg_tmp_done(&tmp);
	return tap_done();
}
