/* What the analysis finds with no rule: leak suspects and their
 * accumulation points (user/analyze/suspects.c), suspects merged by path;
 * the threads with their stacks and locals (threads.c); what grew between
 * two dumps (growth.c); class loaders by class and duplicate classes
 * (loaders.c, --ran-out metaspace). On small dumps built here (heapgen.h),
 * answers worked out by hand. */
#include <errno.h>
#include "analyze/analyzer.h"
#include "analyze/findings.h"
#include "tap.h"
#include "heapgen.h"

static struct hg_tmp tmp;

static int run(struct ooms_analysis *a, const char *path, struct ooms_analyze_opts o)
{
	struct ooms_err err = {0};
	int e = ooms_analyze(a, path, &o, &err);

	if (e)
		printf("#   %s: %s\n", path, err.msg);
	else
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

static uint32_t cls(const struct ooms_analysis *a, const char *name)
{
	return ooms_index_class_by_name(&a->ix, name);
}

static const char *root_kind(const struct ooms_analysis *a, uint32_t root)
{
	return root == OOMS_NONE ? "none" : ooms_root_kind_name(a->ix.roots[root].kind);
}

/* Sessions (each with a byte[1000]): alone, each held by a JNI global
 * (pile), or in two Bags of five, each Bag held by a JNI global (twins). */
static struct buf make_pile(int twins)
{
	struct hg g;
	struct buf d = {0};

	hg_begin(&g, 8, 0);
	hg_load(&g, 1, K_OBJ, "java/lang/Object");
	hg_load(&g, 2, K_SESSION, "com/example/Session");
	hg_load(&g, 3, K_BAG, "com/example/Bag");
	hg_load(&g, 4, K_OBJARR, "[Ljava/lang/Object;");
	for (uint64_t k = K_OBJ; k <= K_OBJARR; k += 8)
		if (k == K_OBJ || k == K_SESSION || k == K_BAG || k == K_OBJARR)
			hg_root(&g, HPROF_ROOT_STICKY_CLASS, k, 0, 0);
	for (unsigned i = 0; i < 10; i++)
		if (!twins)
			hg_root(&g, HPROF_ROOT_JNI_GLOBAL, O_S(i), i, 0);
	for (unsigned i = 0; twins && i < 2; i++)
		hg_root(&g, HPROF_ROOT_JNI_GLOBAL, O_N(i), i, 0);
	hg_root(&g, HPROF_ROOT_JNI_GLOBAL, O_O, 99, 0);
	hg_class(&g, K_OBJ, 0, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, K_SESSION, K_OBJ, 0, 9, NULL, 0, (const struct hg_field[]){{"data", HPROF_T_OBJECT}, {"closed", HPROF_T_BOOLEAN}}, 2);
	hg_class(&g, K_BAG, K_OBJ, 0, 12, NULL, 0, (const struct hg_field[]){{"elems", HPROF_T_OBJECT}, {"size", HPROF_T_INT}}, 2);
	hg_class(&g, K_OBJARR, K_OBJ, 0, 0, NULL, 0, NULL, 0);
	for (unsigned i = 0; twins && i < 2; i++) {
		id(&d, O_NP(i)); u4(&d, 5);
		hg_inst(&g, O_N(i), K_BAG, &d);
		hg_objarr(&g, O_NP(i), K_OBJARR, 5, (const uint64_t[]){O_S(5 * i), O_S(5 * i + 1), O_S(5 * i + 2), O_S(5 * i + 3), O_S(5 * i + 4)});
	}
	for (unsigned i = 0; i < 10; i++) {
		id(&d, O_SD(i)); u1(&d, 0);
		hg_inst(&g, O_S(i), K_SESSION, &d);
		hg_bytes(&g, O_SD(i), 1000, NULL);
	}
	hg_inst(&g, O_O, K_OBJ, &d);
	free(d.p);
	return hg_end(&g);
}

/* Class loaders: three PluginLoaders (held by Keeper.loaders), each
 * defining a com.example.Plugin, the first also com.example.Extra. */
static struct buf make_loaders(void)
{
	struct hg g;
	struct buf d = {0};
	const uint64_t pl[3] = {0x5008, 0x5010, 0x5018};

	hg_begin(&g, 8, 0);
	hg_load(&g, 1, 0x100, "java/lang/Object");
	hg_load(&g, 2, 0x108, "java/lang/ClassLoader");
	hg_load(&g, 3, 0x110, "com/example/PluginLoader");
	hg_load(&g, 4, 0x118, "com/example/Keeper");
	hg_load(&g, 5, 0x120, "[Ljava/lang/Object;");
	for (unsigned i = 0; i < 3; i++)
		hg_load(&g, 6 + i, 0x200 + 8 * i, "com/example/Plugin");
	hg_load(&g, 9, 0x218, "com/example/Extra");
	for (uint64_t k = 0x100; k <= 0x120; k += 8)
		hg_root(&g, HPROF_ROOT_STICKY_CLASS, k, 0, 0);
	hg_class(&g, 0x100, 0, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, 0x108, 0x100, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, 0x110, 0x108, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, 0x118, 0x100, 0, 0, (const struct hg_static[]){{"loaders", HPROF_T_OBJECT, 0x5000}}, 1, NULL, 0);
	hg_class(&g, 0x120, 0x100, 0, 0, NULL, 0, NULL, 0);
	for (unsigned i = 0; i < 3; i++)
		hg_class(&g, 0x200 + 8 * i, 0x100, pl[i], 0, NULL, 0, NULL, 0);
	hg_class(&g, 0x218, 0x100, pl[0], 0, NULL, 0, NULL, 0);
	hg_objarr(&g, 0x5000, 0x120, 3, pl);
	for (unsigned i = 0; i < 3; i++)
		hg_inst(&g, pl[i], 0x110, &d);
	free(d.p);
	return hg_end(&g);
}

static void world_suspects(const char *path)
{
	struct ooms_analysis a;
	const struct ooms_suspect *s;
	uint32_t holder;

	if (run(&a, path, (struct ooms_analyze_opts){0}))
		{
		TAP_OK(0, "the world analyzed");
		return;
	}
	holder = a.ix.classes[cls(&a, "com.example.Holder")].node;
	TAP_OK(a.suspect_share == OOMS_SUSPECT_SHARE && a.nsuspects == 3,
	       "10%% of 20112 bytes: three suspects (the Holder class, the thread, the chain)");
	s = &a.suspects[0];
	TAP_OK(s->kind == SUSPECT_OBJECT && s->node == holder && s->retained == 9640 && s->count == 1 &&
		       s->point == node_of(&a.ix, O_A) && s->point_retained == 9608,
	       "first: the Holder class (9640), its accumulation point the Object[] two steps down (9608)");
	TAP_OK(s->children == 9 && s->ntop == 1 && s->top[0].cls == cls(&a, "com.example.Session") &&
		       s->top[0].count == 9 && s->top[0].retained == 9 * 1056 && s->chain_cls == OOMS_NONE,
	       "what accumulates there: 9 Sessions, 9504 bytes (S_0 is shared, not the array's)");
	TAP_OK(s->len == 3 && s->path[0] == holder && s->path[1] == node_of(&a.ix, O_B) && s->path[2] == s->point &&
		       !strcmp(root_kind(&a, s->root), "StickyClass"),
	       "its path: Holder -> Bag -> Object[], from a sticky class");
	s = &a.suspects[1];
	TAP_OK(s->node == node_of(&a.ix, O_T) && s->retained == 5128 && s->point == node_of(&a.ix, O_L) &&
		       s->point_retained == 5024 && s->children == 0 && s->len == 1 && !strcmp(root_kind(&a, s->root), "JavaFrame"),
	       "second: the thread (its locals are its own in MAT's graph), down to its byte[5000] local, a Java frame root");
	s = &a.suspects[2];
	/* a chain begins where the next link keeps 70% of the link's retained
	 * size, and then goes on to its last link, however little the tail
	 * retains: all 20 links, as suspects.h says */
	TAP_OK(s->node == node_of(&a.ix, O_N(0)) && s->point == s->node && s->retained == 20 * 152 &&
		       s->chain_cls == cls(&a, "com.example.Node") && !strcmp(root_kind(&a, s->root), "JniGlobal"),
	       "third: a chain of Nodes ends the descent at its head (3040 bytes, a JNI global)");
	TAP_OK(s->chain_len == 20 && s->children == 20 && s->ntop == 1 && s->top[0].cls == a.ix.prim_class[HPROF_T_BYTE] &&
		       s->top[0].count == 20 && s->top[0].retained == 20 * 120,
	       "what accumulates along it: the 20 payloads of all 20 links (chain_len %llu, children %llu)",
	       (unsigned long long)s->chain_len, (unsigned long long)s->children);
	{
		char line[512];

		ooms_analysis_suspect_line(&a, 0, line, sizeof(line));
		TAP_EQ_STR(line, "1 `com.example.Bag` referenced by static `com.example.Holder.sessions` accumulates 9 "
				 "`com.example.Session`, 9.3 KB, 47 % of the heap", "the first suspect in one sentence");
		ooms_analysis_suspect_line(&a, 2, line, sizeof(line));
		TAP_OK(strstr(line, "accumulates 20 `byte[]` along a chain of 20 `com.example.Node`") != NULL, "a chain's: %s", line);
		TAP_OK(ooms_analysis_suspect_line(&a, 3, line, sizeof(line)) == -1, "no fourth suspect: -1");
	}
	TAP_OK(a.suspects[0].signature != a.suspects[1].signature && a.suspects[1].signature != a.suspects[2].signature,
	       "three paths, three signatures");

	/* threads: the OutOfMemoryError's first, then by what they hold */
	TAP_EQ_INT(a.threads.n, 2, "two threads");
	{
		const struct ooms_thread *t2 = &a.threads.list[0], *t = &a.threads.list[1];
		const struct ooms_trace *tr;
		char f[256];

		TAP_OK(t2->oom && t2->node == node_of(&a.ix, O_T2) && t2->serial == 2 && t2->nroots == 0 && t2->held == 0,
		       "the thread that threw the OutOfMemoryError first (its top frame is the error's constructor)");
		TAP_EQ_STR(t2->name, "oom-thrower", "its name from a char[]");
		tr = &a.ix.traces[t2->trace];
		ooms_frame_text(&a.ix, &a.threads, a.ix.trace_frames[tr->frames_at], f, sizeof(f));
		TAP_EQ_STR(f, "java.lang.OutOfMemoryError.<init>(Unknown Source)", "a frame with no source");
		ooms_frame_text(&a.ix, &a.threads, a.ix.trace_frames[tr->frames_at + 1], f, sizeof(f));
		TAP_EQ_STR(f, "com.example.Worker.alloc(Compiled Code)", "a compiled frame");
		TAP_OK(!t->oom && t->serial == 1 && t->node == node_of(&a.ix, O_T) && t->nroots == 3 && t->held == 5024 + 16,
		       "thread 1: three local records, holding 5040 (a local two frames hold counts once)");
		TAP_EQ_STR(t->name, "main-worker", "its name from a String over a Latin-1 byte[]");
		TAP_OK(a.ix.roots[a.threads.roots[t->roots_at]].frame == 0 &&
			       a.ix.roots[a.threads.roots[t->roots_at]].node == node_of(&a.ix, O_L) &&
			       a.ix.roots[a.threads.roots[t->roots_at + 2]].frame == 1,
		       "its locals by frame: frame 0's byte[5000] first");
		tr = &a.ix.traces[t->trace];
		ooms_frame_text(&a.ix, &a.threads, a.ix.trace_frames[tr->frames_at], f, sizeof(f));
		TAP_EQ_STR(f, "com.example.Worker.work(Worker.java:42)", "a frame with its line");
		ooms_frame_text(&a.ix, &a.threads, a.ix.trace_frames[tr->frames_at + 1], f, sizeof(f));
		TAP_EQ_STR(f, "java.lang.Thread.run(Native Method)", "a native frame");
		ooms_frame_text(&a.ix, &a.threads, 0x999, f, sizeof(f));
		TAP_EQ_STR(f, "(frame 0x999 not in the dump)", "a frame the dump lacks");
	}
	ooms_analysis_free(&a);

	TAP_OK(!run(&a, path, (struct ooms_analyze_opts){.suspect_share = 0.4}) && a.nsuspects == 1 &&
		       a.suspects[0].retained == 9640 && a.suspect_share == 0.4,
	       "share 40%%: the Holder class alone (48%%)");
	ooms_analysis_free(&a);
	TAP_OK(!run(&a, path, (struct ooms_analyze_opts){.suspect_share = 0.2}) && a.nsuspects == 2,
	       "share 20%%: the Holder class and the thread (25%%), not the chain (15%%)");
	ooms_analysis_free(&a);
}

static void pile_and_twins(void)
{
	struct buf p = make_pile(0), t = make_pile(1);
	struct ooms_analysis a;
	const struct ooms_suspect *s;

	if (!run(&a, hg_tmp_dump(&tmp, "pile.hprof", &p), (struct ooms_analyze_opts){0})) {
		s = &a.suspects[0];
		TAP_OK(a.reachable_shallow == 10 * 1056 + 16 && a.nsuspects == 1 && s->kind == SUSPECT_INSTANCES &&
			       s->cls == cls(&a, "com.example.Session") && s->count == 10 && s->retained == 10560,
		       "10 Sessions each under the bar (1056 < 1057), together over it: one suspect of many instances");
		TAP_OK(ooms_cls(&a.ix, s->node) == s->cls && s->point == s->node && s->point_retained == 1056 &&
			       s->children == 10 && s->ntop == 1 && s->top[0].count == 10 && s->len == 1 &&
			       !strcmp(root_kind(&a, s->root), "JniGlobal"),
		       "one of them stands for all, its own JNI global its path");
		ooms_analysis_free(&a);
	} else {
		TAP_OK(0, "the pile analyzed");
	}
	if (!run(&a, hg_tmp_dump(&tmp, "twins.hprof", &t), (struct ooms_analyze_opts){0})) {
		s = &a.suspects[0];
		TAP_OK(a.nsuspects == 1 && s->kind == SUSPECT_OBJECT && s->count == 2 && s->retained == 2 * 5376 &&
			       s->point_retained == 5344 && s->top[0].count == 5 && s->len == 2,
		       "two Bags over the bar with one path (Bag.elems -> Object[]): one suspect, count 2, 10752 bytes");
		ooms_analysis_free(&a);
	} else {
		TAP_OK(0, "the twins analyzed");
	}
	free(p.p);
	free(t.p);
}

static void growth(void)
{
	struct buf b0 = make_world(8, 10), b1 = make_world(8, 30), bp = make_pile(1);
	const char *p0 = hg_tmp_dump(&tmp, "old.hprof", &b0), *p1 = hg_tmp_dump(&tmp, "new.hprof", &b1);
	const char *pp = hg_tmp_dump(&tmp, "other.hprof", &bp);
	struct ooms_analysis a0, a1;
	struct ooms_baseline base;
	struct ooms_growth g;

	if (run(&a0, p0, (struct ooms_analyze_opts){0}) || run(&a1, p1, (struct ooms_analyze_opts){0}))
		{
		TAP_OK(0, "both dumps analyzed");
		return;
	}
	TAP_EQ_INT(ooms_baseline_take(&a0, &base), 0, "the baseline taken");
	ooms_analysis_free(&a0); /* the baseline keeps what it needs */
	TAP_OK(!strcmp(base.path, p0) && base.nsuspects == 3 && base.reachable == 20112, "the baseline: its path, suspects, heap");
	TAP_EQ_INT(ooms_growth_compute(&base, &a1, &g), 0, "growth computed");
	TAP_EQ_INT(g.nclasses, 4, "four classes grew: Session, byte[] (in count), Object[] and Bag (in retained size)");
	TAP_OK(g.classes[0].cls == cls(&a1, "com.example.Session") && g.classes[0].count0 == 10 && g.classes[0].count1 == 30 &&
		       g.classes[0].retained0 == 10 * 1056 && g.classes[0].retained1 == 30 * 1056,
	       "Session first: 10 -> 30 instances, 10560 -> 31680 bytes");
	TAP_OK(g.classes[1].cls == a1.ix.prim_class[HPROF_T_BYTE] && g.classes[1].count0 == 33 && g.classes[1].count1 == 53 &&
		       g.classes[1].retained1 - g.classes[1].retained0 == 20 * 1024,
	       "then byte[]: 20 more, 20480 bytes more (less than Session's 21120)");
	TAP_OK(g.nclasses == 4 && g.classes[2].count0 == 1 && g.classes[2].count1 == 1 && g.classes[3].count0 == 1 &&
		       g.classes[3].retained1 - g.classes[3].retained0 == 20 * 1056 + 160 &&
		       (g.classes[2].cls == cls(&a1, "com.example.Bag") || g.classes[2].cls == cls(&a1, "java.lang.Object[]")),
	       "then the containers, their counts unchanged, retaining 21280 more");
	TAP_OK(g.nsuspects == 1 && !g.suspects[0].is_new && g.suspects[0].retained0 == 9640 && g.suspects[0].count0 == 1 &&
		       a1.suspects[g.suspects[0].suspect].retained == 32 + 264 + 29 * 1056,
	       "the Holder suspect grew (9640 -> 30920), matched by its path; the thread's did not grow");
	ooms_growth_free(&g);
	ooms_baseline_free(&base);
	TAP_OK(!ooms_baseline_take(&a1, &base) && !ooms_growth_compute(&base, &a1, &g) && g.nclasses == 0 && g.nsuspects == 0,
	       "a dump against itself: nothing grew");
	ooms_growth_free(&g);
	ooms_analysis_free(&a1);
	if (!run(&a0, pp, (struct ooms_analyze_opts){0})) {
		TAP_OK(!ooms_growth_compute(&base, &a0, &g) && g.nsuspects == 1 && g.suspects[0].is_new && g.suspects[0].count0 == 0,
		       "another program's dump: its suspect is new");
		ooms_growth_free(&g);
		ooms_analysis_free(&a0);
	}
	ooms_baseline_free(&base);
	free(b0.p);
	free(b1.p);
	free(bp.p);
}

static void loaders(void)
{
	struct buf b = make_loaders();
	struct ooms_analysis a;
	const struct ooms_loader_group *l;

	if (run(&a, hg_tmp_dump(&tmp, "loaders.hprof", &b), (struct ooms_analyze_opts){.ran_out = OOMS_RAN_OUT_METASPACE}))
		{
		TAP_OK(0, "the loaders' dump analyzed");
		return;
	}
	TAP_EQ_INT(a.nloaders, 2, "two groups of loaders: the boot loader, PluginLoader");
	l = &a.loaders[0];
	TAP_OK(l->cls == OOMS_NONE && l->loaders == 1 && l->classes == 5 + 8 && !l->example && !l->len,
	       "first the boot loader: its 5 classes and 8 primitive array classes, no path");
	l = &a.loaders[1];
	TAP_OK(l->cls == cls(&a, "com.example.PluginLoader") && l->loaders == 3 && l->classes == 4 &&
		       l->example == node_of(&a.ix, 0x5008) && l->example_classes == 2 && l->retained == 3 * 16,
	       "then 3 PluginLoaders defining 4 classes; the example the one that defines two");
	TAP_OK(l->len == 3 && l->path[0] == a.ix.classes[cls(&a, "com.example.Keeper")].node &&
		       l->path[1] == node_of(&a.ix, 0x5000) && l->path[2] == l->example && !strcmp(root_kind(&a, l->root), "StickyClass"),
	       "what keeps the example: Keeper.loaders -> Object[] -> it");
	TAP_OK(a.ndups == 1 && !strcmp(ooms_class_name(&a.ix, a.dups[0].cls), "com.example.Plugin") && a.dups[0].loaders == 3 &&
		       a.dups[0].classes == 3,
	       "one class name defined by three loaders: com.example.Plugin");
	TAP_OK(a.nleaks == 3 && a.ngroups == 1 && a.groups[0].count == 3 &&
		       strstr(a.rules.rules[a.groups[0].rule].reason, "Metaspace ran out"),
	       "--ran-out metaspace: each class loader a leak, one group by their path");
	ooms_analysis_free(&a);
	TAP_OK(!run(&a, tmp.paths[tmp.n - 1], (struct ooms_analyze_opts){0}) && a.nloaders == 0 && a.nleaks == 0,
	       "without --ran-out metaspace: no loader groups, no leaks");
	ooms_analysis_free(&a);
	free(b.p);
}

int main(void)
{
	struct buf b;

	if (hg_tmp_init(&tmp))
		return 1;
	b = make_world(8, 10);
	world_suspects(hg_tmp_dump(&tmp, "world.hprof", &b));
	free(b.p);
	pile_and_twins();
	growth();
	loaders();
	hg_tmp_done(&tmp);
	return tap_done();
}
