/* Names of references on reported paths: one more pass over the dump reads
 * the records of the path's objects again and says, for each edge, which
 * field or array slot holds it. (The index keeps only the edges, not their
 * names, so it stays small.) */
#ifndef OOMSCOPE_GRAPH_LABELS_H
#define OOMSCOPE_GRAPH_LABELS_H

#include <stddef.h>
#include <stdint.h>
#include "graph/index.h"
#include "util/err.h"

enum ooms_ref_type {
	REF_NONE, REF_INSTANCE_FIELD, REF_STATIC_FIELD, REF_ARRAY_ENTRY,
	REF_CLASS_LOADER,  /* a class object holds its loader */
	REF_CLASS_OBJECT,  /* an instance holds its class */
};

struct ooms_edge_label {
	uint32_t from, to;    /* in: nodes */
	uint8_t type;         /* out: enum ooms_ref_type, REF_NONE if not found */
	uint32_t field;       /* out: instance field: index in ix->fields; static: arena offset of the name */
	uint32_t declared_in; /* out: class index that declares the field (static: the class itself) */
	uint32_t index;       /* out: array entry */
};

/* The first bytes of an object's record, read in the same pass: an
 * instance's field data, a primitive array's elements (thread names). */
#define OOMS_CONTENT_MAX 256
struct ooms_content {
	uint32_t node;        /* in */
	uint32_t len;         /* out: bytes in data (at most OOMS_CONTENT_MAX) */
	uint8_t data[OOMS_CONTENT_MAX];
};

/* Fills labels[0..n) (any order; several may share a from) and
 * wants[0..nwants) (distinct nodes). 0 or -errno, err set. */
int ooms_label_edges(const struct ooms_index *ix, const char *path, struct ooms_edge_label *labels, size_t n,
		     struct ooms_content *wants, size_t nwants, struct ooms_err *err);
const char *ooms_ref_type_name(uint8_t type);

#endif
