/* The analyzer's big arrays (an entry per object or reference) on
 * transparent huge pages where the kernel offers them on request
 * (madvise mode): a 1 GB dump's analysis otherwise takes hundreds of
 * thousands of page faults, each costly, above all in a VM (25 % of the
 * analysis' time measured here). Below 4 MB, or where the kernel says no,
 * these are plain malloc, calloc and realloc. Header-only. */
#ifndef OOMSCOPE_UTIL_HUGEMEM_H
#define OOMSCOPE_UTIL_HUGEMEM_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE (2u << 20)

static inline void *huge_hint(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	if (p && bytes >= 2 * HUGE_PAGE) {
		uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
		uintptr_t end = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);

		if (end > a)
			(void)madvise((void *)a, end - a, MADV_HUGEPAGE);
	}
#endif
	return p;
}

static inline void *huge_malloc(size_t bytes)
{
	return huge_hint(malloc(bytes), bytes);
}

static inline void *huge_calloc(size_t n, size_t size)
{
	return huge_hint(calloc(n, size), n * size);
}

/* Only a new block is hinted: the kernel copies a huge-page region that
 * grows (mremap), where it moves a plain one's pages for nothing. Arrays
 * that grow get their final size up front where it can be told. */
static inline void *huge_realloc(void *p, size_t bytes)
{
	return p ? realloc(p, bytes) : huge_malloc(bytes);
}

#endif
