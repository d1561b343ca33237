/* allocs.pb.gz: the large allocations as a pprof profile (profile.proto,
 * gzipped), for `pprof` and speedscope. One sample per allocation stack with
 * two values, [allocations count, bytes]; locations by address with their
 * function (demangled name, ELF name, file) and mapping (file, build-id).
 * The protobuf encoding is written by hand: varints and length-delimited
 * fields are all the profile needs. */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "analyze/u64map.h"
#include "report/report.h"

struct buf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->err)
		return;
	if (b->len + n > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		void *q;

		while (c < b->len + n)
			c *= 2;
		q = realloc(b->p, c);
		if (!q) {
			b->err = -ENOMEM;
			return;
		}
		b->p = q;
		b->cap = c;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void varint(struct buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	put(b, t, n);
}

static void field_int(struct buf *b, unsigned field, uint64_t v)
{
	if (!v)
		return; /* proto3: zero is the default */
	varint(b, (uint64_t)field << 3);
	varint(b, v);
}

static void field_bytes(struct buf *b, unsigned field, const void *p, size_t n)
{
	varint(b, (uint64_t)field << 3 | 2);
	varint(b, n);
	put(b, p, n);
}

static void field_msg(struct buf *b, unsigned field, struct buf *m)
{
	field_bytes(b, field, m->p, m->len);
	if (m->err)
		b->err = m->err;
	m->len = 0;
}

/* ---- tables ---- */

struct strtab {
	char **s;
	size_t n, cap;
};

static int64_t intern(struct strtab *t, const char *s)
{
	if (!s)
		s = "";
	for (size_t i = 0; i < t->n; i++) /* small: a few hundred distinct strings */
		if (!strcmp(t->s[i], s))
			return (int64_t)i;
	if (t->n == t->cap) {
		size_t c = t->cap ? t->cap * 2 : 64;
		char **q = realloc(t->s, c * sizeof(*q));

		if (!q)
			return 0;
		t->s = q;
		t->cap = c;
	}
	t->s[t->n] = strdup(s);
	return t->s[t->n] ? (int64_t)t->n++ : 0;
}

struct loc {
	uint64_t addr, mapping, function;
};

struct fn {
	int64_t name, system_name, filename;
};

struct map {
	int64_t filename, build_id;
	uint64_t base;
};

static uint64_t hexnum(const char *s)
{
	return s ? strtoull(s, NULL, 16) : 0;
}

int ooms_report_pprof(const struct rundata *rd, int fd)
{
	struct json_object *gs = rd_arr(rd->allocs, "groups");
	size_t ng = gs ? json_object_array_length(gs) : 0, nl = 0, nf = 0, nm = 0;
	struct loc *locs = NULL;
	struct fn *fns = NULL;
	struct map *maps = NULL;
	struct strtab st = {0};
	struct u64map loc_of; /* address + 1 -> location id */
	struct buf out = {0}, msg = {0}, sub = {0}, packed = {0};
	int e = 0;

	if (!rd->allocs)
		return -ENOENT;
	if (u64map_init(&loc_of, 1024))
		return -ENOMEM;
	intern(&st, "");
	/* 1. locations, functions, mappings from every frame */
	for (size_t g = 0; g < ng; g++) {
		struct json_object *fr = rd_arr(json_object_array_get_idx(gs, g), "frames");

		for (size_t k = 0; fr && k < json_object_array_length(fr); k++) {
			struct json_object *o = json_object_array_get_idx(fr, k);
			uint64_t addr = hexnum(rd_str(o, "addr"));
			const char *mod = rd_str(o, "module"), *sym = rd_str(o, "symbol"), *dem = rd_str(o, "demangled");
			char fallback[512];
			uint32_t id;

			if (u64map_get(&loc_of, addr + 1, &id))
				continue;
			if (u64map_put(&loc_of, addr + 1, (uint32_t)nl + 1)) {
				e = -ENOMEM;
				goto out;
			}
			if (!(nl % 256)) {
				void *a = realloc(locs, (nl + 256) * sizeof(*locs)), *b = realloc(fns, (nl + 256) * sizeof(*fns)),
				     *c = realloc(maps, (nl + 256) * sizeof(*maps));

				locs = a ? a : locs;
				fns = b ? b : fns;
				maps = c ? c : maps;
				if (!a || !b || !c) {
					e = -ENOMEM;
					goto out;
				}
			}
			snprintf(fallback, sizeof(fallback), "%s+0x%llx", mod ? (strrchr(mod, '/') ? strrchr(mod, '/') + 1 : mod) : "?",
				 (unsigned long long)rd_num(o, "offset", 0));
			{
				int64_t name = intern(&st, dem ? dem : sym ? sym : fallback);
				int64_t sys = intern(&st, sym ? sym : fallback), file = intern(&st, mod);
				size_t j;

				for (j = 0; j < nf && !(fns[j].name == name && fns[j].filename == file); j++)
					;
				if (j == nf)
					fns[nf++] = (struct fn){name, sys, file};
				locs[nl].function = j + 1;
			}
			{
				int64_t file = intern(&st, mod), bid = intern(&st, rd_str(o, "build_id"));
				size_t j;

				for (j = 0; j < nm && maps[j].filename != file; j++)
					;
				if (j == nm)
					maps[nm++] = (struct map){file, bid, hexnum(rd_str(o, "base"))};
				locs[nl].mapping = mod ? j + 1 : 0;
			}
			locs[nl++].addr = addr;
		}
	}
	/* 2. the profile */
	intern(&st, "allocations");
	intern(&st, "count");
	intern(&st, "space");
	intern(&st, "bytes");
	field_int(&sub, 1, (uint64_t)intern(&st, "allocations"));
	field_int(&sub, 2, (uint64_t)intern(&st, "count"));
	field_msg(&out, 1, &sub);
	field_int(&sub, 1, (uint64_t)intern(&st, "space"));
	field_int(&sub, 2, (uint64_t)intern(&st, "bytes"));
	field_msg(&out, 1, &sub);
	for (size_t g = 0; g < ng; g++) {
		struct json_object *grp = json_object_array_get_idx(gs, g), *fr = rd_arr(grp, "frames");

		/* location ids, leaf first (frames are innermost first) */
		for (size_t k = 0; fr && k < json_object_array_length(fr); k++) {
			uint64_t addr = hexnum(rd_str(json_object_array_get_idx(fr, k), "addr"));

			uint32_t id;

			if (u64map_get(&loc_of, addr + 1, &id))
				varint(&packed, id);
		}
		if (packed.len)
			field_bytes(&msg, 1, packed.p, packed.len);
		packed.len = 0;
		varint(&packed, (uint64_t)rd_num(grp, "count", 0));
		varint(&packed, (uint64_t)rd_num(grp, "total_bytes", 0));
		field_bytes(&msg, 2, packed.p, packed.len);
		packed.len = 0;
		/* label: who made them */
		field_int(&sub, 1, (uint64_t)intern(&st, "allocated_by"));
		field_int(&sub, 2, (uint64_t)intern(&st, rd_str(grp, "allocated_by") ? rd_str(grp, "allocated_by") : "?"));
		field_msg(&msg, 3, &sub);
		field_msg(&out, 2, &msg);
	}
	for (size_t i = 0; i < nm; i++) {
		field_int(&msg, 1, i + 1);
		field_int(&msg, 2, maps[i].base);
		field_int(&msg, 5, (uint64_t)maps[i].filename);
		field_int(&msg, 6, (uint64_t)maps[i].build_id);
		varint(&msg, 7 << 3); /* has_functions */
		varint(&msg, 1);
		field_msg(&out, 3, &msg);
	}
	for (size_t i = 0; i < nl; i++) {
		field_int(&msg, 1, i + 1);
		field_int(&msg, 2, locs[i].mapping);
		field_int(&msg, 3, locs[i].addr);
		field_int(&sub, 1, locs[i].function);
		field_msg(&msg, 4, &sub);
		field_msg(&out, 4, &msg);
	}
	for (size_t i = 0; i < nf; i++) {
		field_int(&msg, 1, i + 1);
		field_int(&msg, 2, (uint64_t)fns[i].name);
		field_int(&msg, 3, (uint64_t)fns[i].system_name);
		field_int(&msg, 4, (uint64_t)fns[i].filename);
		field_msg(&out, 5, &msg);
	}
	for (size_t i = 0; i < st.n; i++)
		field_bytes(&out, 6, st.s[i], strlen(st.s[i]));
	field_int(&out, 10, (uint64_t)((rd->ended ? rd->end_t : 0) * 1e9)); /* duration_nanos */
	field_int(&sub, 1, (uint64_t)intern(&st, "space"));
	field_int(&sub, 2, (uint64_t)intern(&st, "bytes"));
	field_msg(&out, 11, &sub);                                              /* period_type */
	field_int(&out, 12, 1);                                                 /* period */
	field_int(&out, 14, (uint64_t)intern(&st, "space"));                    /* default_sample_type */
	if (out.err || msg.err || sub.err || packed.err) {
		e = -ENOMEM;
		goto out;
	}
	/* 3. gzip it */
	{
		z_stream z;
		uint8_t chunk[65536];
		int r;

		memset(&z, 0, sizeof(z));
		if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			e = -ENOMEM;
			goto out;
		}
		z.next_in = out.p;
		z.avail_in = (uInt)out.len;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			r = deflate(&z, Z_FINISH);
			for (size_t w = 0, n = sizeof(chunk) - z.avail_out; w < n && !e;) {
				ssize_t k = write(fd, chunk + w, n - w);

				if (k < 0)
					e = -errno;
				else
					w += (size_t)k;
			}
		} while (r == Z_OK && !e);
		deflateEnd(&z);
		if (!e && r != Z_STREAM_END)
			e = -EIO;
	}
out:
	u64map_free(&loc_of);
	for (size_t i = 0; i < st.n; i++)
		free(st.s[i]);
	free(st.s);
	free(locs);
	free(fns);
	free(maps);
	free(out.p);
	free(msg.p);
	free(sub.p);
	free(packed.p);
	return e;
}
