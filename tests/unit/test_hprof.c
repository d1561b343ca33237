/* The hprof library on synthetic dumps (every record and sub-record kind, id
 * sizes 4 and 8, JVM and Android headers) and on the corpus files given as
 * arguments: chunk-size independence, damaged input, strip and restore. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "hprof/parser.h"
#include "hprof/stats.h"
#include "hprof/transform.h"
#include "hprof/writer.h"
#include "tap.h"

#include "../tools/synth_hprof.h"

/* ---- a visitor that digests everything it sees ---- */

struct digest { uint64_t h; uint64_t events; };

static void mix(struct digest *d, uint64_t v)
{
	d->h = (d->h ^ v) * 0x100000001b3ull;
	d->h ^= d->h >> 31;
	d->events++;
}
static void mix_bytes(struct digest *d, const uint8_t *p, size_t n)
{
	/* piecewise-independent: bytes one by one */
	for (size_t i = 0; i < n; i++)
		d->h = (d->h ^ p[i]) * 0x100000001b3ull;
}
static int dg_header(void *c, const struct hprof_header *h) { mix(c, h->id_size); mix(c, h->time_ms); return 0; }
static int dg_rb(void *c, const struct hprof_record *r) { mix(c, r->tag); mix(c, r->len); mix(c, r->offset); return 0; }
static int dg_rd(void *c, const uint8_t *p, size_t n) { mix_bytes(c, p, n); return 0; }
static int dg_re(void *c, const struct hprof_record *r) { mix(c, 0xE0 + r->tag); return 0; }
static int dg_sb(void *c, const struct hprof_sub *s)
{
	mix(c, s->tag); mix(c, s->offset); mix(c, s->id); mix(c, s->class_id); mix(c, s->count);
	mix(c, s->payload_len); mix_bytes(c, s->head, s->head_len);
	return 0;
}
static int dg_sd(void *c, const uint8_t *p, size_t n) { mix_bytes(c, p, n); return 0; }
static int dg_se(void *c, const struct hprof_sub *s) { mix(c, 0xF00 + s->tag); return 0; }

/* Parses data in chunks from the sizes generator; returns the error or 0. */
static int parse_chunked(const uint8_t *data, size_t len, unsigned chunk, unsigned seed, struct digest *d,
			 char *err, size_t errlen)
{
	struct hprof_visitor v = {d, dg_header, dg_rb, dg_rd, dg_re, dg_sb, dg_sd, dg_se};
	struct hprof_parser *p = hprof_parser_new(&v);
	size_t off = 0;
	int e = 0;

	d->h = 0xcbf29ce484222325ull;
	d->events = 0;
	srand(seed);
	while (!e && off < len) {
		size_t k = chunk ? chunk : 1 + (size_t)(rand() % 70000);

		if (k > len - off)
			k = len - off;
		e = hprof_parser_feed(p, data + off, k);
		off += k;
	}
	if (!e)
		e = hprof_parser_finish(p);
	if (err)
		snprintf(err, errlen, "%s", e ? hprof_parser_error(p) : "");
	hprof_parser_free(p);
	return e;
}

/* ---- transforms into memory ---- */

/* 1: the strip keeps no small char/byte arrays either (--no-strings) */
static int no_text;

static struct buf transform(const struct buf *in, enum hprof_op op, int *rc)
{
	char path[] = "/tmp/ooms-hprof-XXXXXX";
	int fd = mkstemp(path);
	struct hprof_sink sink;
	struct hprof_writer w;
	struct hprof_transform t;
	struct hprof_visitor v;
	struct hprof_parser *p;
	struct buf out = {0};
	struct stat st;

	unlink(path);
	hprof_sink_open(&sink, fd, HPROF_PLAIN, 0);
	hprof_writer_init(&w, &sink, 1 << 12); /* small segments: exercise splitting */
	hprof_transform_visitor(&t, op, &w, NULL, &v);
	if (no_text)
		t.text_bytes = 0;
	p = hprof_parser_new(&v);
	*rc = hprof_parser_feed(p, in->p, in->len);
	if (!*rc)
		*rc = hprof_parser_finish(p);
	if (!*rc)
		*rc = hprof_writer_finish(&w);
	if (!*rc)
		*rc = hprof_sink_finish(&sink);
	hprof_parser_free(p);
	hprof_writer_free(&w);
	hprof_sink_free(&sink);
	fstat(fd, &st);
	out.len = out.cap = st.st_size;
	out.p = malloc(out.len + 1);
	if (pread(fd, out.p, out.len, 0) != (ssize_t)out.len)
		out.len = 0;
	close(fd);
	return out;
}

static void stats_of(const struct buf *b, struct hprof_stats *st)
{
	struct hprof_visitor v;
	struct hprof_parser *p;

	hprof_stats_init(st);
	hprof_stats_visitor(st, &v);
	p = hprof_parser_new(&v);
	hprof_parser_feed(p, b->p, b->len);
	hprof_parser_finish(p);
	hprof_parser_free(p);
}

static void test_synthetic(unsigned id_size, int android)
{
	struct buf d = make_dump(id_size, android), s, r, big;
	struct digest whole, part;
	struct hprof_stats st;
	char err[256], what[64];
	int rc, ok = 1;

	snprintf(what, sizeof(what), "%s id %u", android ? "android 1.0.3" : "jvm 1.0.2", id_size);
	TAP_EQ_INT(parse_chunked(d.p, d.len, 0x7fffffff, 0, &whole, err, sizeof(err)), 0, "%s: parses whole: %s", what, err);
	for (unsigned c = 1; c <= 13; c++) {
		parse_chunked(d.p, d.len, c, 0, &part, NULL, 0);
		ok &= part.h == whole.h && part.events == whole.events;
	}
	for (unsigned seed = 1; seed <= 20; seed++) {
		parse_chunked(d.p, d.len, 0, seed, &part, NULL, 0);
		ok &= part.h == whole.h;
	}
	TAP_OK(ok, "%s: chunks of 1..13 bytes and random sizes give the same visitor sequence", what);

	stats_of(&d, &st);
	TAP_EQ_INT(st.subs[HPROF_INSTANCE_DUMP].count, android ? 4 : 3, "%s: instances", what);
	TAP_EQ_INT(st.subs[HPROF_CLASS_DUMP].count, 11, "%s: class dumps", what);
	TAP_EQ_INT(st.subs[HPROF_PRIM_ARRAY_DUMP].count, 8, "%s: a primitive array of each of the 8 types", what);
	TAP_EQ_INT(st.gc_roots, android ? 16 : 9, "%s: roots (and UNREACHABLE)", what);
	TAP_EQ_INT(st.nheaps, android ? 4 : 1, "%s: heaps", what);

	/* every truncation that is not at a record boundary is an error naming the offset */
	ok = 1;
	for (size_t cut = 0; cut < d.len; cut++) {
		rc = parse_chunked(d.p, cut, 0x7fffffff, 0, &part, err, sizeof(err));
		if (rc == 0) {
			/* fine only at a record boundary after the header */
			struct digest dd;
			ok &= cut > 0 && parse_chunked(d.p, cut, 0x7fffffff, 0, &dd, NULL, 0) == 0;
		} else {
			ok &= rc == -EBADMSG && strncmp(err, "offset ", 7) == 0;
		}
	}
	TAP_OK(ok, "%s: truncation at each of %zu offsets: a clean error with the offset, or a whole record prefix", what, d.len);

	/* strip app, restore: identical to the original when it had no NODATA arrays */
	s = transform(&d, HPROF_OP_STRIP_APP, &rc);
	TAP_EQ_INT(rc, 0, "%s: strip app", what);
	stats_of(&s, &st);
	/* the small char[] and byte[] (where Strings keep their text) stay whole */
	TAP_EQ_INT(st.subs[HPROF_PRIM_ARRAY_DUMP].count, 2, "%s: stripped: the char and byte arrays kept whole", what);
	TAP_EQ_INT(st.subs[HPROF_PRIM_ARRAY_NODATA].count, android ? 7 : 6, "%s: stripped: the other arrays kept as NODATA", what);
	{
		struct buf n;

		no_text = 1;
		n = transform(&d, HPROF_OP_STRIP_APP, &rc);
		no_text = 0;
		stats_of(&n, &st);
		TAP_EQ_INT(st.subs[HPROF_PRIM_ARRAY_DUMP].count, 0, "%s: stripped, no strings: no array contents", what);
		TAP_EQ_INT(st.subs[HPROF_PRIM_ARRAY_NODATA].count, android ? 9 : 8, "%s: stripped, no strings: every array as NODATA", what);
		free(n.p);
		stats_of(&s, &st);
	}
	TAP_EQ_INT(st.subs[HPROF_INSTANCE_DUMP].count, android ? 4 : 3, "%s: stripped: every instance kept", what);
	TAP_EQ_STR(st.header.strip_mode, "app", "%s: stripped file is marked", what);
	r = transform(&s, HPROF_OP_RESTORE, &rc);
	TAP_EQ_INT(rc, 0, "%s: restore", what);
	stats_of(&r, &st);
	TAP_EQ_STR(st.header.format, android ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2", "%s: restored header", what);
	TAP_EQ_INT(st.subs[HPROF_PRIM_ARRAY_DUMP].count, android ? 9 : 8, "%s: restored arrays", what);
	TAP_EQ_INT(st.prim_content_original_bytes, st.prim_content_bytes, "%s: restored arrays have their lengths", what);
	if (!android)
		TAP_EQ_INT(r.len, d.len, "%s: restore(strip(x)) has x's length", what);
	free(s.p);
	free(r.p);

	if (android) {
		s = transform(&d, HPROF_OP_STRIP_KOOM, &rc);
		stats_of(&s, &st);
		TAP_EQ_INT(st.subs[HPROF_INSTANCE_DUMP].count, 3, "koom: the image heap's instance is dropped");
		TAP_EQ_INT(st.subs[HPROF_CLASS_DUMP].count, 11, "koom: zygote class dumps stay");
		free(s.p);
	}
	/* stripping a stripped file, restoring a whole one: refused */
	s = transform(&d, HPROF_OP_STRIP_APP, &rc);
	r = transform(&s, HPROF_OP_STRIP_APP, &rc);
	TAP_EQ_INT(rc, -EALREADY, "%s: a stripped file is not stripped again", what);
	free(r.p);
	r = transform(&d, HPROF_OP_RESTORE, &rc);
	TAP_EQ_INT(rc, -EINVAL, "%s: restore refuses a whole dump", what);
	free(r.p);
	free(s.p);

	/* a segment bigger than the writer's buffer streams through in its own segment */
	big = transform(&d, HPROF_OP_STRIP_APP, &rc);
	free(big.p);
	free(d.p);
}

static int expect_error(struct buf *b, const char *needle, const char *what)
{
	struct digest d;
	char err[256];
	int rc = parse_chunked(b->p, b->len, 3, 0, &d, err, sizeof(err));

	TAP_OK(rc == -EBADMSG && strstr(err, needle) && !strncmp(err, "offset ", 7), "%s: \"%s\"", what, err);
	return rc;
}

static size_t find_record(const struct buf *b, unsigned tag, size_t header_len)
{
	for (size_t o = header_len; o + 9 <= b->len;) {
		if (b->p[o] == tag)
			return o;
		o += 9 + hprof_u4(b->p + o + 5);
	}
	return 0;
}

static void test_damage(void)
{
	struct buf d = make_dump(8, 0);
	size_t hl = strlen("JAVA PROFILE 1.0.2") + 13, seg = find_record(&d, HPROF_HEAP_DUMP_SEGMENT, hl);
	struct buf c = {0};

	put(&c, d.p, d.len);
	c.p[hl] = 0x99;
	expect_error(&c, "unknown record tag 0x99", "flipped record tag");
	memcpy(c.p, d.p, d.len);
	c.p[seg + 9] = 0x42;
	expect_error(&c, "unknown heap dump sub-record tag 0x42", "flipped sub-record tag");
	memcpy(c.p, d.p, d.len);
	hprof_put_u4(c.p + hl + 5, 0xfffffff0);
	expect_error(&c, "absurd length", "absurd record length");
	memcpy(c.p, d.p, d.len);
	hprof_put_u4(c.p + seg + 5, 20);
	expect_error(&c, "runs past the end", "sub-record longer than its segment");
	memcpy(c.p, d.p, d.len);
	hprof_put_u4(c.p + hl - 12, 5);
	expect_error(&c, "identifier size 5", "wrong id size");
	memcpy(c.p, d.p, d.len);
	memcpy(c.p, "JAVA PROFILE 9.9", 16);
	expect_error(&c, "unknown header", "unknown format");
	c.len = 0;
	put(&c, "not a heap dump at all, just text without a NUL terminator ......................", 80);
	expect_error(&c, "no hprof header", "not an hprof file");
	free(c.p);
	free(d.p);
}

/* Corpus files: whole vs random chunks. */
static void test_corpus(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	struct digest a, b;
	char err[256];
	uint8_t *m;

	if (fd < 0 || fstat(fd, &st) != 0) {
		TAP_OK(0, "open %s", path);
		return;
	}
	m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	TAP_EQ_INT(parse_chunked(m, st.st_size, 1 << 20, 0, &a, err, sizeof(err)), 0, "%s parses: %s", path, err);
	parse_chunked(m, st.st_size, 0, 42, &b, NULL, 0);
	TAP_OK(a.h == b.h && a.events == b.events, "%s: random chunk sizes, same visitor sequence (%llu events)",
	       path, (unsigned long long)a.events);
	parse_chunked(m, st.st_size, 7, 0, &b, NULL, 0);
	TAP_OK(a.h == b.h, "%s: 7-byte chunks, same visitor sequence", path);
	munmap(m, st.st_size);
	close(fd);
}

int main(int argc, char **argv)
{
	test_synthetic(4, 0);
	test_synthetic(8, 0);
	test_synthetic(4, 1);
	test_synthetic(8, 1);
	test_damage();
	for (int i = 1; i < argc; i++)
		test_corpus(argv[i]);
	return tap_done();
}
