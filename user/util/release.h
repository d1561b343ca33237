/* Giving a large buffer's consumed part back to the kernel: a breadth-first
 * queue of every object is written once and read once, so the pages below
 * its head are dead; without this they stay resident to the end. */
#ifndef OOMSCOPE_UTIL_RELEASE_H
#define OOMSCOPE_UTIL_RELEASE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* The whole pages of base[0 .. done) not given back yet (*released bytes
 * are), in steps of at least 1 MiB. What is given back reads as zeros. */
static inline void release_below(void *base, size_t done, size_t *released)
{
	static size_t page;
	uintptr_t b = (uintptr_t)base, from, to;

	if (!page) {
		long p = sysconf(_SC_PAGESIZE);

		page = p > 0 ? (size_t)p : 4096;
	}
	from = (b + *released + page - 1) & ~(uintptr_t)(page - 1);
	to = (b + done) & ~(uintptr_t)(page - 1);
	if (to < from + (1u << 20))
		return;
	if (!madvise((void *)from, to - from, MADV_DONTNEED))
		*released = to - b;
}

#endif
