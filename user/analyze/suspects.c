#include "analyze/suspects.h"
#include "util/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct tally {
	uint64_t count, retained;
};

/* n's dominator child that retains most, or OOMS_NONE. */
static uint32_t biggest_child(const struct ooms_dominators *d, const struct ooms_domtree *t, uint32_t n)
{
	uint32_t big = OOMS_NONE;

	for (uint32_t i = t->first[n]; i < t->first[n + 1]; i++)
		if (big == OOMS_NONE || ooms_retained(d, t->child[i]) > ooms_retained(d, big))
			big = t->child[i];
	return big;
}

/* Below node: the first dominator child that holds less than the drop
 * ratio of its parent's retained size ends the descent, and so does the
 * head of a chain of one class. */
static uint32_t accumulation_point(const struct ooms_index *ix, const struct ooms_dominators *d,
				   const struct ooms_domtree *t, uint32_t node)
{
	for (uint32_t cur = node;;) {
		uint32_t big = biggest_child(d, t, cur);

		if (big == OOMS_NONE || (double)ooms_retained(d, big) < OOMS_SUSPECT_DROP * (double)ooms_retained(d, cur))
			return cur;
		if (ooms_kind(ix, cur) == NODE_INSTANCE && ooms_kind(ix, big) == NODE_INSTANCE && ooms_cls(ix, big) == ooms_cls(ix, cur))
			return cur;
		cur = big;
	}
}

/* The class an accumulation counts n under: class objects under
 * java.lang.Class (or the last slot when the dump has none). */
static uint32_t tally_class(const struct ooms_index *ix, uint32_t n)
{
	uint32_t c = ooms_kind(ix, n) == NODE_CLASS ? ix->class_class : ooms_cls(ix, n);

	return c == OOMS_NONE ? ix->nclasses : c;
}

/* Moves child v's class tally (once per class) into s->top, kept sorted. */
static void take(const struct ooms_index *ix, struct ooms_suspect *s, struct tally *by, uint32_t v)
{
	uint32_t c = tally_class(ix, v), at;
	struct ooms_accumulated a = {c, by[c].count, by[c].retained};

	if (!by[c].count)
		return; /* taken already, or the chain's next link */
	by[c].count = by[c].retained = 0;
	if (s->ntop == OOMS_SUSPECT_TOP && a.retained <= s->top[OOMS_SUSPECT_TOP - 1].retained)
		return;
	at = s->ntop < OOMS_SUSPECT_TOP ? s->ntop++ : OOMS_SUSPECT_TOP - 1;
	while (at > 0 && s->top[at - 1].retained < a.retained) {
		s->top[at] = s->top[at - 1];
		at--;
	}
	s->top[at] = a;
}

/* The next link of a chain after n, or OOMS_NONE: the child of its own
 * class that retains most, if it keeps OOMS_SUSPECT_DROP of n's size (so a
 * chain begins only where most of it goes on); once in a chain (in_chain),
 * n's one child of its own class, however little the tail retains (a
 * list's last links). */
static uint32_t next_link(const struct ooms_index *ix, const struct ooms_dominators *d, const struct ooms_domtree *t,
			  uint32_t n, int in_chain)
{
	uint32_t big = biggest_child(d, t, n), same = 0, only = OOMS_NONE;

	if (big == OOMS_NONE || ooms_kind(ix, n) != NODE_INSTANCE)
		return OOMS_NONE;
	for (uint32_t i = t->first[n]; in_chain && i < t->first[n + 1] && same < 2; i++) {
		uint32_t v = t->child[i];

		if (ooms_kind(ix, v) == NODE_INSTANCE && ooms_cls(ix, v) == ooms_cls(ix, n)) {
			same++;
			only = v;
		}
	}
	if (same == 1)
		return only;
	return ooms_kind(ix, big) == NODE_INSTANCE && ooms_cls(ix, big) == ooms_cls(ix, n) &&
	       (double)ooms_retained(d, big) >= OOMS_SUSPECT_DROP * (double)ooms_retained(d, n) ? big : OOMS_NONE;
}

/* The point's dominator children by class (a chain's: every link's, the
 * links left out), the largest OOMS_SUSPECT_TOP kept in s->top. by[] is
 * all zero on entry and on return. */
static void accumulated(const struct ooms_index *ix, const struct ooms_dominators *d, const struct ooms_domtree *t,
			struct ooms_suspect *s, struct tally *by)
{
	uint32_t p = s->point;

	s->chain_cls = OOMS_NONE;
	for (uint32_t link = p; link != OOMS_NONE; link = next_link(ix, d, t, link, link != p)) {
		uint32_t next = next_link(ix, d, t, link, link != p);

		if (next != OOMS_NONE || link != p) {
			s->chain_cls = ooms_cls(ix, p);
			s->chain_len++;
		}
		for (uint32_t i = t->first[link]; i < t->first[link + 1]; i++) {
			uint32_t v = t->child[i], c = tally_class(ix, v);

			if (v == next)
				continue;
			by[c].count++;
			by[c].retained += ooms_retained(d, v);
			s->children++;
		}
	}
	for (uint32_t link = p; link != OOMS_NONE; link = next_link(ix, d, t, link, link != p))
		for (uint32_t i = t->first[link]; i < t->first[link + 1]; i++)
			take(ix, s, by, t->child[i]);
}

static int by_retained(const void *x, const void *y)
{
	const struct ooms_suspect *a = x, *b = y;

	if (a->retained != b->retained)
		return a->retained < b->retained ? 1 : -1;
	return (a->node > b->node) - (a->node < b->node);
}

/* The top-level instances of one class that are each under the threshold
 * but together over it. */
static int instance_suspects(const struct ooms_index *ix, const struct ooms_dominators *d, const struct ooms_domtree *t,
			     uint64_t thr, struct tally *by, struct ooms_suspect **out, size_t *n, size_t *cap)
{
	int e = 0;

	for (uint32_t i = t->first[0]; i < t->first[1]; i++) {
		uint32_t v = t->child[i];

		if (ooms_kind(ix, v) != NODE_CLASS && ooms_retained(d, v) < thr) {
			by[tally_class(ix, v)].count++;
			by[tally_class(ix, v)].retained += ooms_retained(d, v);
		}
	}
	for (uint32_t i = t->first[0]; i < t->first[1]; i++) {
		uint32_t v = t->child[i], c = tally_class(ix, v);
		struct ooms_suspect *s;

		if (ooms_kind(ix, v) == NODE_CLASS || ooms_retained(d, v) >= thr || !by[c].count)
			continue;
		if (by[c].retained >= thr && by[c].count > 1 && c < ix->nclasses) {
			if (!(s = VEC_PUSH(*out, *n, *cap))) {
				e = -ENOMEM;
				break;
			}
			memset(s, 0, sizeof(*s));
			s->kind = SUSPECT_INSTANCES;
			s->cls = c;
			s->count = (uint32_t)by[c].count;
			s->retained = by[c].retained;
			s->root = OOMS_NONE;
			/* the one that retains most stands for them */
			s->node = v;
			for (uint32_t k = t->first[0]; k < t->first[1]; k++) {
				uint32_t w = t->child[k];

				if (ooms_kind(ix, w) != NODE_CLASS && tally_class(ix, w) == c && ooms_retained(d, w) < thr &&
				    ooms_retained(d, w) > ooms_retained(d, s->node))
					s->node = w;
			}
			s->point = s->node;
			s->point_retained = ooms_retained(d, s->node);
			s->children = by[c].count;
			s->top[0] = (struct ooms_accumulated){c, by[c].count, by[c].retained};
			s->ntop = 1;
		}
		by[c].count = by[c].retained = 0; /* each class once, and by[] left zero */
	}
	for (uint32_t i = t->first[0]; e && i < t->first[1]; i++) {
		uint32_t c = tally_class(ix, t->child[i]);

		by[c].count = by[c].retained = 0;
	}
	return e;
}

int ooms_suspects_find(const struct ooms_index *ix, const struct ooms_dominators *d, const struct ooms_domtree *t,
		       uint64_t heap_bytes, double share, struct ooms_suspect **out, size_t *n)
{
	struct tally *by = calloc((size_t)ix->nclasses + 1, sizeof(*by));
	uint64_t thr = (uint64_t)(share * (double)heap_bytes);
	size_t cap = 0;
	int e = 0;

	*out = NULL;
	*n = 0;
	if (!by)
		return -ENOMEM;
	if (thr == 0)
		thr = 1;
	for (uint32_t i = t->first[0]; i < t->first[1]; i++) {
		uint32_t v = t->child[i];
		struct ooms_suspect *s;

		if (ooms_retained(d, v) < thr)
			continue;
		if (!(s = VEC_PUSH(*out, *n, cap))) {
			e = -ENOMEM;
			goto out;
		}
		memset(s, 0, sizeof(*s));
		s->kind = SUSPECT_OBJECT;
		s->node = v;
		s->cls = OOMS_NONE;
		s->count = 1;
		s->root = OOMS_NONE;
		s->retained = ooms_retained(d, v);
		s->point = accumulation_point(ix, d, t, v);
		s->point_retained = ooms_retained(d, s->point);
		accumulated(ix, d, t, s, by);
	}
	if ((e = instance_suspects(ix, d, t, thr, by, out, n, &cap)))
		goto out;
	vec_sort(*out, *n, sizeof(**out), by_retained);
out:
	free(by);
	if (e) {
		ooms_suspects_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return e;
}

void ooms_suspects_free(struct ooms_suspect *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		free(s[i].path);
	free(s);
}
