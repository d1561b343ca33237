#include "hprof/transform.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const uint8_t zeros[65536];

const char *hprof_op_mode(enum hprof_op op)
{
	switch (op) {
	case HPROF_OP_STRIP_APP: return "app";
	case HPROF_OP_STRIP_KOOM: return "koom";
	case HPROF_OP_STRIP_MATRIX: return "matrix";
	case HPROF_OP_RESTORE: return "restore";
	}
	return "?";
}

static int tr_header(void *ctx, const struct hprof_header *h)
{
	struct hprof_transform *t = ctx;
	char format[96];

	t->id_size = h->id_size;
	if (t->op == HPROF_OP_RESTORE) {
		if (!h->strip_mode[0])
			return -EINVAL; /* reported by the caller: not a stripped file */
		return hprof_writer_header(t->w, h->orig_format, h->id_size, h->time_ms);
	}
	if (h->strip_mode[0])
		return -EALREADY; /* stripping a stripped file would lose its marker */
	snprintf(format, sizeof(format), "%s%s %s", HPROF_STRIP_MAGIC, hprof_op_mode(t->op), h->orig_format);
	return hprof_writer_header(t->w, format, h->id_size, h->time_ms);
}

static int is_heap(uint8_t tag)
{
	return tag == HPROF_HEAP_DUMP || tag == HPROF_HEAP_DUMP_SEGMENT;
}

static int tr_record_begin(void *ctx, const struct hprof_record *r)
{
	struct hprof_transform *t = ctx;

	t->rec_time = r->time;
	t->segmented |= r->tag == HPROF_HEAP_DUMP_SEGMENT;
	t->heap_ended |= r->tag == HPROF_HEAP_DUMP_END;
	if (is_heap(r->tag)) {
		hprof_writer_heap_begin(t->w, r->tag);
		return 0; /* its sub-records are written one by one */
	}
	if (r->tag == HPROF_HEAP_DUMP_END)
		return hprof_writer_heap_end(t->w, r->time);
	return hprof_writer_record(t->w, r->tag, r->time, r->len);
}

static int tr_record_data(void *ctx, const uint8_t *p, size_t n)
{
	return hprof_writer_body(((struct hprof_transform *)ctx)->w, p, n);
}

static int tr_record_end(void *ctx, const struct hprof_record *r)
{
	struct hprof_transform *t = ctx;

	/* keep the input's segment boundaries where the buffer allows */
	return is_heap(r->tag) ? hprof_writer_heap_flush(t->w) : 0;
}

static int is_object(uint8_t tag)
{
	return tag == HPROF_INSTANCE_DUMP || tag == HPROF_OBJ_ARRAY_DUMP || tag == HPROF_PRIM_ARRAY_DUMP ||
	       tag == HPROF_PRIM_ARRAY_NODATA;
}

/* The head of a primitive array without its elements. */
static int write_nodata(struct hprof_transform *t, const struct hprof_sub *s)
{
	uint8_t head[1 + 8 + 4 + 4 + 1];
	int e;

	memcpy(head, s->head, s->head_len);
	head[0] = HPROF_PRIM_ARRAY_NODATA;
	e = hprof_writer_sub_begin(t->w, t->rec_time, s->head_len);
	return e ? e : hprof_writer_sub_bytes(t->w, head, s->head_len);
}

static int write_whole(struct hprof_transform *t, const struct hprof_sub *s)
{
	int e = hprof_writer_sub_begin(t->w, t->rec_time, s->head_len + s->payload_len);

	t->keep_payload = 1;
	return e ? e : hprof_writer_sub_bytes(t->w, s->head, s->head_len);
}

static int strip_sub(struct hprof_transform *t, const struct hprof_sub *s)
{
	t->objects += is_object(s->tag);
	if (s->tag == HPROF_HEAP_DUMP_INFO) {
		t->drop_heap = t->op == HPROF_OP_STRIP_KOOM &&
			       (s->heap_id == HPROF_HEAP_ZYGOTE || s->heap_id == HPROF_HEAP_IMAGE);
		/* a dropped heap's marker goes too: alone in a segment it would leave
		 * hprof-conv writing an empty one, which readers reject */
		if (t->drop_heap)
			return 0;
	}
	if (t->drop_heap && is_object(s->tag)) {
		t->dropped_objects++;
		return 0;
	}
	if (s->tag == HPROF_PRIM_ARRAY_DUMP) {
		if (t->keep_arrays && hprof_idset_has(t->keep_arrays, s->id)) {
			t->kept_arrays++;
			return write_whole(t, s);
		}
		if (t->text_bytes && (s->elem_type == HPROF_T_CHAR || s->elem_type == HPROF_T_BYTE) &&
		    s->payload_len <= t->text_bytes) {
			t->kept_text++;
			return write_whole(t, s);
		}
		t->stripped_arrays++;
		return write_nodata(t, s);
	}
	return write_whole(t, s);
}

static int restore_sub(struct hprof_transform *t, const struct hprof_sub *s)
{
	uint8_t head[1 + 8 + 4 + 4 + 1];
	uint64_t bytes;
	int e;

	if (s->tag != HPROF_PRIM_ARRAY_NODATA)
		return write_whole(t, s);
	/* the elements come back as zeros, at their original length */
	bytes = (uint64_t)s->count * hprof_type_size(s->elem_type, t->id_size);
	memcpy(head, s->head, s->head_len);
	head[0] = HPROF_PRIM_ARRAY_DUMP;
	e = hprof_writer_sub_begin(t->w, t->rec_time, s->head_len + bytes);
	if (!e)
		e = hprof_writer_sub_bytes(t->w, head, s->head_len);
	while (!e && bytes) {
		size_t k = bytes < sizeof(zeros) ? (size_t)bytes : sizeof(zeros);

		e = hprof_writer_sub_bytes(t->w, zeros, k);
		bytes -= k;
	}
	t->stripped_arrays++;
	return e;
}

static int tr_sub_begin(void *ctx, const struct hprof_sub *s)
{
	struct hprof_transform *t = ctx;

	t->keep_payload = 0;
	return t->op == HPROF_OP_RESTORE ? restore_sub(t, s) : strip_sub(t, s);
}

static int tr_sub_data(void *ctx, const uint8_t *p, size_t n)
{
	struct hprof_transform *t = ctx;

	return t->keep_payload ? hprof_writer_sub_bytes(t->w, p, n) : 0;
}

void hprof_transform_visitor(struct hprof_transform *t, enum hprof_op op, struct hprof_writer *w,
			     const struct hprof_idset *keep_arrays, struct hprof_visitor *v)
{
	memset(t, 0, sizeof(*t));
	t->op = op;
	t->w = w;
	t->keep_arrays = keep_arrays;
	t->text_bytes = op == HPROF_OP_RESTORE ? 0 : HPROF_TEXT_BYTES;
	memset(v, 0, sizeof(*v));
	v->ctx = t;
	v->header = tr_header;
	v->record_begin = tr_record_begin;
	v->record_data = tr_record_data;
	v->record_end = tr_record_end;
	v->sub_begin = tr_sub_begin;
	v->sub_data = tr_sub_data;
}
