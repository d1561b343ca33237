/* Interned stacks: identical frame lists share one id, so a million fds opened
 * from one call site cost one stack. */
#ifndef OOMSCOPE_STACKS_H
#define OOMSCOPE_STACKS_H

#include <stddef.h>
#include <stdint.h>

struct ooms_stacks;

struct ooms_stacks *ooms_stacks_new(void);
void ooms_stacks_free(struct ooms_stacks *st);
/* Returns the id (>= 1) of frames[0..n), adding it when new; 0 on no memory
 * or n == 0. */
uint32_t ooms_stacks_intern(struct ooms_stacks *st, const uint64_t *frames, size_t n);
/* Frames of id; *n set. NULL for an unknown id. */
const uint64_t *ooms_stacks_get(const struct ooms_stacks *st, uint32_t id, size_t *n);
size_t ooms_stacks_count(const struct ooms_stacks *st);

#endif
