/* The heap index (index.h): pass 1 collects names, classes, roots and the
 * object table; pass 2, with every class layout known, reads the references.
 * This file drives the passes and answers look-ups. */
#include "analyze/index_build.h"
#include "util/memtrace.h"
#include "util/spill.h"
#include "hprof/readahead.h"
#include "util/clock.h"

int ixb_fail(struct build *b, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
	return e;
}

/* Appends a NUL-terminated string to the arena; its offset, or OOMS_NONE. */
uint32_t ixb_arena_add(struct ooms_index *ix, const char *s, size_t n)
{
	uint32_t at = (uint32_t)ix->arena_len;

	if (ix->arena_len + n + 1 > UINT32_MAX - 1 || vec_reserve((void **)&ix->arena, &ix->arena_cap, ix->arena_len + n + 1, 1))
		return OOMS_NONE;
	memcpy(ix->arena + at, s, n);
	ix->arena[at + n] = 0;
	ix->arena_len += n + 1;
	return at;
}

uint32_t ixb_string_of(const struct ooms_index *ix, uint64_t id)
{
	uint32_t off;

	return u64map_get(&ix->strings, id, &off) ? off : OOMS_NONE;
}

uint32_t ooms_index_string_id(const struct ooms_index *ix, uint64_t id)
{
	return ixb_string_of(ix, id);
}

int ooms_dump_compressed(const char *path)
{
	uint8_t magic[6] = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return -errno;
	if (pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic))
		e = (magic[0] == 0x1f && magic[1] == 0x8b) || !memcmp(magic, "\xfd" "7zXZ", 5);
	close(fd);
	return e;
}

int ooms_read_segments(const struct ooms_index *ix, const char *path, uint32_t from, uint32_t to, const uint8_t *want,
		       const struct hprof_visitor *v, void (*before)(void *ctx, uint32_t seg), void *ctx, char *err,
		       size_t errlen)
{
	uint8_t *buf = NULL, magic[6] = {0};
	struct hprof_parser *p = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = 0;

	if (fd < 0 || !ix->nsegs || pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    (magic[0] == 0x1f && magic[1] == 0x8b) || !memcmp(magic, "\xfd" "7zXZ", 5)) {
		if (fd >= 0)
			close(fd);
		return 1; /* compressed: the offsets are not the file's */
	}
	buf = malloc(READ_CHUNK);
	p = hprof_parser_new(v);
	if (!buf || !p) {
		e = -ENOMEM;
		goto out;
	}
	for (uint64_t off = 0; off < ix->header.len && !e;) { /* the header, as the file has it */
		ssize_t r = pread(fd, buf, ix->header.len - off < READ_CHUNK ? ix->header.len - off : READ_CHUNK, (off_t)off);

		if (r <= 0)
			e = r < 0 ? -errno : -EIO;
		else
			e = hprof_parser_feed(p, buf, (size_t)r), off += (uint64_t)r;
	}
	for (uint32_t i = from; i < to && i < ix->nsegs && !e; i++) {
		const struct ooms_heap_seg *s = &ix->segs[i];

		if (want && !want[i])
			continue;
		if (before)
			before(ctx, i);
		for (uint64_t off = 0; off < s->bytes && !e;) {
			size_t n = s->bytes - off < READ_CHUNK ? (size_t)(s->bytes - off) : READ_CHUNK;
			ssize_t r = pread(fd, buf, n, (off_t)(s->offset + off));

			if (r <= 0)
				e = r < 0 ? -errno : -EIO;
			else
				e = hprof_parser_feed(p, buf, (size_t)r), off += (uint64_t)r;
		}
	}
	if (!e)
		e = hprof_parser_finish(p);
	if (e && !err[0])
		snprintf(err, errlen, "%s: %s", path, e == -ENOMEM ? "out of memory" : p ? hprof_parser_error(p) : strerror(-e));
out:
	hprof_parser_free(p);
	free(buf);
	close(fd);
	return e;
}

int ooms_read_dump(const char *path, const struct hprof_visitor *v, ooms_progress_fn progress, void *pctx,
		   int pass, uint64_t *parsed, char *err, size_t errlen)
{
	struct hprof_source src;
	struct hprof_readahead *ra;
	struct hprof_parser *p;
	uint8_t *buf;
	uint64_t total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = 0;
	off_t end;
	long n;

	if (fd < 0) {
		e = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return e;
	}
	end = lseek(fd, 0, SEEK_END);
	total = end > 0 ? (uint64_t)end : 0;
	lseek(fd, 0, SEEK_SET);
	p = hprof_parser_new(v);
	buf = malloc(READ_CHUNK);
	if (!p || !buf || hprof_source_open(&src, fd)) {
		hprof_parser_free(p);
		free(buf);
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!hprof_readahead_start(&ra, &src, READ_CHUNK)) { /* reading on the second core */
		const uint8_t *chunk;
		uint64_t done;

		while ((n = hprof_readahead_next(ra, &chunk, &done)) > 0) {
			if ((e = hprof_parser_feed(p, chunk, (size_t)n)))
				break;
			if (progress)
				progress(pctx, pass, done, total);
		}
		hprof_readahead_stop(ra);
	} else {
		while ((n = hprof_source_read(&src, buf, READ_CHUNK)) > 0) {
			if ((e = hprof_parser_feed(p, buf, (size_t)n)))
				break;
			if (progress)
				progress(pctx, pass, src.bytes_read, total);
		}
	}
	if (n < 0) {
		e = (int)n;
		snprintf(err, errlen, "%s: %s", path, n == -EBADMSG ? "corrupt compressed data" : strerror((int)-n));
	} else if (e && !err[0]) {
		snprintf(err, errlen, "%s: %s", path, hprof_parser_error(p));
	} else if (!e && (e = hprof_parser_finish(p))) {
		snprintf(err, errlen, "%s: %s", path, hprof_parser_error(p));
	}
	if (!e && parsed)
		*parsed = hprof_parser_offset(p);
	hprof_source_free(&src);
	hprof_parser_free(p);
	free(buf);
	close(fd);
	return e;
}

static int run_pass(struct build *b, const char *path, const struct hprof_visitor *v, ooms_progress_fn progress,
		    void *pctx)
{
	return ooms_read_dump(path, v, progress, pctx, b->pass, &b->ix->file_bytes, b->err, b->errlen);
}

/* After the passes nothing looks objects up by id, and only the reports
 * need a few ids: the ids (4 or 8 bytes a node) go to a file and the
 * look-up table goes, the largest part of the index left. Where no file
 * can be written (a full disk) they stay. The file is written during
 * pass 2 (spill_start), which reads the ids without changing them. */
static void spill_ids(struct ooms_index *ix)
{
	if (spill_finish(&ix->ids_file)) /* begun with pass 2, on the idle core */
		return;
	free(ix->cids);
	free(ix->ids);
	free(ix->sorted_ids);
	free(ix->sorted_nodes);
	free(ix->bucket);
	ix->cids = NULL;
	ix->ids = NULL;
	ix->sorted_ids = NULL;
	ix->sorted_nodes = NULL;
	ix->bucket = NULL;
}

uint64_t ooms_index_id_spilled(const struct ooms_index *ix, uint32_t n)
{
	uint32_t c;
	uint64_t id;

	if (ix->ids_file.width == sizeof(c))
		return spill_read(&ix->ids_file, n, &c) ? 0 : ix->id_base + ((uint64_t)c << ix->id_shift);
	return spill_read(&ix->ids_file, n, &id) ? 0 : id;
}

int ooms_index_load_ids(struct ooms_index *ix)
{
	void *buf;

	if (!ix->ids_file.width)
		return 0;
	if (!(buf = spill_read_all(&ix->ids_file)))
		return -errno;
	if (ix->ids_file.width == sizeof(*ix->cids))
		ix->cids = buf;
	else
		ix->ids = buf;
	spill_close(&ix->ids_file);
	return 0;
}

int ooms_index_build(struct ooms_index *ix, const char *path, const struct ooms_index_opts *o, char *err,
			  size_t errlen)
{
	struct ooms_probe *probes = o->probes;
	size_t nprobes = o->nprobes;
	ooms_progress_fn progress = o->progress;
	void *pctx = o->pctx;
	struct build b = {.ix = ix, .probes = probes, .nprobes = nprobes, .err = err, .errlen = errlen,
			  .ignores = o->ignores, .nignores = o->nignores, .library = o->library, .nlibrary = o->nlibrary, .max_memory = o->max_memory};
	struct hprof_visitor v1 = {.ctx = &b, .header = ixb_p1_header, .record_begin = ixb_rec_begin,
				   .record_data = ixb_rec_data, .record_end = ixb_rec_end, .sub_begin = ixb_p1_sub};
	double t0 = mono_s();
	int e;

	memset(ix, 0, sizeof(*ix));
	err[0] = 0;
	ix->class_class = OOMS_NONE;
	if (u64map_init(&ix->strings, 1024) || u64map_init(&b.load_names, 1024) ||
	    u64map_init(&ix->class_serials, 1024) ||
	    ixb_add_node(&b, 0, NODE_ROOT, 0, 0)) {
		e = ixb_fail(&b, -ENOMEM, "out of memory");
		goto out;
	}
	b.pass = 1;
	if ((e = run_pass(&b, path, &v1, progress, pctx)))
		goto out;
	memtrace("pass1");
	if ((e = ixb_between_passes(&b)))
		goto out;
	ix->seconds_pass1 = mono_s() - t0;
	b.heaps = (struct hprof_heap_count){0, 0};
	b.later_dump = 0;
	t0 = mono_s();
	ix->off = malloc(((size_t)ix->nodes + 1) * sizeof(*ix->off));
	if (!ix->off) {
		e = ixb_fail(&b, -ENOMEM, "out of memory");
		goto out;
	}
	ix->off[0] = 0;
	ix->weak_last = calloc((size_t)ix->nodes / 8 + 1, 1);
	if (!ix->weak_last) {
		e = ixb_fail(&b, -ENOMEM, "out of memory");
		goto out;
	}
	b.pass = 2;
	if (ix->cids)
		spill_start(&ix->ids_file, ix->cids, sizeof(*ix->cids), ix->nodes);
	else
		spill_start(&ix->ids_file, ix->ids, sizeof(*ix->ids), ix->nodes);
	if ((e = ixb_pass2(&b, path, progress, pctx)))
		goto out;
	/* class objects: their static fields, and their loader (VisualVM and
	 * MAT count that edge too) */
	for (uint32_t n = ix->main_end + 1; n < ix->nodes; n++) {
		const struct ooms_class *c = &ix->classes[ooms_class_of_node(ix, n)];

		ix->off[n] = b.nedges;
		for (uint32_t i = 0; i < c->nstatics && !e; i++) {
			uint32_t before = b.nedges;

			e = ixb_add_edge(&b, ix->statics[c->statics_at + i].value);
			if (!e && ix->statics[c->statics_at + i].ignored && b.nedges > before)
				e = ixb_ignore_edge(&b, n, b.tgt[before], ix->statics[c->statics_at + i].ignored);
		}
		if (!e) {
			uint32_t before = b.nedges;

			e = ixb_add_edge(&b, c->loader_id);
			if (!e && b.nedges > before)
				ix->classes[ooms_class_of_node(ix, n)].loader = b.tgt[before];
		}
		if (e)
			goto out;
	}
	/* the references are the index's now */
	ix->off[ix->nodes] = b.nedges;
	ix->tgt = realloc(b.tgt, ((size_t)b.nedges + 1) * sizeof(*ix->tgt)); /* give back the growth slack */
	if (!ix->tgt)
		ix->tgt = b.tgt;
	b.tgt = NULL;
	ix->nedges = b.nedges;
	ix->dangling = b.dangling;
	ix->weak_refs = b.weak_refs;
	for (size_t i = 0; i < b.nmarks && !e; i++)
		e = ixb_ignore_edge(&b, b.marks[i].u, b.marks[i].v, b.marks[i].mark);
	if (e)
		goto out;
	spill_ids(ix);
	ix->seconds_pass2 = mono_s() - t0;
	memtrace("pass2");
out:
	free(b.tgt);
	free(b.marks);
	free(b.cls_ids);
	free(b.kind);
	free(b.heap_of);
	free(b.length);
	free(b.cls);
	free(b.load_keys);
	free(b.rroots);
	free(b.data);
	u64map_free(&b.load_names);
	if (e)
		ooms_index_free(ix);
	return e;
}

void ooms_index_free(struct ooms_index *ix)
{
	spill_close(&ix->ids_file);
	free(ix->ids);
	free(ix->cids);
	free(ix->cls16);
	free(ix->cls32);
	free(ix->kind2);
	free(ix->alen);
	free(ix->arank);
	free(ix->class_node_class);
	free(ix->heap_runs);
	free(ix->off);
	free(ix->tgt);
	free(ix->classes);
	free(ix->fields);
	free(ix->statics);
	free(ix->slots);
	free(ix->cprobes);
	free(ix->roots);
	free(ix->arena);
	free(ix->inst_sizes);
	free(ix->weak_last);
	free(ix->sorted_ids);
	free(ix->sorted_nodes);
	free(ix->bucket);
	u64map_free(&ix->strings);
	u64map_free(&ix->class_serials);
	u64map_free(&ix->ignored);
	free(ix->ignored_from);
	free(ix->root_classes);
	for (uint32_t i = 0; i < ix->nlibrary; i++)
		free(ix->library[i]);
	free(ix->library);
	free(ix->frames);
	free(ix->traces);
	free(ix->trace_frames);
	free(ix->segs);
	memset(ix, 0, sizeof(*ix));
}

void ooms_probes_free(struct ooms_probe *probes, size_t nprobes)
{
	for (size_t i = 0; i < nprobes; i++) {
		free(probes[i].values);
		probes[i].values = NULL;
		probes[i].count = probes[i].cap = 0;
	}
}

uint32_t ooms_index_class_by_name(const struct ooms_index *ix, const char *name)
{
	for (uint32_t i = 0; i < ix->nclasses; i++)
		if (ix->classes[i].name != OOMS_NONE && !strcmp(ix->arena + ix->classes[i].name, name))
			return i;
	return OOMS_NONE;
}

int ooms_index_is_a(const struct ooms_index *ix, uint32_t c, const char *name)
{
	for (int depth = 0; c != OOMS_NONE && depth < 1024; c = ix->classes[c].super, depth++)
		if (ix->classes[c].name != OOMS_NONE && !strcmp(ix->arena + ix->classes[c].name, name))
			return 1;
	return 0;
}

uint8_t ooms_root_mark(const struct ooms_index *ix, uint32_t i)
{
	uint32_t n = ix->roots[i].node, depth = 0;
	uint8_t mark = OOMS_MARK_NONE;

	if (!ix->nroot_classes || ooms_kind(ix, n) != NODE_INSTANCE)
		return OOMS_MARK_NONE;
	for (uint32_t c = ooms_cls(ix, n); c != OOMS_NONE && depth++ < 256; c = ix->classes[c].super)
		for (uint32_t k = 0; k < ix->nroot_classes; k++)
			if (ix->root_classes[k].cls == c) {
				if (ix->root_classes[k].mark == OOMS_MARK_IGNORE)
					return OOMS_MARK_IGNORE; /* --ignore wins */
				if (mark == OOMS_MARK_NONE)
					mark = ix->root_classes[k].mark;
			}
	return mark;
}

int ooms_probe_get(const struct ooms_probe *p, uint32_t n, uint64_t *v)
{
	size_t lo = 0, hi = p->count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->values[mid].node < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == p->count || p->values[lo].node != n)
		return 0;
	*v = p->values[lo].value;
	return 1;
}

/* Nodes of kind 2 or 3 (the arrays) among the first `below` of a block's
 * 64, from its 16 bytes of kinds. */
static inline uint32_t arrays_in_block(const uint8_t *block, uint32_t below)
{
	uint64_t w[2];
	uint32_t count = 0;

	memcpy(w, block, sizeof(w));
	for (int i = 0; i < 2 && below; i++) {
		uint32_t take = below < 32 ? below : 32;
		uint64_t arrays = w[i] >> 1 & 0x5555555555555555ull; /* the high bit of each pair */

		if (take < 32)
			arrays &= (1ull << (2 * take)) - 1;
		count += (uint32_t)__builtin_popcountll(arrays);
		below -= take;
	}
	return count;
}

uint32_t ooms_length(const struct ooms_index *ix, uint32_t n)
{
	enum ooms_node_kind k = ooms_kind(ix, n);

	if (k != NODE_OBJ_ARRAY && k != NODE_PRIM_ARRAY)
		return 0;
	return ix->alen[ix->arank[n / 64] + arrays_in_block(ix->kind2 + n / 64 * 16, n % 64)];
}

enum ooms_heap ooms_heap(const struct ooms_index *ix, uint32_t n)
{
	uint32_t lo = 0, hi = ix->nheap_runs;

	if (n > ix->main_end)
		return (enum ooms_heap)ix->classes[ooms_class_of_node(ix, n)].heap;
	while (hi - lo > 1) { /* the last run starting at or before n */
		uint32_t mid = lo + (hi - lo) / 2;

		if (ix->heap_runs[mid].first <= n)
			lo = mid;
		else
			hi = mid;
	}
	return hi ? (enum ooms_heap)ix->heap_runs[lo].heap : HEAP_DEFAULT;
}

int ooms_index_set_nodes(struct ooms_index *ix, const uint8_t *kind, const uint32_t *cls, const uint32_t *length,
			 const uint8_t *heap)
{
	uint32_t n = ix->nodes, blocks = n / 64 + 1, arrays = 0, nclass = n > ix->main_end ? n - ix->main_end - 1 : 0;
	size_t runs_cap = 0;

	ix->kind2 = calloc(blocks, 16);
	ix->arank = malloc(blocks * sizeof(*ix->arank));
	ix->class_node_class = malloc((nclass + 1) * sizeof(*ix->class_node_class));
	if (ix->nclasses + 12 < UINT16_MAX)
		ix->cls16 = malloc((size_t)n * sizeof(*ix->cls16));
	else
		ix->cls32 = malloc((size_t)n * sizeof(*ix->cls32));
	if (!ix->kind2 || !ix->arank || !ix->class_node_class || (!ix->cls16 && !ix->cls32))
		return -ENOMEM;
	for (uint32_t v = 0; v < n; v++) {
		if (v % 64 == 0)
			ix->arank[v / 64] = arrays;
		if (ix->cls16)
			ix->cls16[v] = cls[v] == OOMS_NONE ? UINT16_MAX : (uint16_t)cls[v];
		else
			ix->cls32[v] = cls[v];
		if (v > ix->main_end) {
			ix->class_node_class[v - ix->main_end - 1] = length[v];
			if (length[v] < ix->nclasses)
				ix->classes[length[v]].heap = heap[v];
			continue;
		}
		ix->kind2[v / 4] |= (uint8_t)((kind[v] & 3) << (v % 4 * 2));
		arrays += kind[v] == NODE_OBJ_ARRAY || kind[v] == NODE_PRIM_ARRAY;
		if (v && (!ix->nheap_runs || ix->heap_runs[ix->nheap_runs - 1].heap != heap[v])) {
			if (vec_reserve((void **)&ix->heap_runs, &runs_cap, ix->nheap_runs + 1, sizeof(*ix->heap_runs)))
				return -ENOMEM;
			ix->heap_runs[ix->nheap_runs].first = v;
			ix->heap_runs[ix->nheap_runs++].heap = heap[v];
		}
	}
	ix->alen = malloc(((size_t)arrays + 1) * sizeof(*ix->alen));
	if (!ix->alen)
		return -ENOMEM;
	arrays = 0;
	for (uint32_t v = 1; v <= ix->main_end && v < n; v++)
		if (kind[v] == NODE_OBJ_ARRAY || kind[v] == NODE_PRIM_ARRAY)
			ix->alen[arrays++] = length[v];
	return 0;
}
