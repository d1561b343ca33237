/* Builds an hprof byte stream from records, for producers that walk a heap
 * themselves (the shim's fork-dump child): top-level records with their
 * lengths, heap sub-records gathered into HEAP_DUMP_SEGMENTs of about
 * seg_cap bytes (a larger sub-record gets a segment of its own). The bytes
 * go to a callback (a strip stream, a file); no I/O here. Big-endian, as
 * the format says. */
#ifndef OOMSCOPE_HPROF_EMIT_H
#define OOMSCOPE_HPROF_EMIT_H

#include <stddef.h>
#include <stdint.h>

typedef int (*hprof_emit_out_fn)(void *ctx, const void *buf, size_t n);

struct hprof_emit {
	hprof_emit_out_fn out;
	void *ctx;
	unsigned id_size;
	uint8_t *seg;           /* the open segment's body */
	size_t seg_len, seg_cap;
	uint8_t *big;           /* a sub-record larger than seg_cap, built alone */
	size_t big_cap;
	size_t big_len;         /* bytes of the pending big sub-record (0: none) */
	uint64_t bytes;         /* bytes given to out */
	uint64_t subs;          /* heap sub-records emitted */
	int err;                /* first error; later calls do nothing */
};

int hprof_emit_init(struct hprof_emit *e, hprof_emit_out_fn out, void *ctx, unsigned id_size, size_t seg_cap);
void hprof_emit_free(struct hprof_emit *e);
/* "JAVA PROFILE 1.0.2" etc. */
int hprof_emit_header(struct hprof_emit *e, const char *format, uint64_t time_ms);
/* A top-level record (not heap): tag and body. */
int hprof_emit_record(struct hprof_emit *e, uint8_t tag, const void *body, uint32_t len);
/* Room for a heap sub-record of len bytes (tag included), to fill before the
 * next call; NULL after an error. */
uint8_t *hprof_emit_sub(struct hprof_emit *e, size_t len);
/* Closes the open segment and writes HEAP_DUMP_END. */
int hprof_emit_heap_end(struct hprof_emit *e);

/* Big-endian stores; each returns the position after what it wrote. */
uint8_t *hprof_put1(uint8_t *p, uint8_t v);
uint8_t *hprof_put2(uint8_t *p, uint16_t v);
uint8_t *hprof_put4(uint8_t *p, uint32_t v);
uint8_t *hprof_put8(uint8_t *p, uint64_t v);
uint8_t *hprof_put_id(uint8_t *p, uint64_t id, unsigned id_size);

#endif
