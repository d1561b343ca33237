/* The index's pass 2: references, read with every class layout known. */
#include "graph/index_build.h"
#include "util/hugemem.h"
#include <pthread.h>
#include "util/release.h"

int ixb_add_edge(struct build *b, uint64_t id)
{
	uint32_t t;

	if (!id)
		return 0;
	t = ooms_index_find(b->ix, id);
	if (t == OOMS_NONE) {
		b->dangling++;
		return 0;
	}
	if (b->nedges == UINT32_MAX)
		return ixb_fail(b, -E2BIG, "more than 4 billion references");
	if (b->nedges >= b->edges_cap &&
	    vec_reserve((void **)&b->tgt, &b->edges_cap, (size_t)b->nedges + 1, sizeof(*b->tgt)))
		return ixb_fail(b, -ENOMEM, "out of memory for %u references", b->nedges);
	b->tgt[b->nedges++] = t;
	return 0;
}

/* A path mark on the reference u -> v, applied once the pass is merged. */
static int defer_mark(struct build *b, uint32_t u, uint32_t v, uint32_t mark)
{
	struct ixb_mark *m = VEC_PUSH(b->marks, b->nmarks, b->marks_cap);

	if (!m)
		return ixb_fail(b, -ENOMEM, "out of memory");
	*m = (struct ixb_mark){u, v, mark};
	return 0;
}

int ixb_ignore_edge(struct build *b, uint32_t u, uint32_t v, uint32_t mark)
{
	struct ooms_index *ix = b->ix;

	if (!ix->ignored_from && (!(ix->ignored_from = huge_calloc(ix->nodes / 8 + 1, 1)) || u64map_init(&ix->ignored, 64)))
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
	ix->off[n] = b->nedges;
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

			uint32_t before = b->nedges;

			if (i == k->weak_slot) /* added last, see below */
				continue;
			if (sl->offset + id <= b->dlen && (e = ixb_add_edge(b, hprof_id(b->data + sl->offset, id))))
				return e;
			if (sl->ignored && b->nedges > before && (e = defer_mark(b, n, b->tgt[before], sl->ignored)))
				return e;
		}
		/* Reference.referent: the last edge, flagged; it does not keep its
		 * referent alive, but it still is a reference (dominators.h) */
		if (k->weak_slot != OOMS_NONE) {
			const struct ooms_ref_slot *sl = &ix->slots[k->slots_at + k->weak_slot];
			uint32_t before = b->nedges;

			if (sl->offset + id <= b->dlen && (e = ixb_add_edge(b, hprof_id(b->data + sl->offset, id))))
				return e;
			if (b->nedges > before) { /* the other half may set a bit of the same byte */
				__atomic_fetch_or(&ix->weak_last[n / 8], (uint8_t)(1 << (n % 8)), __ATOMIC_RELAXED);
				b->weak_refs++;
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

/* Pass 2 on a plain file of many heap records runs as two builds, each
 * over half of the records' bytes, on two threads: each numbers its
 * objects from where its first record starts (pass 1 counted them) and
 * keeps its own references, probe values and marks, merged in node order
 * afterwards. Below this, one thread reads the whole file. */
#define SPLIT_BYTES (64ull << 20)

struct half {
	struct build *b;
	const char *path;
	uint32_t from, to;   /* heap records */
	int e;
	ooms_progress_fn progress; /* the first half tells how far both are, about */
	void *pctx;
};

static void progress_at(void *ctx, uint32_t i)
{
	const struct half *h = ctx;
	const struct ooms_index *ix = h->b->ix;

	h->progress(h->pctx, 2, 2 * (ix->segs[i].offset - ix->segs[h->from].offset), ix->file_bytes);
}

static void visitor(struct build *b, struct hprof_visitor *v)
{
	*v = (struct hprof_visitor){.ctx = b, .record_begin = ixb_p2_rec_begin, .sub_begin = ixb_p2_sub_begin,
				    .sub_data = ixb_p2_sub_data, .sub_end = ixb_p2_sub_end};
}

static void *run_half(void *arg)
{
	struct half *h = arg;
	struct hprof_visitor v;

	visitor(h->b, &v);
	h->e = ooms_read_segments(h->b->ix, h->path, h->from, h->to, NULL, &v, h->progress ? progress_at : NULL, h,
				  h->b->err);
	return NULL;
}

/* The second half's findings after the first's; its offsets moved up. */
static int merge(struct build *a, struct build *z, uint32_t z_first)
{
	struct ooms_index *ix = a->ix;
	size_t total = (size_t)a->nedges + z->nedges;

	if (total >= UINT32_MAX)
		return ixb_fail(a, -E2BIG, "more than 4 billion references");
	for (uint32_t n = z_first; n <= ix->main_end; n++)
		ix->off[n] += a->nedges;
	if (vec_reserve((void **)&a->tgt, &a->edges_cap, total + 1, sizeof(*a->tgt)))
		return ixb_fail(a, -ENOMEM, "out of memory for %zu references", total);
	/* in steps, giving back what is copied: no moment holds both whole */
	for (size_t at = 0, released = 0, step = 1u << 20; at < z->nedges; at += step) {
		size_t n = z->nedges - at < step ? z->nedges - at : step;

		memcpy(a->tgt + a->nedges + at, z->tgt + at, n * sizeof(*z->tgt));
		release_below(z->tgt, (at + n) * sizeof(*z->tgt), &released);
	}
	a->nedges = (uint32_t)total;
	a->dangling += z->dangling;
	a->weak_refs += z->weak_refs;
	for (size_t i = 0; i < z->nmarks; i++) {
		struct ixb_mark *m = VEC_PUSH(a->marks, a->nmarks, a->marks_cap);

		if (!m)
			return ixb_fail(a, -ENOMEM, "out of memory");
		*m = z->marks[i];
	}
	for (size_t i = 0; i < a->nprobes; i++) {
		struct ooms_probe *p = &a->probes[i], *q = &z->probes[i];

		if (vec_reserve((void **)&p->values, &p->cap, p->count + q->count + 1, sizeof(*p->values)))
			return ixb_fail(a, -ENOMEM, "out of memory");
		if (q->count)
			memcpy(p->values + p->count, q->values, q->count * sizeof(*q->values));
		p->count += q->count;
	}
	return 0;
}

static void free_half(struct build *z)
{
	for (size_t i = 0; z->probes && i < z->nprobes; i++)
		free(z->probes[i].values);
	free(z->probes);
	free(z->tgt);
	free(z->marks);
	free(z->data);
}

/* 0 (done), 1 (not split: read the file whole), or -errno. */
static int split_pass(struct build *b, const char *path, ooms_progress_fn progress, void *pctx)
{
	struct ooms_index *ix = b->ix;
	uint64_t bytes = 0, half_bytes = 0;
	uint32_t k = 0;
	struct build z;
	struct half first = {b, path, 0, 0, 0, progress, pctx}, second = {&z, path, 0, 0, 0, NULL, NULL};
	struct ooms_err zerr = {0}; /* the second half's: the first's is b->err */
	pthread_t thread;
	int e;

	for (uint32_t i = 0; i < ix->nsegs; i++)
		bytes += ix->segs[i].bytes;
	/* a compressed file's records can only be read in order, by one reader */
	if (ix->threads == 1 || ix->nsegs < 2 || bytes < SPLIT_BYTES || ooms_dump_compressed(path) != 0)
		return 1;
	for (k = 0; k < ix->nsegs - 1 && half_bytes < bytes / 2; k++)
		half_bytes += ix->segs[k].bytes;
	if (!k)
		return 1;
	z = *b;
	z.err = &zerr;
	z.tgt = NULL;
	z.nedges = 0;
	z.edges_cap = 0;
	if (b->edges_hint && (z.tgt = huge_malloc(b->edges_hint * sizeof(*z.tgt))))
		z.edges_cap = b->edges_hint;
	z.dangling = z.weak_refs = 0;
	z.marks = NULL;
	z.nmarks = z.marks_cap = 0;
	z.data = NULL;
	z.dlen = z.dcap = 0;
	z.carry_len = 0;
	z.node = ix->segs[k].main_before;
	z.heaps = (struct hprof_heap_count){0, 0};
	z.later_dump = 0;
	if (!(z.probes = huge_calloc(b->nprobes + 1, sizeof(*z.probes))))
		return ixb_fail(b, -ENOMEM, "out of memory");
	for (size_t i = 0; i < b->nprobes; i++) /* the same probes, values of their own */
		z.probes[i] = (struct ooms_probe){b->probes[i].class_name, b->probes[i].field_name, b->probes[i].type,
						  NULL, 0, 0};
	first.to = k;
	second.from = k;
	second.to = ix->nsegs;
	b->node = 0;
	if (pthread_create(&thread, NULL, run_half, &second)) {
		free_half(&z);
		return 1;
	}
	run_half(&first);
	pthread_join(thread, NULL);
	e = first.e ? first.e : second.e;
	if (e == 1) /* the file was replaced by a compressed one since the check */
		e = ixb_fail(b, -EBADMSG, "%s: the dump changed between the two passes", path);
	else if (e && second.e && !first.e)
		ooms_err_set(b->err, e, "%s", zerr.msg);
	if (!e && (b->node != ix->segs[k].main_before || z.node != ix->main_end))
		e = ixb_fail(b, -EBADMSG, "%s: the dump changed between the two passes", path);
	if (!e)
		e = merge(b, &z, ix->segs[k].main_before + 1);
	free_half(&z);
	return e;
}

int ixb_pass2(struct build *b, const char *path, ooms_progress_fn progress, void *pctx)
{
	struct hprof_visitor v;
	int e = split_pass(b, path, progress, pctx);

	if (e != 1)
		return e;
	visitor(b, &v);
	b->node = 0;
	if ((e = ooms_read_dump(path, &v, progress, pctx, 2, b->ix->threads, NULL, b->err)))
		return e;
	if (b->node != b->ix->main_end)
		return ixb_fail(b, -EBADMSG, "%s: the dump changed between the two passes", path);
	return 0;
}
