/* A push parser for hprof: fed bytes in chunks of any size (a record or
 * sub-record may span any number of chunks), it calls a visitor for the
 * header, each record, and each heap-dump sub-record. Memory stays bounded:
 * record bodies and array contents are passed through in pieces, only
 * sub-record headers (and class dumps, whose size is implied by their
 * contents) are held. Damaged input stops it with an error that gives the
 * byte offset and what was expected. */
#ifndef OOMSCOPE_HPROF_PARSER_H
#define OOMSCOPE_HPROF_PARSER_H

#include <stddef.h>
#include <stdint.h>
#include "hprof/hprof.h"

/* Marker of files written by `oomscope hprof strip`: the header string is
 * "OOMSCOPE STRIPPED <mode> <original format>", e.g.
 * "OOMSCOPE STRIPPED app JAVA PROFILE 1.0.2". Tools that only know
 * "JAVA PROFILE ..." refuse it instead of misreading it. */
#define HPROF_STRIP_MAGIC "OOMSCOPE STRIPPED "

struct hprof_header {
	char format[96];        /* the header string as written */
	char orig_format[32];   /* "JAVA PROFILE 1.0.2" (= format unless stripped) */
	char strip_mode[16];    /* "" unless stripped */
	unsigned id_size;       /* 4 or 8 */
	uint64_t time_ms;
	size_t len;             /* bytes of the header in the file */
};

struct hprof_record {
	uint8_t tag;
	uint32_t time;          /* microseconds since the header time */
	uint32_t len;           /* body length */
	uint64_t offset;        /* of the tag byte */
};

struct hprof_sub {
	uint8_t tag;
	uint64_t offset;        /* of the sub-tag byte */
	const uint8_t *head;    /* raw bytes from the sub-tag through the fixed fields */
	size_t head_len;        /* (a class dump is all head) */
	uint64_t payload_len;   /* bytes that follow through sub_data (instance fields, elements) */
	uint64_t id;            /* object/class/array id, or root's object id */
	uint64_t class_id;      /* instance: its class; object array: the array class */
	uint32_t count;         /* arrays: elements; instance: field bytes */
	uint8_t elem_type;      /* primitive arrays */
	uint32_t heap_id;       /* HEAP_DUMP_INFO: the heap that follows */
	uint64_t heap_name_id;
};

/* Callbacks return 0 to go on, anything else (a negative errno) to stop the
 * parse with that error. Any may be NULL. */
struct hprof_visitor {
	void *ctx;
	int (*header)(void *ctx, const struct hprof_header *h);
	int (*record_begin)(void *ctx, const struct hprof_record *r);
	int (*record_data)(void *ctx, const uint8_t *p, size_t n); /* body of non-heap records */
	int (*record_end)(void *ctx, const struct hprof_record *r);
	int (*sub_begin)(void *ctx, const struct hprof_sub *s);
	int (*sub_data)(void *ctx, const uint8_t *p, size_t n);    /* payload pieces */
	int (*sub_end)(void *ctx, const struct hprof_sub *s);
};

struct hprof_parser;

struct hprof_parser *hprof_parser_new(const struct hprof_visitor *v);
void hprof_parser_free(struct hprof_parser *p);
/* 0, or a negative errno (-EBADMSG for damaged input, or the visitor's). */
int hprof_parser_feed(struct hprof_parser *p, const void *buf, size_t n);
/* End of input: an error unless it ended between records. */
int hprof_parser_finish(struct hprof_parser *p);
/* After an error: "offset 1234: ..." */
const char *hprof_parser_error(const struct hprof_parser *p);
uint64_t hprof_parser_offset(const struct hprof_parser *p);
const struct hprof_header *hprof_parser_header(const struct hprof_parser *p);

/* Sub-record sizes, for writers: the fixed head of tag (0 if unknown or a
 * class dump). */
size_t hprof_sub_head_len(unsigned tag, unsigned id_size);

#endif
