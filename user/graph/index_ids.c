#define _GNU_SOURCE
/* The ids, between the index's passes: class objects after the rest, sorted
 * when not in order already, the look-up from an id to its node
 * (ooms_index_find), and 32-bit ids where they fit. */
#include "graph/index_build.h"
#include "util/hugemem.h"

/* LSD radix sort of (id, node) by id, 16 bits a round, only the rounds the
 * ids' spread needs. */
static int sort_ids(struct build *b)
{
	struct ooms_index *ix = b->ix;
	size_t n = ix->nodes - 1;
	uint64_t *k = huge_malloc(n * sizeof(*k)), *k2 = huge_malloc(n * sizeof(*k2)), lo = UINT64_MAX, hi = 0;
	uint32_t *v = huge_malloc(n * sizeof(*v)), *v2 = huge_malloc(n * sizeof(*v2));
	size_t *cnt = huge_malloc(65537 * sizeof(*cnt));

	if (!k || !k2 || !v || !v2 || !cnt) {
		free(k); free(k2); free(v); free(v2); free(cnt);
		return ixb_fail(b, -ENOMEM, "out of memory sorting %zu ids", n);
	}
	for (size_t i = 0; i < n; i++) {
		k[i] = ooms_index_id(ix, (uint32_t)(i + 1));
		v[i] = (uint32_t)(i + 1);
		if (k[i] < lo)
			lo = k[i];
		if (k[i] > hi)
			hi = k[i];
	}
	for (unsigned shift = 0; shift < 64 && ((hi - lo) >> shift); shift += 16) {
		memset(cnt, 0, 65537 * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(((k[i] - lo) >> shift) & 0xffff) + 1]++;
		for (size_t d = 1; d <= 65536; d++)
			cnt[d] += cnt[d - 1];
		for (size_t i = 0; i < n; i++) {
			size_t at = cnt[((k[i] - lo) >> shift) & 0xffff]++;

			k2[at] = k[i];
			v2[at] = v[i];
		}
		uint64_t *tk = k; k = k2; k2 = tk;
		uint32_t *tv = v; v = v2; v2 = tv;
	}
	free(k2);
	free(v2);
	free(cnt);
	ix->sorted_ids = k;
	ix->sorted_nodes = v;
	return 0;
}

/* id -> node: the sorted ids (ids[] itself when already in order) and a
 * directory of 2^k buckets over their range, so a lookup is a short search. */
/* Class objects go after every other object, in id order: HotSpot writes
 * instances in address order and the class dumps apart, so the rest is then
 * in id order already and the id table itself is the lookup (no copy). */
int ixb_partition_classes(struct build *b)
{
	struct ooms_index *ix = b->ix;
	struct cls_entry { uint64_t id; uint32_t ci; uint8_t heap; } *cl = huge_malloc((ix->nclasses + 1) * sizeof(*cl));
	uint32_t w = 1, nc = 0;

	if (!cl)
		return ixb_fail(b, -ENOMEM, "out of memory");
	for (uint32_t r = 1; r < ix->nodes; r++) {
		if (b->kind[r] == NODE_CLASS) {
			cl[nc].id = ix->ids[r];
			cl[nc].ci = (uint32_t)b->cls_ids[r];
			cl[nc++].heap = b->heap_of[r];
			continue;
		}
		ix->ids[w] = ix->ids[r];
		b->cls_ids[w] = b->cls_ids[r];
		b->kind[w] = b->kind[r];
		b->heap_of[w] = b->heap_of[r];
		b->length[w++] = b->length[r];
	}
	ix->main_end = w - 1;
	/* insertion sort would do for a few thousand; qsort for any count */
	for (uint32_t i = 1; i < nc; i++) {
		struct cls_entry t = cl[i];
		uint32_t j = i;

		if (cl[j - 1].id <= t.id)
			continue;
		while (j > 0 && cl[j - 1].id > t.id) {
			cl[j] = cl[j - 1];
			j--;
		}
		cl[j] = t;
	}
	for (uint32_t i = 0; i < nc; i++, w++) {
		ix->ids[w] = cl[i].id;
		b->cls_ids[w] = cl[i].ci;
		b->kind[w] = NODE_CLASS;
		b->heap_of[w] = cl[i].heap;
		b->length[w] = 0;
		ix->classes[cl[i].ci].node = w;
	}
	free(cl);
	return 0;
}

/* Key i of the searched table: the sorted copy, or the ids of nodes 1..main_end. */
static inline uint64_t lookup_key(const struct ooms_index *ix, uint32_t i)
{
	return ix->sorted_ids ? ix->sorted_ids[i] : ooms_index_id(ix, i + 1);
}

/* id -> node: the objects' ids (in order already, or sorted into a copy)
 * with a directory of 2^k buckets over their range, so a lookup is a short
 * search; class objects are searched apart. */
int ixb_build_lookup(struct build *b)
{
	struct ooms_index *ix = b->ix;
	size_t n = ix->main_end, sorted = 1;
	uint64_t span;
	uint32_t nb = 1;

	for (size_t i = 2; i <= n && sorted; i++)
		sorted = ooms_index_id(ix, (uint32_t)i) > ooms_index_id(ix, (uint32_t)i - 1);
	if (!sorted) {
		int e = sort_ids(b);

		if (e)
			return e;
		n = ix->nodes - 1; /* the sorted copy holds every object */
	}
	ix->lookup_n = (uint32_t)n;
	ix->min_id = n ? lookup_key(ix, 0) : 0;
	span = n ? lookup_key(ix, (uint32_t)n - 1) - ix->min_id : 0;
	while (nb < n / 16 + 1 && nb < (1u << 26))
		nb *= 2;
	ix->bucket_shift = 0;
	while ((span >> ix->bucket_shift) >= nb)
		ix->bucket_shift++;
	ix->nbuckets = nb;
	ix->bucket = huge_malloc(((size_t)nb + 1) * sizeof(*ix->bucket));
	if (!ix->bucket)
		return ixb_fail(b, -ENOMEM, "out of memory");
	for (size_t i = 0, bk = 0; bk <= nb; bk++) {
		while (i < n && ((lookup_key(ix, (uint32_t)i) - ix->min_id) >> ix->bucket_shift) < bk)
			i++;
		ix->bucket[bk] = (uint32_t)i;
	}
	return 0;
}

/* First position in [lo, hi) of the table whose key is >= id. */
static uint32_t search(const struct ooms_index *ix, int classes, uint32_t lo, uint32_t hi, uint64_t id)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((classes ? ooms_index_id(ix, mid) : lookup_key(ix, mid)) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t ooms_index_find(const struct ooms_index *ix, uint64_t id)
{
	uint64_t rel = (id - ix->min_id) >> ix->bucket_shift;
	uint32_t at;

	if (id >= ix->min_id && ix->bucket && rel < ix->nbuckets) {
		at = search(ix, 0, ix->bucket[rel], ix->bucket[rel + 1], id);
		if (at < ix->lookup_n && lookup_key(ix, at) == id)
			return ix->sorted_nodes ? ix->sorted_nodes[at] : at + 1;
	}
	if (ix->sorted_ids || ix->main_end + 1 >= ix->nodes)
		return OOMS_NONE;
	/* the class objects, in id order after the rest */
	at = search(ix, 1, ix->main_end + 1, ix->nodes, id);
	return at < ix->nodes && ooms_index_id(ix, at) == id ? at : OOMS_NONE;
}

/* 32-bit ids when every id is base + k << shift with k < 2^32: objects are
 * 8-byte aligned in HotSpot and ART heaps, so a 32 GB range fits; 4-byte
 * ids always fit. Saves 4 bytes per object. */
int ixb_compact_ids(struct ooms_index *ix)
{
	uint64_t lo = UINT64_MAX, hi = 0, any = 0;
	unsigned shift = 3;

	for (uint32_t n = 1; n < ix->nodes; n++) {
		uint64_t v = ix->ids[n];

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (ix->nodes <= 1)
		return 0;
	for (uint32_t n = 1; n < ix->nodes; n++)
		any |= ix->ids[n] - lo;
	while (shift && (any & ((1ull << shift) - 1)))
		shift--;
	if (((hi - lo) >> shift) >= UINT32_MAX)
		return 0; /* keep 64-bit ids */
	ix->cids = huge_malloc((size_t)ix->nodes * sizeof(*ix->cids));
	if (!ix->cids)
		return -ENOMEM;
	ix->id_base = lo;
	ix->id_shift = shift;
	ix->cids[0] = 0; /* the super-root: its id is never asked for */
	for (uint32_t n = 1; n < ix->nodes; n++)
		ix->cids[n] = (uint32_t)((ix->ids[n] - lo) >> shift);
	free(ix->ids);
	ix->ids = NULL;
	return 0;
}
