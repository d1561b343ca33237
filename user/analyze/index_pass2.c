/* The index's pass 2: references, read with every class layout known. */
#include "analyze/index_build.h"

int ixb_add_edge(struct build *b, uint64_t id)
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
		return ixb_fail(b, -E2BIG, "more than 4 billion references");
	if (ix->nedges >= b->edges_cap &&
	    vec_reserve((void **)&ix->tgt, &b->edges_cap, (size_t)ix->nedges + 1, sizeof(*ix->tgt)))
		return ixb_fail(b, -ENOMEM, "out of memory for %u references", ix->nedges);
	ix->tgt[ix->nedges++] = t;
	return 0;
}

int ixb_ignore_edge(struct build *b, uint32_t u, uint32_t v, uint32_t mark)
{
	struct ooms_index *ix = b->ix;

	if (!ix->ignored_from && (!(ix->ignored_from = calloc(ix->nodes / 8 + 1, 1)) || u64map_init(&ix->ignored, 64)))
		return ixb_fail(b, -ENOMEM, "out of memory");
	ix->ignored_from[u / 8] |= (uint8_t)(1 << (u % 8));
	if (u64map_put(&ix->ignored, ((uint64_t)u << 32 | v) + 1, mark))
		return ixb_fail(b, -ENOMEM, "out of memory");
	return 0;
}

static int probe_value(struct build *b, uint32_t probe, uint32_t node, uint64_t v)
{
	struct ooms_probe *p = &b->probes[probe];

	if (vec_reserve((void **)&p->values, &p->cap, p->count + 1, sizeof(*p->values)))
		return ixb_fail(b, -ENOMEM, "out of memory");
	p->values[p->count].node = node;
	p->values[p->count++].value = v;
	return 0;
}

int ixb_p2_rec_begin(void *ctx, const struct hprof_record *r)
{
	struct build *b = ctx;

	b->later_dump = hprof_heap_later(&b->heaps, r->tag);
	return 0;
}

int ixb_p2_sub_begin(void *ctx, const struct hprof_sub *s)
{
	struct build *b = ctx;
	struct ooms_index *ix = b->ix;
	uint32_t n;

	if (b->later_dump || !hprof_sub_is_object(s->tag))
		return 0;
	if (s->tag == HPROF_CLASS_DUMP)
		return 0; /* class objects come last: their edges are added after the pass */
	n = ++b->node;
	if (n > ix->main_end || ooms_index_id(ix, n) != s->id)
		return ixb_fail(b, -EBADMSG, "the dump changed between the two passes (offset %llu)",
			    (unsigned long long)s->offset);
	ix->off[n] = ix->nedges;
	b->dlen = 0;
	b->carry_len = 0;
	b->elem = 0;
	return 0;
}

int ixb_p2_sub_data(void *ctx, const uint8_t *p, size_t len)
{
	struct build *b = ctx;
	struct ooms_index *ix = b->ix;

	if (b->later_dump)
		return 0;
	unsigned id = ix->id_size;
	uint8_t k = ooms_kind(ix, b->node);
	int e;

	if (k == NODE_INSTANCE) {
		if (vec_reserve((void **)&b->data, &b->dcap, b->dlen + len, 1))
			return ixb_fail(b, -ENOMEM, "out of memory");
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
					if ((e = ixb_add_edge(b, hprof_id(b->carry, id))))
						return e;
				}
				continue;
			}
			for (; len >= id; p += id, len -= id)
				if ((e = ixb_add_edge(b, hprof_id(p, id))))
					return e;
		}
	}
	return 0;
}

int ixb_p2_sub_end(void *ctx, const struct hprof_sub *s)
{
	struct build *b = ctx;
	struct ooms_index *ix = b->ix;
	unsigned id = ix->id_size;
	uint32_t n = b->node, c;
	int e;

	if (b->later_dump)
		return 0;
	if (s->tag != HPROF_INSTANCE_DUMP || (c = ooms_cls(ix, n)) == OOMS_NONE)
		return 0;
	{
		const struct ooms_class *k = &ix->classes[c];

		for (uint32_t i = 0; i < k->nslots; i++) {
			const struct ooms_ref_slot *sl = &ix->slots[k->slots_at + i];

			uint32_t before = ix->nedges;

			if (i == k->weak_slot) /* added last, see below */
				continue;
			if (sl->offset + id <= b->dlen && (e = ixb_add_edge(b, hprof_id(b->data + sl->offset, id))))
				return e;
			if (sl->ignored && ix->nedges > before && (e = ixb_ignore_edge(b, n, ix->tgt[before], sl->ignored)))
				return e;
		}
		/* Reference.referent: the last edge, flagged; it does not keep its
		 * referent alive, but it still is a reference (dominators.h) */
		if (k->weak_slot != OOMS_NONE) {
			const struct ooms_ref_slot *sl = &ix->slots[k->slots_at + k->weak_slot];
			uint32_t before = ix->nedges;

			if (sl->offset + id <= b->dlen && (e = ixb_add_edge(b, hprof_id(b->data + sl->offset, id))))
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
