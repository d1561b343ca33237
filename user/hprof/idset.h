/* A set of 64-bit object ids (open addressing). */
#ifndef OOMSCOPE_HPROF_IDSET_H
#define OOMSCOPE_HPROF_IDSET_H

#include <stddef.h>
#include <stdint.h>

struct hprof_idset {
	uint64_t *slots; /* 0 = empty (id 0 is null, never an object) */
	size_t cap, count;
};

int hprof_idset_init(struct hprof_idset *s);
void hprof_idset_free(struct hprof_idset *s);
int hprof_idset_add(struct hprof_idset *s, uint64_t id); /* 0, or -ENOMEM */
int hprof_idset_has(const struct hprof_idset *s, uint64_t id);

#endif
