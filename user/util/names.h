/* Enum <-> name tables: an enum's names in an array indexed by its value,
 * looked up both ways here, so each enum writes its table once. Header-only,
 * no dependencies. */
#ifndef OOMSCOPE_UTIL_NAMES_H
#define OOMSCOPE_UTIL_NAMES_H

#include <stddef.h>
#include <string.h>

#define NAMES_N(table) (sizeof(table) / sizeof((table)[0]))

/* table[v - first], or dflt when v is out of range or has no name. */
static inline const char *names_get(const char *const *table, size_t n, int first, int v, const char *dflt)
{
	return v >= first && (size_t)(v - first) < n && table[v - first] ? table[v - first] : dflt;
}

/* The value whose name is s (first + its index), or fail. */
static inline int names_find(const char *const *table, size_t n, int first, const char *s, int fail)
{
	for (size_t i = 0; s && i < n; i++)
		if (table[i] && !strcmp(table[i], s))
			return first + (int)i;
	return fail;
}

#endif
