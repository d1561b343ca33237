#include "graph/labels.h"
#include "util/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/u64map.h"

#define SEG_CHUNK (1u << 20)

struct labeler {
	const struct ooms_index *ix;
	struct ooms_edge_label *labels;
	uint32_t *order;        /* label indices sorted by from */
	uint64_t *to_id;        /* by label: the id of its to node */
	size_t n;
	struct u64map first;    /* from node -> first position in order */
	uint32_t node;          /* the current record's */
	uint32_t main, class_dumps; /* objects and class dumps seen */
	int active;             /* the current record is wanted */
	uint32_t at;            /* its first position in order */
	uint8_t *data;
	size_t dlen, dcap;
	uint8_t carry[8];
	size_t carry_len;
	uint32_t elem;
	uint32_t class_target, class_of; /* the current object's class node, or OOMS_NONE */
	struct ooms_content *wants;
	struct u64map want_of;  /* node + 1 -> index in wants */
	uint32_t want;          /* the current record's, or OOMS_NONE */
	uint8_t *any;           /* [nodes/8+1] bit n: n is a from or a want (most records are neither) */
	struct hprof_heap_count heaps;
	int later_dump;         /* the current record is in a later heap dump (index.h) */
};

static int rec_begin(void *ctx, const struct hprof_record *r)
{
	struct labeler *l = ctx;

	l->later_dump = hprof_heap_later(&l->heaps, r->tag);
	return 0;
}

static const struct ooms_edge_label *sort_base;

static int by_from(const void *a, const void *b)
{
	uint32_t x = sort_base[*(const uint32_t *)a].from, y = sort_base[*(const uint32_t *)b].from;

	return x < y ? -1 : x > y;
}

const char *ooms_ref_type_name(uint8_t type)
{
	switch (type) {
	case REF_INSTANCE_FIELD: return "INSTANCE_FIELD";
	case REF_STATIC_FIELD: return "STATIC_FIELD";
	case REF_ARRAY_ENTRY: return "ARRAY_ENTRY";
	case REF_CLASS_LOADER: return "CLASS_LOADER";
	case REF_CLASS_OBJECT: return "CLASS_OBJECT";
	}
	return "UNKNOWN";
}

/* Marks every still open label from the current node to the object of id
 * target_id (target: to that node, when target_id is 0). */
static void resolve(struct labeler *l, uint64_t target_id, uint32_t target, uint8_t type, uint32_t field,
		    uint32_t declared_in, uint32_t index)
{
	for (size_t i = l->at; i < l->n && l->labels[l->order[i]].from == l->node; i++) {
		struct ooms_edge_label *e = &l->labels[l->order[i]];

		if ((target_id ? l->to_id[l->order[i]] != target_id : e->to != target) || e->type != REF_NONE)
			continue;
		e->type = type;
		e->field = field;
		e->declared_in = declared_in;
		e->index = index;
	}
}

static int sub_begin(void *ctx, const struct hprof_sub *s)
{
	struct labeler *l = ctx;
	const struct ooms_index *ix = l->ix;
	uint32_t at;

	if (l->later_dump || !hprof_sub_is_object(s->tag)) {
		l->active = 0;
		l->want = OOMS_NONE;
		return 0;
	}
	if (s->tag == HPROF_CLASS_DUMP) /* class objects are numbered after the rest (index.h) */
		l->node = ix->classes[l->class_dumps++].node;
	else
		l->node = ++l->main;
	if (!(l->any[l->node / 8] >> (l->node % 8) & 1)) {
		l->want = OOMS_NONE;
		l->active = 0;
		return 0;
	}
	if (!l->wants || !u64map_get(&l->want_of, (uint64_t)l->node + 1, &l->want))
		l->want = OOMS_NONE;
	l->active = u64map_get(&l->first, (uint64_t)l->node + 1, &at);
	if (!l->active)
		return 0;
	l->at = at;
	l->dlen = l->carry_len = 0;
	l->elem = 0;
	l->class_target = OOMS_NONE;
	if (s->tag == HPROF_CLASS_DUMP) {
		uint32_t ci = ooms_class_of_node(ix, l->node);
		const struct ooms_class *c = &ix->classes[ci];

		for (uint32_t i = 0; i < c->nstatics; i++) {
			const struct ooms_static *st = &ix->statics[c->statics_at + i];

			resolve(l, st->value, OOMS_NONE, REF_STATIC_FIELD, st->name, ci, 0);
		}
		if (c->loader_id)
			resolve(l, c->loader_id, OOMS_NONE, REF_CLASS_LOADER, OOMS_NONE, ci, 0);
	}
	if (ooms_cls(ix, l->node) != OOMS_NONE && ix->classes[ooms_cls(ix, l->node)].node != OOMS_NONE &&
	    (s->tag == HPROF_INSTANCE_DUMP || s->tag == HPROF_CLASS_DUMP)) {
		uint32_t c = ooms_cls(ix, l->node);

		/* the class connection: resolved last, so a field naming the class wins */
		l->class_target = ix->classes[c].node;
		l->class_of = c;
	}
	return 0;
}

static int sub_data(void *ctx, const uint8_t *p, size_t len)
{
	struct labeler *l = ctx;
	const struct ooms_index *ix = l->ix;
	unsigned id = ix->id_size;

	if (l->want != OOMS_NONE) {
		struct ooms_content *c = &l->wants[l->want];
		size_t k = len < OOMS_CONTENT_MAX - c->len ? len : OOMS_CONTENT_MAX - c->len;

		memcpy(c->data + c->len, p, k);
		c->len += (uint32_t)k;
	}
	if (!l->active)
		return 0;
	if (ooms_kind(ix, l->node) == NODE_INSTANCE) {
		if (vec_reserve((void **)&l->data, &l->dcap, l->dlen + len, 1))
			return -ENOMEM;
		memcpy(l->data + l->dlen, p, len);
		l->dlen += len;
		return 0;
	}
	if (ooms_kind(ix, l->node) != NODE_OBJ_ARRAY)
		return 0;
	for (; len; p++, len--) { /* arrays on paths are few: byte at a time is fine */
		l->carry[l->carry_len++] = *p;
		if (l->carry_len < id)
			continue;
		l->carry_len = 0;
		{
			uint64_t v = hprof_id(l->carry, id);

			if (v)
				resolve(l, v, OOMS_NONE, REF_ARRAY_ENTRY, OOMS_NONE, ooms_cls(ix, l->node), l->elem);
		}
		l->elem++;
	}
	return 0;
}

static void instance_fields(struct labeler *l, uint32_t c);

static int sub_end(void *ctx, const struct hprof_sub *s)
{
	struct labeler *l = ctx;
	const struct ooms_index *ix = l->ix;
	uint32_t c;

	if (!l->active)
		return 0;
	if (s->tag == HPROF_INSTANCE_DUMP && (c = ooms_cls(ix, l->node)) != OOMS_NONE)
		instance_fields(l, c);
	if (l->class_target != OOMS_NONE)
		resolve(l, 0, l->class_target, REF_CLASS_OBJECT, OOMS_NONE, l->class_of, 0);
	return 0;
}

static void instance_fields(struct labeler *l, uint32_t c)
{
	const struct ooms_index *ix = l->ix;

	for (uint32_t i = 0; i < ix->classes[c].nslots; i++) {
		const struct ooms_ref_slot *sl = &ix->slots[ix->classes[c].slots_at + i];
		uint64_t v;

		if (sl->offset + ix->id_size > l->dlen)
			continue;
		v = hprof_id(l->data + sl->offset, ix->id_size);
		if (v)
			resolve(l, v, OOMS_NONE, REF_INSTANCE_FIELD, sl->field, sl->declared_in, 0);
	}
}

/* The heap record holding node n (its index in ix->segs), by the counts
 * of objects and class dumps before each. */
static uint32_t seg_of(const struct ooms_index *ix, uint32_t n)
{
	uint32_t lo = 0, hi = ix->nsegs;
	int is_class = ooms_kind(ix, n) == NODE_CLASS;
	uint32_t k = is_class ? ooms_class_of_node(ix, n) : n - 1; /* class dump k / object k, 0-based */

	while (hi - lo > 1) { /* the last record whose count before is at most k */
		uint32_t mid = (lo + hi) / 2, before = is_class ? ix->segs[mid].class_before : ix->segs[mid].main_before;

		if (before <= k)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Reads only the heap records that hold wanted objects, from a plain
 * (uncompressed, seekable) dump: the header, then each such record whole,
 * with the object counts set as a full pass would have them. 1 when the
 * dump is compressed or the index has no record table (read it all). */
static void segment_counts(void *ctx, uint32_t i)
{
	struct labeler *l = ctx;

	l->main = l->ix->segs[i].main_before;
	l->class_dumps = l->ix->segs[i].class_before;
}

static int read_segments(struct labeler *l, const char *path, const struct hprof_visitor *v, struct ooms_err *err)
{
	const struct ooms_index *ix = l->ix;
	uint8_t *need;
	int e;

	if (!ix->nsegs)
		return 1;
	if (!(need = calloc(ix->nsegs, 1)))
		return ooms_err_set(err, -ENOMEM, "out of memory");
	for (uint32_t n = 1; n < ix->nodes; n++)
		if (l->any[n / 8] >> (n % 8) & 1)
			need[seg_of(ix, n)] = 1;
	e = ooms_read_segments(ix, path, 0, ix->nsegs, need, v, segment_counts, l, err);
	free(need);
	return e;
}

int ooms_label_edges(const struct ooms_index *ix, const char *path, struct ooms_edge_label *labels, size_t n,
		     struct ooms_content *wants, size_t nwants, struct ooms_err *err)
{
	struct labeler l = {.ix = ix, .labels = labels, .n = n, .wants = nwants ? wants : NULL};
	struct hprof_visitor v = {.ctx = &l, .record_begin = rec_begin, .sub_begin = sub_begin, .sub_data = sub_data,
				  .sub_end = sub_end};
	int e;

	if (!n && !nwants)
		return 0;
	l.order = malloc((n + 1) * sizeof(*l.order));
	l.to_id = malloc((n + 1) * sizeof(*l.to_id));
	l.any = calloc(ix->nodes / 8 + 1, 1);
	if (!l.order || !l.to_id || !l.any || u64map_init(&l.first, n + 1) || u64map_init(&l.want_of, nwants + 1)) {
		free(l.order);
		free(l.to_id);
		free(l.any);
		u64map_free(&l.first); /* both zeroed or made: freeing either is safe */
		u64map_free(&l.want_of);
		return ooms_err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		l.order[i] = (uint32_t)i;
		l.to_id[i] = ooms_index_id(ix, labels[i].to);
		labels[i].type = REF_NONE;
		labels[i].field = labels[i].declared_in = OOMS_NONE;
		labels[i].index = 0;
	}
	for (size_t i = 0; i < n; i++)
		l.any[labels[i].from / 8] |= (uint8_t)(1 << (labels[i].from % 8));
	for (size_t i = 0; i < nwants; i++) {
		l.any[wants[i].node / 8] |= (uint8_t)(1 << (wants[i].node % 8));
		wants[i].len = 0;
		if ((e = u64map_put(&l.want_of, (uint64_t)wants[i].node + 1, (uint32_t)i)))
			goto out;
	}
	sort_base = labels;
	if (n)
		vec_sort(l.order, n, sizeof(*l.order), by_from);
	for (size_t i = n; i-- > 0;) /* keys are node + 1: 0 means empty */
		if ((e = u64map_put(&l.first, (uint64_t)labels[l.order[i]].from + 1, (uint32_t)i)))
			goto out;
	ooms_err_clear(err);
	if ((e = read_segments(&l, path, &v, err)) == 1)
		e = ooms_read_dump(path, &v, NULL, NULL, 3, ix->threads, NULL, err);
out:
	free(l.order);
	free(l.to_id);
	free(l.any);
	free(l.data);
	u64map_free(&l.first);
	u64map_free(&l.want_of);
	if (e == -ENOMEM && !ooms_err_said(err))
		ooms_err_set(err, e, "out of memory");
	return e;
}
