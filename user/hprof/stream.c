#include "hprof/stream.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SEGMENT_BYTES (4u << 20)

int hprof_strip_stream_open(struct hprof_strip_stream *s, int fd, enum hprof_op op, int codec, int level)
{
	int e;

	memset(s, 0, sizeof(*s));
	if (op != HPROF_OP_STRIP_APP && op != HPROF_OP_STRIP_KOOM)
		return -EINVAL; /* matrix reads its input twice; restore is not a strip */
	if ((e = hprof_sink_open(&s->sink, fd, codec, level)))
		return e;
	if ((e = hprof_writer_init(&s->w, &s->sink, SEGMENT_BYTES))) {
		hprof_sink_free(&s->sink);
		return e;
	}
	hprof_transform_visitor(&s->t, op, &s->w, NULL, &s->v);
	s->p = hprof_parser_new(&s->v);
	if (!s->p) {
		hprof_writer_free(&s->w);
		hprof_sink_free(&s->sink);
		return -ENOMEM;
	}
	return 0;
}

static int fail(struct hprof_strip_stream *s, int e)
{
	if (!s->err) {
		s->err = e ? e : -EIO;
		if (e == -EBADMSG || (s->p && hprof_parser_error(s->p)[0]))
			snprintf(s->msg, sizeof(s->msg), "%s", hprof_parser_error(s->p));
		else if (e == -EALREADY || e == -EINVAL)
			snprintf(s->msg, sizeof(s->msg), "the input is not a whole hprof dump");
		else
			snprintf(s->msg, sizeof(s->msg), "%s", strerror(-s->err));
	}
	return s->err;
}

int hprof_strip_stream_feed(struct hprof_strip_stream *s, const void *buf, size_t n)
{
	int e;

	if (s->err)
		return s->err;
	e = hprof_parser_feed(s->p, buf, n);
	if (!e && s->w.err)
		e = s->w.err;
	return e ? fail(s, e) : 0;
}

int hprof_strip_stream_finish(struct hprof_strip_stream *s)
{
	int e;

	if (s->err)
		return s->err;
	if ((e = hprof_parser_finish(s->p)) || (e = hprof_writer_finish(&s->w)) || (e = hprof_sink_finish(&s->sink)))
		return fail(s, e);
	return 0;
}

void hprof_strip_stream_free(struct hprof_strip_stream *s)
{
	hprof_parser_free(s->p);
	s->p = NULL;
	hprof_writer_free(&s->w);
	hprof_sink_free(&s->sink);
}
