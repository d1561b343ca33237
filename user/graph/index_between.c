#define _GNU_SOURCE
/* Between the index's passes: class names, pseudo classes for arrays, field
 * layouts flattened, probes resolved, each node's class, the memory
 * checked; the paths' marks (index_marks.c) and the ids' order and look-up
 * (index_ids.c) called from here. */
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
	int e = ixb_mark_late_referents(ix);

	return e ? e : ixb_mark_paths(b);
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
		e = ixb_partition_classes(b);
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
	if (ixb_compact_ids(ix))
		return ixb_fail(b, -ENOMEM, "out of memory");
	if ((e = ixb_build_lookup(b)))
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
