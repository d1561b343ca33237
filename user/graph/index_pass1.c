/* The index's pass 1: names, classes, roots and the object table. */
#include "graph/index_build.h"
#include "util/hugemem.h"

int ixb_p1_header(void *ctx, const struct hprof_header *h)
{
	struct build *b = ctx;

	b->ix->header = *h;
	b->ix->id_size = h->id_size;
	return 0;
}

int ixb_rec_begin(void *ctx, const struct hprof_record *r)
{
	struct build *b = ctx;
	struct ooms_index *ix = b->ix;

	b->rtag = r->tag;
	b->rlen = 0;
	b->later_dump = hprof_heap_later(&b->heaps, r->tag);
	if ((r->tag == HPROF_HEAP_DUMP || r->tag == HPROF_HEAP_DUMP_SEGMENT) && !b->later_dump) {
		struct ooms_heap_seg *s = VEC_PUSH(ix->segs, ix->nsegs, b->segs_cap);

		if (!s)
			return ixb_fail(b, -ENOMEM, "out of memory");
		/* pass 1 numbers objects and class dumps together, node 0 aside */
		*s = (struct ooms_heap_seg){r->offset, 9 + (uint64_t)r->len, ix->nodes - 1 - ix->nclasses, ix->nclasses};
	}
	return 0;
}

int ixb_rec_data(void *ctx, const uint8_t *p, size_t n)
{
	struct build *b = ctx;
	size_t room = sizeof(b->rbuf) - b->rlen;

	if (b->rtag != HPROF_STRING && b->rtag != HPROF_LOAD_CLASS && b->rtag != HPROF_STACK_FRAME &&
	    b->rtag != HPROF_STACK_TRACE)
		return 0;
	if (n > room)
		n = room;
	memcpy(b->rbuf + b->rlen, p, n);
	b->rlen += n;
	return 0;
}

/* A STACK_FRAME or STACK_TRACE record (a trace longer than the buffer
 * keeps its innermost frames). */
static int stack_record(struct build *b)
{
	struct ooms_index *ix = b->ix;
	unsigned id = ix->id_size;

	if (b->rtag == HPROF_STACK_FRAME && b->rlen >= 4 * id + 8) {
		struct ooms_jframe *f = VEC_PUSH(ix->frames, ix->nframes, b->frames_cap);

		if (!f)
			return ixb_fail(b, -ENOMEM, "out of memory");
		*f = (struct ooms_jframe){hprof_id(b->rbuf, id), hprof_id(b->rbuf + id, id), hprof_id(b->rbuf + 2 * id, id),
					 hprof_id(b->rbuf + 3 * id, id), hprof_u4(b->rbuf + 4 * id),
					 (int32_t)hprof_u4(b->rbuf + 4 * id + 4)};
	} else if (b->rtag == HPROF_STACK_TRACE && b->rlen >= 12) {
		struct ooms_trace *t = VEC_PUSH(ix->traces, ix->ntraces, b->traces_cap);
		uint32_t n = hprof_u4(b->rbuf + 8), have = (uint32_t)((b->rlen - 12) / id);

		if (!t)
			return ixb_fail(b, -ENOMEM, "out of memory");
		*t = (struct ooms_trace){hprof_u4(b->rbuf), hprof_u4(b->rbuf + 4), ix->ntrace_frames, n < have ? n : have, n};
		if (vec_reserve((void **)&ix->trace_frames, &b->trace_frames_cap, (size_t)ix->ntrace_frames + t->nframes,
				sizeof(*ix->trace_frames)))
			return ixb_fail(b, -ENOMEM, "out of memory");
		for (uint32_t i = 0; i < t->nframes; i++)
			ix->trace_frames[ix->ntrace_frames++] = hprof_id(b->rbuf + 12 + (size_t)i * id, id);
	}
	return 0;
}

int ixb_rec_end(void *ctx, const struct hprof_record *r)
{
	struct build *b = ctx;
	struct ooms_index *ix = b->ix;
	unsigned id = ix->id_size;

	(void)r;
	if (b->rtag == HPROF_STRING && b->rlen >= id) {
		uint32_t off = ixb_arena_add(ix, (const char *)b->rbuf + id, b->rlen - id);

		if (off == OOMS_NONE || u64map_put(&ix->strings, hprof_id(b->rbuf, id), off))
			return ixb_fail(b, -ENOMEM, "out of memory for the dump's strings");
	} else if (b->rtag == HPROF_LOAD_CLASS && b->rlen >= 8 + 2 * id) {
		if (vec_reserve((void **)&b->load_keys, &b->load_cap, b->nload + 1, sizeof(*b->load_keys)))
			return ixb_fail(b, -ENOMEM, "out of memory");
		b->load_keys[b->nload] = hprof_id(b->rbuf + 8 + id, id);
		if (u64map_put(&b->load_names, hprof_id(b->rbuf + 4, id), (uint32_t)b->nload++))
			return ixb_fail(b, -ENOMEM, "out of memory");
		{ /* the frames name classes by serial */
			uint32_t name = ixb_string_of(ix, hprof_id(b->rbuf + 8 + id, id));

			if (name != OOMS_NONE && u64map_put(&ix->class_serials, (uint64_t)hprof_u4(b->rbuf) + 1, name))
				return ixb_fail(b, -ENOMEM, "out of memory");
		}
	} else if (b->rtag == HPROF_STACK_FRAME || b->rtag == HPROF_STACK_TRACE) {
		return stack_record(b);
	}
	return 0;
}

int ixb_add_node(struct build *b, uint64_t id, uint8_t kind, uint64_t cls, uint32_t length)
{
	struct ooms_index *ix = b->ix;
	uint32_t n = ix->nodes;

	if (n == UINT32_MAX - 1)
		return ixb_fail(b, -E2BIG, "more than 4 billion objects");
	if (n >= b->node_cap) {
		size_t cap = b->node_cap ? b->node_cap * 2 : b->node_hint > (1 << 16) ? b->node_hint : 1 << 16;
		void *a = huge_realloc(ix->ids, cap * sizeof(*ix->ids)), *c, *k, *h, *l;

		if (a)
			ix->ids = a;
		c = huge_realloc(b->cls_ids, cap * sizeof(*b->cls_ids));
		if (c)
			b->cls_ids = c;
		k = huge_realloc(b->kind, cap);
		if (k)
			b->kind = k;
		h = huge_realloc(b->heap_of, cap);
		if (h)
			b->heap_of = h;
		l = huge_realloc(b->length, cap * sizeof(*b->length));
		if (l)
			b->length = l;
		if (!a || !c || !k || !h || !l)
			return ixb_fail(b, -ENOMEM, "out of memory for %u objects", n);
		b->node_cap = cap;
	}
	ix->ids[n] = id;
	b->cls_ids[n] = cls;
	b->kind[n] = kind;
	b->heap_of[n] = b->heap;
	b->length[n] = length;
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

	if (vec_reserve((void **)&ix->classes, &b->classes_cap, ci + 1, sizeof(*ix->classes)))
		return ixb_fail(b, -ENOMEM, "out of memory");
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
			uint32_t nm = ixb_string_of(ix, hprof_id(p, id));

			if (nm != OOMS_NONE && !strcmp(ix->arena + nm, "ARRAY_OBJECT_INDEX_SCALE")) {
				b->scale_class[b->nscale] = ci;
				b->scale_value[b->nscale++] = hprof_u4(p + id + 1);
			}
		}
		if (t == HPROF_T_OBJECT) {
			uint64_t v = hprof_id(p + id + 1, id);

			if (v) {
				if (vec_reserve((void **)&ix->statics, &b->statics_cap, ix->nstatics + 1, sizeof(*ix->statics)))
					return ixb_fail(b, -ENOMEM, "out of memory");
				ix->statics[ix->nstatics].ignored = 0;
				ix->statics[ix->nstatics].name = ixb_string_of(ix, hprof_id(p, id));
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

			if (vec_reserve((void **)&ix->fields, &b->fields_cap, ix->nfields + 1, sizeof(*ix->fields)))
				return ixb_fail(b, -ENOMEM, "out of memory");
			f = &ix->fields[ix->nfields++];
			f->name = ixb_string_of(ix, hprof_id(p, id));
			f->type = p[id];
			f->offset = off;
			off += hprof_type_size(f->type, id);
			p += id + 1;
		}
	}
	c->nfields = ix->nfields - c->fields_at;
	ix->nclasses = ci + 1;
	return ixb_add_node(b, c->id, NODE_CLASS, ci, 0);
}

int ixb_p1_sub(void *ctx, const struct hprof_sub *s)
{
	struct build *b = ctx;
	unsigned id = b->ix->id_size;
	struct raw_root r = {s->id, s->tag, 0, -1, 0};

	if (b->later_dump)
		return 0;
	switch (s->tag) {
	case HPROF_HEAP_DUMP_INFO:
		b->heap = heap_of(s->heap_id);
		return 0;
	case HPROF_CLASS_DUMP:
		return p1_class(b, s);
	case HPROF_INSTANCE_DUMP:
		return ixb_add_node(b, s->id, NODE_INSTANCE, s->class_id, s->count);
	case HPROF_OBJ_ARRAY_DUMP:
		return ixb_add_node(b, s->id, NODE_OBJ_ARRAY, s->class_id, s->count);
	case HPROF_PRIM_ARRAY_DUMP:
	case HPROF_PRIM_ARRAY_NODATA:
		return ixb_add_node(b, s->id, NODE_PRIM_ARRAY, s->elem_type, s->count);
	case HPROF_ROOT_JAVA_FRAME:
	case HPROF_ROOT_JNI_LOCAL:
		r.thread_serial = hprof_u4(s->head + 1 + id);
		r.frame = (int32_t)hprof_u4(s->head + 5 + id);
		break;
	case HPROF_ROOT_THREAD_OBJECT:
		r.trace_serial = hprof_u4(s->head + 5 + id);
		/* fall through */
	case HPROF_ROOT_NATIVE_STACK:
	case HPROF_ROOT_THREAD_BLOCK:
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
	if (vec_reserve((void **)&b->rroots, &b->roots_cap, b->nroots + 1, sizeof(*b->rroots)))
		return ixb_fail(b, -ENOMEM, "out of memory");
	b->rroots[b->nroots++] = r;
	return 0;
}
