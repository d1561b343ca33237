#include "collector/attrib/stacks.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

struct stack_rec {
	uint64_t hash;
	size_t off; /* into frames */
	uint32_t n;
};

struct ooms_stacks {
	struct stack_rec *recs; /* id - 1 -> record */
	size_t nrecs, caprecs;
	uint64_t *frames;
	size_t nframes, capframes;
	uint32_t *slots; /* open addressing: id or 0 */
	size_t nslots;
};

static uint64_t hash_frames(const uint64_t *f, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;

	for (size_t i = 0; i < n; i++) {
		h ^= f[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

struct ooms_stacks *ooms_stacks_new(void)
{
	struct ooms_stacks *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->nslots = 1024;
	st->slots = calloc(st->nslots, sizeof(*st->slots));
	if (!st->slots) {
		free(st);
		return NULL;
	}
	return st;
}

void ooms_stacks_free(struct ooms_stacks *st)
{
	if (!st)
		return;
	free(st->recs);
	free(st->frames);
	free(st->slots);
	free(st);
}

static int grow_slots(struct ooms_stacks *st)
{
	size_t n = st->nslots * 2;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -1;
	for (size_t i = 0; i < st->nrecs; i++) {
		size_t j = st->recs[i].hash & (n - 1);

		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = i + 1;
	}
	free(st->slots);
	st->slots = s;
	st->nslots = n;
	return 0;
}

uint32_t ooms_stacks_intern(struct ooms_stacks *st, const uint64_t *frames, size_t n)
{
	uint64_t h;
	size_t j;

	if (n == 0)
		return 0;
	h = hash_frames(frames, n);
	for (j = h & (st->nslots - 1); st->slots[j]; j = (j + 1) & (st->nslots - 1)) {
		struct stack_rec *r = &st->recs[st->slots[j] - 1];

		if (r->hash == h && r->n == n && !memcmp(st->frames + r->off, frames, n * 8))
			return st->slots[j];
	}
	if (vec_reserve((void **)&st->recs, &st->caprecs, st->nrecs + 1, sizeof(*st->recs)))
		return 0;
	if (vec_reserve((void **)&st->frames, &st->capframes, st->nframes + n, sizeof(*st->frames)))
		return 0;
	memcpy(st->frames + st->nframes, frames, n * 8);
	st->recs[st->nrecs] = (struct stack_rec){.hash = h, .off = st->nframes, .n = n};
	st->nframes += n;
	st->slots[j] = ++st->nrecs;
	if (st->nrecs * 2 > st->nslots)
		grow_slots(st); /* on failure the table only gets slower */
	return st->nrecs;
}

const uint64_t *ooms_stacks_get(const struct ooms_stacks *st, uint32_t id, size_t *n)
{
	if (id == 0 || id > st->nrecs)
		return NULL;
	*n = st->recs[id - 1].n;
	return st->frames + st->recs[id - 1].off;
}

size_t ooms_stacks_count(const struct ooms_stacks *st)
{
	return st->nrecs;
}
