#include "analyze/native.h"
#include "util/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const ooms_native_probe_fields[OOMS_NATIVE_PROBES][2] = {
	{"sun.misc.Cleaner", "thunk"},
	{"libcore.util.NativeAllocationRegistry$CleanerThunk", "this$0"},
	{"libcore.util.NativeAllocationRegistry", "size"},
};

/* The value probe p recorded for node n. */
static int value_of(const struct ooms_probe *p, uint32_t n, uint64_t *v)
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

static int add(struct ooms_native *nat, uint32_t n, uint64_t bytes)
{
	uint32_t i;

	if (!u64map_get(&nat->at, (uint64_t)n + 1, &i)) {
		if (vec_reserve((void **)&nat->retained, &nat->cap, nat->n + 1, sizeof(*nat->retained)) ||
		    u64map_put(&nat->at, (uint64_t)n + 1, (uint32_t)nat->n))
			return -ENOMEM;
		i = (uint32_t)nat->n;
		nat->retained[nat->n++] = 0;
	}
	nat->retained[i] += bytes;
	return 0;
}

int ooms_native_compute(const struct ooms_index *ix, const struct ooms_probe *probes, const uint32_t *idom,
			struct ooms_native *nat)
{
	const struct ooms_probe *thunks = &probes[0], *owners = &probes[1], *sizes = &probes[2];

	memset(nat, 0, sizeof(*nat));
	if (u64map_init(&nat->at, 64))
		return -ENOMEM;
	for (size_t i = 0; i < thunks->count; i++) {
		uint32_t cleaner = thunks->values[i].node, thunk = (uint32_t)thunks->values[i].value, r;
		uint64_t reg, size;

		if (thunk == OOMS_NONE || !value_of(owners, thunk, &reg) || (uint32_t)reg == OOMS_NONE ||
		    !value_of(sizes, (uint32_t)reg, &size) || !size)
			continue;
		/* the Cleaner's referent: its last edge, a Reference.referent (index.h) */
		if (ix->off[cleaner + 1] == ix->off[cleaner] || !ooms_edge_is_weak(ix, cleaner, ix->off[cleaner + 1] - 1))
			continue;
		r = ix->tgt[ix->off[cleaner + 1] - 1];
		nat->objects++;
		nat->bytes += size;
		/* up the dominators, the object itself first (an unreachable one: itself only) */
		for (uint32_t v = r, depth = 0; v && v != OOMS_NONE && depth < ix->nodes; v = idom[v], depth++)
			if (add(nat, v, size))
				return -ENOMEM;
	}
	return 0;
}

uint64_t ooms_native_retained(const struct ooms_native *nat, uint32_t n)
{
	uint32_t i;

	return nat->n && u64map_get(&nat->at, (uint64_t)n + 1, &i) ? nat->retained[i] : 0;
}

void ooms_native_free(struct ooms_native *nat)
{
	u64map_free(&nat->at);
	free(nat->retained);
	memset(nat, 0, sizeof(*nat));
}
