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

#include "util/u64map.h"
#include "util/vec.h"
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
	if (vec_reserve((void **)&b->p, &b->cap, b->len + n, 1)) {
		b->err = -ENOMEM;
		return;
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
	if (vec_reserve((void **)&t->s, &t->cap, t->n + 1, sizeof(*t->s)))
		return 0;
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


/* What a profile is built from: its locations, functions, mappings and
 * strings, each frame address once. */
struct profile {
	struct loc *locs;
	struct fn *fns;
	struct map *maps;
	size_t nl, nf, nm;
	struct strtab st;
	struct u64map loc_of; /* address + 1 -> location id */
};

/* Location, function and mapping of one frame. 0 or -ENOMEM. */
static int add_frame(struct profile *p, const struct run_frame *f)
{
	uint64_t addr = f->addr;
	const char *mod = f->module, *sym = f->symbol, *dem = f->demangled;
	char fallback[512];
	int64_t name, sys, file, bid;
	uint32_t id;
	size_t j;

	if (u64map_get(&p->loc_of, addr + 1, &id))
		return 0;
	if (u64map_put(&p->loc_of, addr + 1, (uint32_t)p->nl + 1))
		return -ENOMEM;
	if (!(p->nl % 256)) {
		void *a = realloc(p->locs, (p->nl + 256) * sizeof(*p->locs)),
		     *b = realloc(p->fns, (p->nl + 256) * sizeof(*p->fns)),
		     *c = realloc(p->maps, (p->nl + 256) * sizeof(*p->maps));

		p->locs = a ? a : p->locs;
		p->fns = b ? b : p->fns;
		p->maps = c ? c : p->maps;
		if (!a || !b || !c)
			return -ENOMEM;
	}
	snprintf(fallback, sizeof(fallback), "%s+0x%llx", mod ? (strrchr(mod, '/') ? strrchr(mod, '/') + 1 : mod) : "?",
		 (unsigned long long)f->offset);
	name = intern(&p->st, dem ? dem : sym ? sym : fallback);
	sys = intern(&p->st, sym ? sym : fallback);
	file = intern(&p->st, mod);
	for (j = 0; j < p->nf && !(p->fns[j].name == name && p->fns[j].filename == file); j++)
		;
	if (j == p->nf)
		p->fns[p->nf++] = (struct fn){name, sys, file};
	p->locs[p->nl].function = j + 1;
	bid = intern(&p->st, f->build_id);
	for (j = 0; j < p->nm && p->maps[j].filename != file; j++)
		;
	if (j == p->nm)
		p->maps[p->nm++] = (struct map){file, bid, f->base};
	p->locs[p->nl].mapping = mod ? j + 1 : 0;
	p->locs[p->nl++].addr = addr;
	return 0;
}

/* One sample of a profile: its stack (innermost first), its two values and
 * a label (who made them). */
struct pprof_sample {
	const struct run_frames *frames;
	uint64_t v0, v1;
	const char *label;
};

/* The samples, leaf first, each labelled. */
static void encode_samples(struct profile *p, const struct pprof_sample *smp, size_t n, const char *label_key,
			   struct buf *out, struct buf *msg, struct buf *sub, struct buf *packed)
{
	for (size_t g = 0; g < n; g++) {
		/* location ids, leaf first (frames are innermost first) */
		for (size_t k = 0; k < smp[g].frames->n; k++) {
			uint32_t id;

			if (u64map_get(&p->loc_of, smp[g].frames->v[k].addr + 1, &id))
				varint(packed, id);
		}
		if (packed->len)
			field_bytes(msg, 1, packed->p, packed->len);
		packed->len = 0;
		varint(packed, smp[g].v0);
		varint(packed, smp[g].v1);
		field_bytes(msg, 2, packed->p, packed->len);
		packed->len = 0;
		field_int(sub, 1, (uint64_t)intern(&p->st, label_key));
		field_int(sub, 2, (uint64_t)intern(&p->st, smp[g].label ? smp[g].label : "?"));
		field_msg(msg, 3, sub);
		field_msg(out, 2, msg);
	}
}

/* The mappings, locations, functions and string table. */
static void encode_tables(struct profile *p, struct buf *out, struct buf *msg, struct buf *sub)
{
	for (size_t i = 0; i < p->nm; i++) {
		field_int(msg, 1, i + 1);
		field_int(msg, 2, p->maps[i].base);
		field_int(msg, 5, (uint64_t)p->maps[i].filename);
		field_int(msg, 6, (uint64_t)p->maps[i].build_id);
		varint(msg, 7 << 3); /* has_functions */
		varint(msg, 1);
		field_msg(out, 3, msg);
	}
	for (size_t i = 0; i < p->nl; i++) {
		field_int(msg, 1, i + 1);
		field_int(msg, 2, p->locs[i].mapping);
		field_int(msg, 3, p->locs[i].addr);
		field_int(sub, 1, p->locs[i].function);
		field_msg(msg, 4, sub);
		field_msg(out, 4, msg);
	}
	for (size_t i = 0; i < p->nf; i++) {
		field_int(msg, 1, i + 1);
		field_int(msg, 2, (uint64_t)p->fns[i].name);
		field_int(msg, 3, (uint64_t)p->fns[i].system_name);
		field_int(msg, 4, (uint64_t)p->fns[i].filename);
		field_msg(out, 5, msg);
	}
}

/* The profile's bytes through gzip into fd. 0 or -errno. */
static int gzip_write(int fd, const struct buf *out)
{
	z_stream z;
	uint8_t chunk[65536];
	int r, e = 0;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = out->p;
	z.avail_in = (uInt)out->len;
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
	return e ? e : r != Z_STREAM_END ? -EIO : 0;
}

/* A profile of samples with two values (v0_type/v0_unit, v1_type/v1_unit;
 * v1 the default), gzipped to fd. 0 or -errno. */
static int write_profile(const struct pprof_sample *smp, size_t n, const char *v0_type, const char *v0_unit,
			 const char *v1_type, const char *v1_unit, const char *label_key, double duration_s, int fd)
{
	struct profile p = {0};
	struct buf out = {0}, msg = {0}, sub = {0}, packed = {0};
	int e = 0;

	if (u64map_init(&p.loc_of, 1024))
		return -ENOMEM;
	intern(&p.st, "");
	/* 1. locations, functions, mappings from every frame */
	for (size_t g = 0; g < n && !e; g++)
		for (size_t k = 0; k < smp[g].frames->n && !e; k++)
			e = add_frame(&p, &smp[g].frames->v[k]);
	if (e)
		goto out;
	/* 2. the profile: sample types, samples, tables, then its figures */
	field_int(&sub, 1, (uint64_t)intern(&p.st, v0_type));
	field_int(&sub, 2, (uint64_t)intern(&p.st, v0_unit));
	field_msg(&out, 1, &sub);
	field_int(&sub, 1, (uint64_t)intern(&p.st, v1_type));
	field_int(&sub, 2, (uint64_t)intern(&p.st, v1_unit));
	field_msg(&out, 1, &sub);
	encode_samples(&p, smp, n, label_key, &out, &msg, &sub, &packed);
	encode_tables(&p, &out, &msg, &sub);
	for (size_t i = 0; i < p.st.n; i++)
		field_bytes(&out, 6, p.st.s[i], strlen(p.st.s[i]));
	field_int(&out, 10, (uint64_t)(duration_s * 1e9));                    /* duration_nanos */
	field_int(&sub, 1, (uint64_t)intern(&p.st, v1_type));
	field_int(&sub, 2, (uint64_t)intern(&p.st, v1_unit));
	field_msg(&out, 11, &sub);                                              /* period_type */
	field_int(&out, 12, 1);                                                 /* period */
	field_int(&out, 14, (uint64_t)intern(&p.st, v1_type));                  /* default_sample_type */
	/* 3. gzip it */
	e = out.err || msg.err || sub.err || packed.err ? -ENOMEM : gzip_write(fd, &out);
out:
	u64map_free(&p.loc_of);
	for (size_t i = 0; i < p.st.n; i++)
		free(p.st.s[i]);
	free(p.st.s);
	free(p.locs);
	free(p.fns);
	free(p.maps);
	free(out.p);
	free(msg.p);
	free(sub.p);
	free(packed.p);
	return e;
}

int ooms_report_pprof(const struct rundata *rd, int fd)
{
	const struct run_allocs *al = &rd->allocs;
	struct pprof_sample *smp;
	int e;

	if (!rd->have_allocs)
		return -ENOENT;
	if (!(smp = calloc(al->ngroups + 1, sizeof(*smp))))
		return -ENOMEM;
	for (size_t g = 0; g < al->ngroups; g++)
		smp[g] = (struct pprof_sample){&al->groups[g].frames, al->groups[g].count, al->groups[g].total_bytes,
					       al->groups[g].allocated_by};
	e = write_profile(smp, al->ngroups, "allocations", "count", "space", "bytes", "allocated_by",
			  rd->ended ? rd->end_t : 0, fd);
	free(smp);
	return e;
}

int ooms_report_pprof_memory(const struct rundata *rd, int fd)
{
	const struct run_memory *m = &rd->memory;
	struct pprof_sample *smp;
	struct run_frames *fr;
	int e = 0;

	if (!rd->have_memory || !m->ngroups)
		return -ENOENT;
	smp = calloc(m->ngroups, sizeof(*smp));
	fr = calloc(m->ngroups, sizeof(*fr));
	for (size_t g = 0; smp && fr && g < m->ngroups && !e; g++) {
		e = run_frames_read(m->groups[g].obj, &fr[g]);
		smp[g] = (struct pprof_sample){&fr[g], m->groups[g].samples, (uint64_t)m->groups[g].bytes,
					       m->groups[g].created_by};
	}
	if (!smp || !fr)
		e = -ENOMEM;
	if (!e)
		e = write_profile(smp, m->ngroups, "faults_sampled", "count", "memory_grown", "bytes", "touched_by",
				  rd->ended ? rd->end_t : 0, fd);
	for (size_t g = 0; fr && g < m->ngroups; g++)
		run_frames_free(&fr[g]);
	free(fr);
	free(smp);
	return e;
}
