/* Growable arrays: one helper for every "double the capacity when full"
 * site. Header-only, no dependencies, so the hprof library and the shim
 * may use it too. */
#ifndef OOMSCOPE_UTIL_VEC_H
#define OOMSCOPE_UTIL_VEC_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes *arr (elements of elem bytes, capacity *cap) hold at least need
 * elements: doubles from 16 (or from need). 0, or -ENOMEM with *arr and
 * *cap as they were. */
static inline int vec_reserve(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		c *= 2;
	}
	p = realloc(*arr, c * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

/* The next free element of arr (n elements, capacity cap), counted in n, or
 * NULL when memory ran out. arr, n and cap are lvalues. */
#define VEC_PUSH(arr, n, cap)                                                                       \
	(vec_reserve((void **)&(arr), &(cap), (size_t)(n) + 1, sizeof(*(arr))) ? NULL : &(arr)[(n)++])

/* qsort that takes no array for no elements (qsort's base must not be
 * NULL even then). */
static inline void vec_sort(void *arr, size_t n, size_t elem, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(arr, n, elem, cmp);
}

#endif
