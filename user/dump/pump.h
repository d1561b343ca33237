/* What the shim writes (plain hprof: its own, already stripped, on
 * HotSpot; the runtime's own, whole, on ART) read from a pipe by a thread
 * of oomscope's as fast as it comes, and written to the dump file
 * compressed by another, stripped on the way when it was not: the app's
 * process needs no zlib or liblzma, and its fork child does no more than
 * write, for no longer than its writing takes. */
#ifndef OOMSCOPE_DUMP_PUMP_H
#define OOMSCOPE_DUMP_PUMP_H

#include <pthread.h>
#include <stdint.h>

#include "dump/spool.h"

struct dump_pump {
	int rd, wr;            /* the pipe: wr goes to the shim, rd is read here */
	int out_fd;
	int op, codec, level;  /* strip mode (when the input is whole), output codec */
	uint32_t text_bytes;
	int cancel_fd;         /* readable: stop (-1: none) */
	struct spool spool;    /* the pipe's reader to the compressor */
	pthread_t reader, th;
	int running;
	/* results, once joined */
	int err;
	char msg[256];
	uint64_t bytes_in, bytes_out;
	int stripped_here;     /* the input was whole (ART): stripped by the pump */
	uint64_t spilled;      /* bytes the spool held in its file */
	uint64_t objects;      /* instance and array records, when stripped here */
};

/* Makes the pipe and starts the threads: one reads the pipe into a spool
 * at once (so the writer never waits for the compressor), one compresses
 * from it. spool_dir: a folder for what the spool holds beyond its memory
 * (an unlinked file; the output's), or NULL (the reader then waits). 0 or
 * -errno. */
int dump_pump_start(struct dump_pump *p, int out_fd, int op, int codec, int level, uint32_t text_bytes,
		    int cancel_fd, const char *spool_dir);
/* After the write end was passed: our copy closed, so the pump sees the
 * end when the writer's last copy closes. */
void dump_pump_handed_over(struct dump_pump *p);
/* Waits for the end of the input, flushes; p->err and p->msg say how it
 * went. Closes the pipe. 0 or -errno. */
int dump_pump_finish(struct dump_pump *p);

#endif
