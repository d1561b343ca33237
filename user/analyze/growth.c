#include "analyze/growth.h"
#include "util/vec.h"
#include "analyze/analyzer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h ? h : 1; /* 0 is the map's empty key */
}

int ooms_baseline_take(const struct ooms_analysis *a, struct ooms_baseline *b)
{
	const struct ooms_index *ix = &a->ix;

	memset(b, 0, sizeof(*b));
	b->path = strdup(a->path);
	b->classes = calloc((size_t)ix->nclasses + 1, sizeof(*b->classes));
	b->suspects = calloc(a->nsuspects + 1, sizeof(*b->suspects));
	if (!b->path || !b->classes || !b->suspects || u64map_init(&b->class_of, (size_t)ix->nclasses + 1))
		goto nomem;
	b->reachable = a->reachable_shallow;
	for (uint32_t c = 0; c < ix->nclasses; c++) {
		const struct ooms_class_stat *s = &a->class_stats[c];
		uint32_t dup;

		if (!s->count)
			continue;
		/* two loaders, one name: their counts add up */
		if (u64map_get(&b->class_of, name_hash(ooms_class_name(ix, c)), &dup)) {
			b->classes[dup].count += s->count;
			b->classes[dup].retained += s->retained;
			continue;
		}
		if (!(b->classes[b->nclasses].name = strdup(ooms_class_name(ix, c))) ||
		    u64map_put(&b->class_of, name_hash(ooms_class_name(ix, c)), (uint32_t)b->nclasses))
			goto nomem;
		b->classes[b->nclasses].count = s->count;
		b->classes[b->nclasses++].retained = s->retained;
	}
	for (size_t i = 0; i < a->nsuspects; i++)
		b->suspects[b->nsuspects++] = (struct ooms_baseline_suspect){a->suspects[i].signature, a->suspects[i].retained,
									      a->suspects[i].count};
	return 0;
nomem:
	ooms_baseline_free(b);
	return -ENOMEM;
}

void ooms_baseline_free(struct ooms_baseline *b)
{
	for (size_t i = 0; b->classes && i < b->nclasses; i++)
		free(b->classes[i].name);
	free(b->classes);
	free(b->suspects);
	free(b->path);
	u64map_free(&b->class_of);
	memset(b, 0, sizeof(*b));
}

static const struct ooms_analysis *sort_a;

static int by_class_growth(const void *x, const void *y)
{
	const struct ooms_growth_class *p = x, *q = y;
	int64_t dp = (int64_t)(p->retained1 - p->retained0), dq = (int64_t)(q->retained1 - q->retained0);
	int64_t cp = (int64_t)(p->count1 - p->count0), cq = (int64_t)(q->count1 - q->count0);

	/* classes with more instances first: a container that holds the
	 * growth (its count unchanged) would otherwise rank with it */
	if ((cp > 0) != (cq > 0))
		return cp > 0 ? -1 : 1;
	if (dp != dq)
		return dp < dq ? 1 : -1;
	if (cp != cq)
		return cp < cq ? 1 : -1;
	return (p->cls > q->cls) - (p->cls < q->cls);
}

static int by_suspect_growth(const void *x, const void *y)
{
	const struct ooms_growth_suspect *p = x, *q = y;
	int64_t dp = (int64_t)(sort_a->suspects[p->suspect].retained - p->retained0),
		dq = (int64_t)(sort_a->suspects[q->suspect].retained - q->retained0);

	if (dp != dq)
		return dp < dq ? 1 : -1;
	return (p->suspect > q->suspect) - (p->suspect < q->suspect);
}

/* Growth in the newer analysis of the classes (summed over loaders, as in
 * the baseline) and of the suspects. */
int ooms_growth_compute(const struct ooms_baseline *b, const struct ooms_analysis *a, struct ooms_growth *g)
{
	const struct ooms_index *ix = &a->ix;
	struct u64map seen;

	memset(g, 0, sizeof(*g));
	g->base = b;
	g->classes = calloc((size_t)ix->nclasses + 1, sizeof(*g->classes));
	g->suspects = calloc(a->nsuspects + 1, sizeof(*g->suspects));
	if (!g->classes || !g->suspects || u64map_init(&seen, (size_t)ix->nclasses + 1)) {
		ooms_growth_free(g);
		return -ENOMEM;
	}
	for (uint32_t c = 0; c < ix->nclasses; c++) {
		const struct ooms_class_stat *s = &a->class_stats[c];
		uint64_t h = name_hash(ooms_class_name(ix, c));
		uint32_t i, row;

		if (!s->count)
			continue;
		if (u64map_get(&seen, h, &row)) { /* another loader's class of that name */
			g->classes[row].count1 += s->count;
			g->classes[row].retained1 += s->retained;
			continue;
		}
		if (u64map_put(&seen, h, (uint32_t)g->nclasses)) {
			u64map_free(&seen);
			ooms_growth_free(g);
			return -ENOMEM;
		}
		g->classes[g->nclasses] = (struct ooms_growth_class){c, 0, 0, s->count, s->retained};
		if (u64map_get(&b->class_of, h, &i) && !strcmp(b->classes[i].name, ooms_class_name(ix, c))) {
			g->classes[g->nclasses].count0 = b->classes[i].count;
			g->classes[g->nclasses].retained0 = b->classes[i].retained;
		}
		g->nclasses++;
	}
	{ /* keep those that grew */
		size_t k = 0;

		for (size_t i = 0; i < g->nclasses; i++)
			if (g->classes[i].count1 > g->classes[i].count0 || g->classes[i].retained1 > g->classes[i].retained0)
				g->classes[k++] = g->classes[i];
		g->nclasses = k;
	}
	u64map_free(&seen);
	for (size_t k = 0; k < a->nsuspects; k++) {
		const struct ooms_suspect *s = &a->suspects[k];
		struct ooms_growth_suspect gs = {k, 0, 0, 1};

		for (size_t i = 0; i < b->nsuspects; i++)
			if (b->suspects[i].signature == s->signature) {
				gs = (struct ooms_growth_suspect){k, b->suspects[i].retained, b->suspects[i].count, 0};
				break;
			}
		if (gs.is_new || s->retained > gs.retained0)
			g->suspects[g->nsuspects++] = gs;
	}
	sort_a = a;
	vec_sort(g->classes, g->nclasses, sizeof(*g->classes), by_class_growth);
	vec_sort(g->suspects, g->nsuspects, sizeof(*g->suspects), by_suspect_growth);
	return 0;
}

void ooms_growth_free(struct ooms_growth *g)
{
	free(g->classes);
	free(g->suspects);
	memset(g, 0, sizeof(*g));
}
