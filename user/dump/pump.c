#define _GNU_SOURCE
#include "dump/pump.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hprof/io.h"
#include "hprof/stream.h"

#define CHUNK (1u << 20)
#define STRIPPED_MAGIC "OOMSCOPE STRIPPED"

static void *pump_main(void *arg)
{
	struct dump_pump *p = arg;
	uint8_t *buf = malloc(CHUNK);
	struct hprof_strip_stream strip;
	struct hprof_sink sink;
	int started = 0, whole = 0;
	size_t head = 0;

	if (!buf) {
		p->err = -ENOMEM;
		return NULL;
	}
	for (;;) {
		struct pollfd f[2] = {{p->rd, POLLIN, 0}, {p->cancel_fd, POLLIN, 0}};
		ssize_t n;

		/* cancelled while nothing came (an armed dump whose OutOfMemoryError
		 * never did); once the dump flows it is written to its end */
		if (poll(f, p->cancel_fd >= 0 && !started ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			p->err = -errno;
			break;
		}
		if (p->cancel_fd >= 0 && !started && f[1].revents && !(f[0].revents & POLLIN)) {
			p->err = -ECANCELED;
			break;
		}
		/* the first bytes say whose hprof it is: the header first, whole */
		n = read(p->rd, buf + head, started ? CHUNK : sizeof(STRIPPED_MAGIC) - 1 - head);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			p->err = -errno;
			break;
		}
		if (n == 0 && !started && head == 0)
			break; /* nothing came: the writer failed, and says so elsewhere */
		if (!started) {
			head += (size_t)n;
			if (n && head < sizeof(STRIPPED_MAGIC) - 1)
				continue;
			whole = memcmp(buf, STRIPPED_MAGIC, sizeof(STRIPPED_MAGIC) - 1) != 0;
			p->err = whole ? hprof_strip_stream_open(&strip, p->out_fd, p->op, p->codec, p->level)
				       : hprof_sink_open(&sink, p->out_fd, p->codec, p->level);
			if (p->err)
				break;
			if (whole)
				strip.t.text_bytes = p->text_bytes;
			started = 1;
			p->stripped_here = whole;
			n = (ssize_t)head;
			head = 0; /* from now on each read fills buf from its start */
		}
		if (n == 0)
			break;
		p->bytes_in += (uint64_t)n;
		p->err = whole ? hprof_strip_stream_feed(&strip, buf, (size_t)n) : hprof_sink_write(&sink, buf, (size_t)n);
		if (p->err)
			break;
	}
	if (started && !p->err)
		p->err = whole ? hprof_strip_stream_finish(&strip) : hprof_sink_finish(&sink);
	if (started) {
		if (whole && p->err && strip.msg[0])
			snprintf(p->msg, sizeof(p->msg), "%s", strip.msg);
		p->bytes_out = whole ? strip.sink.bytes_out : sink.bytes_out;
		if (whole)
			hprof_strip_stream_free(&strip);
		else
			hprof_sink_free(&sink);
	}
	if (p->err && !p->msg[0])
		snprintf(p->msg, sizeof(p->msg), "%s", strerror(-p->err));
	free(buf);
	return NULL;
}

int dump_pump_start(struct dump_pump *p, int out_fd, int op, int codec, int level, uint32_t text_bytes, int cancel_fd)
{
	int fds[2];

	memset(p, 0, sizeof(*p));
	p->rd = p->wr = -1;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	/* a large pipe: the child writes ahead while the compressor catches up */
	fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
	p->rd = fds[0];
	p->wr = fds[1];
	p->out_fd = out_fd;
	p->op = op;
	p->codec = codec;
	p->level = level;
	p->text_bytes = text_bytes;
	p->cancel_fd = cancel_fd;
	if (pthread_create(&p->th, NULL, pump_main, p) != 0) {
		close(fds[0]);
		close(fds[1]);
		p->rd = p->wr = -1;
		return -EAGAIN;
	}
	p->running = 1;
	return 0;
}

void dump_pump_handed_over(struct dump_pump *p)
{
	if (p->wr >= 0)
		close(p->wr);
	p->wr = -1;
}

int dump_pump_finish(struct dump_pump *p)
{
	dump_pump_handed_over(p);
	if (p->running)
		pthread_join(p->th, NULL);
	p->running = 0;
	if (p->rd >= 0)
		close(p->rd);
	p->rd = -1;
	return p->err;
}
