/* The spool between the pipe's reader and the compressor (spool.h). */
#define _GNU_SOURCE
#include "dump/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct spool_item {
	struct spool_item *next;
	uint8_t *data; /* NULL: in the file at `at` */
	off_t at;
	size_t len;
};

void spool_init(struct spool *s, size_t mem_max, const char *dir)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->mem_max = mem_max;
	s->file_fd = -1;
	if (dir)
		snprintf(s->dir, sizeof(s->dir), "%s", dir);
}

/* The unlinked file, made on first need: 0, or -errno (then memory only). */
static int open_file(struct spool *s)
{
	if (s->file_fd >= 0)
		return 0;
	if (!s->dir[0])
		return -ENOENT;
	s->file_fd = open(s->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (s->file_fd < 0) {
		int e = -errno;

		s->dir[0] = 0; /* not again */
		return e;
	}
	return 0;
}

int spool_put(struct spool *s, const void *buf, size_t n)
{
	struct spool_item *it;
	int in_file = 0;

	if (__atomic_load_n(&s->discard, __ATOMIC_RELAXED))
		return 0;
	it = calloc(1, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->len = n;
	pthread_mutex_lock(&s->mu);
	/* over the bound: to the file, else wait for the consumer */
	while (s->mem + n > s->mem_max && s->mem > 0 && !s->discard) {
		if (open_file(s) == 0) {
			in_file = 1;
			break;
		}
		pthread_cond_wait(&s->cv, &s->mu);
	}
	if (in_file) {
		it->at = s->file_end;
		s->file_end += (off_t)n;
	} else {
		s->mem += n;
	}
	pthread_mutex_unlock(&s->mu);
	/* the copy outside the lock: the consumer goes on meanwhile */
	if (in_file) {
		size_t done = 0;

		while (done < n) {
			ssize_t w = pwrite(s->file_fd, (const uint8_t *)buf + done, n - done, it->at + (off_t)done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				free(it);
				return w < 0 ? -errno : -EIO;
			}
			done += (size_t)w;
		}
	} else {
		it->data = malloc(n);
		if (!it->data) {
			free(it);
			return -ENOMEM;
		}
		memcpy(it->data, buf, n);
	}
	pthread_mutex_lock(&s->mu);
	if (in_file)
		s->spilled += n;
	if (s->tail)
		s->tail->next = it;
	else
		s->head = it;
	s->tail = it;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return 0;
}

void spool_discard(struct spool *s)
{
	pthread_mutex_lock(&s->mu);
	s->discard = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

void spool_end(struct spool *s, int err)
{
	pthread_mutex_lock(&s->mu);
	s->ended = 1;
	s->err = err;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

ssize_t spool_get(struct spool *s, void *buf, size_t n)
{
	struct spool_item *it;
	size_t k;
	ssize_t got;

	pthread_mutex_lock(&s->mu);
	while (!s->head && !s->ended)
		pthread_cond_wait(&s->cv, &s->mu);
	it = s->head;
	if (!it) {
		got = s->err;
		pthread_mutex_unlock(&s->mu);
		return got;
	}
	pthread_mutex_unlock(&s->mu);
	/* the head is the consumer's alone: read it outside the lock */
	k = it->len - s->head_used < n ? it->len - s->head_used : n;
	if (it->data) {
		memcpy(buf, it->data + s->head_used, k);
	} else {
		got = pread(s->file_fd, buf, k, it->at + (off_t)s->head_used);
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		k = (size_t)got;
	}
	s->head_used += k;
	if (s->head_used == it->len) {
		pthread_mutex_lock(&s->mu);
		s->head = it->next;
		if (!s->head)
			s->tail = NULL;
		if (it->data)
			s->mem -= it->len;
		s->head_used = 0;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		free(it->data);
		free(it);
	}
	return (ssize_t)k;
}

void spool_free(struct spool *s)
{
	while (s->head) {
		struct spool_item *it = s->head;

		s->head = it->next;
		free(it->data);
		free(it);
	}
	s->tail = NULL;
	if (s->file_fd >= 0)
		close(s->file_fd);
	s->file_fd = -1;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
}
