/* A map from non-zero 64-bit keys (object and string ids) to 32-bit values,
 * open addressing with linear probing. */
#ifndef OOMSCOPE_UTIL_U64MAP_H
#define OOMSCOPE_UTIL_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;   /* 0 = empty */
	uint32_t *vals;
	size_t cap, count;
};

int u64map_init(struct u64map *m, size_t expect);
void u64map_free(struct u64map *m);
/* Sets key to val (replacing). 0 or -ENOMEM. key must not be 0. */
int u64map_put(struct u64map *m, uint64_t key, uint32_t val);
/* 1 and *val when found, else 0. */
int u64map_get(const struct u64map *m, uint64_t key, uint32_t *val);

#endif
