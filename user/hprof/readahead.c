#include "hprof/readahead.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#define SLOTS 4

struct hprof_readahead {
	struct hprof_source *src;
	size_t chunk;
	pthread_t reader;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct {
		uint8_t *buf;
		long len;        /* bytes, 0 at the end, < 0 an error */
		uint64_t done;
	} slot[SLOTS];
	unsigned head, count; /* the slots filled, from head */
	int held;             /* the caller has slot[head] */
	int stop, ended;      /* the caller gives up; the reader has put its last */
};

static void *read_ahead(void *arg)
{
	struct hprof_readahead *ra = arg;

	pthread_mutex_lock(&ra->lock);
	while (!ra->stop && !ra->ended) {
		unsigned at;
		long n;

		if (ra->count == SLOTS) {
			pthread_cond_wait(&ra->changed, &ra->lock);
			continue;
		}
		at = (ra->head + ra->count) % SLOTS;
		pthread_mutex_unlock(&ra->lock);
		n = hprof_source_read(ra->src, ra->slot[at].buf, ra->chunk);
		pthread_mutex_lock(&ra->lock);
		ra->slot[at].len = n;
		ra->slot[at].done = ra->src->bytes_read;
		ra->count++;
		ra->ended = n <= 0;
		pthread_cond_broadcast(&ra->changed);
	}
	pthread_mutex_unlock(&ra->lock);
	return NULL;
}

int hprof_readahead_start(struct hprof_readahead **out, struct hprof_source *src, size_t chunk)
{
	struct hprof_readahead *ra = calloc(1, sizeof(*ra));
	int e = -ENOMEM;

	*out = NULL;
	if (!ra)
		return -ENOMEM;
	ra->src = src;
	ra->chunk = chunk;
	for (int i = 0; i < SLOTS; i++)
		if (!(ra->slot[i].buf = malloc(chunk)))
			goto fail;
	if (pthread_mutex_init(&ra->lock, NULL))
		goto fail;
	if (pthread_cond_init(&ra->changed, NULL)) {
		pthread_mutex_destroy(&ra->lock);
		goto fail;
	}
	if ((e = -pthread_create(&ra->reader, NULL, read_ahead, ra))) {
		pthread_cond_destroy(&ra->changed);
		pthread_mutex_destroy(&ra->lock);
		goto fail;
	}
	*out = ra;
	return 0;
fail:
	for (int i = 0; i < SLOTS; i++)
		free(ra->slot[i].buf);
	free(ra);
	return e;
}

long hprof_readahead_next(struct hprof_readahead *ra, const uint8_t **buf, uint64_t *done)
{
	long n;

	pthread_mutex_lock(&ra->lock);
	if (ra->held) { /* the chunk before is given back */
		ra->head = (ra->head + 1) % SLOTS;
		ra->count--;
		ra->held = 0;
		pthread_cond_broadcast(&ra->changed);
	}
	while (!ra->count)
		pthread_cond_wait(&ra->changed, &ra->lock);
	n = ra->slot[ra->head].len;
	*buf = ra->slot[ra->head].buf;
	*done = ra->slot[ra->head].done;
	ra->held = n > 0; /* the end or an error stays for every later call */
	pthread_mutex_unlock(&ra->lock);
	return n;
}

void hprof_readahead_stop(struct hprof_readahead *ra)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->lock);
	ra->stop = 1;
	pthread_cond_broadcast(&ra->changed);
	pthread_mutex_unlock(&ra->lock);
	pthread_join(ra->reader, NULL);
	pthread_cond_destroy(&ra->changed);
	pthread_mutex_destroy(&ra->lock);
	for (int i = 0; i < SLOTS; i++)
		free(ra->slot[i].buf);
	free(ra);
}
