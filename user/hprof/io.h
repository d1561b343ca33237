/* Byte streams for the hprof tools: a sink that writes plain or gzip (zlib)
 * to a file descriptor, and a source that reads plain or gzip input alike.
 * Built with HPROF_PLAIN_ONLY (the shim, which links no library), the sink
 * writes plain bytes only and there is no source. */
#ifndef OOMSCOPE_HPROF_IO_H
#define OOMSCOPE_HPROF_IO_H

#include <stddef.h>
#include <stdint.h>
#ifndef HPROF_PLAIN_ONLY
#include <lzma.h>
#include <zlib.h>
#endif

enum hprof_codec { HPROF_PLAIN, HPROF_GZIP, HPROF_XZ };

struct hprof_sink {
	int fd;
	int gzip;            /* enum hprof_codec */
#ifndef HPROF_PLAIN_ONLY
	z_stream z;
	lzma_stream x;
#endif
	uint8_t *buf;        /* plain: pending bytes; gzip: compressed output */
	size_t len, cap;
	uint64_t bytes_in;   /* uncompressed bytes written */
	uint64_t bytes_out;  /* bytes that reached fd */
};

/* gzip: enum hprof_codec; level: zlib 1..9, or xz preset 0..9. 0 or -errno. */
int hprof_sink_open(struct hprof_sink *s, int fd, int gzip, int level);
int hprof_sink_write(struct hprof_sink *s, const void *p, size_t n);
/* Flushes everything (and the gzip trailer). Does not close fd. 0 or -errno. */
int hprof_sink_finish(struct hprof_sink *s);
void hprof_sink_free(struct hprof_sink *s);

#ifndef HPROF_PLAIN_ONLY

struct hprof_source {
	int fd;
	int gzip;            /* input started with the gzip magic (1), or plain bytes left from the sniff (-1) */
	int xz;              /* input started with the xz magic */
	z_stream z;
	lzma_stream x;
	uint8_t *in;
	size_t in_cap;
	int eof;
	uint64_t bytes_read; /* from fd */
};

int hprof_source_open(struct hprof_source *s, int fd);
/* Up to cap bytes of (decompressed) input into buf: count, 0 at the end, -errno.
 * -EBADMSG for corrupt gzip data. */
long hprof_source_read(struct hprof_source *s, void *buf, size_t cap);
void hprof_source_free(struct hprof_source *s);
#endif

#endif
