#define _GNU_SOURCE
/* Between the index's passes: class names, pseudo classes for arrays, field
 * layouts flattened, probes resolved, ids sorted and partitioned, look-up built. */
#include "graph/index_build.h"
#include "util/hugemem.h"

/* "java/lang/String" -> "java.lang.String", "[Ljava/lang/Object;" -> "java.lang.Object[]",
 * "[[I" -> "int[][]"; names already dotted (Android) stay as they are. */
static size_t dotted_name(const char *in, char *out, size_t cap)
{
	static const char *const prim[26] = {
		['Z' - 'A'] = "boolean", ['C' - 'A'] = "char", ['F' - 'A'] = "float", ['D' - 'A'] = "double",
		['B' - 'A'] = "byte",    ['S' - 'A'] = "short", ['I' - 'A'] = "int",  ['J' - 'A'] = "long",
	};
	int dims = 0;
	size_t n = 0;

	while (in[dims] == '[')
		dims++;
	in += dims;
	if (dims && in[0] >= 'A' && in[0] <= 'Z' && prim[in[0] - 'A'] && !in[1]) {
		n = (size_t)snprintf(out, cap, "%s", prim[in[0] - 'A']);
	} else {
		if (dims && in[0] == 'L')
			in++;
		for (; *in && n + 1 < cap; in++) {
			if (dims && *in == ';' && !in[1])
				break;
			out[n++] = *in == '/' ? '.' : *in;
		}
		out[n] = 0;
	}
	if (n >= cap)
		n = cap - 1;
	while (dims-- > 0 && n + 3 < cap) {
		out[n++] = '[';
		out[n++] = ']';
		out[n] = 0;
	}
	return n;
}

static int name_classes(struct build *b)
{
	struct ooms_index *ix = b->ix;
	char name[MAX_NAME + 64];

	for (uint32_t i = 0; i < ix->nclasses; i++) {
		struct ooms_class *c = &ix->classes[i];
		uint32_t li, s = OOMS_NONE;
		size_t n;

		if (u64map_get(&b->load_names, c->id, &li))
			s = ixb_string_of(ix, b->load_keys[li]);
		if (s != OOMS_NONE)
			n = dotted_name(ix->arena + s, name, sizeof(name));
		else
			n = (size_t)snprintf(name, sizeof(name), "class@0x%llx", (unsigned long long)c->id);
		c->name = ixb_arena_add(ix, name, n);
		if (c->name == OOMS_NONE)
			return ixb_fail(b, -ENOMEM, "out of memory");
		c->is_array_class = n > 2 && name[n - 1] == ']';
	}
	return 0;
}

static int add_pseudo_classes(struct build *b)
{
	static const char *const names[12] = {
		[HPROF_T_BOOLEAN] = "boolean[]", [HPROF_T_CHAR] = "char[]", [HPROF_T_FLOAT] = "float[]",
		[HPROF_T_DOUBLE] = "double[]",   [HPROF_T_BYTE] = "byte[]", [HPROF_T_SHORT] = "short[]",
		[HPROF_T_INT] = "int[]",         [HPROF_T_LONG] = "long[]",
	};
	struct ooms_index *ix = b->ix;

	for (int t = 0; t < 12; t++)
		ix->prim_class[t] = OOMS_NONE;
	for (int t = HPROF_T_BOOLEAN; t <= HPROF_T_LONG; t++) {
		uint32_t c = ooms_index_class_by_name(ix, names[t]);

		if (c == OOMS_NONE) { /* HotSpot dumps no class for primitive arrays */
			struct ooms_class *k;

			if (vec_reserve((void **)&ix->classes, &b->classes_cap, ix->nclasses + 1, sizeof(*ix->classes)))
				return ixb_fail(b, -ENOMEM, "out of memory");
			c = ix->nclasses++;
			k = &ix->classes[c];
			memset(k, 0, sizeof(*k));
			k->node = OOMS_NONE;
			k->super = OOMS_NONE;
			k->weak_slot = OOMS_NONE;
			k->is_array_class = 1;
			k->name = ixb_arena_add(ix, names[t], strlen(names[t]));
			if (k->name == OOMS_NONE)
				return ixb_fail(b, -ENOMEM, "out of memory");
		}
		ix->prim_class[t] = c;
	}
	return 0;
}

/* VisualVM's rule for a referent: it does not hold when its Reference is a
 * Weak, Soft, Final or Phantom one (or a subclass), so long as the dump has
 * at least four such classes; any other Reference's referent (Dalvik's
 * FinalizerReference) holds. Those are marked to be crossed last, so a
 * path uses them only when there is no other way (as Shark never does). */
static int mark_late_referents(struct ooms_index *ix)
{
	static const char *const kinds[] = {"java.lang.ref.WeakReference", "java.lang.ref.SoftReference",
					    "java.lang.ref.FinalReference", "java.lang.ref.PhantomReference"};
	uint32_t special = 0;

	for (uint32_t c = 0; c < ix->nclasses; c++)
		for (size_t k = 0; k < 4; k++)
			if (ooms_index_is_a(ix, c, kinds[k])) {
				special++;
				break;
			}
	for (uint32_t c = 0; c < ix->nclasses; c++) {
		int is_special = 0;

		if (ix->classes[c].weak_slot == OOMS_NONE)
			continue;
		for (size_t k = 0; k < 4 && special >= 4 && !is_special; k++)
			is_special = ooms_index_is_a(ix, c, kinds[k]);
		ix->classes[c].referent_late = !is_special;
	}
	return 0;
}

/* References that leak through no fault of the app (the Android framework
 * keeping a view, an activity record, a context), crossed last by the path
 * search: a leak reached only through one is a library leak. Written from
 * public knowledge of these platform bugs; --library-leak adds more. */
static const struct {
	const char *ref, *why;
} library_table[] = {
	{"android.view.inputmethod.InputMethodManager#mServedView",
	 "InputMethodManager keeps the last focused view after its activity is destroyed (Android up to 9)"},
	{"android.view.inputmethod.InputMethodManager#mNextServedView",
	 "InputMethodManager keeps the view to focus next after its activity is destroyed (Android up to 9)"},
	{"android.view.inputmethod.InputMethodManager#mCurRootView",
	 "InputMethodManager keeps the root view of the last focused window"},
	{"android.app.ActivityThread$ActivityClientRecord#nextIdle",
	 "ActivityThread's idle list keeps a destroyed activity's record until the main thread idles"},
	{"android.media.AudioManager#mContext_static",
	 "AudioManager keeps the first Context it was made with in a static field (Android 6)"},
	{"android.animation.LayoutTransition$1#val$parent",
	 "LayoutTransition's listener keeps the parent view until its animation ends"},
	{"android.os.Message#obj",
	 "a Message still in a queue, or recycled without being cleared, keeps its obj (Android up to 4.4)"},
	/* a class alone: GC roots that are its instances */
	{"android.os.Binder",
	 "a Binder held by native code (a JNI global root) lives as long as another process holds its proxy: "
	 "a bound service's binder keeps what it references until unbindService (LeakCanary 1.x left these roots out)"},
};

/* Marks the GC roots that are instances of class c (or a subclass). */
static int mark_root_class(struct build *b, uint32_t c, uint8_t mark)
{
	struct ooms_index *ix = b->ix;
	void *q = huge_realloc(ix->root_classes, (ix->nroot_classes + 1) * sizeof(*ix->root_classes));

	if (!q)
		return ixb_fail(b, -ENOMEM, "out of memory");
	ix->root_classes = q;
	ix->root_classes[ix->nroot_classes].cls = c;
	ix->root_classes[ix->nroot_classes++].mark = mark;
	return 0;
}

/* Marks what a spec names: 'Class#field', an instance field declared in
 * Class (so in its subclasses' instances too) or a static of Class; or
 * 'Class', the GC roots that are instances of Class. 0; 1 when the dump
 * has no such class or field (must: refused). */
static int mark_ref(struct build *b, const char *spec, uint8_t mark, int must)
{
	struct ooms_index *ix = b->ix;
	const char *hash = strchr(spec, '#'), *opt = mark == OOMS_MARK_IGNORE ? "--ignore" : "--library-leak";
	size_t clen = hash ? (size_t)(hash - spec) : strlen(spec);
	char cls[512];
	uint32_t c, hits = 0;

	if (!clen || (hash && !hash[1]) || clen >= sizeof(cls))
		return must ? ixb_fail(b, -EINVAL, "%s wants Class#field or Class: %s", opt, spec) : 0;
	snprintf(cls, sizeof(cls), "%.*s", (int)clen, spec);
	if ((c = ooms_index_class_by_name(ix, cls)) == OOMS_NONE)
		return must ? ixb_fail(b, -EINVAL, "%s %s: no class %s in this dump", opt, spec, cls) : 0;
	if (!hash)
		return mark_root_class(b, c, mark);
	for (uint32_t k = 0; k < ix->nslots; k++)
		if (ix->slots[k].declared_in == c && !strcmp(ooms_index_str(ix, ix->fields[ix->slots[k].field].name), hash + 1))
			ix->slots[k].ignored = mark, hits++;
	for (uint32_t i = 0; i < ix->classes[c].nstatics; i++) {
		struct ooms_static *st = &ix->statics[ix->classes[c].statics_at + i];

		if (!strcmp(ooms_index_str(ix, st->name), hash + 1))
			st->ignored = mark, hits++;
	}
	if (!hits && must)
		return ixb_fail(b, -EINVAL, "%s %s: %s has no reference field %s", opt, spec, cls, hash + 1);
	return 0;
}

/* A library reference's description, kept in ix->library; its mark. */
static int add_library(struct build *b, const char *ref, const char *why, uint8_t *mark)
{
	struct ooms_index *ix = b->ix;
	char **l = huge_realloc(ix->library, (ix->nlibrary + 1) * sizeof(*l)); /* a handful: exact size */

	if (!l)
		return ixb_fail(b, -ENOMEM, "out of memory");
	ix->library = l;
	if (ix->nlibrary + OOMS_MARK_LIBRARY > UINT8_MAX || asprintf(&l[ix->nlibrary], "%s: %s", ref, why) < 0)
		return ixb_fail(b, -ENOMEM, "too many library leak references");
	*mark = (uint8_t)(OOMS_MARK_LIBRARY + ix->nlibrary++);
	return 0;
}

/* The path marks: the built-in library table where the dump has its
 * classes, --library-leak, then --ignore (which wins). */
static int mark_paths(struct build *b)
{
	uint8_t mark;
	int e;

	for (size_t k = 0; k < sizeof(library_table) / sizeof(library_table[0]); k++) {
		char cls[256];
		const char *hash = strchr(library_table[k].ref, '#');
		int clen = hash ? (int)(hash - library_table[k].ref) : (int)strlen(library_table[k].ref);

		snprintf(cls, sizeof(cls), "%.*s", clen, library_table[k].ref);
		if (ooms_index_class_by_name(b->ix, cls) == OOMS_NONE)
			continue;
		if ((e = add_library(b, library_table[k].ref, library_table[k].why, &mark)) ||
		    (e = mark_ref(b, library_table[k].ref, mark, 0)))
			return e;
	}
	for (size_t k = 0; k < b->nlibrary; k++)
		if ((e = add_library(b, b->library[k], "named by --library-leak", &mark)) ||
		    (e = mark_ref(b, b->library[k], mark, 1)))
			return e;
	for (size_t k = 0; k < b->nignores; k++)
		if ((e = mark_ref(b, b->ignores[k], OOMS_MARK_IGNORE, 1)))
			return e;
	return 0;
}

/* Reference slots of class c: its own object fields, then each superclass's. */
static int flatten_slots(struct build *b, struct u64map *by_id)
{
	struct ooms_index *ix = b->ix;
	size_t cap = 0;
	uint32_t ref_class = ooms_index_class_by_name(ix, "java.lang.ref.Reference");

	for (uint32_t i = 0; i < ix->nclasses; i++) {
		struct ooms_class *c = &ix->classes[i];
		uint32_t sc;

		if (c->node != OOMS_NONE && c->count && u64map_get(by_id, c->count, &sc))
			c->super = sc;
		c->count = 0;
	}
	/* a hostile dump's superclass chain may loop (a class its own
	 * superclass): cut it where it comes back, or every walk up a chain
	 * would repeat its fields. count: 0 not walked yet, i + 1 on the walk
	 * from i, UINT64_MAX walked (each class once) */
	for (uint32_t i = 0; i < ix->nclasses; i++) {
		uint32_t k = i, prev = OOMS_NONE;

		for (; k != OOMS_NONE && !ix->classes[k].count; prev = k, k = ix->classes[k].super)
			ix->classes[k].count = i + 1;
		if (k != OOMS_NONE && ix->classes[k].count == i + 1)
			ix->classes[prev].super = OOMS_NONE; /* back on this walk: a loop */
		for (k = i; k != OOMS_NONE && ix->classes[k].count == i + 1; k = ix->classes[k].super)
			ix->classes[k].count = UINT64_MAX;
	}
	for (uint32_t i = 0; i < ix->nclasses; i++)
		ix->classes[i].count = 0;
	for (uint32_t i = 0; i < ix->nclasses; i++) {
		struct ooms_class *c = &ix->classes[i];
		uint32_t base = 0, depth = 0;

		c->slots_at = ix->nslots;
		for (uint32_t k = i; k != OOMS_NONE && depth < 1024; k = ix->classes[k].super, depth++) {
			const struct ooms_class *d = &ix->classes[k];
			uint32_t block = 0;

			for (uint32_t f = 0; f < d->nfields; f++) {
				const struct ooms_field *fl = &ix->fields[d->fields_at + f];

				block += hprof_type_size(fl->type, ix->id_size);
				if (fl->type != HPROF_T_OBJECT)
					continue;
				if (vec_reserve((void **)&ix->slots, &cap, ix->nslots + 1, sizeof(*ix->slots)))
					return ixb_fail(b, -ENOMEM, "out of memory");
				if (k == ref_class && !strcmp(ooms_index_str(ix, fl->name), "referent"))
					c->weak_slot = ix->nslots - c->slots_at;
				ix->slots[ix->nslots].offset = base + fl->offset;
				ix->slots[ix->nslots].field = d->fields_at + f;
				ix->slots[ix->nslots].ignored = 0;
				ix->slots[ix->nslots++].declared_in = k;
			}
			base += block;
		}
		c->nslots = ix->nslots - c->slots_at;
	}
	int e = mark_late_referents(ix);

	return e ? e : mark_paths(b);
}

/* The probes that apply to instances of each class. */
static int resolve_probes(struct build *b)
{
	struct ooms_index *ix = b->ix;
	size_t cap = 0;

	for (uint32_t i = 0; i < ix->nclasses; i++) {
		struct ooms_class *c = &ix->classes[i];

		c->probes_at = ix->ncprobes;
		for (size_t p = 0; p < b->nprobes; p++) {
			struct ooms_probe *pr = &b->probes[p];
			uint32_t base = 0, depth = 0;

			if (!ooms_index_is_a(ix, i, pr->class_name))
				continue;
			for (uint32_t k = i; k != OOMS_NONE && depth < 1024; k = ix->classes[k].super, depth++) {
				const struct ooms_class *d = &ix->classes[k];
				uint32_t block = 0, found = 0;

				for (uint32_t f = 0; f < d->nfields; f++) {
					const struct ooms_field *fl = &ix->fields[d->fields_at + f];

					if (!found && !strcmp(ooms_index_str(ix, fl->name), pr->field_name)) {
						if (vec_reserve((void **)&ix->cprobes, &cap, ix->ncprobes + 1, sizeof(*ix->cprobes)))
							return ixb_fail(b, -ENOMEM, "out of memory");
						ix->cprobes[ix->ncprobes].probe = (uint32_t)p;
						ix->cprobes[ix->ncprobes].offset = base + fl->offset;
						ix->cprobes[ix->ncprobes++].type = fl->type;
						pr->type = fl->type;
						found = 1;
					}
					block += hprof_type_size(fl->type, ix->id_size);
				}
				if (found)
					break;
				base += block;
			}
		}
		c->nprobes = ix->ncprobes - c->probes_at;
	}
	return 0;
}

/* LSD radix sort of (id, node) by id, 16 bits a round, only the rounds the
 * ids' spread needs. */
static int sort_ids(struct build *b)
{
	struct ooms_index *ix = b->ix;
	size_t n = ix->nodes - 1;
	uint64_t *k = huge_malloc(n * sizeof(*k)), *k2 = huge_malloc(n * sizeof(*k2)), lo = UINT64_MAX, hi = 0;
	uint32_t *v = huge_malloc(n * sizeof(*v)), *v2 = huge_malloc(n * sizeof(*v2));
	size_t *cnt = huge_malloc(65537 * sizeof(*cnt));

	if (!k || !k2 || !v || !v2 || !cnt) {
		free(k); free(k2); free(v); free(v2); free(cnt);
		return ixb_fail(b, -ENOMEM, "out of memory sorting %zu ids", n);
	}
	for (size_t i = 0; i < n; i++) {
		k[i] = ooms_index_id(ix, (uint32_t)(i + 1));
		v[i] = (uint32_t)(i + 1);
		if (k[i] < lo)
			lo = k[i];
		if (k[i] > hi)
			hi = k[i];
	}
	for (unsigned shift = 0; shift < 64 && ((hi - lo) >> shift); shift += 16) {
		memset(cnt, 0, 65537 * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(((k[i] - lo) >> shift) & 0xffff) + 1]++;
		for (size_t d = 1; d <= 65536; d++)
			cnt[d] += cnt[d - 1];
		for (size_t i = 0; i < n; i++) {
			size_t at = cnt[((k[i] - lo) >> shift) & 0xffff]++;

			k2[at] = k[i];
			v2[at] = v[i];
		}
		uint64_t *tk = k; k = k2; k2 = tk;
		uint32_t *tv = v; v = v2; v2 = tv;
	}
	free(k2);
	free(v2);
	free(cnt);
	ix->sorted_ids = k;
	ix->sorted_nodes = v;
	return 0;
}

/* id -> node: the sorted ids (ids[] itself when already in order) and a
 * directory of 2^k buckets over their range, so a lookup is a short search. */
/* Class objects go after every other object, in id order: HotSpot writes
 * instances in address order and the class dumps apart, so the rest is then
 * in id order already and the id table itself is the lookup (no copy). */
static int partition_classes(struct build *b)
{
	struct ooms_index *ix = b->ix;
	struct cls_entry { uint64_t id; uint32_t ci; uint8_t heap; } *cl = huge_malloc((ix->nclasses + 1) * sizeof(*cl));
	uint32_t w = 1, nc = 0;

	if (!cl)
		return ixb_fail(b, -ENOMEM, "out of memory");
	for (uint32_t r = 1; r < ix->nodes; r++) {
		if (b->kind[r] == NODE_CLASS) {
			cl[nc].id = ix->ids[r];
			cl[nc].ci = (uint32_t)b->cls_ids[r];
			cl[nc++].heap = b->heap_of[r];
			continue;
		}
		ix->ids[w] = ix->ids[r];
		b->cls_ids[w] = b->cls_ids[r];
		b->kind[w] = b->kind[r];
		b->heap_of[w] = b->heap_of[r];
		b->length[w++] = b->length[r];
	}
	ix->main_end = w - 1;
	/* insertion sort would do for a few thousand; qsort for any count */
	for (uint32_t i = 1; i < nc; i++) {
		struct cls_entry t = cl[i];
		uint32_t j = i;

		if (cl[j - 1].id <= t.id)
			continue;
		while (j > 0 && cl[j - 1].id > t.id) {
			cl[j] = cl[j - 1];
			j--;
		}
		cl[j] = t;
	}
	for (uint32_t i = 0; i < nc; i++, w++) {
		ix->ids[w] = cl[i].id;
		b->cls_ids[w] = cl[i].ci;
		b->kind[w] = NODE_CLASS;
		b->heap_of[w] = cl[i].heap;
		b->length[w] = 0;
		ix->classes[cl[i].ci].node = w;
	}
	free(cl);
	return 0;
}

/* Key i of the searched table: the sorted copy, or the ids of nodes 1..main_end. */
static inline uint64_t lookup_key(const struct ooms_index *ix, uint32_t i)
{
	return ix->sorted_ids ? ix->sorted_ids[i] : ooms_index_id(ix, i + 1);
}

/* id -> node: the objects' ids (in order already, or sorted into a copy)
 * with a directory of 2^k buckets over their range, so a lookup is a short
 * search; class objects are searched apart. */
static int build_lookup(struct build *b)
{
	struct ooms_index *ix = b->ix;
	size_t n = ix->main_end, sorted = 1;
	uint64_t span;
	uint32_t nb = 1;

	for (size_t i = 2; i <= n && sorted; i++)
		sorted = ooms_index_id(ix, (uint32_t)i) > ooms_index_id(ix, (uint32_t)i - 1);
	if (!sorted) {
		int e = sort_ids(b);

		if (e)
			return e;
		n = ix->nodes - 1; /* the sorted copy holds every object */
	}
	ix->lookup_n = (uint32_t)n;
	ix->min_id = n ? lookup_key(ix, 0) : 0;
	span = n ? lookup_key(ix, (uint32_t)n - 1) - ix->min_id : 0;
	while (nb < n / 16 + 1 && nb < (1u << 26))
		nb *= 2;
	ix->bucket_shift = 0;
	while ((span >> ix->bucket_shift) >= nb)
		ix->bucket_shift++;
	ix->nbuckets = nb;
	ix->bucket = huge_malloc(((size_t)nb + 1) * sizeof(*ix->bucket));
	if (!ix->bucket)
		return ixb_fail(b, -ENOMEM, "out of memory");
	for (size_t i = 0, bk = 0; bk <= nb; bk++) {
		while (i < n && ((lookup_key(ix, (uint32_t)i) - ix->min_id) >> ix->bucket_shift) < bk)
			i++;
		ix->bucket[bk] = (uint32_t)i;
	}
	return 0;
}

/* First position in [lo, hi) of the table whose key is >= id. */
static uint32_t search(const struct ooms_index *ix, int classes, uint32_t lo, uint32_t hi, uint64_t id)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((classes ? ooms_index_id(ix, mid) : lookup_key(ix, mid)) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t ooms_index_find(const struct ooms_index *ix, uint64_t id)
{
	uint64_t rel = (id - ix->min_id) >> ix->bucket_shift;
	uint32_t at;

	if (id >= ix->min_id && ix->bucket && rel < ix->nbuckets) {
		at = search(ix, 0, ix->bucket[rel], ix->bucket[rel + 1], id);
		if (at < ix->lookup_n && lookup_key(ix, at) == id)
			return ix->sorted_nodes ? ix->sorted_nodes[at] : at + 1;
	}
	if (ix->sorted_ids || ix->main_end + 1 >= ix->nodes)
		return OOMS_NONE;
	/* the class objects, in id order after the rest */
	at = search(ix, 1, ix->main_end + 1, ix->nodes, id);
	return at < ix->nodes && ooms_index_id(ix, at) == id ? at : OOMS_NONE;
}

/* 32-bit ids when every id is base + k << shift with k < 2^32: objects are
 * 8-byte aligned in HotSpot and ART heaps, so a 32 GB range fits; 4-byte
 * ids always fit. Saves 4 bytes per object. */
static int compact_ids(struct ooms_index *ix)
{
	uint64_t lo = UINT64_MAX, hi = 0, any = 0;
	unsigned shift = 3;

	for (uint32_t n = 1; n < ix->nodes; n++) {
		uint64_t v = ix->ids[n];

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (ix->nodes <= 1)
		return 0;
	for (uint32_t n = 1; n < ix->nodes; n++)
		any |= ix->ids[n] - lo;
	while (shift && (any & ((1ull << shift) - 1)))
		shift--;
	if (((hi - lo) >> shift) >= UINT32_MAX)
		return 0; /* keep 64-bit ids */
	ix->cids = huge_malloc((size_t)ix->nodes * sizeof(*ix->cids));
	if (!ix->cids)
		return -ENOMEM;
	ix->id_base = lo;
	ix->id_shift = shift;
	ix->cids[0] = 0; /* the super-root: its id is never asked for */
	for (uint32_t n = 1; n < ix->nodes; n++)
		ix->cids[n] = (uint32_t)((ix->ids[n] - lo) >> shift);
	free(ix->ids);
	ix->ids = NULL;
	return 0;
}

/* The estimate from the objects and an upper bound of the references
 * (every slot and element non-null), before pass 2 allocates: refused past
 * --max-memory; the bound is also the size pass 2's references start at. */
static int check_memory(struct build *b)
{
	const struct ooms_index *ix = b->ix;
	uint64_t refs = 0, need;

	for (uint32_t n = 1; n < ix->nodes; n++) {
		if (b->kind[n] == NODE_OBJ_ARRAY)
			refs += b->length[n];
		else if (b->kind[n] == NODE_INSTANCE && b->cls[n] != OOMS_NONE)
			refs += ix->classes[b->cls[n]].nslots;
	}
	need = ooms_memory_estimate(ix->nodes, refs);
	b->ix->memory_estimate = need;
	b->edges_hint = refs + ix->nstatics + ix->nclasses + 1;
	if (!b->max_memory || need <= b->max_memory)
		return 0;
	return ixb_fail(b, -EFBIG,
			"the analysis needs up to about %llu MB (%.1f M objects, up to %.1f M references); --max-memory allows %llu MB",
			(unsigned long long)((need + (1 << 20) - 1) >> 20), ix->nodes / 1e6, refs / 1e6,
			(unsigned long long)(b->max_memory >> 20));
}

int ixb_between_passes(struct build *b)
{
	struct ooms_index *ix = b->ix;
	struct u64map by_id;
	int e;

	if ((e = name_classes(b)))
		return e;
	if (u64map_init(&by_id, ix->nclasses))
		return ixb_fail(b, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < ix->nclasses; i++)
		if (u64map_put(&by_id, ix->classes[i].id, i)) {
			u64map_free(&by_id);
			return ixb_fail(b, -ENOMEM, "out of memory");
		}
	e = flatten_slots(b, &by_id);
	if (!e)
		e = partition_classes(b);
	if (!e)
		e = add_pseudo_classes(b);
	if (!e)
		e = resolve_probes(b);
	ix->class_class = ooms_index_class_by_name(ix, "java.lang.Class");
	for (uint32_t i = 0; i < b->nscale; i++) {
		const char *nm = ooms_class_name(ix, b->scale_class[i]);

		if (!strcmp(nm, "jdk.internal.misc.Unsafe") || !strcmp(nm, "sun.misc.Unsafe"))
			ix->oop_scale_hint = b->scale_value[i];
	}
	/* the class indices take the class ids' place: the 32-bit entry n
	 * (bytes 4n..4n+3) is written after the 64-bit entries 0..n are read */
	b->cls = (uint32_t *)b->cls_ids;
	for (uint32_t n = 1; !e && n < ix->nodes; n++) {
		uint32_t c = OOMS_NONE;

		switch (b->kind[n]) {
		case NODE_CLASS:
			c = ix->class_class;
			b->length[n] = (uint32_t)b->cls_ids[n]; /* class nodes: their class index */
			break;
		case NODE_PRIM_ARRAY:
			c = b->cls_ids[n] < 12 ? ix->prim_class[b->cls_ids[n]] : OOMS_NONE;
			break;
		default:
			if (!u64map_get(&by_id, b->cls_ids[n], &c))
				c = OOMS_NONE;
		}
		b->cls[n] = c;
	}
	u64map_free(&by_id);
	b->cls_ids = NULL;
	{
		void *q = huge_realloc(b->cls, (size_t)ix->nodes * sizeof(*b->cls));

		if (q)
			b->cls = q;
	}
	if (e)
		return e;
	b->cls[0] = OOMS_NONE;
	if ((e = check_memory(b)))
		return e;
	if (ooms_index_set_nodes(ix, b->kind, b->cls, b->length, b->heap_of))
		return ixb_fail(b, -ENOMEM, "out of memory");
	free(b->kind);
	free(b->heap_of);
	free(b->length);
	free(b->cls);
	b->kind = b->heap_of = NULL;
	b->length = b->cls = NULL;
	if (compact_ids(ix))
		return ixb_fail(b, -ENOMEM, "out of memory");
	if ((e = build_lookup(b)))
		return e;
	ix->roots = huge_malloc((b->nroots + 1) * sizeof(*ix->roots));
	if (!ix->roots)
		return ixb_fail(b, -ENOMEM, "out of memory");
	for (size_t i = 0; i < b->nroots; i++) {
		uint32_t n = ooms_index_find(ix, b->rroots[i].id);

		if (n == OOMS_NONE)
			continue; /* a root of an object not in the dump */
		ix->roots[ix->nroots].node = n;
		ix->roots[ix->nroots].kind = b->rroots[i].kind;
		ix->roots[ix->nroots].thread_serial = b->rroots[i].thread_serial;
		ix->roots[ix->nroots].trace_serial = b->rroots[i].trace_serial;
		ix->roots[ix->nroots++].frame = b->rroots[i].frame;
	}
	return 0;
}
