/* GC root kinds: the names and the order the reports use. */
#ifndef OOMSCOPE_GRAPH_ROOTS_H
#define OOMSCOPE_GRAPH_ROOTS_H

#include <stdint.h>

/* Every GC root kind a dump may hold (HPROF_ROOT_*), in the order
 * VisualVM's HprofGCRoots lists them. */
#define OOMS_ROOT_KINDS 15
extern const uint8_t ooms_root_kinds[OOMS_ROOT_KINDS];
/* Shark's name of a root kind: "ThreadObject", "JavaFrame", "StickyClass"... */
const char *ooms_root_kind_name(uint8_t kind);

#endif
