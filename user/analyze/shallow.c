#include "analyze/shallow.h"

#include "hprof/hprof.h"

uint64_t ooms_shallow_size(const struct ooms_index *ix, uint32_t n)
{
	unsigned id = ix->id_size;
	uint64_t header = 2 * (uint64_t)id; /* mark word and class pointer */
	uint32_t c = ix->cls[n];

	switch (ix->kind[n]) {
	case NODE_INSTANCE:
		return header + (c == OOMS_NONE ? 0 : ix->classes[c].inst_size);
	case NODE_OBJ_ARRAY:
		return header + 4 + (uint64_t)ix->length[n] * id;
	case NODE_PRIM_ARRAY: {
		unsigned esz = 0;

		for (unsigned t = HPROF_T_BOOLEAN; t <= HPROF_T_LONG; t++)
			if (ix->prim_class[t] == c)
				esz = hprof_type_size(t, id);
		return header + 4 + (uint64_t)ix->length[n] * esz;
	}
	default:
		return 0;
	}
}
