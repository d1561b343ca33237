/* Reading JSON (json-c's objects), the one set of helpers: a missing key, a
 * NULL object or a value of the wrong type reads as absent (NULL, or the
 * default given). */
#ifndef OOMSCOPE_UTIL_JSONREAD_H
#define OOMSCOPE_UTIL_JSONREAD_H

#include <json-c/json.h>
#include <stdint.h>

struct json_object *jr_get(struct json_object *o, const char *key);
struct json_object *jr_arr(struct json_object *o, const char *key); /* an array, or NULL */
const char *jr_str(struct json_object *o, const char *key);
double jr_num(struct json_object *o, const char *key, double dflt);
/* whole numbers: a double in range is cut to one */
int64_t jr_int64(struct json_object *o, const char *key, int64_t dflt);
uint64_t jr_uint64(struct json_object *o, const char *key, uint64_t dflt);
int jr_bool(struct json_object *o, const char *key); /* true only for a JSON true */
int jr_is_num(struct json_object *v);                /* an int or a double */

#endif
