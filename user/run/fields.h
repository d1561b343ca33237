/* One field list per record: a record's keys, in the file's order, each
 * with its kind and place in the struct, read by both the writer and the
 * reader, so the two cannot drift (run/timeline.c's records; what a record
 * has beyond flat fields, nested objects and lists, stays written and read
 * by hand beside them). */
#ifndef OOMSCOPE_RUN_FIELDS_H
#define OOMSCOPE_RUN_FIELDS_H

#include <stddef.h>
#include <stdint.h>

struct json;
struct json_object;

enum run_fk {
	RF_STR,      /* const char *: null when NULL; read NULL when absent */
	RF_STR_SET,  /* the same, written only when set */
	RF_I64,      /* int64_t: read RUN_NONE when absent */
	RF_I64_SET,  /* the same, written only when not RUN_NONE */
	RF_I64_0,    /* int64_t: read 0 when absent */
	RF_I64_NZ,   /* the same, written only when not 0 */
	RF_I64_M1,   /* int64_t: read -1 when absent */
	RF_I64_NN,   /* the same, written only when 0 or more */
	RF_INT_0,    /* int: read 0 when absent */
	RF_U64,      /* uint64_t: read 0 when absent */
	RF_U64_SET,  /* the same, written only when not 0 */
	RF_DBL,      /* double: read NAN when absent */
	RF_DBL_SET,  /* the same, written only when not NAN */
	RF_DBL_0,    /* double: read 0 when absent */
	RF_BOOL,     /* int: true or false; read true only for a JSON true */
};

struct run_field {
	const char *key;
	uint8_t kind;        /* enum run_fk */
	uint16_t off;        /* of the member in the record's struct */
};

/* A field of struct type's member, whose C type must be the kind's (else a
 * compile error: a negative array's size). */
#define RF_CTYPE_RF_STR const char *
#define RF_CTYPE_RF_STR_SET const char *
#define RF_CTYPE_RF_I64 int64_t
#define RF_CTYPE_RF_I64_SET int64_t
#define RF_CTYPE_RF_I64_0 int64_t
#define RF_CTYPE_RF_I64_NZ int64_t
#define RF_CTYPE_RF_I64_M1 int64_t
#define RF_CTYPE_RF_I64_NN int64_t
#define RF_CTYPE_RF_INT_0 int
#define RF_CTYPE_RF_U64 uint64_t
#define RF_CTYPE_RF_U64_SET uint64_t
#define RF_CTYPE_RF_DBL double
#define RF_CTYPE_RF_DBL_SET double
#define RF_CTYPE_RF_DBL_0 double
#define RF_CTYPE_RF_BOOL int
#define RF(kind, type, member, key)                                                                  \
	{key, kind,                                                                                  \
	 (uint16_t)(offsetof(type, member) +                                                         \
		    0 * sizeof(char[_Generic(((type *)0)->member, RF_CTYPE_##kind: 1, default: -1)]))}

/* A nested object of a record: its key, its fields (their offsets from
 * the record's start, RF(..., outer.member, ...)), written and read when
 * the record's int at has_off is not 0 (set on read when the object is
 * there). */
struct run_part {
	const char *key;
	uint16_t has_off;
	const struct run_field *fields;
	size_t n;
};
#define RUN_PART(type, has, key, list) {key, offsetof(type, has), list, RUN_FIELDS_N(list)}

/* The fields of rec, in order. */
void run_fields_write(struct json *j, const void *rec, const struct run_field *f, size_t n);
/* The fields of rec from o (absent ones as their kind says). */
void run_fields_read(struct json_object *o, void *rec, const struct run_field *f, size_t n);

/* The parts of rec, in order: each an object under its key. */
void run_parts_write(struct json *j, const void *rec, const struct run_part *p, size_t n);
void run_parts_read(struct json_object *o, void *rec, const struct run_part *p, size_t n);

#define RUN_FIELDS_N(a) (sizeof(a) / sizeof((a)[0]))

#endif
