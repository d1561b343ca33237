#include "hprof/parser.h"
#include "util/vec.h"
#include "hprof/quote.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FORMAT 80               /* longest header string accepted */
#define MAX_CLASS_DUMP (64u << 20)  /* u2 counts bound a class dump well below this */
#define MAX_PLAIN_RECORD (1u << 30) /* a non-heap record larger than this is damage */

enum state { ST_HEADER, ST_REC_HEAD, ST_REC_BODY, ST_SUB_TAG, ST_SUB_HEAD, ST_SUB_PAYLOAD, ST_ERROR };

struct hprof_parser {
	struct hprof_visitor v;
	enum state st;
	uint64_t off;                 /* offset of the next input byte */
	struct hprof_header hdr;
	int header_nul;               /* the header string's NUL was seen */
	uint8_t *hold;                /* bytes of a unit that spans chunks */
	size_t hold_len, hold_cap;
	size_t sub_need;              /* head bytes the current sub-record needs (0: class dump) */
	struct hprof_record rec;
	uint64_t rec_left;            /* body bytes of the current record not yet consumed */
	struct hprof_sub sub;
	uint64_t pay_left;
	char err[256];
};

static int fail(struct hprof_parser *p, uint64_t at, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->st == ST_ERROR)
		return code;
	n = snprintf(p->err, sizeof(p->err), "offset %" PRIu64 ": ", at);
	va_start(ap, fmt);
	vsnprintf(p->err + n, sizeof(p->err) - n, fmt, ap);
	va_end(ap);
	p->st = ST_ERROR;
	return code;
}

static int visitor_failed(struct hprof_parser *p, int rc)
{
	if (rc > 0)
		rc = -rc;
	return fail(p, p->off, rc ? rc : -EIO, "stopped: %s", strerror(-rc));
}

struct hprof_parser *hprof_parser_new(const struct hprof_visitor *v)
{
	struct hprof_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (v)
		p->v = *v;
	p->hold_cap = 256;
	p->hold = malloc(p->hold_cap);
	if (!p->hold) {
		free(p);
		return NULL;
	}
	return p;
}

void hprof_parser_free(struct hprof_parser *p)
{
	if (!p)
		return;
	free(p->hold);
	free(p);
}

const char *hprof_parser_error(const struct hprof_parser *p) { return p->err; }
uint64_t hprof_parser_offset(const struct hprof_parser *p) { return p->off; }
const struct hprof_header *hprof_parser_header(const struct hprof_parser *p) { return &p->hdr; }

static int hold_reserve(struct hprof_parser *p, size_t want)
{
	return vec_reserve((void **)&p->hold, &p->hold_cap, want, 1);
}

/* Appends input to hold until it has want bytes; 1 when it has. */
static int fill(struct hprof_parser *p, const uint8_t **buf, size_t *n, size_t want)
{
	size_t k;

	if (p->hold_len >= want)
		return 1;
	if (hold_reserve(p, want))
		return -ENOMEM;
	k = want - p->hold_len;
	if (k > *n)
		k = *n;
	memcpy(p->hold + p->hold_len, *buf, k);
	p->hold_len += k;
	*buf += k;
	*n -= k;
	p->off += k;
	return p->hold_len >= want;
}

/* A unit of want bytes: straight from the input when it is all there (no
 * copy), else gathered in hold. NULL while incomplete (or *err set). */
static const uint8_t *gather(struct hprof_parser *p, const uint8_t **buf, size_t *n, size_t want,
			     int *err)
{
	int r;

	if (p->hold_len == 0 && *n >= want) {
		const uint8_t *u = *buf;

		*buf += want;
		*n -= want;
		p->off += want;
		return u;
	}
	r = fill(p, buf, n, want);
	if (r < 0)
		*err = r;
	if (r != 1)
		return NULL;
	p->hold_len = 0;
	return p->hold;
}

size_t hprof_sub_head_len(unsigned tag, unsigned id)
{
	switch (tag) {
	case HPROF_ROOT_UNKNOWN: case HPROF_ROOT_STICKY_CLASS: case HPROF_ROOT_MONITOR_USED:
	case HPROF_ROOT_INTERNED_STRING: case HPROF_ROOT_FINALIZING: case HPROF_ROOT_DEBUGGER:
	case HPROF_ROOT_REFERENCE_CLEANUP: case HPROF_ROOT_VM_INTERNAL: case HPROF_UNREACHABLE:
		return 1 + id;
	case HPROF_ROOT_JNI_GLOBAL:
		return 1 + 2 * id;
	case HPROF_ROOT_JNI_LOCAL: case HPROF_ROOT_JAVA_FRAME: case HPROF_ROOT_THREAD_OBJECT:
	case HPROF_ROOT_JNI_MONITOR:
		return 1 + id + 8;
	case HPROF_ROOT_NATIVE_STACK: case HPROF_ROOT_THREAD_BLOCK:
		return 1 + id + 4;
	case HPROF_HEAP_DUMP_INFO:
		return 1 + 4 + id;
	case HPROF_INSTANCE_DUMP:
		return 1 + id + 4 + id + 4;
	case HPROF_OBJ_ARRAY_DUMP:
		return 1 + id + 4 + 4 + id;
	case HPROF_PRIM_ARRAY_DUMP: case HPROF_PRIM_ARRAY_NODATA:
		return 1 + id + 4 + 4 + 1;
	}
	return 0;
}

/* Length of a class dump from what is there: 1 and *total when complete,
 * 0 and *total = bytes needed to go on, -1 (with *total = offset) on a bad type. */
static int class_dump_len(const uint8_t *b, size_t have, unsigned id, size_t *total)
{
	size_t o = 1 + id + 4 + 6 * id + 4, cnt;

#define NEED(x) do { if (have < (x)) { *total = (x); return 0; } } while (0)
	NEED(o + 2);
	cnt = hprof_u2(b + o);
	o += 2;
	for (size_t i = 0; i < cnt; i++) {
		unsigned sz;

		NEED(o + 3);
		sz = hprof_type_size(b[o + 2], id);
		if (!sz) {
			*total = o + 2;
			return -1;
		}
		o += 3 + sz;
	}
	NEED(o + 2);
	cnt = hprof_u2(b + o);
	o += 2;
	for (size_t i = 0; i < cnt; i++) {
		unsigned sz;

		NEED(o + id + 1);
		sz = hprof_type_size(b[o + id], id);
		if (!sz) {
			*total = o + id;
			return -1;
		}
		o += id + 1 + sz;
	}
	NEED(o + 2);
	cnt = hprof_u2(b + o);
	o += 2;
	NEED(o + cnt * (id + 1));
	for (size_t i = 0; i < cnt; i++) {
		if (!hprof_type_size(b[o + id], id)) {
			*total = o + id;
			return -1;
		}
		o += id + 1;
	}
#undef NEED
	*total = o;
	return 1;
}

static int is_record_tag(unsigned t)
{
	return hprof_tag_name(t) != NULL;
}

static int parse_header(struct hprof_parser *p, const uint8_t **buf, size_t *n)
{
	struct hprof_header *h = &p->hdr;
	char q[200];
	int r;

	while (!p->header_nul && *n) {
		r = fill(p, buf, n, p->hold_len + 1);
		if (r < 0)
			return r;
		if (p->hold[p->hold_len - 1] == 0)
			p->header_nul = 1;
		else if (p->hold_len == MAX_FORMAT)
			return fail(p, 0, -EBADMSG, "no hprof header (expected \"JAVA PROFILE 1.0.x\" and a NUL)");
	}
	if (!p->header_nul)
		return 0;
	size_t slen = strlen((char *)p->hold);
	if ((r = fill(p, buf, n, slen + 1 + 12)) <= 0)
		return r;
	memcpy(h->format, p->hold, slen + 1);
	if (!strncmp(h->format, HPROF_STRIP_MAGIC, strlen(HPROF_STRIP_MAGIC))) {
		const char *m = h->format + strlen(HPROF_STRIP_MAGIC), *sp = strchr(m, ' ');

		if (!sp || sp - m >= (long)sizeof(h->strip_mode))
			return fail(p, 0, -EBADMSG, "bad oomscope stripped header \"%s\"",
				    hprof_quote(q, sizeof(q), h->format, 80));
		memcpy(h->strip_mode, m, sp - m);
		snprintf(h->orig_format, sizeof(h->orig_format), "%s", sp + 1);
	} else {
		snprintf(h->orig_format, sizeof(h->orig_format), "%s", h->format);
	}
	if (strcmp(h->orig_format, "JAVA PROFILE 1.0.1") && strcmp(h->orig_format, "JAVA PROFILE 1.0.2") &&
	    strcmp(h->orig_format, "JAVA PROFILE 1.0.3"))
		return fail(p, 0, -EBADMSG, "unknown header \"%s\" (expected JAVA PROFILE 1.0.1, 1.0.2 or 1.0.3)",
			    hprof_quote(q, sizeof(q), h->format, 40));
	h->id_size = hprof_u4(p->hold + slen + 1);
	if (h->id_size != 4 && h->id_size != 8)
		return fail(p, slen + 1, -EBADMSG, "identifier size %u (expected 4 or 8)", h->id_size);
	h->time_ms = hprof_u8(p->hold + slen + 5);
	h->len = slen + 13;
	p->hold_len = 0;
	p->st = ST_REC_HEAD;
	if (p->v.header && (r = p->v.header(p->v.ctx, h)))
		return visitor_failed(p, r);
	return 0;
}

static int begin_record(struct hprof_parser *p, const uint8_t *u)
{
	struct hprof_record *rec = &p->rec;
	int r;

	rec->offset = p->off - 9;
	rec->tag = u[0];
	rec->time = hprof_u4(u + 1);
	rec->len = hprof_u4(u + 5);
	if (!is_record_tag(rec->tag))
		return fail(p, rec->offset, -EBADMSG, "unknown record tag 0x%02x (expected a record tag such as "
			    "STRING 0x01 or HEAP_DUMP_SEGMENT 0x1c)", rec->tag);
	if (rec->tag == HPROF_HEAP_DUMP_END && rec->len)
		return fail(p, rec->offset, -EBADMSG, "HEAP_DUMP_END with length %u (expected 0)", rec->len);
	if (rec->tag != HPROF_HEAP_DUMP && rec->tag != HPROF_HEAP_DUMP_SEGMENT && rec->len > MAX_PLAIN_RECORD)
		return fail(p, rec->offset, -EBADMSG, "%s record of absurd length %u", hprof_tag_name(rec->tag),
			    rec->len);
	p->rec_left = rec->len;
	if (p->v.record_begin && (r = p->v.record_begin(p->v.ctx, rec)))
		return visitor_failed(p, r);
	p->st = (rec->tag == HPROF_HEAP_DUMP || rec->tag == HPROF_HEAP_DUMP_SEGMENT) ? ST_SUB_TAG : ST_REC_BODY;
	return 0;
}

static int end_record(struct hprof_parser *p)
{
	int r;

	p->st = ST_REC_HEAD;
	if (p->v.record_end && (r = p->v.record_end(p->v.ctx, &p->rec)))
		return visitor_failed(p, r);
	return 0;
}

/* Decodes a complete sub-record head u (head_len bytes). */
static int begin_sub(struct hprof_parser *p, const uint8_t *u, size_t head_len)
{
	struct hprof_sub *s = &p->sub;
	unsigned id = p->hdr.id_size;
	int r;

	s->tag = u[0];
	s->offset = p->off - head_len;
	s->head = u;
	s->head_len = head_len;
	s->payload_len = 0;
	s->class_id = 0;
	s->count = 0;
	s->elem_type = 0;
	if (s->tag == HPROF_HEAP_DUMP_INFO) {
		s->heap_id = hprof_u4(u + 1);
		s->heap_name_id = hprof_id(u + 5, id);
		s->id = 0;
	} else {
		s->id = hprof_id(u + 1, id);
	}
	switch (s->tag) {
	case HPROF_INSTANCE_DUMP:
		s->class_id = hprof_id(u + 1 + id + 4, id);
		s->count = hprof_u4(u + 1 + 2 * id + 4);
		s->payload_len = s->count;
		break;
	case HPROF_OBJ_ARRAY_DUMP:
		s->count = hprof_u4(u + 1 + id + 4);
		s->class_id = hprof_id(u + 1 + id + 8, id);
		s->payload_len = (uint64_t)s->count * id;
		break;
	case HPROF_PRIM_ARRAY_DUMP:
	case HPROF_PRIM_ARRAY_NODATA: {
		unsigned sz;

		s->count = hprof_u4(u + 1 + id + 4);
		s->elem_type = u[1 + id + 8];
		sz = hprof_type_size(s->elem_type, id);
		if (!sz || s->elem_type == HPROF_T_OBJECT)
			return fail(p, s->offset + 1 + id + 8, -EBADMSG,
				    "primitive array of element type %u (expected 4..11)", s->elem_type);
		if (s->tag == HPROF_PRIM_ARRAY_DUMP)
			s->payload_len = (uint64_t)s->count * sz;
		break;
	}
	}
	if (head_len + s->payload_len > p->rec_left + head_len)
		return fail(p, s->offset, -EBADMSG,
			    "%s of %" PRIu64 " bytes runs past the end of its %s record (%" PRIu64 " bytes left)",
			    hprof_subtag_name(s->tag), head_len + s->payload_len, hprof_tag_name(p->rec.tag),
			    p->rec_left + head_len);
	p->pay_left = s->payload_len;
	if (p->v.sub_begin && (r = p->v.sub_begin(p->v.ctx, s)))
		return visitor_failed(p, r);
	p->st = ST_SUB_PAYLOAD;
	return 0;
}

static int end_sub(struct hprof_parser *p)
{
	int r;

	p->st = ST_SUB_TAG;
	if (p->v.sub_end && (r = p->v.sub_end(p->v.ctx, &p->sub)))
		return visitor_failed(p, r);
	return 0;
}

/* The head of the sub-record whose tag is next: fixed size, or a class dump. */
static int sub_head(struct hprof_parser *p, const uint8_t **buf, size_t *n)
{
	unsigned id = p->hdr.id_size;
	uint64_t before = p->off;
	const uint8_t *u;
	int err = 0;

	if (p->sub_need) {
		u = gather(p, buf, n, p->sub_need, &err);
		p->rec_left -= p->off - before;
		if (!u)
			return err;
		return begin_sub(p, u, p->sub_need);
	}
	/* class dump: its length is implied by its contents */
	for (;;) {
		size_t total;
		int c;

		if (p->hold_len == 0) {
			c = class_dump_len(*buf, *n, id, &total);
			if (c == 1) {
				u = *buf;
				*buf += total;
				*n -= total;
				p->off += total;
				p->rec_left -= total;
				return begin_sub(p, u, total);
			}
		} else {
			c = class_dump_len(p->hold, p->hold_len, id, &total);
			if (c == 1) {
				p->hold_len = 0;
				return begin_sub(p, p->hold, total);
			}
		}
		if (c < 0)
			return fail(p, p->off - p->hold_len + total, -EBADMSG,
				    "CLASS_DUMP field of unknown type (expected a basic type 2, 4..11)");
		if (total > MAX_CLASS_DUMP || total - p->hold_len > p->rec_left)
			return fail(p, p->off - p->hold_len, -EBADMSG,
				    "CLASS_DUMP runs past the end of its %s record", hprof_tag_name(p->rec.tag));
		before = p->off;
		c = fill(p, buf, n, total);
		p->rec_left -= p->off - before;
		if (c < 0)
			return c;
		if (!c)
			return 0; /* more input needed */
	}
}

int hprof_parser_feed(struct hprof_parser *p, const void *data, size_t n)
{
	const uint8_t *buf = data;
	int r = 0, err = 0;

	while (p->st != ST_ERROR && (n || p->st == ST_SUB_TAG || p->st == ST_REC_BODY || p->st == ST_SUB_PAYLOAD)) {
		switch (p->st) {
		case ST_HEADER:
			r = parse_header(p, &buf, &n);
			break;
		case ST_REC_HEAD: {
			const uint8_t *u = gather(p, &buf, &n, 9, &err);

			r = u ? begin_record(p, u) : err;
			break;
		}
		case ST_REC_BODY: {
			size_t k = p->rec_left < n ? (size_t)p->rec_left : n;

			if (p->rec_left == 0) {
				r = end_record(p);
				break;
			}
			if (!k)
				return 0;
			if (p->v.record_data && (r = p->v.record_data(p->v.ctx, buf, k)))
				return visitor_failed(p, r);
			buf += k;
			n -= k;
			p->off += k;
			p->rec_left -= k;
			break;
		}
		case ST_SUB_TAG: {
			unsigned tag;

			if (p->rec_left == 0) {
				r = end_record(p);
				break;
			}
			if (!n)
				return 0;
			tag = buf[0];
			if (tag != HPROF_CLASS_DUMP && !(p->sub_need = hprof_sub_head_len(tag, p->hdr.id_size)))
				return fail(p, p->off, -EBADMSG,
					    "unknown heap dump sub-record tag 0x%02x in %s record at offset %" PRIu64
					    " (expected a sub-record tag such as INSTANCE_DUMP 0x21)",
					    tag, hprof_tag_name(p->rec.tag), p->rec.offset);
			if (tag == HPROF_CLASS_DUMP)
				p->sub_need = 0;
			else if (p->sub_need > p->rec_left)
				return fail(p, p->off, -EBADMSG, "%s runs past the end of its %s record",
					    hprof_subtag_name(tag), hprof_tag_name(p->rec.tag));
			p->st = ST_SUB_HEAD;
			break;
		}
		case ST_SUB_HEAD:
			r = sub_head(p, &buf, &n);
			break;
		case ST_SUB_PAYLOAD: {
			size_t k = p->pay_left < n ? (size_t)p->pay_left : n;

			if (p->pay_left == 0) {
				r = end_sub(p);
				break;
			}
			if (!k)
				return 0;
			if (p->v.sub_data && (r = p->v.sub_data(p->v.ctx, buf, k)))
				return visitor_failed(p, r);
			buf += k;
			n -= k;
			p->off += k;
			p->pay_left -= k;
			p->rec_left -= k;
			break;
		}
		case ST_ERROR:
			break;
		}
		if (r)
			return r;
	}
	return p->st == ST_ERROR ? -EBADMSG : 0;
}

int hprof_parser_finish(struct hprof_parser *p)
{
	switch (p->st) {
	case ST_REC_HEAD:
		if (p->hold_len)
			return fail(p, p->off, -EBADMSG, "truncated: a record header needs %zu more bytes",
				    9 - p->hold_len);
		return 0;
	case ST_HEADER:
		return fail(p, p->off, -EBADMSG, p->off ? "truncated inside the header" : "empty input (no hprof header)");
	case ST_ERROR:
		return -EBADMSG;
	default:
		return fail(p, p->off, -EBADMSG, "truncated: %s record at offset %" PRIu64 " needs %" PRIu64
			    " more bytes", hprof_tag_name(p->rec.tag), p->rec.offset,
			    p->rec_left + (p->st == ST_SUB_HEAD ? 0 : 0));
	}
}
