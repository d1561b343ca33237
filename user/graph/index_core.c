/* The heap index's data and its look-ups (index.h), below the passes that
 * fill it (index_pass1.c, index_between.c, index_marks.c, index_ids.c, index_pass2.c) and index.c that
 * drives them: the error and string helpers the passes share, reading a dump
 * or some of its segments, and the answers the analyses ask of a built
 * index. */
#include "graph/index_build.h"
#include "util/hugemem.h"
#include "util/spill.h"
#include "hprof/readahead.h"
#include "util/clock.h"

int ixb_fail(struct build *b, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ooms_err_vset(b->err, e, fmt, ap);
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
		       const struct hprof_visitor *v, void (*before)(void *ctx, uint32_t seg), void *ctx,
		       struct ooms_err *err)
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
	buf = huge_malloc(READ_CHUNK);
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
	if (e && !ooms_err_said(err))
		ooms_err_set(err, e, "%s: %s", path, e == -ENOMEM ? "out of memory" : p ? hprof_parser_error(p) : strerror(-e));
out:
	hprof_parser_free(p);
	free(buf);
	close(fd);
	return e;
}

int ooms_read_dump(const char *path, const struct hprof_visitor *v, ooms_progress_fn progress, void *pctx,
		   int pass, unsigned threads, uint64_t *parsed, struct ooms_err *err)
{
	struct hprof_source src;
	struct hprof_readahead *ra;
	struct hprof_parser *p;
	uint8_t *buf;
	uint64_t total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = 0;
	off_t end;
	long n;

	if (fd < 0)
		return ooms_err_set(err, -errno, "%s: %s", path, strerror(errno));
	end = lseek(fd, 0, SEEK_END);
	total = end > 0 ? (uint64_t)end : 0;
	lseek(fd, 0, SEEK_SET);
	p = hprof_parser_new(v);
	buf = huge_malloc(READ_CHUNK);
	if (!p || !buf || hprof_source_open(&src, fd)) {
		hprof_parser_free(p);
		free(buf);
		close(fd);
		return ooms_err_set(err, -ENOMEM, "out of memory");
	}
	if (threads != 1 && !hprof_readahead_start(&ra, &src, READ_CHUNK)) { /* reading on the second core */
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
	if (n < 0)
		e = ooms_err_set(err, (int)n, "%s: %s", path, n == -EBADMSG ? "corrupt compressed data" : strerror((int)-n));
	else if (e && !ooms_err_said(err))
		ooms_err_set(err, e, "%s: %s", path, hprof_parser_error(p));
	else if (!e && (e = hprof_parser_finish(p)))
		ooms_err_set(err, e, "%s: %s", path, hprof_parser_error(p));
	if (!e && parsed)
		*parsed = hprof_parser_offset(p);
	hprof_source_free(&src);
	hprof_parser_free(p);
	free(buf);
	close(fd);
	return e;
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

	ix->kind2 = huge_calloc(blocks, 16);
	ix->arank = huge_malloc(blocks * sizeof(*ix->arank));
	ix->class_node_class = huge_malloc((nclass + 1) * sizeof(*ix->class_node_class));
	if (ix->nclasses + 12 < UINT16_MAX)
		ix->cls16 = huge_malloc((size_t)n * sizeof(*ix->cls16));
	else
		ix->cls32 = huge_malloc((size_t)n * sizeof(*ix->cls32));
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
	ix->alen = huge_malloc(((size_t)arrays + 1) * sizeof(*ix->alen));
	if (!ix->alen)
		return -ENOMEM;
	arrays = 0;
	for (uint32_t v = 1; v <= ix->main_end && v < n; v++)
		if (kind[v] == NODE_OBJ_ARRAY || kind[v] == NODE_PRIM_ARRAY)
			ix->alen[arrays++] = length[v];
	return 0;
}
