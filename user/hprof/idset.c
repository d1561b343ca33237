#include "hprof/idset.h"

#include <errno.h>
#include <stdlib.h>

static size_t slot_of(uint64_t id, size_t cap)
{
	return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

int hprof_idset_init(struct hprof_idset *s)
{
	s->cap = 1024;
	s->count = 0;
	s->slots = calloc(s->cap, sizeof(*s->slots));
	return s->slots ? 0 : -ENOMEM;
}

void hprof_idset_free(struct hprof_idset *s)
{
	free(s->slots);
	s->slots = NULL;
}

static int grow(struct hprof_idset *s)
{
	size_t cap = s->cap * 2;
	uint64_t *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->slots[i])
			continue;
		size_t j = slot_of(s->slots[i], cap);
		while (n[j])
			j = (j + 1) & (cap - 1);
		n[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = n;
	s->cap = cap;
	return 0;
}

int hprof_idset_add(struct hprof_idset *s, uint64_t id)
{
	size_t j;

	if (!id)
		return 0;
	if ((s->count + 1) * 2 > s->cap && grow(s))
		return -ENOMEM;
	for (j = slot_of(id, s->cap); s->slots[j]; j = (j + 1) & (s->cap - 1))
		if (s->slots[j] == id)
			return 0;
	s->slots[j] = id;
	s->count++;
	return 0;
}

int hprof_idset_has(const struct hprof_idset *s, uint64_t id)
{
	if (!id || !s->slots)
		return 0;
	for (size_t j = slot_of(id, s->cap); s->slots[j]; j = (j + 1) & (s->cap - 1))
		if (s->slots[j] == id)
			return 1;
	return 0;
}
