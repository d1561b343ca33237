/* The shim's own allocator (no libc): blocks of power-of-two sizes from 32 B
 * to 32 KiB on free lists, carved from 1 MiB mappings; anything larger is a
 * mapping of its own. The process's allocator is never used, so a fork-dump
 * child never meets a malloc lock that another thread held at the fork.
 * One lock (a futex) for all of it: the shim allocates rarely but in its
 * child's writer, which runs alone. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "shim/libc/lock.h"

#define HEAD 16                 /* block header: its size class, or its mapping's length */
#define MIN_SHIFT 5             /* 32 B */
#define MAX_SHIFT 15            /* 32 KiB */
#define NCLASS (MAX_SHIFT - MIN_SHIFT + 1)
#define CHUNK (1u << 20)
#define BIG_FLAG 1ul            /* the header holds a mapping length (page multiple, so bit 0 is free) */

struct free_block {
	struct free_block *next;
};

static struct shim_lock lock;
static struct free_block *free_list[NCLASS];
static uint8_t *bump, *bump_end;

static int class_of(size_t total)
{
	int c = 0;

	while (((size_t)1 << (MIN_SHIFT + c)) < total)
		c++;
	return c;
}

static void *big_alloc(size_t n)
{
	size_t len = (n + HEAD + 4095) & ~(size_t)4095;
	uint8_t *m;

	if (n > SIZE_MAX - HEAD - 4096) {
		errno = ENOMEM;
		return NULL;
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	*(size_t *)(void *)m = len | BIG_FLAG;
	return m + HEAD;
}

void *malloc(size_t n)
{
	struct free_block *b;
	size_t total = n + HEAD;
	int c;

	if (n == 0)
		total = HEAD + 1;
	if (n > ((size_t)1 << MAX_SHIFT) - HEAD)
		return big_alloc(n);
	c = class_of(total);
	shim_lock(&lock);
	if ((b = free_list[c])) {
		free_list[c] = b->next;
	} else {
		size_t size = (size_t)1 << (MIN_SHIFT + c);

		if (!bump || (size_t)(bump_end - bump) < size) {
			uint8_t *m = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (m == MAP_FAILED) {
				shim_unlock(&lock);
				return NULL;
			}
			bump = m; /* what the last chunk had left is given up */
			bump_end = m + CHUNK;
		}
		b = (struct free_block *)(void *)bump;
		bump += size;
	}
	shim_unlock(&lock);
	*(size_t *)(void *)b = (size_t)c << 1;
	return (uint8_t *)b + HEAD;
}

static size_t usable(const void *p)
{
	size_t h = *(const size_t *)(const void *)((const uint8_t *)p - HEAD);

	return h & BIG_FLAG ? (h & ~BIG_FLAG) - HEAD : ((size_t)1 << (MIN_SHIFT + (h >> 1))) - HEAD;
}

void free(void *p)
{
	uint8_t *b;
	size_t h;

	if (!p)
		return;
	b = (uint8_t *)p - HEAD;
	h = *(size_t *)(void *)b;
	if (h & BIG_FLAG) {
		munmap(b, h & ~BIG_FLAG);
		return;
	}
	shim_lock(&lock);
	((struct free_block *)(void *)b)->next = free_list[h >> 1];
	free_list[h >> 1] = (struct free_block *)(void *)b;
	shim_unlock(&lock);
}

void *calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	p = malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *realloc(void *p, size_t n)
{
	size_t have;
	void *q;

	if (!p)
		return malloc(n);
	have = usable(p);
	if (n <= have)
		return p;
	if (have > ((size_t)1 << MAX_SHIFT)) { /* a mapping of its own: grown in place or moved by the kernel */
		uint8_t *b = (uint8_t *)p - HEAD;
		size_t len = (n + HEAD + 4095) & ~(size_t)4095;

		b = mremap(b, have + HEAD, len, MREMAP_MAYMOVE);
		if (b == MAP_FAILED)
			return NULL;
		*(size_t *)(void *)b = len | BIG_FLAG;
		return b + HEAD;
	}
	q = malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, have);
	free(p);
	return q;
}

void shim_malloc_after_fork(void)
{
	lock.v = 0;
}
