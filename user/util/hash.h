/* FNV-1a, 64 bits: a stable hash of bytes (ids and signatures that must be
 * the same on every machine and in every build). Header-only. */
#ifndef OOMSCOPE_UTIL_HASH_H
#define OOMSCOPE_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_BASIS 0xcbf29ce484222325ull

/* h (FNV1A_BASIS to start) carried over n bytes of p */
static inline uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* the same over a NUL-terminated string (NULL: h unchanged) */
static inline uint64_t fnv1a_str(uint64_t h, const char *s)
{
	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

#endif
