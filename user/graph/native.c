#include "graph/native.h"
#include "util/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const ooms_native_probe_fields[OOMS_NATIVE_PROBES][2] = {
	{"sun.misc.Cleaner", "thunk"},
	{"libcore.util.NativeAllocationRegistry$CleanerThunk", "this$0"},
	{"libcore.util.NativeAllocationRegistry", "size"},
	{"jdk.internal.ref.Cleaner", "thunk"},
	{"java.nio.DirectByteBuffer$Deallocator", "size"},
};

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

/* One Cleaner probe's thunks: each registered size to its referent and up
 * its dominators. */
static int from_cleaners(const struct ooms_index *ix, const struct ooms_probe *thunks, const struct ooms_probe *probes,
			 const uint32_t *idom, struct ooms_native *nat)
{
	const struct ooms_probe *owners = &probes[1], *sizes = &probes[2], *deallocs = &probes[4];

	for (size_t i = 0; i < thunks->count; i++) {
		uint32_t cleaner = thunks->values[i].node, thunk = (uint32_t)thunks->values[i].value, r;
		uint64_t reg, size = 0;
		int direct = 0;

		if (thunk == OOMS_NONE)
			continue;
		if (ooms_probe_get(owners, thunk, &reg) && (uint32_t)reg != OOMS_NONE)
			ooms_probe_get(sizes, (uint32_t)reg, &size);
		else if (ooms_probe_get(deallocs, thunk, &size))
			direct = 1;
		if (!size || (int64_t)size < 0 || (r = ooms_referent_of(ix, cleaner)) == OOMS_NONE)
			continue;
		if (direct) {
			nat->direct_objects++;
			nat->direct_bytes += size;
		} else {
			nat->objects++;
			nat->bytes += size;
		}
		/* up the dominators, the object itself first (an unreachable one: itself only) */
		for (uint32_t v = r, depth = 0; v && v != OOMS_NONE && depth < ix->nodes; v = idom[v], depth++)
			if (add(nat, v, size))
				return -ENOMEM;
	}
	return 0;
}

int ooms_native_compute(const struct ooms_index *ix, const struct ooms_probe *probes, const uint32_t *idom,
			struct ooms_native *nat)
{
	memset(nat, 0, sizeof(*nat));
	if (u64map_init(&nat->at, 64))
		return -ENOMEM;
	return from_cleaners(ix, &probes[0], probes, idom, nat) ?: from_cleaners(ix, &probes[3], probes, idom, nat);
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
