/* A small streaming JSON writer: objects and arrays nest, commas and string
 * escaping are handled here so callers only name keys and values. */
#ifndef OOMSCOPE_JSON_H
#define OOMSCOPE_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	int pretty;
	int count[JSON_MAX_DEPTH]; /* members written at each depth */
	int after_key;             /* a key was written; its value comes next */
};

void json_init(struct json *j, FILE *f, int pretty);
void json_obj(struct json *j);          /* { */
void json_obj_end(struct json *j);      /* } */
void json_arr(struct json *j);          /* [ */
void json_arr_end(struct json *j);      /* ] */
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);      /* NULL writes null */
void json_int(struct json *j, int64_t v);
void json_uint(struct json *j, uint64_t v);
void json_dbl(struct json *j, double v);
/* v with a fixed number of decimals ("%.*f": timestamps in microseconds
 * stay whole numbers, not 6e+08); not finite: null */
void json_fixed(struct json *j, double v, int decimals);
void json_boolean(struct json *j, int v);
void json_null(struct json *j);
void json_hex(struct json *j, uint64_t v);         /* "0x..." string */
/* Finish a top-level value with a newline (one JSON object per line). */
void json_end_line(struct json *j);

/* key + value shorthands */
void json_kstr(struct json *j, const char *k, const char *s);
void json_kint(struct json *j, const char *k, int64_t v);
void json_kuint(struct json *j, const char *k, uint64_t v);
void json_kdbl(struct json *j, const char *k, double v);
void json_kfixed(struct json *j, const char *k, double v, int decimals);
void json_kbool(struct json *j, const char *k, int v);
void json_khex(struct json *j, const char *k, uint64_t v);

#endif
