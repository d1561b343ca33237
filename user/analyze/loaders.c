/* Class loaders grouped by class: see loaders.h. */
#include "analyze/loaders.h"
#include "util/u64map.h"
#include "util/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct loader {
	uint32_t node, classes;
};

static int by_classes(const void *x, const void *y)
{
	const struct ooms_loader_group *a = x, *b = y;

	if (a->classes != b->classes)
		return a->classes < b->classes ? 1 : -1;
	return a->loaders < b->loaders ? 1 : a->loaders > b->loaders ? -1 : 0;
}

int ooms_loaders_group(const struct ooms_index *ix, const struct ooms_dominators *dom, struct ooms_loader_group **out,
		       size_t *n)
{
	struct u64map by_id = {0}, by_cls = {0};
	struct loader *ld = NULL;
	struct ooms_loader_group *g = NULL;
	size_t nld = 0, cld = 0, ng = 0, cg = 0;
	int e = -ENOMEM;

	*out = NULL;
	*n = 0;
	if (u64map_init(&by_id, 64) || u64map_init(&by_cls, 64))
		goto done;
	/* each loader id: its node and how many classes it defines */
	for (uint32_t c = 0; c < ix->nclasses; c++) {
		uint64_t id = ix->classes[c].loader_id;
		uint32_t i;

		if (!u64map_get(&by_id, id + 1, &i)) {
			struct loader *l = VEC_PUSH(ld, nld, cld);

			if (!l || u64map_put(&by_id, id + 1, (uint32_t)(nld - 1)))
				goto done;
			l->node = ix->classes[c].loader;
			l->classes = 0;
			i = (uint32_t)(nld - 1);
		}
		ld[i].classes++;
	}
	/* the loaders by their class */
	for (size_t k = 0; k < nld; k++) {
		uint32_t cls = ld[k].node && ld[k].node != OOMS_NONE ? ooms_cls(ix, ld[k].node) : OOMS_NONE, i;
		struct ooms_loader_group *x;

		if (!u64map_get(&by_cls, (uint64_t)cls + 1, &i)) {
			if (!(x = VEC_PUSH(g, ng, cg)) || u64map_put(&by_cls, (uint64_t)cls + 1, (uint32_t)(ng - 1)))
				goto done;
			memset(x, 0, sizeof(*x));
			x->cls = cls;
			i = (uint32_t)(ng - 1);
		}
		x = &g[i];
		x->loaders++;
		x->classes += ld[k].classes;
		if (ld[k].node && ld[k].node != OOMS_NONE) {
			x->retained += ooms_retained(dom, ld[k].node);
			if (!x->example || ld[k].classes > x->example_classes) {
				x->example = ld[k].node;
				x->example_classes = ld[k].classes;
			}
		}
	}
	vec_sort(g, ng, sizeof(*g), by_classes);
	*out = g;
	*n = ng;
	g = NULL;
	e = 0;
done:
	free(g);
	free(ld);
	u64map_free(&by_id);
	u64map_free(&by_cls);
	return e;
}

void ooms_loaders_free(struct ooms_loader_group *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++)
		free(g[i].path);
	free(g);
}

struct named {
	const char *name;
	uint64_t loader_id;
	uint32_t cls;
};

static int by_name_loader(const void *x, const void *y)
{
	const struct named *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return a->loader_id < b->loader_id ? -1 : a->loader_id > b->loader_id;
}

static int by_loaders(const void *x, const void *y)
{
	const struct ooms_dup_class *a = x, *b = y;

	if (a->loaders != b->loaders)
		return a->loaders < b->loaders ? 1 : -1;
	return a->cls < b->cls ? -1 : a->cls > b->cls;
}

int ooms_duplicate_classes(const struct ooms_index *ix, struct ooms_dup_class **out, size_t *n)
{
	struct named *v = calloc(ix->nclasses + 1, sizeof(*v));
	struct ooms_dup_class *d = NULL;
	size_t nd = 0, cd = 0;

	*out = NULL;
	*n = 0;
	if (!v)
		return -ENOMEM;
	for (uint32_t c = 0; c < ix->nclasses; c++)
		v[c] = (struct named){ooms_class_name(ix, c), ix->classes[c].loader_id, c};
	vec_sort(v, ix->nclasses, sizeof(*v), by_name_loader);
	for (size_t i = 0; i < ix->nclasses;) {
		size_t k = i + 1;
		uint64_t loaders = 1;

		for (; k < ix->nclasses && !strcmp(v[k].name, v[i].name); k++)
			loaders += v[k].loader_id != v[k - 1].loader_id;
		if (loaders > 1 && *v[i].name) {
			struct ooms_dup_class *x = VEC_PUSH(d, nd, cd);

			if (!x) {
				free(d);
				free(v);
				return -ENOMEM;
			}
			*x = (struct ooms_dup_class){v[i].cls, loaders, k - i};
		}
		i = k;
	}
	free(v);
	vec_sort(d, nd, sizeof(*d), by_loaders);
	*out = d;
	*n = nd;
	return 0;
}
