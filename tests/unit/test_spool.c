/* The dump pump's spool (dump/spool.c): the bytes come out as they went in,
 * in order, whether held in memory or in the unlinked file beyond the
 * bound; with no folder the writer waits for the consumer instead; the
 * writer's error comes after its bytes; a consumer that gives up leaves
 * the writer unblocked. And the pump over it: a runtime's own dump (ART's
 * DumpHeap, which reports nothing) is whole only with its HEAP_DUMP_END. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdio.h>
#include "dump/pump.h"
#include "dump/spool.h"
#include "hprof/io.h"
#include "hprof/transform.h"
#include "tap.h"
#include "../tools/synth_hprof.h"

#define CHUNK 65536
#define CHUNKS 200 /* 12.5 MiB through a bound of 1 MiB */

static uint8_t byte_at(uint64_t i)
{
	return (uint8_t)(i * 2654435761u >> 13);
}

struct writer {
	struct spool *s;
	int chunks, err, fails;
};

static void *write_all(void *arg)
{
	struct writer *w = arg;
	uint8_t *buf = malloc(CHUNK);
	uint64_t at = 0;

	for (int c = 0; c < w->chunks; c++) {
		/* chunks of varying sizes, so reads cross their edges */
		size_t n = CHUNK - (size_t)(c % 7) * 1000;

		for (size_t i = 0; i < n; i++)
			buf[i] = byte_at(at + i);
		if (spool_put(w->s, buf, n))
			w->fails++;
		at += n;
	}
	spool_end(w->s, w->err);
	free(buf);
	return NULL;
}

/* Reads to the end in pieces of `piece`: the bytes, and whether all were right. */
static uint64_t read_all(struct spool *s, size_t piece, int *right, ssize_t *last)
{
	uint8_t *buf = malloc(piece);
	uint64_t at = 0;
	ssize_t n;

	*right = 1;
	while ((n = spool_get(s, buf, piece)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != byte_at(at + (uint64_t)i))
				*right = 0;
		at += (uint64_t)n;
	}
	*last = n;
	free(buf);
	return at;
}

static uint64_t total_bytes(int chunks)
{
	uint64_t t = 0;

	for (int c = 0; c < chunks; c++)
		t += CHUNK - (uint64_t)(c % 7) * 1000;
	return t;
}

int main(void)
{
	char dir[] = "/tmp/oomscope-spool-test.XXXXXX";
	struct spool s;
	struct writer w;
	pthread_t th;
	int right;
	ssize_t last;
	uint64_t got;

	if (!mkdtemp(dir))
		return 1;

	/* a slow consumer: the writer never waits, the rest goes to the file */
	spool_init(&s, 1 << 20, dir);
	w = (struct writer){&s, CHUNKS, 0, 0};
	write_all(&w); /* all of it before any read */
	TAP_EQ_INT(w.fails, 0, "every put taken with no reader yet");
	TAP_OK(s.spilled > total_bytes(CHUNKS) / 2, "beyond the bound, to the file (%llu bytes)",
	       (unsigned long long)s.spilled);
	TAP_OK(s.mem <= (1 << 20) + CHUNK, "memory within the bound (%zu bytes)", s.mem);
	got = read_all(&s, 12345, &right, &last);
	TAP_EQ_INT((long long)got, (long long)total_bytes(CHUNKS), "every byte out");
	TAP_OK(right, "in order, from memory and file alike");
	TAP_EQ_INT(last, 0, "then the end");
	spool_free(&s);

	/* no folder: the writer waits for the consumer, nothing is lost */
	spool_init(&s, 1 << 20, NULL);
	w = (struct writer){&s, CHUNKS, 0, 0};
	pthread_create(&th, NULL, write_all, &w);
	got = read_all(&s, 100000, &right, &last);
	pthread_join(th, NULL);
	TAP_EQ_INT((long long)got, (long long)total_bytes(CHUNKS), "memory only: every byte out");
	TAP_OK(right && s.spilled == 0, "in order, none in a file");
	spool_free(&s);

	/* the writer's error, after its bytes */
	spool_init(&s, 1 << 20, dir);
	w = (struct writer){&s, 3, -EPIPE, 0};
	write_all(&w);
	got = read_all(&s, CHUNK, &right, &last);
	TAP_EQ_INT((long long)got, (long long)total_bytes(3), "the bytes before the error");
	TAP_EQ_INT(last, -EPIPE, "then the error");
	spool_free(&s);

	/* the consumer gives up: the writer goes on, unblocked, and keeps nothing */
	spool_init(&s, 1 << 20, NULL);
	spool_discard(&s);
	w = (struct writer){&s, CHUNKS, 0, 0};
	write_all(&w);
	TAP_OK(s.mem == 0 && !s.head, "discarded: nothing held");
	spool_free(&s);

	/* the pump: a segmented dump as ART writes it, whole, then cut after its
	 * last segment (a DumpHeap that stopped between records) */
	{
		struct buf d = make_dump(4, 1);
		char out[] = "/tmp/test_pump.XXXXXX";
		int fd = mkstemp(out);

		for (int cut = 0; cut < 2; cut++) {
			struct dump_pump p;
			size_t n = d.len - (cut ? 9 : 0); /* the END record: tag, time, length */

			TAP_OK(fd >= 0 && ftruncate(fd, 0) == 0, "output %s", out);
			TAP_EQ_INT(dump_pump_start(&p, fd, HPROF_OP_STRIP_APP, HPROF_PLAIN, 0, 0, -1, dir), 0, "pump started");
			TAP_OK(write(p.wr, d.p, n) == (ssize_t)n, "%zu bytes written into the pipe", n);
			dump_pump_handed_over(&p); /* closes the write end: the pump sees the end */
			if (!cut) {
				TAP_EQ_INT(dump_pump_finish(&p), 0, "whole: taken (%s)", p.msg);
				TAP_OK(p.stripped_here && p.objects > 0, "stripped here, %llu objects",
				       (unsigned long long)p.objects);
			} else {
				TAP_EQ_INT(dump_pump_finish(&p), -EPIPE, "no HEAP_DUMP_END: refused");
				TAP_OK(strstr(p.msg, "stopped before its HEAP_DUMP_END record") != NULL, "%s", p.msg);
			}
		}
		close(fd);
		unlink(out);
		free(d.p);
	}

	/* the folder is left empty (the file was never linked) */
	TAP_OK(rmdir(dir) == 0, "no file left in the folder");
	return tap_done();
}
