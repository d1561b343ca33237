#include "hprof/matrix.h"
#include "util/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hprof/io.h"
#include "hprof/parser.h"

#define MIN_HASHED 1024 /* byte arrays this large get a content hash (Bitmap buffers) */

struct holder {          /* a class whose instances point at arrays to keep */
	uint64_t name_sid[4]; /* string ids of the class name (dotted and slashed both occur) */
	uint64_t field_sid[4]; /* string ids of the field's name (a dump may hold one text twice: ahat's RI) */
	uint64_t class_id;
	long field_off;      /* offset of the field in instance data, -1 unknown */
};

struct hashed { uint64_t id, hash; };

struct scan {
	unsigned id_size;
	struct holder h[2];  /* 0: String.value, 1: Bitmap.mBuffer */
	uint8_t rec_body[128];
	size_t rec_len;
	uint8_t rec_tag;
	int cur;             /* holder of the current instance, or -1 */
	uint8_t inst[64];
	size_t inst_len;
	uint64_t arr_id, arr_hash;
	int hashing;
	struct hprof_idset *keep;
	struct hprof_idset bitmap_bufs;
	struct hashed *hashes;
	size_t nhashes, caphashes;
	int err;
	int early;           /* an instance of a holder came before its class dump */
};

static const char *const names[2][2] = {{"java.lang.String", "value"}, {"android.graphics.Bitmap", "mBuffer"}};

/* Class names are dotted on Android and slashed in HotSpot's LOAD_CLASS
 * records: compare with '/' read as '.'. */
static int same_name(const uint8_t *p, size_t len, const char *name)
{
	if (strlen(name) != len)
		return 0;
	for (size_t i = 0; i < len; i++)
		if ((p[i] == '/' ? '.' : p[i]) != (uint8_t)name[i])
			return 0;
	return 1;
}

static int sc_header(void *ctx, const struct hprof_header *h)
{
	((struct scan *)ctx)->id_size = h->id_size;
	return 0;
}

static int sc_rec_begin(void *ctx, const struct hprof_record *r)
{
	struct scan *s = ctx;

	s->rec_tag = r->tag;
	s->rec_len = 0;
	return 0;
}

static int sc_rec_data(void *ctx, const uint8_t *p, size_t n)
{
	struct scan *s = ctx;
	size_t k = sizeof(s->rec_body) - s->rec_len;

	if (s->rec_tag != HPROF_STRING && s->rec_tag != HPROF_LOAD_CLASS)
		return 0;
	if (k > n)
		k = n;
	memcpy(s->rec_body + s->rec_len, p, k);
	s->rec_len += k;
	return 0;
}

static int sc_rec_end(void *ctx, const struct hprof_record *r)
{
	struct scan *s = ctx;
	unsigned id = s->id_size;

	if (r->tag == HPROF_STRING && r->len >= id && r->len <= sizeof(s->rec_body)) {
		size_t len = r->len - id;

		for (int i = 0; i < 2; i++)
			for (int f = 0; f < 2; f++)
				if (same_name(s->rec_body + id, len, names[i][f])) {
					if (f) {
						for (int k = 0; k < 4; k++)
							if (!s->h[i].field_sid[k]) {
								s->h[i].field_sid[k] = hprof_id(s->rec_body, id);
								break;
							}
					} else {
						for (int k = 0; k < 4; k++)
							if (!s->h[i].name_sid[k]) {
								s->h[i].name_sid[k] = hprof_id(s->rec_body, id);
								break;
							}
					}
				}
	} else if (r->tag == HPROF_LOAD_CLASS && s->rec_len >= 8 + 2 * id) {
		uint64_t class_id = hprof_id(s->rec_body + 4, id), name = hprof_id(s->rec_body + 8 + id, id);

		for (int i = 0; i < 2; i++)
			for (int k = 0; k < 4 && s->h[i].name_sid[k]; k++)
				if (name == s->h[i].name_sid[k])
					s->h[i].class_id = class_id;
	}
	return 0;
}

/* Offset of the holder's field in its own instance fields (first in the data). */
static void class_layout(struct scan *s, struct holder *h, const struct hprof_sub *sub)
{
	const uint8_t *b = sub->head;
	unsigned id = s->id_size;
	size_t o = 1 + id + 4 + 6 * id + 4, cnt;
	long off = 0;

	cnt = hprof_u2(b + o);
	o += 2;
	for (size_t i = 0; i < cnt; i++)
		o += 3 + hprof_type_size(b[o + 2], id);
	cnt = hprof_u2(b + o);
	o += 2;
	for (size_t i = 0; i < cnt; i++)
		o += id + 1 + hprof_type_size(b[o + id], id);
	cnt = hprof_u2(b + o);
	o += 2;
	for (size_t i = 0; i < cnt; i++, o += id + 1) {
		uint64_t name = hprof_id(b + o, id);
		int is_field = 0;

		for (int k = 0; k < 4 && h->field_sid[k]; k++)
			is_field |= name == h->field_sid[k];
		if (is_field && b[o + id] == HPROF_T_OBJECT) {
			h->field_off = off;
			return;
		}
		off += hprof_type_size(b[o + id], id);
	}
}

static int sc_sub_begin(void *ctx, const struct hprof_sub *sub)
{
	struct scan *s = ctx;

	s->cur = -1;
	s->hashing = 0;
	if (sub->tag == HPROF_CLASS_DUMP) {
		for (int i = 0; i < 2; i++)
			if (s->h[i].class_id && sub->id == s->h[i].class_id)
				class_layout(s, &s->h[i], sub);
	} else if (sub->tag == HPROF_INSTANCE_DUMP) {
		for (int i = 0; i < 2; i++) {
			if (!s->h[i].class_id || sub->class_id != s->h[i].class_id)
				continue;
			if (s->h[i].field_off < 0)
				s->early = 1; /* its class dump comes later (ahat's RI): a second pass */
			else if ((size_t)s->h[i].field_off + s->id_size <= sizeof(s->inst))
				s->cur = i;
		}
		s->inst_len = 0;
	} else if (sub->tag == HPROF_PRIM_ARRAY_DUMP && sub->elem_type == HPROF_T_BYTE &&
		   sub->count >= MIN_HASHED) {
		s->hashing = 1;
		s->arr_id = sub->id;
		s->arr_hash = 0xcbf29ce484222325ull ^ sub->count;
	}
	return 0;
}

static int sc_sub_data(void *ctx, const uint8_t *p, size_t n)
{
	struct scan *s = ctx;

	if (s->cur >= 0) {
		size_t want = (size_t)s->h[s->cur].field_off + s->id_size, k = want > s->inst_len ? want - s->inst_len : 0;

		if (k > n)
			k = n;
		memcpy(s->inst + s->inst_len, p, k);
		s->inst_len += k;
	}
	if (s->hashing) {
		uint64_t h = s->arr_hash;

		/* order-dependent across pieces; pieces split at arbitrary places, so hash bytewise */
		for (size_t i = 0; i < n; i++)
			h = (h ^ p[i]) * 0x100000001b3ull;
		s->arr_hash = h;
	}
	return 0;
}

static int sc_sub_end(void *ctx, const struct hprof_sub *sub)
{
	struct scan *s = ctx;

	(void)sub;
	if (s->cur >= 0 && s->inst_len >= (size_t)s->h[s->cur].field_off + s->id_size) {
		uint64_t ref = hprof_id(s->inst + s->h[s->cur].field_off, s->id_size);

		if (hprof_idset_add(s->cur == 0 ? s->keep : &s->bitmap_bufs, ref))
			s->err = -ENOMEM;
	}
	if (s->hashing) {
		struct hashed *h = VEC_PUSH(s->hashes, s->nhashes, s->caphashes);

		if (!h)
			return -ENOMEM;
		*h = (struct hashed){s->arr_id, s->arr_hash};
	}
	s->cur = -1;
	s->hashing = 0;
	return s->err;
}

static int by_hash_then_id(const void *a, const void *b)
{
	const struct hashed *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* One pass of the scan over src. 0, or 1 with the error said on err. */
static int scan_file(const struct hprof_visitor *v, struct hprof_source *src, uint8_t *buf, const char *name,
		     FILE *err)
{
	struct hprof_parser *p = hprof_parser_new(v);
	long n = 0;
	int e = 0;

	while (p && (n = hprof_source_read(src, buf, 1u << 20)) > 0 && !(e = hprof_parser_feed(p, buf, (size_t)n)))
		;
	if (!p || n < 0 || e || hprof_parser_finish(p)) {
		fprintf(err, "oomscope: hprof strip: %s: %s\n", name,
			!p ? "out of memory" : n < 0 ? strerror((int)-n) : hprof_parser_error(p));
		e = 1;
	}
	hprof_parser_free(p);
	return e;
}

int hprof_matrix_scan(int fd, const char *name, struct hprof_idset *keep, FILE *err)
{
	struct scan s;
	struct hprof_visitor v = {0};
	struct hprof_source src;
	uint8_t *buf = malloc(1u << 20);
	int e = 0;

	memset(&s, 0, sizeof(s));
	s.h[0].field_off = s.h[1].field_off = -1;
	s.keep = keep;
	if (!buf || hprof_idset_init(keep) || hprof_idset_init(&s.bitmap_bufs) || hprof_source_open(&src, fd)) {
		fprintf(err, "oomscope: hprof strip: out of memory\n");
		free(buf);
		return 1;
	}
	v.ctx = &s;
	v.header = sc_header;
	v.record_begin = sc_rec_begin;
	v.record_data = sc_rec_data;
	v.record_end = sc_rec_end;
	v.sub_begin = sc_sub_begin;
	v.sub_data = sc_sub_data;
	v.sub_end = sc_sub_end;
	e = scan_file(&v, &src, buf, name, err);
	if (!e && s.early) {
		/* the holders' layouts are known now: read it again for their instances */
		hprof_source_free(&src);
		s.early = 0;
		s.nhashes = 0;
		for (int i = 0; i < 2; i++)
			memset(s.h[i].name_sid, 0, sizeof(s.h[i].name_sid)), memset(s.h[i].field_sid, 0, sizeof(s.h[i].field_sid));
		if (lseek(fd, 0, SEEK_SET) != 0 || hprof_source_open(&src, fd)) {
			fprintf(err, "oomscope: hprof strip: %s: cannot read it a second time\n", name);
			free(buf);
			hprof_idset_free(&s.bitmap_bufs);
			free(s.hashes);
			hprof_idset_free(keep);
			return 1;
		}
		e = scan_file(&v, &src, buf, name, err);
	}
	/* Bitmap buffers: keep the first of each distinct content */
	vec_sort(s.hashes, s.nhashes, sizeof(*s.hashes), by_hash_then_id);
	{
		int kept_any = 0;
		uint64_t kept_hash = 0;

		for (size_t i = 0; !e && i < s.nhashes; i++) {
			if (!hprof_idset_has(&s.bitmap_bufs, s.hashes[i].id))
				continue;
			if (kept_any && s.hashes[i].hash == kept_hash)
				continue; /* a copy of a buffer already kept */
			kept_any = 1;
			kept_hash = s.hashes[i].hash;
			if (hprof_idset_add(keep, s.hashes[i].id))
				e = 1;
		}
	}
	hprof_source_free(&src);
	hprof_idset_free(&s.bitmap_bufs);
	free(s.hashes);
	free(buf);
	if (e)
		hprof_idset_free(keep);
	return e ? 1 : 0;
}
