/* Class loaders by their class (MAT's class loader explorer, grouped): how
 * many loaders of each class, how many classes they define, what they
 * retain. A Metaspace leak is many loaders of one class, each keeping its
 * classes' metadata: this names that class. */
#ifndef OOMSCOPE_ANALYZE_LOADERS_H
#define OOMSCOPE_ANALYZE_LOADERS_H

#include <stddef.h>
#include <stdint.h>
#include "graph/dominators.h"
#include "graph/index.h"

struct ooms_loader_group {
	uint32_t cls;          /* the loaders' class (OOMS_NONE: the boot loader) */
	uint32_t example;      /* one loader (the one defining the most classes), 0 for the boot loader */
	uint64_t loaders, classes, retained;
	uint64_t example_classes;  /* the classes its example defines */
	/* what keeps the example alive: its shortest path from a GC root (GC
	 * root first; len 0: none found, or not asked), set by the analysis */
	uint32_t *path, len, root;
};

/* A class name defined by more than one loader (MAT's duplicate classes):
 * a plugin or a generated class loaded again by each new loader while the
 * old ones stay. */
struct ooms_dup_class {
	uint32_t cls;          /* one of them */
	uint64_t loaders;      /* distinct loaders defining the name */
	uint64_t classes;      /* classes of that name */
};

/* Every class object's loader_id counted, the loaders grouped by their
 * class, largest (classes defined) first. 0 or -ENOMEM. */
#define OOMS_LOADER_PATHS 10 /* the groups whose example's path is found */

int ooms_loaders_group(const struct ooms_index *ix, const struct ooms_dominators *dom, struct ooms_loader_group **out,
		       size_t *n);

/* The class names defined by more than one loader, most loaders first.
 * 0 or -ENOMEM. */
int ooms_duplicate_classes(const struct ooms_index *ix, struct ooms_dup_class **out, size_t *n);
void ooms_loaders_free(struct ooms_loader_group *g, size_t n);

#endif
