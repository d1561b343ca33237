#define _GNU_SOURCE /* O_TMPFILE, mkostemp */
#include "util/spill.h"
#include "util/tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int unlinked_file(void)
{
	const char *dir = ooms_tmpdir();
	char path[4096];
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* file systems without O_TMPFILE: a named one, unlinked at once */
	if (snprintf(path, sizeof(path), "%s/oomscope-spill-XXXXXX", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if ((fd = mkostemp(path, O_CLOEXEC)) < 0)
		return -errno;
	unlink(path);
	return fd;
}

int spill_write(struct spill *s, const void *base, size_t width, size_t count)
{
	const char *p = base;
	size_t left = width * count;
	int fd;

	s->width = 0;
	if (!width)
		return -EINVAL;
	if ((fd = unlinked_file()) < 0)
		return fd;
	while (left) {
		ssize_t w = write(fd, p, left);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? -errno : -ENOSPC;

			close(fd);
			return e;
		}
		p += w;
		left -= (size_t)w;
	}
	s->fd = fd;
	s->width = width;
	s->count = count;
	return 0;
}

static void *writer(void *arg)
{
	struct spill *s = arg;

	s->written_e = spill_write(s, s->base, s->base_width, s->count);
	return NULL;
}

void spill_start(struct spill *s, const void *base, size_t width, size_t count)
{
	s->width = 0;
	s->base = base;
	s->base_width = width;
	s->count = count;
	s->writing = !pthread_create(&s->writer, NULL, writer, s);
	if (!s->writing)
		s->written_e = spill_write(s, base, width, count);
}

int spill_finish(struct spill *s)
{
	if (!s->base)
		return -EINVAL; /* not begun */
	if (s->writing)
		pthread_join(s->writer, NULL);
	s->writing = 0;
	s->base = NULL;
	return s->written_e;
}

static int read_at(int fd, void *buf, size_t len, off_t at)
{
	char *p = buf;

	while (len) {
		ssize_t r = pread(fd, p, len, at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		p += r;
		len -= (size_t)r;
		at += r;
	}
	return 0;
}

int spill_read(const struct spill *s, size_t i, void *out)
{
	if (!s->width || i >= s->count)
		return -EINVAL;
	return read_at(s->fd, out, s->width, (off_t)(i * s->width));
}

void *spill_read_all(const struct spill *s)
{
	void *buf = s->width ? malloc(s->width * s->count + 1) : NULL;
	int e;

	if (!buf)
		return NULL;
	if ((e = read_at(s->fd, buf, s->width * s->count, 0))) {
		free(buf);
		errno = -e;
		return NULL;
	}
	return buf;
}

void spill_close(struct spill *s)
{
	spill_finish(s); /* a writer still running is waited for */
	if (s->width)
		close(s->fd);
	s->width = 0;
}
