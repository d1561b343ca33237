#include "hprof/emit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TAG_HEAP_DUMP_SEGMENT 0x1c
#define TAG_HEAP_DUMP_END 0x2c

uint8_t *hprof_put1(uint8_t *p, uint8_t v)
{
	*p = v;
	return p + 1;
}

uint8_t *hprof_put2(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

uint8_t *hprof_put4(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}

uint8_t *hprof_put8(uint8_t *p, uint64_t v)
{
	return hprof_put4(hprof_put4(p, (uint32_t)(v >> 32)), (uint32_t)v);
}

uint8_t *hprof_put_id(uint8_t *p, uint64_t id, unsigned id_size)
{
	return id_size == 4 ? hprof_put4(p, (uint32_t)id) : hprof_put8(p, id);
}

static int out(struct hprof_emit *e, const void *buf, size_t n)
{
	int r;

	if (e->err)
		return e->err;
	r = e->out(e->ctx, buf, n);
	if (r)
		return e->err = r < 0 ? r : -EIO;
	e->bytes += n;
	return 0;
}

int hprof_emit_init(struct hprof_emit *e, hprof_emit_out_fn fn, void *ctx, unsigned id_size, size_t seg_cap)
{
	memset(e, 0, sizeof(*e));
	if (id_size != 4 && id_size != 8)
		return -EINVAL;
	e->out = fn;
	e->ctx = ctx;
	e->id_size = id_size;
	e->seg_cap = seg_cap < 4096 ? 4096 : seg_cap;
	e->seg = malloc(e->seg_cap);
	return e->seg ? 0 : -ENOMEM;
}

void hprof_emit_free(struct hprof_emit *e)
{
	free(e->seg);
	free(e->big);
	e->seg = e->big = NULL;
}

int hprof_emit_header(struct hprof_emit *e, const char *format, uint64_t time_ms)
{
	uint8_t tail[12];

	if (out(e, format, strlen(format) + 1))
		return e->err;
	hprof_put8(hprof_put4(tail, e->id_size), time_ms);
	return out(e, tail, sizeof(tail));
}

static int record_head(struct hprof_emit *e, uint8_t tag, uint32_t len)
{
	uint8_t h[9];

	hprof_put4(hprof_put4(hprof_put1(h, tag), 0), len);
	return out(e, h, sizeof(h));
}

static int flush_segment(struct hprof_emit *e);
static int flush_big(struct hprof_emit *e, size_t len);

/* The open heap segment (and a pending big sub-record) go out first. */
static int flush_heap(struct hprof_emit *e)
{
	if (e->big_len) {
		size_t n = e->big_len;

		e->big_len = 0;
		if (flush_big(e, n))
			return e->err;
	}
	return flush_segment(e);
}

int hprof_emit_record(struct hprof_emit *e, uint8_t tag, const void *body, uint32_t len)
{
	if (flush_heap(e) || record_head(e, tag, len))
		return e->err;
	return len ? out(e, body, len) : 0;
}

static int flush_segment(struct hprof_emit *e)
{
	if (!e->seg_len)
		return e->err;
	if (record_head(e, TAG_HEAP_DUMP_SEGMENT, (uint32_t)e->seg_len) || out(e, e->seg, e->seg_len))
		return e->err;
	e->seg_len = 0;
	return 0;
}

/* The sub-record built in e->big, if any, goes out in a segment of its own. */
static int flush_big(struct hprof_emit *e, size_t len)
{
	if (record_head(e, TAG_HEAP_DUMP_SEGMENT, (uint32_t)len))
		return e->err;
	return out(e, e->big, len);
}

uint8_t *hprof_emit_sub(struct hprof_emit *e, size_t len)
{
	if (e->big_len) { /* the previous big sub-record is complete now */
		size_t n = e->big_len;

		e->big_len = 0;
		if (flush_big(e, n))
			return NULL;
	}
	if (e->err || len > UINT32_MAX)
		return NULL;
	e->subs++;
	if (len > e->seg_cap) {
		if (flush_segment(e))
			return NULL;
		if (len > e->big_cap) {
			void *q = realloc(e->big, len);

			if (!q) {
				e->err = -ENOMEM;
				return NULL;
			}
			e->big = q;
			e->big_cap = len;
		}
		e->big_len = len;
		return e->big;
	}
	if (e->seg_len + len > e->seg_cap && flush_segment(e))
		return NULL;
	e->seg_len += len;
	return e->seg + e->seg_len - len;
}

int hprof_emit_heap_end(struct hprof_emit *e)
{
	if (flush_heap(e))
		return e->err;
	return record_head(e, TAG_HEAP_DUMP_END, 0);
}
