/* The heap index (user/graph/index*.c: its two passes, the class table,
 * CSR references, roots, probes, path marks) and shallow sizes
 * (shallow.c), on small dumps built here (heapgen.h: "the world", every
 * answer worked out by hand): 8- and 4-byte ids, HotSpot's Unsafe hint,
 * ART's sizes and heaps, gzipped, two heap dumps in a file, cut and damaged
 * files. What reads the dump again beside the index: test_labels.c. */
#include <errno.h>
#include <zlib.h>
#include "graph/index.h"
#include "graph/labels.h"
#include "graph/shallow.h"
#include "tap.h"
#include "heapgen.h"

#define N 10 /* the world's sessions */

static struct hg_tmp tmp;

static int build(struct ooms_index *ix, const char *path, struct ooms_probe *pr, size_t npr, struct ooms_err *err)
{
	int e = ooms_index_build(ix, path, &(struct ooms_index_opts){.probes = pr, .nprobes = npr}, err);

	if (!e && ((e = ooms_shallow_setup(ix)) || (e = ooms_index_load_ids(ix))))
		ooms_index_free(ix);
	return e;
}

static uint32_t node_of(const struct ooms_index *ix, uint64_t id)
{
	for (uint32_t n = 1; n < ix->nodes; n++)
		if (ooms_index_id(ix, n) == id)
			return n;
	return OOMS_NONE;
}

static uint32_t cls_of(const struct ooms_index *ix, const char *name)
{
	return ooms_index_class_by_name(ix, name);
}

/* Node n's references are exactly the objects of ids want[0..k). */
static int edges_are(const struct ooms_index *ix, uint32_t n, const uint64_t *want, uint32_t k)
{
	if (ix->off[n + 1] - ix->off[n] != k)
		return 0;
	for (uint32_t i = 0; i < k; i++)
		if (ix->tgt[ix->off[n] + i] != node_of(ix, want[i]))
			return 0;
	return 1;
}

static uint64_t probe(const struct ooms_probe *p, uint32_t n)
{
	uint64_t v;

	return ooms_probe_get(p, n, &v) ? v : 0xbad;
}

static void world_graph(void)
{
	struct buf b = make_world(8, N);
	const char *path = hg_tmp_dump(&tmp, "world.hprof", &b);
	struct ooms_probe pr[3] = {{.class_name = "com.example.Session", .field_name = "closed"},
				   {.class_name = "com.example.Bag", .field_name = "size"},
				   {.class_name = "java.lang.Thread", .field_name = "name"}};
	struct ooms_index ix;
	struct ooms_err err = {0};
	uint32_t sess, audit, reg, weak, myref, holder, n;
	int ok = 1, sticky = 0;

	TAP_EQ_INT(build(&ix, path, pr, 3, &err), 0, "the world (8-byte ids) is indexed");
	TAP_EQ_INT(ix.nodes, 1 + WORLD_OBJECTS(N) + WORLD_CLASSES, "a node per object and class dump, and the super-root");
	TAP_EQ_INT(ix.main_end, WORLD_OBJECTS(N), "objects first, class objects after them");
	TAP_EQ_INT(ix.nclasses, WORLD_CLASSES + 8, "the class dumps and a pseudo-class per primitive array type");
	TAP_EQ_INT(ix.file_bytes, b.len, "file_bytes is the dump's size");
	TAP_EQ_INT(ix.nsegs, 3, "three heap segments recorded");
	TAP_OK(ix.segs[1].main_before == 0 && ix.segs[1].class_before == WORLD_CLASSES &&
		       ix.segs[2].main_before == 2 + 2 * N && ix.segs[2].class_before == WORLD_CLASSES,
	       "each segment knows the objects and class dumps before it");
	for (n = ix.main_end + 1; n < ix.nodes; n++) {
		uint32_t c = ooms_class_of_node(&ix, n);

		ok &= ooms_kind(&ix, n) == NODE_CLASS && ix.classes[c].node == n &&
		      (n == ix.main_end + 1 || ooms_index_id(&ix, n) > ooms_index_id(&ix, n - 1));
	}
	TAP_OK(ok, "class objects are in id order, each the node of its class");
	sess = cls_of(&ix, "com.example.Session");
	audit = cls_of(&ix, "com.example.AuditSession");
	reg = cls_of(&ix, "com.example.Registry");
	weak = cls_of(&ix, "java.lang.ref.WeakReference");
	myref = cls_of(&ix, "com.example.MyRef");
	holder = cls_of(&ix, "com.example.Holder");
	TAP_OK(sess != OOMS_NONE && cls_of(&ix, "com/example/Session") == OOMS_NONE &&
		       cls_of(&ix, "java.lang.Object[]") != OOMS_NONE &&
		       ix.classes[cls_of(&ix, "java.lang.Object[]")].is_array_class && !ix.classes[sess].is_array_class,
	       "class names dotted, [Ljava/lang/Object; as java.lang.Object[]");
	TAP_OK(ix.prim_class[HPROF_T_BYTE] == cls_of(&ix, "byte[]") && ix.classes[cls_of(&ix, "int[]")].node == OOMS_NONE,
	       "pseudo-classes for byte[], int[]... (no class object)");
	TAP_OK(ix.classes[audit].super == sess && ooms_index_is_a(&ix, audit, "com.example.Session") &&
		       ooms_index_is_a(&ix, audit, "java.lang.Object") && !ooms_index_is_a(&ix, sess, "com.example.AuditSession"),
	       "superclass chain: AuditSession is a Session and an Object, not the other way");
	TAP_OK(ix.classes[audit].nslots == 1 && ix.slots[ix.classes[audit].slots_at].offset == 8 &&
		       ix.slots[ix.classes[audit].slots_at].declared_in == sess &&
		       !strcmp(ooms_index_str(&ix, ix.fields[ix.slots[ix.classes[audit].slots_at].field].name), "data"),
	       "a subclass's inherited reference slot sits after its own fields (offset 8, Session.data)");
	TAP_OK(ix.classes[reg].nslots == 2 && ix.slots[ix.classes[reg].slots_at + 1].offset == 8,
	       "Registry: two reference slots at 0 and 8");
	TAP_OK(ix.classes[weak].weak_slot == 0 && !ix.classes[weak].referent_late && ix.classes[myref].referent_late,
	       "WeakReference's referent is weak; a Reference of no known kind holds it as a last resort");
	TAP_EQ_INT(ix.weak_refs, 2, "two referent edges (W, MR)");
	TAP_EQ_INT(ooms_referent_of(&ix, node_of(&ix, O_W)), node_of(&ix, O_X), "W's referent is X, its last edge");
	TAP_EQ_INT(ooms_referent_of(&ix, node_of(&ix, O_B)), OOMS_NONE, "a Bag has no referent");
	TAP_OK(edges_are(&ix, node_of(&ix, O_B), (const uint64_t[]){O_A}, 1), "Bag B -> its array, nothing else");
	{
		uint64_t want[N];

		for (unsigned i = 0; i < N; i++)
			want[i] = O_S(i);
		TAP_OK(edges_are(&ix, node_of(&ix, O_A), want, N), "the array's edges: its %d sessions in slot order", N);
	}
	TAP_OK(edges_are(&ix, ix.classes[holder].node, (const uint64_t[]){O_B}, 1), "Holder's class object -> its static");
	TAP_OK(edges_are(&ix, node_of(&ix, O_R), (const uint64_t[]){O_SA, O_S(0)}, 2), "Registry -> current, backup");
	TAP_OK(edges_are(&ix, node_of(&ix, O_SA), (const uint64_t[]){O_SA_DATA}, 1), "AuditSession -> its data");
	TAP_OK(edges_are(&ix, node_of(&ix, O_N(WORLD_CHAIN - 1)), (const uint64_t[]){O_NP(WORLD_CHAIN - 1)}, 1) &&
		       ix.dangling == 1,
	       "a reference to an id not in the dump is no edge, counted as dangling");
	TAP_OK(ooms_kind(&ix, node_of(&ix, O_A)) == NODE_OBJ_ARRAY && ooms_length(&ix, node_of(&ix, O_A)) == N &&
		       ooms_kind(&ix, node_of(&ix, O_L)) == NODE_PRIM_ARRAY && ooms_length(&ix, node_of(&ix, O_L)) == 5000 &&
		       ooms_cls(&ix, node_of(&ix, O_T2NAME)) == ix.prim_class[HPROF_T_CHAR] &&
		       ooms_kind(&ix, node_of(&ix, O_SA)) == NODE_INSTANCE && ooms_cls(&ix, node_of(&ix, O_SA)) == audit &&
		       ooms_heap(&ix, node_of(&ix, O_SA)) == HEAP_DEFAULT,
	       "kinds, array lengths and classes by node");
	TAP_EQ_INT(node_of(&ix, O_MISSING), OOMS_NONE, "no node for a root's missing object");
	TAP_EQ_INT(ix.nroots, 9 + WORLD_CLASSES, "root records kept: not the missing object's, not UNREACHABLE");
	for (uint32_t i = 0; i < ix.nroots; i++)
		sticky += ix.roots[i].kind == HPROF_ROOT_STICKY_CLASS && ix.roots[i].node > ix.main_end;
	TAP_EQ_INT(sticky, WORLD_CLASSES, "a sticky class root on each class object");
	TAP_OK(ix.roots[0].kind == HPROF_ROOT_THREAD_OBJECT && ix.roots[0].node == node_of(&ix, O_T) &&
		       ix.roots[0].thread_serial == 1 && ix.roots[0].trace_serial == 1 && ix.roots[0].frame == -1,
	       "thread object root: its thread and trace serials");
	TAP_OK(ix.roots[3].kind == HPROF_ROOT_JAVA_FRAME && ix.roots[3].node == node_of(&ix, O_O) &&
		       ix.roots[3].thread_serial == 1 && ix.roots[3].frame == 1 && ix.roots[5].kind == HPROF_ROOT_JNI_GLOBAL,
	       "java frame root: thread 1, frame 1; then the JNI globals");
	TAP_OK(ix.ntraces == 2 && ix.nframes == 4 && ix.traces[1].serial == 2 && ix.traces[1].thread_serial == 2 &&
		       ix.traces[1].nframes == 2 && ix.trace_frames[ix.traces[1].frames_at] == 0x902 &&
		       ix.frames[0].line == 42 && ix.frames[1].line == -3,
	       "stack traces and frames as recorded");
	TAP_OK(pr[0].count == N + 1 && pr[0].type == HPROF_T_BOOLEAN && probe(&pr[0], node_of(&ix, O_S(1))) == 1 &&
		       probe(&pr[0], node_of(&ix, O_S(2))) == 0 && probe(&pr[0], node_of(&ix, O_SA)) == 1,
	       "probe Session.closed: every Session and subclass, the subclass's read past its own field");
	TAP_OK(pr[1].count == 1 && pr[1].type == HPROF_T_INT && probe(&pr[1], node_of(&ix, O_B)) == N,
	       "probe Bag.size: %d", N);
	TAP_OK(pr[2].count == 2 && probe(&pr[2], node_of(&ix, O_T)) == node_of(&ix, O_TNAME) &&
		       probe(&pr[2], node_of(&ix, O_T2)) == node_of(&ix, O_T2NAME),
	       "an object probe gives the referenced node");
	/* shallow sizes, HotSpot's model without a hint: 8-byte oops, 16-byte header */
	TAP_OK(!ix.sizes_in_dump && ix.oop_size == 8 && ix.min_inst_size == 16, "8-byte ids: oops 8, header 16");
	TAP_OK(ooms_shallow_size(&ix, node_of(&ix, O_S(0))) == 32 && ooms_shallow_size(&ix, node_of(&ix, O_SA)) == 40 &&
		       ooms_shallow_size(&ix, node_of(&ix, O_A)) == 104 && ooms_shallow_size(&ix, node_of(&ix, O_SD(0))) == 1024 &&
		       ooms_shallow_size(&ix, node_of(&ix, O_L)) == 5024 && ooms_shallow_size(&ix, node_of(&ix, O_T2NAME)) == 48 &&
		       ooms_shallow_size(&ix, node_of(&ix, O_T)) == 24 && ooms_shallow_size(&ix, node_of(&ix, O_O)) == 16 &&
		       ooms_shallow_size(&ix, ix.classes[sess].node) == 0,
	       "shallow sizes: instances by their fields up the chain, arrays by elements, aligned to 8; class objects 0");
	ooms_probes_free(pr, 3);
	ooms_index_free(&ix);

	/* 4-byte ids: 4-byte oops, 8-byte header */
	free(b.p);
	b = make_world(4, N);
	path = hg_tmp_dump(&tmp, "world4.hprof", &b);
	TAP_EQ_INT(build(&ix, path, NULL, 0, &err), 0, "the world (4-byte ids) is indexed");
	TAP_OK(ix.nodes == 1 + WORLD_OBJECTS(N) + WORLD_CLASSES && ix.oop_size == 4 && ix.min_inst_size == 8 &&
		       ooms_shallow_size(&ix, node_of(&ix, O_S(0))) == 16 && ooms_shallow_size(&ix, node_of(&ix, O_A)) == 56 &&
		       ooms_shallow_size(&ix, node_of(&ix, O_SD(0))) == 1016 &&
		       edges_are(&ix, node_of(&ix, O_R), (const uint64_t[]){O_SA, O_S(0)}, 2),
	       "4-byte ids: the same graph; sizes with 4-byte oops and an 8-byte header");
	ooms_index_free(&ix);
	free(b.p);
}

/* A dump with HotSpot's Unsafe scale (compressed oops with 8-byte ids) and
 * a class defined by a loader object. */
static void unsafe_and_loader(void)
{
	struct hg g;
	struct buf b, d = {0};
	struct ooms_index ix;
	struct ooms_edge_label lab[2];
	struct ooms_err err = {0};
	const char *path;
	uint32_t plugin;

	hg_begin(&g, 8, 0);
	hg_load(&g, 1, 0x100, "java/lang/Object");
	hg_load(&g, 2, 0x108, "jdk/internal/misc/Unsafe");
	hg_load(&g, 3, 0x110, "com/example/Bag");
	hg_load(&g, 4, 0x118, "[Ljava/lang/Object;");
	hg_load(&g, 5, 0x120, "com/example/Plugin");
	hg_root(&g, HPROF_ROOT_STICKY_CLASS, 0x110, 0, 0);
	hg_class(&g, 0x100, 0, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, 0x108, 0x100, 0, 0, (const struct hg_static[]){{"ARRAY_OBJECT_INDEX_SCALE", HPROF_T_INT, 4}}, 1, NULL, 0);
	hg_class(&g, 0x110, 0x100, 0, 12, NULL, 0, (const struct hg_field[]){{"elems", HPROF_T_OBJECT}, {"size", HPROF_T_INT}}, 2);
	hg_class(&g, 0x118, 0x100, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, 0x120, 0x100, 0x5000, 0, NULL, 0, NULL, 0);
	id(&d, 0x5010); u4(&d, 3);
	hg_inst(&g, 0x5008, 0x110, &d);
	hg_objarr(&g, 0x5010, 0x118, 3, (const uint64_t[]){0x5000, 0, 0x5008});
	hg_inst(&g, 0x5000, 0x100, &d);
	b = hg_end(&g);
	path = hg_tmp_dump(&tmp, "unsafe.hprof", &b);
	TAP_EQ_INT(build(&ix, path, NULL, 0, &err), 0, "a dump with Unsafe's scale is indexed");
	TAP_OK(ix.oop_scale_hint == 4 && ix.oop_size == 4 && ix.min_inst_size == 12 &&
		       ooms_shallow_size(&ix, node_of(&ix, 0x5008)) == 24 && ooms_shallow_size(&ix, node_of(&ix, 0x5010)) == 32,
	       "ARRAY_OBJECT_INDEX_SCALE 4: compressed oops, a 12-byte header (Bag 24, Object[3] 32)");
	plugin = cls_of(&ix, "com.example.Plugin");
	TAP_OK(ix.classes[plugin].loader_id == 0x5000 && ix.classes[plugin].loader == node_of(&ix, 0x5000) &&
		       edges_are(&ix, ix.classes[plugin].node, (const uint64_t[]){0x5000}, 1),
	       "a class object's loader is its edge and its loader node");
	TAP_OK(edges_are(&ix, node_of(&ix, 0x5010), (const uint64_t[]){0x5000, 0x5008}, 2), "a null array slot is no edge");
	lab[0] = (struct ooms_edge_label){.from = ix.classes[plugin].node, .to = node_of(&ix, 0x5000)};
	lab[1] = (struct ooms_edge_label){.from = node_of(&ix, 0x5010), .to = node_of(&ix, 0x5008)};
	TAP_OK(!ooms_label_edges(&ix, "/nonexistent", lab, 0, NULL, 0, &err), "no labels asked: nothing read");
	TAP_OK(!ooms_label_edges(&ix, path, lab, 2, NULL, 0, &err) &&
		       lab[0].type == REF_CLASS_LOADER && lab[0].declared_in == plugin && lab[1].type == REF_ARRAY_ENTRY &&
		       lab[1].index == 2,
	       "labels: a class's loader; an array entry past a null (index 2)");
	ooms_index_free(&ix);
	free(b.p);
	free(d.p);
}

static int gzip_to(const char *path, const struct buf *b)
{
	gzFile z = gzopen(path, "wb");

	if (!z)
		return -1;
	if (gzwrite(z, b->p, (unsigned)b->len) != (int)b->len) {
		gzclose(z);
		return -1;
	}
	return gzclose(z) == Z_OK ? 0 : -1;
}

static void android_sizes(void)
{
	struct buf b = make_android_app(8, 1);
	struct ooms_index ix;
	struct ooms_err err = {0};

	TAP_EQ_INT(build(&ix, hg_tmp_dump(&tmp, "app.hprof", &b), NULL, 0, &err), 0, "an ART dump is indexed");
	TAP_OK(ix.sizes_in_dump && ix.min_inst_size == 8 && ix.oop_size == 4, "ART: sizes from the class dumps, 4-byte oops");
	TAP_OK(ooms_shallow_size(&ix, node_of(&ix, 0x3001)) == 8 + 2 + 2 * 8 &&
		       ooms_shallow_size(&ix, node_of(&ix, 0x3008)) == 24 &&
		       ooms_shallow_size(&ix, node_of(&ix, 0x3009)) == 8 + 4 + 1080 * 1920 * 4 + 4,
	       "ART: an instance's size as dumped (26, unaligned), arrays computed and aligned (a stripped byte[] by its length)");
	TAP_OK(cls_of(&ix, "byte[]") == ix.prim_class[HPROF_T_BYTE] && ix.classes[ix.prim_class[HPROF_T_BYTE]].node != OOMS_NONE &&
		       ix.nclasses == 9 + 7,
	       "ART's own byte[] class is used, pseudo-classes for the other types");
	TAP_OK(ooms_heap(&ix, node_of(&ix, 0x3003)) == HEAP_IMAGE && ooms_heap(&ix, node_of(&ix, 0x3001)) == HEAP_APP &&
		       ooms_heap(&ix, node_of(&ix, 0x3004)) == HEAP_APP,
	       "heaps by HEAP_DUMP_INFO: the Window in the image heap, its neighbours in the app heap");
	ooms_index_free(&ix);
	free(b.p);
}

/* --ignore and --library-leak marks, and what they refuse. */
static void marks(const char *path)
{
	struct ooms_index ix;
	struct ooms_err err = {0};
	const char *ign[] = {"com.example.Registry#backup"}, *lib[] = {"com.example.Registry#current"};
	const char *cls[] = {"com.example.Registry"};
	const char *bad[][2] = {{"com.example.Nope#x", "no class com.example.Nope"},
				{"com.example.Registry#nope", "has no reference field nope"},
				{"#x", "wants Class#field"}};
	uint32_t r;

	TAP_EQ_INT(ooms_index_build(&ix, path, &(struct ooms_index_opts){.ignores = ign, .nignores = 1, .library = lib, .nlibrary = 1},
				    &err), 0, "built with an ignore and a library leak");
	ooms_index_load_ids(&ix);
	r = node_of(&ix, O_R);
	TAP_OK(ooms_edge_mark(&ix, r, node_of(&ix, O_S(0))) == OOMS_MARK_IGNORE &&
		       ooms_edge_mark(&ix, r, node_of(&ix, O_SA)) == OOMS_MARK_LIBRARY &&
		       ooms_edge_mark(&ix, node_of(&ix, O_B), node_of(&ix, O_A)) == OOMS_MARK_NONE,
	       "Registry.backup left out, Registry.current a library leak's, Bag.elems unmarked");
	TAP_OK(ix.nlibrary == 1 && strstr(ix.library[0], "com.example.Registry#current"), "the library reference described");
	ooms_index_free(&ix);
	TAP_EQ_INT(ooms_index_build(&ix, path, &(struct ooms_index_opts){.ignores = cls, .nignores = 1}, &err), 0,
		   "built with a class ignored");
	TAP_OK(ix.roots[5].node == node_of(&ix, O_R) && ooms_root_mark(&ix, 5) == OOMS_MARK_IGNORE && ooms_root_mark(&ix, 6) == OOMS_MARK_NONE,
	       "an ignored class's instances as roots are marked, others not");
	ooms_index_free(&ix);
	for (int i = 0; i < 3; i++) {
		int e = ooms_index_build(&ix, path, &(struct ooms_index_opts){.ignores = &bad[i][0], .nignores = 1}, &err);

		TAP_OK(e == -EINVAL && strstr(err.msg, bad[i][1]) && ix.nodes == 0, "--ignore %s refused: %s", bad[i][0], err.msg);
	}
	TAP_OK(ooms_index_build(&ix, path, &(struct ooms_index_opts){.max_memory = 1}, &err) == -EFBIG &&
		       strstr(err.msg, "--max-memory allows 0 MB"),
	       "--max-memory below the estimate: -EFBIG before pass 2 (%s)", err.msg);
}

/* Cuts of the file: inside a record, a negative errno and a message; at a
 * record boundary, a valid (shorter) dump. Each kind of record is cut at
 * its start, in its head and in its body (every byte would do, but each
 * build costs tens of milliseconds under ASan). */
static void cuts(const struct buf *b)
{
	const char *path = hg_tmp_file(&tmp, "cut.hprof");
	size_t head = strlen((const char *)b->p) + 1 + 12, bad = 0, good = 0, wrong = 0, at[256], n = 0;
	uint8_t seen[256] = {0};
	struct ooms_index ix;
	struct ooms_err err = {0};

	for (size_t c = 0; c < head; c += 5)
		at[n++] = c;
	for (size_t o = head; o < b->len && n + 3 < sizeof(at) / sizeof(at[0]);) {
		size_t len = (size_t)b->p[o + 5] << 24 | (size_t)b->p[o + 6] << 16 | (size_t)b->p[o + 7] << 8 | b->p[o + 8];

		if (!seen[b->p[o]]++ || b->p[o] == HPROF_HEAP_DUMP_SEGMENT) { /* the first of each kind, every segment */
			at[n++] = o;
			at[n++] = o + 1 + (len % 8);
			if (len)
				at[n++] = o + 9 + len / 2;
		}
		o += 9 + len;
	}
	for (size_t i = 0; i < n; i++) {
		int boundary = 0, e;

		for (size_t o = head; o <= at[i] && !boundary; o += 9 + ((size_t)b->p[o + 5] << 24 | (size_t)b->p[o + 6] << 16 |
							     (size_t)b->p[o + 7] << 8 | b->p[o + 8]))
			boundary = o == at[i];
		hg_write(path, b->p, at[i]);
		ooms_err_clear(&err);
		e = ooms_index_build(&ix, path, &(struct ooms_index_opts){0}, &err);
		if (boundary ? !e : e == -EBADMSG && err.code == e && err.msg[0] && ix.nodes == 0) {
			good += !e;
			bad += !!e;
		} else if (!wrong++) {
			printf("#   cut at %zu (%s): %d '%s'\n", at[i], boundary ? "a boundary" : "inside", e, err.msg);
		}
		if (!e)
			ooms_index_free(&ix);
	}
	TAP_EQ_INT(wrong, 0, "every cut inside a record: -EBADMSG with a message, nothing kept; at a boundary: indexed");
	TAP_OK(bad >= 15 && good >= 8, "cuts tried: %zu inside records refused, %zu at record boundaries accepted", bad, good);
	hg_write(path, b->p, head + 20);
	ooms_index_build(&ix, path, &(struct ooms_index_opts){0}, &err);
	TAP_OK(strstr(err.msg, path) && strstr(err.msg, "truncated"), "the message names the file and the cut: %s", err.msg);
	/* a damaged sub-record tag in the second segment */
	{
		struct buf d = {malloc(b->len), b->len, b->len};
		size_t o = head;
		int seg = 0;

		memcpy(d.p, b->p, b->len);
		while (seg < 2) { /* the second HEAP_DUMP_SEGMENT's first sub-record */
			seg += d.p[o] == HPROF_HEAP_DUMP_SEGMENT;
			if (seg < 2)
				o += 9 + ((size_t)d.p[o + 5] << 24 | (size_t)d.p[o + 6] << 16 | (size_t)d.p[o + 7] << 8 | d.p[o + 8]);
		}
		d.p[o + 9] = 0x77;
		hg_write(path, d.p, d.len);
		TAP_OK(ooms_index_build(&ix, path, &(struct ooms_index_opts){0}, &err) == -EBADMSG && strstr(err.msg, "0x77"),
		       "an unknown sub-record tag: refused, the tag quoted (%s)", err.msg);
		free(d.p);
	}
	{ /* a class that is its own superclass: indexed, no endless walk up its chain */
		struct hg g;
		struct buf h, d = {0};
		uint32_t c = OOMS_NONE;

		hg_begin(&g, 8, 0);
		hg_load(&g, 1, 0x100, "com/example/Loop");
		hg_class(&g, 0x100, 0x100, 0, 8, NULL, 0, (const struct hg_field[]){{"next", HPROF_T_OBJECT}}, 1);
		id(&d, 0x5000);
		hg_inst(&g, 0x5000, 0x100, &d);
		h = hg_end(&g);
		hg_write(path, h.p, h.len);
		TAP_OK(!build(&ix, path, NULL, 0, &err) && (c = cls_of(&ix, "com.example.Loop")) != OOMS_NONE &&
			       !ooms_index_is_a(&ix, c, "java.lang.Object") && ix.off[2] - ix.off[1] == 1 &&
			       ix.tgt[ix.off[1]] == 1,
		       "a class its own superclass: indexed, its one instance referring to itself once");
		/* the loop is cut: one reference slot, not one per turn of it (a
		 * hostile dump of a few MB once asked for gigabytes) */
		TAP_OK(c != OOMS_NONE && ix.classes[c].super == OOMS_NONE && ix.classes[c].nslots == 1 &&
			       ooms_shallow_setup(&ix) == 0 && ooms_shallow_size(&ix, 1) == 24,
		       "a class its own superclass: the loop cut, one slot, an instance of 24 bytes");
		ooms_index_free(&ix);
		free(h.p);
		free(d.p);
	}
	hg_write(path, "JAVA PROFILE 9.9\0\0\0\0\x08\0\0\0\0\0\0\0\0", 29);
	TAP_OK(ooms_index_build(&ix, path, &(struct ooms_index_opts){0}, &err) == -EBADMSG && strstr(err.msg, "unknown header"),
	       "a foreign header refused: %s", err.msg);
	hg_write(path, "", 0);
	TAP_OK(ooms_index_build(&ix, path, &(struct ooms_index_opts){0}, &err) == -EBADMSG && strstr(err.msg, "empty"),
	       "an empty file refused: %s", err.msg);
	TAP_OK(ooms_index_build(&ix, "/nonexistent/dump.hprof", &(struct ooms_index_opts){0}, &err) == -ENOENT &&
		       err.code == -ENOENT && strstr(err.msg, "/nonexistent/dump.hprof"),
	       "a missing file: -ENOENT, named: %s", err.msg);
}


int main(void)
{
	struct buf b;
	struct ooms_index ix, iz;
	struct ooms_err err = {0};
	const char *plain, *gz, *two;

	if (hg_tmp_init(&tmp))
		return 1;
	world_graph();
	unsafe_and_loader();
	android_sizes();
	b = make_world(8, 2);
	cuts(&b);
	free(b.p);
	b = make_world(8, N);
	plain = hg_tmp_dump(&tmp, "w.hprof", &b);
	gz = hg_tmp_file(&tmp, "w.hprof.gz");
	TAP_OK(!gzip_to(gz, &b) && ooms_dump_compressed(gz) == 1 && ooms_dump_compressed(plain) == 0, "gzip written and told");
	TAP_OK(!build(&ix, plain, NULL, 0, &err) && !build(&iz, gz, NULL, 0, &err) && ix.nodes == iz.nodes &&
		       ix.nedges == iz.nedges && ix.nroots == iz.nroots && !memcmp(ix.tgt, iz.tgt, ix.nedges * sizeof(*ix.tgt)) &&
		       iz.file_bytes == b.len,
	       "a gzipped dump gives the same index");
	ooms_index_free(&iz);
	/* a second heap dump after the first's end: not read */
	{
		struct buf t = {0}, h = {0};

		put(&t, b.p, b.len);
		ID = 8;
		u1(&h, HPROF_INSTANCE_DUMP); id(&h, 0x90000); u4(&h, 0); id(&h, K_OBJ); u4(&h, 0);
		u1(&t, HPROF_HEAP_DUMP_SEGMENT); u4(&t, 0); u4(&t, (uint32_t)h.len); put(&t, h.p, h.len);
		u1(&t, HPROF_HEAP_DUMP_END); u4(&t, 0); u4(&t, 0);
		free(h.p);
		two = hg_tmp_dump(&tmp, "two.hprof", &t);
		TAP_OK(!build(&iz, two, NULL, 0, &err) && iz.nodes == ix.nodes && iz.nsegs == 3,
		       "a second heap dump in the file is skipped, as VisualVM does");
		ooms_index_free(&iz);
		free(t.p);
	}
	ooms_index_free(&ix);
	marks(plain);
	free(b.p);
	hg_tmp_done(&tmp);
	return tap_done();
}
