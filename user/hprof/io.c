#include "hprof/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SINK_BUF (1u << 20)
#define SOURCE_BUF (1u << 20)

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int hprof_sink_open(struct hprof_sink *s, int fd, int gzip, int level)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->gzip = gzip;
	s->cap = SINK_BUF;
	s->buf = malloc(s->cap);
	if (!s->buf)
		return -ENOMEM;
#ifdef HPROF_PLAIN_ONLY
	if (gzip != HPROF_PLAIN) {
		free(s->buf);
		s->buf = NULL;
		return -ENOTSUP;
	}
	(void)level;
	return 0;
#else
	if (gzip == HPROF_XZ) {
		lzma_stream init = LZMA_STREAM_INIT;

		s->x = init;
		if (lzma_easy_encoder(&s->x, (uint32_t)level, LZMA_CHECK_CRC32) != LZMA_OK) {
			free(s->buf);
			s->buf = NULL;
			return -ENOMEM;
		}
		return 0;
	}
	/* windowBits 15 + 16: a gzip wrapper, so gunzip and zcat read it */
	if (gzip && deflateInit2(&s->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(s->buf);
		s->buf = NULL;
		return -ENOMEM;
	}
	return 0;
#endif
}

#ifndef HPROF_PLAIN_ONLY
static int deflate_some(struct hprof_sink *s, const void *p, size_t n, int flush)
{
	s->z.next_in = (Bytef *)p;
	s->z.avail_in = (uInt)n;
	do {
		int r;

		s->z.next_out = s->buf;
		s->z.avail_out = (uInt)s->cap;
		r = deflate(&s->z, flush);
		if (r == Z_STREAM_ERROR)
			return -EIO;
		size_t have = s->cap - s->z.avail_out;
		if (have) {
			int e = write_all(s->fd, s->buf, have);

			if (e)
				return e;
			s->bytes_out += have;
		}
		if (flush == Z_FINISH && r == Z_STREAM_END)
			break;
	} while (s->z.avail_in || s->z.avail_out == 0 || flush == Z_FINISH);
	return 0;
}

static int xz_some(struct hprof_sink *s, const void *p, size_t n, lzma_action act)
{
	s->x.next_in = p;
	s->x.avail_in = n;
	for (;;) {
		lzma_ret r;

		s->x.next_out = s->buf;
		s->x.avail_out = s->cap;
		r = lzma_code(&s->x, act);
		if (r != LZMA_OK && r != LZMA_STREAM_END)
			return r == LZMA_MEM_ERROR ? -ENOMEM : -EIO;
		size_t have = s->cap - s->x.avail_out;
		if (have) {
			int e = write_all(s->fd, s->buf, have);

			if (e)
				return e;
			s->bytes_out += have;
		}
		if (r == LZMA_STREAM_END || (act == LZMA_RUN && !s->x.avail_in && s->x.avail_out))
			return 0;
	}
}

#endif

int hprof_sink_write(struct hprof_sink *s, const void *p, size_t n)
{
	s->bytes_in += n;
#ifndef HPROF_PLAIN_ONLY
	if (s->gzip == HPROF_XZ)
		return xz_some(s, p, n, LZMA_RUN);
	if (s->gzip) {
		/* zlib's avail_in is 32-bit: feed in pieces */
		while (n) {
			size_t k = n > (1u << 30) ? (1u << 30) : n;
			int e = deflate_some(s, p, k, Z_NO_FLUSH);

			if (e)
				return e;
			p = (const uint8_t *)p + k;
			n -= k;
		}
		return 0;
	}
#endif
	if (s->len + n > s->cap) {
		int e = write_all(s->fd, s->buf, s->len);

		if (e)
			return e;
		s->bytes_out += s->len;
		s->len = 0;
		if (n >= s->cap) {
			e = write_all(s->fd, p, n);
			if (!e)
				s->bytes_out += n;
			return e;
		}
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

int hprof_sink_finish(struct hprof_sink *s)
{
	int e;

#ifndef HPROF_PLAIN_ONLY
	if (s->gzip == HPROF_XZ)
		return xz_some(s, NULL, 0, LZMA_FINISH);
	if (s->gzip)
		return deflate_some(s, NULL, 0, Z_FINISH);
#endif
	e = write_all(s->fd, s->buf, s->len);
	if (!e)
		s->bytes_out += s->len;
	s->len = 0;
	return e;
}

void hprof_sink_free(struct hprof_sink *s)
{
#ifndef HPROF_PLAIN_ONLY
	if (s->gzip == HPROF_XZ)
		lzma_end(&s->x);
	else if (s->gzip)
		deflateEnd(&s->z);
#endif
	free(s->buf);
	s->buf = NULL;
}

#ifndef HPROF_PLAIN_ONLY

int hprof_source_open(struct hprof_source *s, int fd)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->in_cap = SOURCE_BUF;
	s->in = malloc(s->in_cap);
	return s->in ? 0 : -ENOMEM;
}

static long read_some(struct hprof_source *s, uint8_t *buf, size_t cap)
{
	ssize_t r;

	do
		r = read(s->fd, buf, cap);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	s->bytes_read += (uint64_t)r;
	return r;
}

/* About 100 lines: one state machine over plain, gzip and xz input. */
long hprof_source_read(struct hprof_source *s, void *buf, size_t cap)
{
	if (s->xz) {
		for (;;) {
			lzma_ret r;

			if (s->eof)
				return 0;
			if (!s->x.avail_in) {
				long n = read_some(s, s->in, s->in_cap);

				if (n < 0)
					return n;
				if (n == 0)
					return -EBADMSG; /* xz stream cut short */
				s->x.next_in = s->in;
				s->x.avail_in = (size_t)n;
			}
			s->x.next_out = buf;
			s->x.avail_out = cap;
			r = lzma_code(&s->x, LZMA_RUN);
			if (r == LZMA_STREAM_END)
				s->eof = 1;
			else if (r != LZMA_OK)
				return r == LZMA_MEM_ERROR ? -ENOMEM : -EBADMSG;
			if (cap - s->x.avail_out)
				return (long)(cap - s->x.avail_out);
		}
	}
	if (s->bytes_read == 0 && !s->gzip && !s->eof) {
		/* sniff the gzip magic on the first read */
		long r = read_some(s, s->in, s->in_cap);

		if (r <= 0)
			return r;
		if (r >= 6 && !memcmp(s->in, "\xfd" "7zXZ\0", 6)) {
			lzma_stream init = LZMA_STREAM_INIT;

			s->x = init;
			if (lzma_stream_decoder(&s->x, UINT64_MAX, 0) != LZMA_OK)
				return -ENOMEM;
			s->xz = 1;
			s->x.next_in = s->in;
			s->x.avail_in = (size_t)r;
			return hprof_source_read(s, buf, cap);
		}
		if (r >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b) {
			if (inflateInit2(&s->z, 15 + 16) != Z_OK)
				return -ENOMEM;
			s->gzip = 1;
			s->z.next_in = s->in;
			s->z.avail_in = (uInt)r;
		} else {
			size_t k = (size_t)r < cap ? (size_t)r : cap;

			memcpy(buf, s->in, k);
			if ((size_t)r > k) { /* keep the rest for the next call */
				s->gzip = -1;
				s->z.next_in = s->in + k;
				s->z.avail_in = (uInt)(r - k);
			}
			return (long)k;
		}
	}
	if (s->gzip == -1) { /* plain input with bytes left from the sniff */
		size_t k = s->z.avail_in < cap ? s->z.avail_in : cap;

		memcpy(buf, s->z.next_in, k);
		s->z.next_in += k;
		s->z.avail_in -= (uInt)k;
		if (!s->z.avail_in)
			s->gzip = 0;
		return (long)k;
	}
	if (!s->gzip)
		return read_some(s, buf, cap);
	for (;;) {
		int r;

		if (s->eof)
			return 0;
		if (!s->z.avail_in) {
			long n = read_some(s, s->in, s->in_cap);

			if (n < 0)
				return n;
			if (n == 0)
				return -EBADMSG; /* gzip stream cut short */
			s->z.next_in = s->in;
			s->z.avail_in = (uInt)n;
		}
		s->z.next_out = buf;
		s->z.avail_out = (uInt)(cap > (1u << 30) ? (1u << 30) : cap);
		r = inflate(&s->z, Z_NO_FLUSH);
		if (r == Z_STREAM_END)
			s->eof = 1;
		else if (r != Z_OK && r != Z_BUF_ERROR)
			return -EBADMSG;
		size_t got = (cap > (1u << 30) ? (1u << 30) : cap) - s->z.avail_out;
		if (got)
			return (long)got;
	}
}

void hprof_source_free(struct hprof_source *s)
{
	if (s->xz)
		lzma_end(&s->x);
	if (s->gzip == 1)
		inflateEnd(&s->z);
	free(s->in);
	s->in = NULL;
}
#endif
