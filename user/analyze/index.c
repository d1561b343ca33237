/* The heap index (index.h): pass 1 collects names, classes, roots and the
 * object table; pass 2, with every class layout known, reads the references. */
#include "analyze/index.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hprof/io.h"

#define READ_CHUNK (1u << 20)
#define MAX_NAME 4096 /* longer names are cut: they only label output */

struct raw_root {
	uint64_t id;
	uint8_t kind;
	uint32_t thread_serial;
	int32_t frame;
};

struct build {
	struct ooms_index *ix;
	struct ooms_probe *probes;
	size_t nprobes;
	char *err;
	size_t errlen;
	int pass;

	/* a non-heap record being buffered (STRING, LOAD_CLASS) */
	uint8_t rtag;
	uint8_t rbuf[MAX_NAME + 16];
	size_t rlen;

	/* pass 1 */
	size_t node_cap;
	uint64_t *cls_ids;        /* [nodes] class id, element type, or class index */
	struct u64map load_names; /* class id -> name string id (LOAD_CLASS) */
	uint64_t *load_keys;      /* name string ids, by load_names' values */
	size_t nload, load_cap;
	struct raw_root *rroots;
	size_t nroots, roots_cap;
	size_t classes_cap, fields_cap, statics_cap;
	uint8_t heap;
	uint32_t scale_class[4], scale_value[4], nscale;

	/* pass 2 */
	uint32_t node;            /* the node being read */
	uint8_t *data;            /* instance data being collected */
	size_t dlen, dcap;
	uint8_t carry[8];         /* object array: a part of an id */
	size_t carry_len;
	uint32_t elem;            /* object array: elements seen */
	size_t edges_cap;
};

static int fail(struct build *b, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
	return e;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* Appends a NUL-terminated string to the arena; its offset, or OOMS_NONE. */
static uint32_t arena_add(struct ooms_index *ix, const char *s, size_t n)
{
	uint32_t at = (uint32_t)ix->arena_len;

	if (ix->arena_len + n + 1 > UINT32_MAX - 1 || grow((void **)&ix->arena, &ix->arena_cap, ix->arena_len + n + 1, 1))
		return OOMS_NONE;
	memcpy(ix->arena + at, s, n);
	ix->arena[at + n] = 0;
	ix->arena_len += n + 1;
	return at;
}

static uint32_t string_of(const struct ooms_index *ix, uint64_t id)
{
	uint32_t off;

	return u64map_get(&ix->strings, id, &off) ? off : OOMS_NONE;
}

/* ---- pass 1 ---- */

static int p1_header(void *ctx, const struct hprof_header *h)
{
	struct build *b = ctx;

	b->ix->header = *h;
	b->ix->id_size = h->id_size;
	return 0;
}

static int rec_begin(void *ctx, const struct hprof_record *r)
{
	struct build *b = ctx;

	b->rtag = r->tag;
	b->rlen = 0;
	return 0;
}

static int rec_data(void *ctx, const uint8_t *p, size_t n)
{
	struct build *b = ctx;
	size_t room = sizeof(b->rbuf) - b->rlen;

	if (b->rtag != HPROF_STRING && b->rtag != HPROF_LOAD_CLASS)
		return 0;
	if (n > room)
		n = room;
	memcpy(b->rbuf + b->rlen, p, n);
	b->rlen += n;
	return 0;
}

static int rec_end(void *ctx, const struct hprof_record *r)
{
	struct build *b = ctx;
	struct ooms_index *ix = b->ix;
	unsigned id = ix->id_size;

	(void)r;
	if (b->rtag == HPROF_STRING && b->rlen >= id) {
		uint32_t off = arena_add(ix, (const char *)b->rbuf + id, b->rlen - id);

		if (off == OOMS_NONE || u64map_put(&ix->strings, hprof_id(b->rbuf, id), off))
			return fail(b, -ENOMEM, "out of memory for the dump's strings");
	} else if (b->rtag == HPROF_LOAD_CLASS && b->rlen >= 8 + 2 * id) {
		if (grow((void **)&b->load_keys, &b->load_cap, b->nload + 1, sizeof(*b->load_keys)))
			return fail(b, -ENOMEM, "out of memory");
		b->load_keys[b->nload] = hprof_id(b->rbuf + 8 + id, id);
		if (u64map_put(&b->load_names, hprof_id(b->rbuf + 4, id), (uint32_t)b->nload++))
			return fail(b, -ENOMEM, "out of memory");
	}
	return 0;
}

static int add_node(struct build *b, uint64_t id, uint8_t kind, uint64_t cls, uint32_t length)
{
	struct ooms_index *ix = b->ix;
	uint32_t n = ix->nodes;

	if (n == UINT32_MAX - 1)
		return fail(b, -E2BIG, "more than 4 billion objects");
	if (n >= b->node_cap) {
		size_t cap = b->node_cap ? b->node_cap * 2 : 1 << 16;
		void *a = realloc(ix->ids, cap * sizeof(*ix->ids)), *c, *k, *h, *l;

		if (a)
			ix->ids = a;
		c = realloc(b->cls_ids, cap * sizeof(*b->cls_ids));
		if (c)
			b->cls_ids = c;
		k = realloc(ix->kind, cap);
		if (k)
			ix->kind = k;
		h = realloc(ix->heap, cap);
		if (h)
			ix->heap = h;
		l = realloc(ix->length, cap * sizeof(*ix->length));
		if (l)
			ix->length = l;
		if (!a || !c || !k || !h || !l)
			return fail(b, -ENOMEM, "out of memory for %u objects", n);
		b->node_cap = cap;
	}
	ix->ids[n] = id;
	b->cls_ids[n] = cls;
	ix->kind[n] = kind;
	ix->heap[n] = b->heap;
	ix->length[n] = length;
	ix->nodes = n + 1;
	return 0;
}

static uint8_t heap_of(uint32_t heap_id)
{
	switch (heap_id) {
	case HPROF_HEAP_DEFAULT: return HEAP_DEFAULT;
	case HPROF_HEAP_APP: return HEAP_APP;
	case HPROF_HEAP_IMAGE: return HEAP_IMAGE;
	case HPROF_HEAP_ZYGOTE: return HEAP_ZYGOTE;
	case 'J': return HEAP_JIT;
	}
	return HEAP_OTHER;
}

/* A class dump: the class, its static object fields and its instance fields. */
static int p1_class(struct build *b, const struct hprof_sub *s)
{
	struct ooms_index *ix = b->ix;
	unsigned id = ix->id_size;
	const uint8_t *p = s->head + 1, *end = s->head + s->head_len;
	struct ooms_class *c;
	uint32_t ci = ix->nclasses, n;

	if (grow((void **)&ix->classes, &b->classes_cap, ci + 1, sizeof(*ix->classes)))
		return fail(b, -ENOMEM, "out of memory");
	c = &ix->classes[ci];
	memset(c, 0, sizeof(*c));
	c->id = hprof_id(p, id);
	c->super = OOMS_NONE;
	c->weak_slot = OOMS_NONE;
	c->name = OOMS_NONE;
	c->node = ix->nodes;
	/* the super id waits in loader_id's neighbour until pass 1 ends */
	c->count = hprof_id(p + id + 4, id); /* super id, resolved later */
	c->loader_id = hprof_id(p + 2 * id + 4, id);
	p += 7 * id + 4;
	c->inst_size = hprof_u4(p);
	p += 4;
	n = hprof_u2(p); /* constant pool */
	p += 2;
	for (uint32_t i = 0; i < n; i++) {
		unsigned t = p[2], sz = hprof_type_size(t, id);

		p += 3 + sz;
	}
	n = hprof_u2(p);
	p += 2;
	c->statics_at = ix->nstatics;
	for (uint32_t i = 0; i < n && p < end; i++) {
		unsigned t = p[id], sz = hprof_type_size(t, id);

		if (t == HPROF_T_INT && b->nscale < 4) {
			/* Unsafe.ARRAY_OBJECT_INDEX_SCALE says whether oops are compressed (shallow.c) */
			uint32_t nm = string_of(ix, hprof_id(p, id));

			if (nm != OOMS_NONE && !strcmp(ix->arena + nm, "ARRAY_OBJECT_INDEX_SCALE")) {
				b->scale_class[b->nscale] = ci;
				b->scale_value[b->nscale++] = hprof_u4(p + id + 1);
			}
		}
		if (t == HPROF_T_OBJECT) {
			uint64_t v = hprof_id(p + id + 1, id);

			if (v) {
				if (grow((void **)&ix->statics, &b->statics_cap, ix->nstatics + 1, sizeof(*ix->statics)))
					return fail(b, -ENOMEM, "out of memory");
				ix->statics[ix->nstatics].name = string_of(ix, hprof_id(p, id));
				ix->statics[ix->nstatics++].value = v;
			}
		}
		p += id + 1 + sz;
	}
	c->nstatics = ix->nstatics - c->statics_at;
	n = hprof_u2(p);
	p += 2;
	c->fields_at = ix->nfields;
	{
		uint32_t off = 0;

		for (uint32_t i = 0; i < n && p + id < end; i++) {
			struct ooms_field *f;

			if (grow((void **)&ix->fields, &b->fields_cap, ix->nfields + 1, sizeof(*ix->fields)))
				return fail(b, -ENOMEM, "out of memory");
			f = &ix->fields[ix->nfields++];
			f->name = string_of(ix, hprof_id(p, id));
			f->type = p[id];
			f->offset = off;
			off += hprof_type_size(f->type, id);
			p += id + 1;
		}
	}
	c->nfields = ix->nfields - c->fields_at;
	ix->nclasses = ci + 1;
	return add_node(b, c->id, NODE_CLASS, ci, 0);
}

static int p1_sub(void *ctx, const struct hprof_sub *s)
{
	struct build *b = ctx;
	unsigned id = b->ix->id_size;
	struct raw_root r = {s->id, s->tag, 0, -1};

	switch (s->tag) {
	case HPROF_HEAP_DUMP_INFO:
		b->heap = heap_of(s->heap_id);
		return 0;
	case HPROF_CLASS_DUMP:
		return p1_class(b, s);
	case HPROF_INSTANCE_DUMP:
		return add_node(b, s->id, NODE_INSTANCE, s->class_id, s->count);
	case HPROF_OBJ_ARRAY_DUMP:
		return add_node(b, s->id, NODE_OBJ_ARRAY, s->class_id, s->count);
	case HPROF_PRIM_ARRAY_DUMP:
	case HPROF_PRIM_ARRAY_NODATA:
		return add_node(b, s->id, NODE_PRIM_ARRAY, s->elem_type, s->count);
	case HPROF_ROOT_JAVA_FRAME:
	case HPROF_ROOT_JNI_LOCAL:
		r.thread_serial = hprof_u4(s->head + 1 + id);
		r.frame = (int32_t)hprof_u4(s->head + 5 + id);
		break;
	case HPROF_ROOT_NATIVE_STACK:
	case HPROF_ROOT_THREAD_BLOCK:
	case HPROF_ROOT_THREAD_OBJECT:
		r.thread_serial = hprof_u4(s->head + 1 + id);
		break;
	case HPROF_ROOT_UNKNOWN:
	case HPROF_ROOT_JNI_GLOBAL:
	case HPROF_ROOT_STICKY_CLASS:
	case HPROF_ROOT_MONITOR_USED:
	case HPROF_ROOT_INTERNED_STRING:
	case HPROF_ROOT_FINALIZING:
	case HPROF_ROOT_DEBUGGER:
	case HPROF_ROOT_REFERENCE_CLEANUP:
	case HPROF_ROOT_VM_INTERNAL:
	case HPROF_ROOT_JNI_MONITOR:
		break;
	default:
		return 0; /* UNREACHABLE and the like: not roots */
	}
	if (grow((void **)&b->rroots, &b->roots_cap, b->nroots + 1, sizeof(*b->rroots)))
		return fail(b, -ENOMEM, "out of memory");
	b->rroots[b->nroots++] = r;
	return 0;
}

/* ---- between the passes ---- */

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
			s = string_of(ix, b->load_keys[li]);
		if (s != OOMS_NONE)
			n = dotted_name(ix->arena + s, name, sizeof(name));
		else
			n = (size_t)snprintf(name, sizeof(name), "class@0x%llx", (unsigned long long)c->id);
		c->name = arena_add(ix, name, n);
		if (c->name == OOMS_NONE)
			return fail(b, -ENOMEM, "out of memory");
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

			if (grow((void **)&ix->classes, &b->classes_cap, ix->nclasses + 1, sizeof(*ix->classes)))
				return fail(b, -ENOMEM, "out of memory");
			c = ix->nclasses++;
			k = &ix->classes[c];
			memset(k, 0, sizeof(*k));
			k->node = OOMS_NONE;
			k->super = OOMS_NONE;
			k->weak_slot = OOMS_NONE;
			k->is_array_class = 1;
			k->name = arena_add(ix, names[t], strlen(names[t]));
			if (k->name == OOMS_NONE)
				return fail(b, -ENOMEM, "out of memory");
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
				if (grow((void **)&ix->slots, &cap, ix->nslots + 1, sizeof(*ix->slots)))
					return fail(b, -ENOMEM, "out of memory");
				if (k == ref_class && !strcmp(ooms_index_str(ix, fl->name), "referent"))
					c->weak_slot = ix->nslots - c->slots_at;
				ix->slots[ix->nslots].offset = base + fl->offset;
				ix->slots[ix->nslots].field = d->fields_at + f;
				ix->slots[ix->nslots++].declared_in = k;
			}
			base += block;
		}
		c->nslots = ix->nslots - c->slots_at;
	}
	return 0;
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
						if (grow((void **)&ix->cprobes, &cap, ix->ncprobes + 1, sizeof(*ix->cprobes)))
							return fail(b, -ENOMEM, "out of memory");
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
	uint64_t *k = malloc(n * sizeof(*k)), *k2 = malloc(n * sizeof(*k2)), lo = UINT64_MAX, hi = 0;
	uint32_t *v = malloc(n * sizeof(*v)), *v2 = malloc(n * sizeof(*v2));
	size_t *cnt = malloc(65537 * sizeof(*cnt));

	if (!k || !k2 || !v || !v2 || !cnt) {
		free(k); free(k2); free(v); free(v2); free(cnt);
		return fail(b, -ENOMEM, "out of memory sorting %zu ids", n);
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
	struct cls_entry { uint64_t id; uint32_t ci; uint8_t heap; } *cl = malloc((ix->nclasses + 1) * sizeof(*cl));
	uint32_t w = 1, nc = 0;

	if (!cl)
		return fail(b, -ENOMEM, "out of memory");
	for (uint32_t r = 1; r < ix->nodes; r++) {
		if (ix->kind[r] == NODE_CLASS) {
			cl[nc].id = ix->ids[r];
			cl[nc].ci = (uint32_t)b->cls_ids[r];
			cl[nc++].heap = ix->heap[r];
			continue;
		}
		ix->ids[w] = ix->ids[r];
		b->cls_ids[w] = b->cls_ids[r];
		ix->kind[w] = ix->kind[r];
		ix->heap[w] = ix->heap[r];
		ix->length[w++] = ix->length[r];
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
		ix->kind[w] = NODE_CLASS;
		ix->heap[w] = cl[i].heap;
		ix->length[w] = 0;
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
	while (nb < n / 4 + 1 && nb < (1u << 26))
		nb *= 2;
	ix->bucket_shift = 0;
	while ((span >> ix->bucket_shift) >= nb)
		ix->bucket_shift++;
	ix->nbuckets = nb;
	ix->bucket = malloc(((size_t)nb + 1) * sizeof(*ix->bucket));
	if (!ix->bucket)
		return fail(b, -ENOMEM, "out of memory");
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
	ix->cids = malloc((size_t)ix->nodes * sizeof(*ix->cids));
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

static int between_passes(struct build *b)
{
	struct ooms_index *ix = b->ix;
	struct u64map by_id;
	int e;

	if ((e = name_classes(b)))
		return e;
	if (u64map_init(&by_id, ix->nclasses))
		return fail(b, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < ix->nclasses; i++)
		if (u64map_put(&by_id, ix->classes[i].id, i)) {
			u64map_free(&by_id);
			return fail(b, -ENOMEM, "out of memory");
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
	ix->cls = malloc((size_t)ix->nodes * sizeof(*ix->cls));
	if (!e && !ix->cls)
		e = fail(b, -ENOMEM, "out of memory");
	for (uint32_t n = 1; !e && n < ix->nodes; n++) {
		uint32_t c = OOMS_NONE;

		switch (ix->kind[n]) {
		case NODE_CLASS:
			c = ix->class_class;
			ix->length[n] = (uint32_t)b->cls_ids[n]; /* class nodes: their class index */
			break;
		case NODE_PRIM_ARRAY:
			c = b->cls_ids[n] < 12 ? ix->prim_class[b->cls_ids[n]] : OOMS_NONE;
			break;
		default:
			if (!u64map_get(&by_id, b->cls_ids[n], &c))
				c = OOMS_NONE;
		}
		ix->cls[n] = c;
	}
	u64map_free(&by_id);
	free(b->cls_ids);
	b->cls_ids = NULL;
	if (e)
		return e;
	ix->cls[0] = OOMS_NONE;
	if (compact_ids(ix))
		return fail(b, -ENOMEM, "out of memory");
	if ((e = build_lookup(b)))
		return e;
	ix->roots = malloc((b->nroots + 1) * sizeof(*ix->roots));
	if (!ix->roots)
		return fail(b, -ENOMEM, "out of memory");
	for (size_t i = 0; i < b->nroots; i++) {
		uint32_t n = ooms_index_find(ix, b->rroots[i].id);

		if (n == OOMS_NONE)
			continue; /* a root of an object not in the dump */
		ix->roots[ix->nroots].node = n;
		ix->roots[ix->nroots].kind = b->rroots[i].kind;
		ix->roots[ix->nroots].thread_serial = b->rroots[i].thread_serial;
		ix->roots[ix->nroots++].frame = b->rroots[i].frame;
	}
	return 0;
}

/* ---- pass 2 ---- */

static int add_edge(struct build *b, uint64_t id)
{
	struct ooms_index *ix = b->ix;
	uint32_t t;

	if (!id)
		return 0;
	t = ooms_index_find(ix, id);
	if (t == OOMS_NONE) {
		ix->dangling++;
		return 0;
	}
	if (ix->nedges == UINT32_MAX)
		return fail(b, -E2BIG, "more than 4 billion references");
	if (ix->nedges >= b->edges_cap &&
	    grow((void **)&ix->tgt, &b->edges_cap, (size_t)ix->nedges + 1, sizeof(*ix->tgt)))
		return fail(b, -ENOMEM, "out of memory for %u references", ix->nedges);
	ix->tgt[ix->nedges++] = t;
	return 0;
}

static int probe_value(struct build *b, uint32_t probe, uint32_t node, uint64_t v)
{
	struct ooms_probe *p = &b->probes[probe];

	if (grow((void **)&p->values, &p->cap, p->count + 1, sizeof(*p->values)))
		return fail(b, -ENOMEM, "out of memory");
	p->values[p->count].node = node;
	p->values[p->count++].value = v;
	return 0;
}

static int p2_sub_begin(void *ctx, const struct hprof_sub *s)
{
	struct build *b = ctx;
	struct ooms_index *ix = b->ix;
	uint32_t n;

	switch (s->tag) {
	case HPROF_CLASS_DUMP:
	case HPROF_INSTANCE_DUMP:
	case HPROF_OBJ_ARRAY_DUMP:
	case HPROF_PRIM_ARRAY_DUMP:
	case HPROF_PRIM_ARRAY_NODATA:
		break;
	default:
		return 0;
	}
	if (s->tag == HPROF_CLASS_DUMP)
		return 0; /* class objects come last: their edges are added after the pass */
	n = ++b->node;
	if (n > ix->main_end || ooms_index_id(ix, n) != s->id)
		return fail(b, -EBADMSG, "the dump changed between the two passes (offset %llu)",
			    (unsigned long long)s->offset);
	ix->off[n] = ix->nedges;
	b->dlen = 0;
	b->carry_len = 0;
	b->elem = 0;
	return 0;
}

static int p2_sub_data(void *ctx, const uint8_t *p, size_t len)
{
	struct build *b = ctx;
	struct ooms_index *ix = b->ix;
	unsigned id = ix->id_size;
	uint8_t k = ix->kind[b->node];
	int e;

	if (k == NODE_INSTANCE) {
		if (grow((void **)&b->data, &b->dcap, b->dlen + len, 1))
			return fail(b, -ENOMEM, "out of memory");
		memcpy(b->data + b->dlen, p, len);
		b->dlen += len;
	} else if (k == NODE_OBJ_ARRAY) {
		while (len) {
			if (b->carry_len || len < id) {
				size_t take = id - b->carry_len < len ? id - b->carry_len : len;

				memcpy(b->carry + b->carry_len, p, take);
				b->carry_len += take;
				p += take;
				len -= take;
				if (b->carry_len == id) {
					b->carry_len = 0;
					if ((e = add_edge(b, hprof_id(b->carry, id))))
						return e;
				}
				continue;
			}
			for (; len >= id; p += id, len -= id)
				if ((e = add_edge(b, hprof_id(p, id))))
					return e;
		}
	}
	return 0;
}

static int p2_sub_end(void *ctx, const struct hprof_sub *s)
{
	struct build *b = ctx;
	struct ooms_index *ix = b->ix;
	unsigned id = ix->id_size;
	uint32_t n = b->node, c;
	int e;

	if (s->tag != HPROF_INSTANCE_DUMP || (c = ix->cls[n]) == OOMS_NONE)
		return 0;
	{
		const struct ooms_class *k = &ix->classes[c];

		for (uint32_t i = 0; i < k->nslots; i++) {
			const struct ooms_ref_slot *sl = &ix->slots[k->slots_at + i];

			if (i == k->weak_slot) /* added last, see below */
				continue;
			if (sl->offset + id <= b->dlen && (e = add_edge(b, hprof_id(b->data + sl->offset, id))))
				return e;
		}
		/* Reference.referent: the last edge, flagged; it does not keep its
		 * referent alive, but it still is a reference (dominators.h) */
		if (k->weak_slot != OOMS_NONE) {
			const struct ooms_ref_slot *sl = &ix->slots[k->slots_at + k->weak_slot];
			uint32_t before = ix->nedges;

			if (sl->offset + id <= b->dlen && (e = add_edge(b, hprof_id(b->data + sl->offset, id))))
				return e;
			if (ix->nedges > before) {
				ix->weak_last[n / 8] |= (uint8_t)(1 << (n % 8));
				ix->weak_refs++;
			}
		}
		for (uint32_t i = 0; i < k->nprobes; i++) {
			const typeof(*ix->cprobes) *cp = &ix->cprobes[k->probes_at + i];
			unsigned sz = hprof_type_size(cp->type, id);
			uint64_t v = 0;

			if (cp->offset + sz > b->dlen)
				continue;
			for (unsigned j = 0; j < sz; j++)
				v = v << 8 | b->data[cp->offset + j];
			if (cp->type == HPROF_T_OBJECT)
				v = v ? ooms_index_find(ix, v) : OOMS_NONE;
			if ((e = probe_value(b, cp->probe, n, v)))
				return e;
		}
	}
	return 0;
}

/* ---- driving ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int ooms_read_dump(const char *path, const struct hprof_visitor *v, ooms_progress_fn progress, void *pctx,
		   int pass, uint64_t *parsed, char *err, size_t errlen)
{
	struct hprof_source src;
	struct hprof_parser *p;
	uint8_t *buf;
	uint64_t total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = 0;
	off_t end;
	long n;

	if (fd < 0) {
		e = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return e;
	}
	end = lseek(fd, 0, SEEK_END);
	total = end > 0 ? (uint64_t)end : 0;
	lseek(fd, 0, SEEK_SET);
	p = hprof_parser_new(v);
	buf = malloc(READ_CHUNK);
	if (!p || !buf || hprof_source_open(&src, fd)) {
		hprof_parser_free(p);
		free(buf);
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while ((n = hprof_source_read(&src, buf, READ_CHUNK)) > 0) {
		if ((e = hprof_parser_feed(p, buf, (size_t)n)))
			break;
		if (progress)
			progress(pctx, pass, src.bytes_read, total);
	}
	if (n < 0) {
		e = (int)n;
		snprintf(err, errlen, "%s: %s", path, n == -EBADMSG ? "corrupt compressed data" : strerror((int)-n));
	} else if (e && !err[0]) {
		snprintf(err, errlen, "%s: %s", path, hprof_parser_error(p));
	} else if (!e && (e = hprof_parser_finish(p))) {
		snprintf(err, errlen, "%s: %s", path, hprof_parser_error(p));
	}
	if (!e && parsed)
		*parsed = hprof_parser_offset(p);
	hprof_source_free(&src);
	hprof_parser_free(p);
	free(buf);
	close(fd);
	return e;
}

static int run_pass(struct build *b, const char *path, const struct hprof_visitor *v, ooms_progress_fn progress,
		    void *pctx)
{
	return ooms_read_dump(path, v, progress, pctx, b->pass, &b->ix->file_bytes, b->err, b->errlen);
}

int ooms_index_build(struct ooms_index *ix, const char *path, struct ooms_probe *probes, size_t nprobes,
		     ooms_progress_fn progress, void *pctx, char *err, size_t errlen)
{
	struct build b = {.ix = ix, .probes = probes, .nprobes = nprobes, .err = err, .errlen = errlen};
	struct hprof_visitor v1 = {.ctx = &b, .header = p1_header, .record_begin = rec_begin,
				   .record_data = rec_data, .record_end = rec_end, .sub_begin = p1_sub};
	struct hprof_visitor v2 = {.ctx = &b, .sub_begin = p2_sub_begin, .sub_data = p2_sub_data,
				   .sub_end = p2_sub_end};
	double t0 = now_s();
	int e;

	memset(ix, 0, sizeof(*ix));
	err[0] = 0;
	ix->class_class = OOMS_NONE;
	if (u64map_init(&ix->strings, 1024) || u64map_init(&b.load_names, 1024) ||
	    add_node(&b, 0, NODE_ROOT, 0, 0)) {
		e = fail(&b, -ENOMEM, "out of memory");
		goto out;
	}
	b.pass = 1;
	if ((e = run_pass(&b, path, &v1, progress, pctx)))
		goto out;
	if ((e = between_passes(&b)))
		goto out;
	ix->seconds_pass1 = now_s() - t0;
	t0 = now_s();
	ix->off = malloc(((size_t)ix->nodes + 1) * sizeof(*ix->off));
	if (!ix->off) {
		e = fail(&b, -ENOMEM, "out of memory");
		goto out;
	}
	ix->off[0] = 0;
	ix->weak_last = calloc((size_t)ix->nodes / 8 + 1, 1);
	if (!ix->weak_last) {
		e = fail(&b, -ENOMEM, "out of memory");
		goto out;
	}
	b.pass = 2;
	if ((e = run_pass(&b, path, &v2, progress, pctx)))
		goto out;
	if (b.node != ix->main_end) {
		e = fail(&b, -EBADMSG, "%s: the dump changed between the two passes", path);
		goto out;
	}
	/* class objects: their static fields, and their loader (VisualVM and
	 * MAT count that edge too) */
	for (uint32_t n = ix->main_end + 1; n < ix->nodes; n++) {
		const struct ooms_class *c = &ix->classes[ix->length[n]];

		ix->off[n] = ix->nedges;
		for (uint32_t i = 0; i < c->nstatics && !e; i++)
			e = add_edge(&b, ix->statics[c->statics_at + i].value);
		if (!e)
			e = add_edge(&b, c->loader_id);
		if (e)
			goto out;
	}
	ix->off[ix->nodes] = ix->nedges;
	{ /* give back the growth slack */
		void *q = realloc(ix->tgt, ((size_t)ix->nedges + 1) * sizeof(*ix->tgt));

		if (q)
			ix->tgt = q;
	}
	ix->seconds_pass2 = now_s() - t0;
out:
	free(b.cls_ids);
	free(b.load_keys);
	free(b.rroots);
	free(b.data);
	u64map_free(&b.load_names);
	if (e)
		ooms_index_free(ix);
	return e;
}

void ooms_index_free(struct ooms_index *ix)
{
	free(ix->ids);
	free(ix->cids);
	free(ix->cls);
	free(ix->kind);
	free(ix->heap);
	free(ix->length);
	free(ix->off);
	free(ix->tgt);
	free(ix->classes);
	free(ix->fields);
	free(ix->statics);
	free(ix->slots);
	free(ix->cprobes);
	free(ix->roots);
	free(ix->arena);
	free(ix->inst_sizes);
	free(ix->weak_last);
	free(ix->sorted_ids);
	free(ix->sorted_nodes);
	free(ix->bucket);
	u64map_free(&ix->strings);
	memset(ix, 0, sizeof(*ix));
}

void ooms_probes_free(struct ooms_probe *probes, size_t nprobes)
{
	for (size_t i = 0; i < nprobes; i++) {
		free(probes[i].values);
		probes[i].values = NULL;
		probes[i].count = probes[i].cap = 0;
	}
}

uint32_t ooms_index_class_by_name(const struct ooms_index *ix, const char *name)
{
	for (uint32_t i = 0; i < ix->nclasses; i++)
		if (ix->classes[i].name != OOMS_NONE && !strcmp(ix->arena + ix->classes[i].name, name))
			return i;
	return OOMS_NONE;
}

int ooms_index_is_a(const struct ooms_index *ix, uint32_t c, const char *name)
{
	for (int depth = 0; c != OOMS_NONE && depth < 1024; c = ix->classes[c].super, depth++)
		if (ix->classes[c].name != OOMS_NONE && !strcmp(ix->arena + ix->classes[c].name, name))
			return 1;
	return 0;
}
