/* Arrays put out of memory: written to an unlinked temporary file ($TMPDIR,
 * else /tmp) and read back an element at a time. For what a long analysis
 * needs again only for a few entries (the ids of the objects a report
 * names, the search's parents on a reported path): page cache, which the
 * kernel can drop, instead of resident memory. */
#ifndef OOMSCOPE_UTIL_SPILL_H
#define OOMSCOPE_UTIL_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include <pthread.h>

struct spill {
	size_t width;      /* bytes an element; 0: nothing spilled (a zeroed struct) */
	size_t count;
	int fd;
	/* spill_start's writer */
	pthread_t writer;
	int writing, written_e;
	const void *base;
	size_t base_width;
};

/* Writes count elements of width bytes. 0, or -errno (then nothing is
 * spilled and the caller keeps its array). */
int spill_write(struct spill *s, const void *base, size_t width, size_t count);
/* The same on a thread of its own (for a core that is idle meanwhile): the
 * array must not change until spill_finish, which returns what
 * spill_write would have (0 or -errno; without a thread it writes then;
 * -EINVAL when none was begun). */
void spill_start(struct spill *s, const void *base, size_t width, size_t count);
int spill_finish(struct spill *s);
/* Element i into out (width bytes). 0 or -errno. */
int spill_read(const struct spill *s, size_t i, void *out);
/* Every element into a new array (freed by the caller), or NULL with errno. */
void *spill_read_all(const struct spill *s);
/* Waits for a writer spill_start began, then closes the file. */
void spill_close(struct spill *s);

#endif
