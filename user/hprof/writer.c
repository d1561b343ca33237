#include "hprof/writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hprof/hprof.h"
#include "util/vec.h"

#define SEG_START (1u << 20) /* the buffer's first size; it grows to seg_cap as segments need */

int hprof_writer_init(struct hprof_writer *w, struct hprof_sink *sink, size_t seg_cap)
{
	memset(w, 0, sizeof(*w));
	w->sink = sink;
	w->in_tag = HPROF_HEAP_DUMP_SEGMENT;
	w->seg_cap = seg_cap;
	w->seg_alloc = seg_cap < SEG_START ? seg_cap : SEG_START;
	w->seg = malloc(w->seg_alloc);
	return w->seg ? 0 : -ENOMEM;
}

void hprof_writer_free(struct hprof_writer *w)
{
	free(w->seg);
	w->seg = NULL;
}

static int put_record_head(struct hprof_writer *w, uint8_t tag, uint32_t time, uint32_t len)
{
	uint8_t h[9];

	h[0] = tag;
	hprof_put_u4(h + 1, time);
	hprof_put_u4(h + 5, len);
	return hprof_sink_write(w->sink, h, 9);
}

int hprof_writer_header(struct hprof_writer *w, const char *format, unsigned id_size, uint64_t time_ms)
{
	uint8_t t[12];
	int e = hprof_sink_write(w->sink, format, strlen(format) + 1);

	hprof_put_u4(t, id_size);
	hprof_put_u4(t + 4, (uint32_t)(time_ms >> 32));
	hprof_put_u4(t + 8, (uint32_t)time_ms);
	return e ? e : hprof_sink_write(w->sink, t, 12);
}

void hprof_writer_heap_begin(struct hprof_writer *w, uint8_t tag)
{
	w->in_tag = tag;
	w->split = 0;
}

/* Writes the buffered sub-records as one record: the input's HEAP_DUMP when
 * they are all of it (at_end, nothing written before), else a segment. */
static int flush_segment(struct hprof_writer *w, int at_end)
{
	int whole = at_end && !w->split && w->in_tag == HPROF_HEAP_DUMP;
	int e;

	if (!w->seg_len)
		return 0;
	e = put_record_head(w, whole ? HPROF_HEAP_DUMP : HPROF_HEAP_DUMP_SEGMENT, w->seg_time, (uint32_t)w->seg_len);
	if (!e)
		e = hprof_sink_write(w->sink, w->seg, w->seg_len);
	w->seg_len = 0;
	w->split = !at_end;
	if (!whole)
		w->need_end = 1;
	return e;
}

int hprof_writer_heap_flush(struct hprof_writer *w)
{
	return flush_segment(w, 1);
}

int hprof_writer_record(struct hprof_writer *w, uint8_t tag, uint32_t time, uint32_t len)
{
	int e = flush_segment(w, 1);

	return e ? e : put_record_head(w, tag, time, len);
}

int hprof_writer_body(struct hprof_writer *w, const void *p, size_t n)
{
	return hprof_sink_write(w->sink, p, n);
}

int hprof_writer_sub_begin(struct hprof_writer *w, uint32_t time, uint64_t total_len)
{
	int e;

	if (total_len > UINT32_MAX)
		return -EFBIG;
	if (w->seg_len && (w->seg_len + total_len > w->seg_cap || time != w->seg_time))
		if ((e = flush_segment(w, 0)))
			return e;
	w->seg_time = time;
	if (total_len > w->seg_cap) {
		/* too big to buffer: a segment of its own, streamed */
		w->direct_left = total_len;
		w->need_end = 1;
		w->split = 1;
		return put_record_head(w, HPROF_HEAP_DUMP_SEGMENT, time, (uint32_t)total_len);
	}
	return 0;
}

int hprof_writer_sub_bytes(struct hprof_writer *w, const void *p, size_t n)
{
	if (w->direct_left) {
		if (n > w->direct_left)
			return -EINVAL;
		w->direct_left -= n;
		return hprof_sink_write(w->sink, p, n);
	}
	if (w->seg_len + n > w->seg_cap)
		return -EINVAL; /* more than announced in sub_begin */
	if (w->seg_len + n > w->seg_alloc &&
	    vec_reserve((void **)&w->seg, &w->seg_alloc, w->seg_len + n, 1))
		return -ENOMEM;
	memcpy(w->seg + w->seg_len, p, n);
	w->seg_len += n;
	return 0;
}

int hprof_writer_heap_end(struct hprof_writer *w, uint32_t time)
{
	int e = hprof_writer_heap_flush(w);

	w->need_end = 0;
	return e ? e : put_record_head(w, HPROF_HEAP_DUMP_END, time, 0);
}

int hprof_writer_finish(struct hprof_writer *w)
{
	int e = hprof_writer_heap_flush(w);

	if (!e && w->need_end)
		e = hprof_writer_heap_end(w, 0);
	return e;
}
