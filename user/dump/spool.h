/* A FIFO of bytes between a pipe's eager reader and a slower consumer:
 * what the fork-dump's copy writes is taken at once, so the copy (and the
 * app's copy-on-write while it lives) does not wait for the compressor.
 * Held in memory up to a bound, then in an unlinked file in a folder given
 * (the output's), else the reader waits for the consumer. */
#ifndef OOMSCOPE_DUMP_SPOOL_H
#define OOMSCOPE_DUMP_SPOOL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct spool_item;

struct spool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct spool_item *head, *tail;
	size_t head_used;       /* bytes of the head item already taken */
	size_t mem, mem_max;    /* bytes held in memory, and the bound */
	int file_fd;            /* the unlinked file beyond the bound (-1: none yet) */
	char dir[4096];         /* where it may go ("": nowhere, the reader waits) */
	off_t file_end;
	uint64_t spilled;       /* bytes that went through the file */
	int ended;              /* the writer side is done */
	int discard;            /* the consumer gave up: what comes is dropped */
	int err;                /* its error (-errno), told once the bytes before it are taken */
};

/* mem_max bytes in memory at most; dir: a folder for the rest, or NULL. */
void spool_init(struct spool *s, size_t mem_max, const char *dir);
/* Appends n bytes (the reader). 0 or -errno. */
int spool_put(struct spool *s, const void *buf, size_t n);
/* The consumer stops: later bytes are dropped (the writer is not blocked). */
void spool_discard(struct spool *s);
/* No more bytes (err: why, or 0). */
void spool_end(struct spool *s, int err);
/* Up to n bytes, waiting for them: the count, 0 at the end, or -errno. */
ssize_t spool_get(struct spool *s, void *buf, size_t n);
void spool_free(struct spool *s);

#endif
