/* Reading the dump again beside its index: the names of references on
 * paths (user/graph/labels.c) and the records' contents it reads, String
 * values from them (strings.c: Latin-1 and UTF-16 byte[]s, char[]s),
 * registered native sizes over the dominators (native.c), root kind names
 * (roots.c). On "the world" (heapgen.h), plain and gzipped, and tests/tools'
 * synthetic ART dump. */
#include <errno.h>
#include <zlib.h>
#include "graph/index.h"
#include "graph/labels.h"
#include "graph/matmodel.h"
#include "graph/native.h"
#include "graph/roots.h"
#include "graph/shallow.h"
#include "graph/strings.h"
#include "tap.h"
#include "heapgen.h"

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

static void labels_and_strings(const char *name, const char *path)
{
	struct ooms_index ix;
	struct ooms_edge_label l[7];
	struct ooms_content w[3];
	struct ooms_err err = {0};
	char text[64];
	uint32_t inst, chars, holder, bag, sess;

	TAP_EQ_INT(build(&ix, path, NULL, 0, &err), 0, "%s: indexed", name);
	holder = cls_of(&ix, "com.example.Holder");
	bag = cls_of(&ix, "com.example.Bag");
	sess = cls_of(&ix, "com.example.Session");
	l[0] = (struct ooms_edge_label){.from = ix.classes[holder].node, .to = node_of(&ix, O_B)};
	l[1] = (struct ooms_edge_label){.from = node_of(&ix, O_B), .to = node_of(&ix, O_A)};
	l[2] = (struct ooms_edge_label){.from = node_of(&ix, O_A), .to = node_of(&ix, O_S(3))};
	l[3] = (struct ooms_edge_label){.from = node_of(&ix, O_SA), .to = node_of(&ix, O_SA_DATA)};
	l[4] = (struct ooms_edge_label){.from = node_of(&ix, O_S(1)), .to = ix.classes[sess].node};
	l[5] = (struct ooms_edge_label){.from = node_of(&ix, O_B), .to = node_of(&ix, O_S(1))};
	l[6] = (struct ooms_edge_label){.from = node_of(&ix, O_R), .to = node_of(&ix, O_S(0))};
	w[0].node = node_of(&ix, O_TNAME);
	w[1].node = node_of(&ix, O_TNAME_B);
	w[2].node = node_of(&ix, O_T2NAME);
	TAP_EQ_INT(ooms_label_edges(&ix, path, l, 7, w, 3, &err), 0, "%s: the names pass", name);
	TAP_OK(l[0].type == REF_STATIC_FIELD && !strcmp(ooms_index_str(&ix, l[0].field), "sessions") && l[0].declared_in == holder,
	       "%s: Holder -> B is the static field sessions", name);
	TAP_OK(l[1].type == REF_INSTANCE_FIELD && !strcmp(ooms_index_str(&ix, ix.fields[l[1].field].name), "elems") &&
		       l[1].declared_in == bag,
	       "%s: B -> A is the instance field Bag.elems", name);
	TAP_OK(l[2].type == REF_ARRAY_ENTRY && l[2].index == 3, "%s: A -> S_3 is array entry 3", name);
	TAP_OK(l[3].type == REF_INSTANCE_FIELD && l[3].declared_in == sess &&
		       !strcmp(ooms_index_str(&ix, ix.fields[l[3].field].name), "data"),
	       "%s: an inherited field is named by the class that declares it", name);
	TAP_OK(l[4].type == REF_CLASS_OBJECT && l[5].type == REF_NONE, "%s: an instance's class; an edge that is not there: none", name);
	TAP_OK(l[6].type == REF_INSTANCE_FIELD && !strcmp(ooms_index_str(&ix, ix.fields[l[6].field].name), "backup"),
	       "%s: the second reference field told from the first", name);
	TAP_OK(w[0].len == ix.id_size + 1 && w[1].len == 11 && !memcmp(w[1].data, "main-worker", 11) && w[2].len == 22,
	       "%s: the wanted records' contents read (a String's fields, a byte[], a char[])", name);
	TAP_OK(!ooms_string_nodes(&ix, node_of(&ix, O_TNAME), &inst, &chars) && inst == w[0].node && chars == w[1].node,
	       "%s: a String's records: itself and its byte[]", name);
	ooms_string_text(&ix, inst, chars, w, 3, text, sizeof(text));
	TAP_EQ_STR(text, "main-worker", "%s: a Latin-1 String's text", name);
	TAP_OK(!ooms_string_nodes(&ix, node_of(&ix, O_T2NAME), &inst, &chars) && inst == OOMS_NONE, "%s: a char[] name", name);
	ooms_string_text(&ix, inst, chars, w, 3, text, sizeof(text));
	TAP_EQ_STR(text, "oom-thrower", "%s: a char[]'s text (UTF-16, big-endian)", name);
	ooms_string_text(&ix, inst, chars, w, 3, text, 4);
	TAP_EQ_STR(text, "oom", "%s: cut to the buffer", name);
	w[1].data[0] = 0x1b;
	w[1].data[1] = 0xe9;
	ooms_string_text(&ix, w[0].node, w[1].node, w, 3, text, sizeof(text));
	TAP_EQ_STR(text, "?in-worker", "%s: a control byte left out, non-ASCII as '?'", name);
	w[0].data[ix.id_size] = 1; /* coder 1: UTF-16 as the JVM holds it, little-endian */
	memcpy(w[1].data, "h\0i\0\xe9\0", 6);
	w[1].len = 6;
	ooms_string_text(&ix, w[0].node, w[1].node, w, 3, text, sizeof(text));
	TAP_EQ_STR(text, "hi?", "%s: a UTF-16 String (coder 1)", name);
	ooms_string_text(&ix, w[0].node, w[1].node, w, 1, text, sizeof(text));
	TAP_EQ_STR(text, "", "%s: characters not read: empty", name);
	TAP_OK(ooms_string_nodes(&ix, node_of(&ix, O_A), &inst, &chars) == -1 &&
		       ooms_string_nodes(&ix, OOMS_NONE, &inst, &chars) == -1,
	       "%s: an object array or no node is no String", name);
	ooms_index_free(&ix);
}

/* Registered native sizes (NativeAllocationRegistry) on ART's synthetic dump. */
static void native_sizes(void)
{
	struct buf b = make_android_art(4);
	struct ooms_probe pr[OOMS_NATIVE_PROBES] = {{0}};
	struct ooms_index ix;
	struct ooms_matmodel m;
	struct ooms_dominators d;
	struct ooms_native nat;
	struct ooms_err err = {0};

	for (int i = 0; i < OOMS_NATIVE_PROBES; i++)
		pr[i] = (struct ooms_probe){ooms_native_probe_fields[i][0], ooms_native_probe_fields[i][1], 0, NULL, 0, 0};
	TAP_EQ_INT(build(&ix, hg_tmp_dump(&tmp, "art.hprof", &b), pr, OOMS_NATIVE_PROBES, &err), 0, "ART's synthetic dump is indexed");
	TAP_OK(!ooms_matmodel_compute(&ix, &m) && !ooms_matmodel_dominators(&ix, &m, OOMS_MAT_AUTO, 0, &d),
	       "its dominators (MAT's model)");
	TAP_EQ_INT(ooms_native_compute(&ix, pr, d.idom, &nat), 0, "native sizes computed");
	TAP_OK(nat.objects == 2 && nat.bytes == 1080ull * 1920 * 4 + 4096 && nat.direct_objects == 0,
	       "two registered referents, 8294400 + 4096 bytes, no direct buffer");
	TAP_OK(ooms_native_retained(&nat, node_of(&ix, 0x3031)) == 1080ull * 1920 * 4 &&
		       ooms_native_retained(&nat, node_of(&ix, 0x3034)) == 4096 &&
		       ooms_native_retained(&nat, node_of(&ix, 0x3001)) == 0,
	       "each Bitmap retains its registered size; its holder, which does not dominate it, none");
	ooms_native_free(&nat);
	ooms_dominators_free(&d);
	ooms_matmodel_free(&m);
	ooms_probes_free(pr, OOMS_NATIVE_PROBES);
	ooms_index_free(&ix);
	free(b.p);
}

/* HotSpot's direct buffers: a DirectByteBuffer's memory, freed by a
 * jdk.internal.ref.Cleaner through its Deallocator, counted to the buffer
 * and up its dominators (the Holder class holds both it and its Cleaner). */
static void direct_buffers(void)
{
	struct hg g;
	struct buf b, d = {0};
	struct ooms_probe pr[OOMS_NATIVE_PROBES];
	struct ooms_index ix;
	struct ooms_matmodel m;
	struct ooms_dominators dom;
	struct ooms_native nat;
	struct ooms_err err = {0};

	hg_begin(&g, 8, 0);
	hg_load(&g, 1, 0x100, "java/lang/Object");
	hg_load(&g, 2, 0x108, "java/lang/ref/Reference");
	hg_load(&g, 3, 0x110, "java/lang/ref/PhantomReference");
	hg_load(&g, 4, 0x118, "jdk/internal/ref/Cleaner");
	hg_load(&g, 5, 0x120, "java/nio/DirectByteBuffer$Deallocator");
	hg_load(&g, 6, 0x128, "java/nio/DirectByteBuffer");
	hg_load(&g, 7, 0x130, "com/example/Holder");
	hg_root(&g, HPROF_ROOT_STICKY_CLASS, 0x130, 0, 0);
	hg_class(&g, 0x100, 0, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, 0x108, 0x100, 0, 8, NULL, 0, (const struct hg_field[]){{"referent", HPROF_T_OBJECT}}, 1);
	hg_class(&g, 0x110, 0x108, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, 0x118, 0x110, 0, 8, NULL, 0, (const struct hg_field[]){{"thunk", HPROF_T_OBJECT}}, 1);
	hg_class(&g, 0x120, 0x100, 0, 8, NULL, 0, (const struct hg_field[]){{"size", HPROF_T_LONG}}, 1);
	hg_class(&g, 0x128, 0x100, 0, 0, NULL, 0, NULL, 0);
	hg_class(&g, 0x130, 0x100, 0, 0,
		 (const struct hg_static[]){{"buf", HPROF_T_OBJECT, 0x5000}, {"cleaner", HPROF_T_OBJECT, 0x5008}}, 2, NULL, 0);
	hg_inst(&g, 0x5000, 0x128, &d);
	id(&d, 0x5010); id(&d, 0x5000); /* the Cleaner: its thunk, then Reference.referent */
	hg_inst(&g, 0x5008, 0x118, &d);
	u8(&d, 1 << 20);
	hg_inst(&g, 0x5010, 0x120, &d);
	b = hg_end(&g);
	for (int i = 0; i < OOMS_NATIVE_PROBES; i++)
		pr[i] = (struct ooms_probe){ooms_native_probe_fields[i][0], ooms_native_probe_fields[i][1], 0, NULL, 0, 0};
	if (build(&ix, hg_tmp_dump(&tmp, "direct.hprof", &b), pr, OOMS_NATIVE_PROBES, &err) || ooms_matmodel_compute(&ix, &m) ||
	    ooms_matmodel_dominators(&ix, &m, OOMS_MAT_AUTO, 0, &dom)) {
		TAP_OK(0, "the direct buffer's dump indexed: %s", err.msg);
		return;
	}
	TAP_OK(!ooms_native_compute(&ix, pr, dom.idom, &nat) && nat.direct_objects == 1 && nat.direct_bytes == 1 << 20 &&
		       nat.objects == 0 && nat.bytes == 0,
	       "a DirectByteBuffer's 1 MB, kept apart from registered sizes");
	TAP_OK(ooms_native_retained(&nat, node_of(&ix, 0x5000)) == 1 << 20 &&
		       ooms_native_retained(&nat, ix.classes[cls_of(&ix, "com.example.Holder")].node) == 1 << 20 &&
		       ooms_native_retained(&nat, node_of(&ix, 0x5008)) == 0,
	       "counted to the buffer and to the Holder class that dominates it; not to its Cleaner");
	ooms_native_free(&nat);
	ooms_dominators_free(&dom);
	ooms_matmodel_free(&m);
	ooms_probes_free(pr, OOMS_NATIVE_PROBES);
	ooms_index_free(&ix);
	free(b.p);
	free(d.p);
}

int main(void)
{
	struct buf b = make_world(8, 10);
	const char *gz;

	if (hg_tmp_init(&tmp))
		return 1;
	/* a plain file's names pass reads only the records it needs; a gzipped one's, the whole file */
	labels_and_strings("plain", hg_tmp_dump(&tmp, "w.hprof", &b));
	gz = hg_tmp_file(&tmp, "w.hprof.gz");
	TAP_OK(!gzip_to(gz, &b), "the world gzipped");
	labels_and_strings("gzip", gz);
	TAP_OK(!strcmp(ooms_ref_type_name(REF_ARRAY_ENTRY), "ARRAY_ENTRY") && !strcmp(ooms_ref_type_name(99), "UNKNOWN"),
	       "reference type names");
	native_sizes();
	direct_buffers();
	TAP_OK(!strcmp(ooms_root_kind_name(HPROF_ROOT_JAVA_FRAME), "JavaFrame") &&
		       !strcmp(ooms_root_kind_name(HPROF_ROOT_VM_INTERNAL), "VmInternal") &&
		       !strcmp(ooms_root_kind_name(0x42), "Unknown"),
	       "root kind names, Shark's");
	{
		int named = 0;

		for (int i = 0; i < OOMS_ROOT_KINDS; i++)
			named += strcmp(ooms_root_kind_name(ooms_root_kinds[i]), "Unknown") != 0;
		TAP_EQ_INT(named, OOMS_ROOT_KINDS - 1, "every listed root kind but UNKNOWN has a name");
	}
	free(b.p);
	hg_tmp_done(&tmp);
	return tap_done();
}
