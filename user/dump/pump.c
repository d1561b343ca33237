#define _GNU_SOURCE
#include "dump/pump.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "hprof/io.h"
#include "hprof/stream.h"

/* What the spool holds in memory before it goes to a file (spool.h) */
#define SPOOL_MEM ((size_t)64 << 20)
#define PUMP_NICE 10

#define CHUNK (1u << 20)
#define STRIPPED_MAGIC "OOMSCOPE STRIPPED"

/* The pipe's reader: everything the writer sends, at once, into the spool. */
static void *reader_main(void *arg)
{
	struct dump_pump *p = arg;
	uint8_t *buf = malloc(CHUNK);
	int got = 0, err = 0;

	if (!buf) {
		spool_end(&p->spool, -ENOMEM);
		return NULL;
	}
	for (;;) {
		struct pollfd f[2] = {{p->rd, POLLIN, 0}, {p->cancel_fd, POLLIN, 0}};
		ssize_t n;

		/* cancelled while nothing came (an armed dump whose OutOfMemoryError
		 * never did); once the dump flows it is written to its end */
		if (poll(f, p->cancel_fd >= 0 && !got ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (p->cancel_fd >= 0 && !got && f[1].revents && !(f[0].revents & POLLIN)) {
			err = -ECANCELED;
			break;
		}
		n = read(p->rd, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		got = 1;
		if ((err = spool_put(&p->spool, buf, (size_t)n)))
			break;
	}
	spool_end(&p->spool, err);
	free(buf);
	return NULL;
}

static void *pump_main(void *arg)
{
	struct dump_pump *p = arg;

	/* This thread only (a Linux thread has its own nice): the compressor
	 * yields the CPUs to the app and to the fork-dump's copy, whose life
	 * is the app's copy-on-write; the spool holds what it has not taken.
	 * Measured under churn on 2 CPUs (docs/benchmarks.md): the copy 4.0
	 * million objects a second instead of 2.8, the app's longest GC pause
	 * 213 ms instead of 464. */
	setpriority(PRIO_PROCESS, (id_t)gettid(), PUMP_NICE);
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
		/* the first bytes say whose hprof it is: the header first, whole */
		ssize_t n = spool_get(&p->spool, buf + head, started ? CHUNK : sizeof(STRIPPED_MAGIC) - 1 - head);

		if (n < 0) {
			p->err = (int)n;
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
	if (p->err)
		spool_discard(&p->spool); /* the writer is not left blocked */
	if (started && !p->err)
		p->err = whole ? hprof_strip_stream_finish(&strip) : hprof_sink_finish(&sink);
	/* the runtime's own dump (ART's DumpHeap) says nothing of how it went:
	 * its stream does (ART ends it with HEAP_DUMP_END, then fails only on
	 * the fdatasync a pipe refuses, after every byte is out) */
	if (started && !p->err && whole && strip.t.segmented && !strip.t.heap_ended) {
		p->err = -EPIPE;
		snprintf(p->msg, sizeof(p->msg), "the runtime's dump stopped before its HEAP_DUMP_END record (%" PRIu64
			 " bytes, %" PRIu64 " objects): incomplete", p->bytes_in, strip.t.objects);
	}
	if (started) {
		if (whole && p->err && strip.msg[0])
			snprintf(p->msg, sizeof(p->msg), "%s", strip.msg);
		p->bytes_out = whole ? strip.sink.bytes_out : sink.bytes_out;
		p->objects = whole ? strip.t.objects : 0;
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

int dump_pump_start(struct dump_pump *p, int out_fd, int op, int codec, int level, uint32_t text_bytes, int cancel_fd,
		    const char *spool_dir)
{
	int fds[2];

	memset(p, 0, sizeof(*p));
	p->rd = p->wr = -1;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
	p->rd = fds[0];
	p->wr = fds[1];
	p->out_fd = out_fd;
	p->op = op;
	p->codec = codec;
	p->level = level;
	p->text_bytes = text_bytes;
	p->cancel_fd = cancel_fd;
	spool_init(&p->spool, SPOOL_MEM, spool_dir);
	if (pthread_create(&p->reader, NULL, reader_main, p) != 0) {
		spool_free(&p->spool);
		close(fds[0]);
		close(fds[1]);
		p->rd = p->wr = -1;
		return -EAGAIN;
	}
	if (pthread_create(&p->th, NULL, pump_main, p) != 0) {
		/* the reader ends when the pipe does */
		close(fds[1]);
		p->wr = -1;
		pthread_join(p->reader, NULL);
		spool_free(&p->spool);
		close(fds[0]);
		p->rd = -1;
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
	if (p->running) {
		pthread_join(p->reader, NULL);
		pthread_join(p->th, NULL);
		p->spilled = p->spool.spilled;
		spool_free(&p->spool);
	}
	p->running = 0;
	if (p->rd >= 0)
		close(p->rd);
	p->rd = -1;
	return p->err;
}
