#include "graph/shallow.h"

#include <errno.h>
#include <stdlib.h>
#include "hprof/hprof.h"

#define ALIGN 8
#define ARRAY_OVERHEAD 4 /* the length word */

static uint64_t align(uint64_t v)
{
	return (v + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
}

static unsigned field_size(const struct ooms_index *ix, unsigned type)
{
	return type == HPROF_T_OBJECT ? ix->oop_size : hprof_type_size(type, ix->id_size);
}

int ooms_shallow_setup(struct ooms_index *ix)
{
	uint32_t object = ooms_index_class_by_name(ix, "java.lang.Object");
	unsigned id = ix->id_size;

	ix->sizes_in_dump = object != OOMS_NONE && ix->classes[object].inst_size > 0;
	if (id == 4) {
		ix->oop_size = 4;
	} else if (ix->sizes_in_dump) {
		int d = (int)ix->classes[object].inst_size - (int)id;

		ix->oop_size = d == 4 || d == 8 ? (uint32_t)d : d < 8 ? 4 : 8;
	} else {
		ix->oop_size = ix->oop_scale_hint == 4 || ix->oop_scale_hint == 8 ? ix->oop_scale_hint : id;
	}
	ix->min_inst_size = ix->sizes_in_dump ? ix->classes[object].inst_size : id + ix->oop_size;
	free(ix->inst_sizes);
	ix->inst_sizes = malloc((ix->nclasses + 1) * sizeof(*ix->inst_sizes));
	if (!ix->inst_sizes)
		return -ENOMEM;
	for (uint32_t c = 0; c < ix->nclasses; c++) {
		uint64_t size = ix->min_inst_size;
		int depth = 0;

		if (ix->sizes_in_dump) {
			ix->inst_sizes[c] = ix->classes[c].inst_size;
			continue;
		}
		for (uint32_t k = c; k != OOMS_NONE && depth < 1024; k = ix->classes[k].super, depth++)
			for (uint32_t f = 0; f < ix->classes[k].nfields; f++)
				size += field_size(ix, ix->fields[ix->classes[k].fields_at + f].type);
		ix->inst_sizes[c] = (uint32_t)align(size);
	}
	return 0;
}

uint64_t ooms_shallow_size(const struct ooms_index *ix, uint32_t n)
{
	uint32_t c = ooms_cls(ix, n);

	switch (ooms_kind(ix, n)) {
	case NODE_INSTANCE:
		return c == OOMS_NONE ? align(ix->min_inst_size) : ix->inst_sizes[c];
	case NODE_OBJ_ARRAY:
		return align(ix->min_inst_size + ARRAY_OVERHEAD + (uint64_t)ooms_length(ix, n) * ix->oop_size);
	case NODE_PRIM_ARRAY:
		for (unsigned t = HPROF_T_BOOLEAN; t <= HPROF_T_LONG; t++)
			if (ix->prim_class[t] == c)
				return align(ix->min_inst_size + ARRAY_OVERHEAD +
					     (uint64_t)ooms_length(ix, n) * hprof_type_size(t, ix->id_size));
		return align(ix->min_inst_size + ARRAY_OVERHEAD);
	case NODE_CLASS:
		/* VisualVM: an instance of java.lang.Class where the dump gives
		 * sizes (Android), nothing where it does not */
		return ix->sizes_in_dump && ix->class_class != OOMS_NONE ? ix->inst_sizes[ix->class_class] : 0;
	default:
		return 0;
	}
}

