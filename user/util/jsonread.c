/* Reading JSON (jsonread.h). */
#include "util/jsonread.h"

#include <math.h>

struct json_object *jr_get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

struct json_object *jr_arr(struct json_object *o, const char *key)
{
	struct json_object *v = jr_get(o, key);

	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

const char *jr_str(struct json_object *o, const char *key)
{
	struct json_object *v = jr_get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int jr_is_num(struct json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}

double jr_num(struct json_object *o, const char *key, double dflt)
{
	struct json_object *v = jr_get(o, key);

	return jr_is_num(v) ? json_object_get_double(v) : dflt;
}

int64_t jr_int64(struct json_object *o, const char *key, int64_t dflt)
{
	struct json_object *v = jr_get(o, key);

	if (!jr_is_num(v))
		return dflt;
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);

		return isfinite(d) && d > -9.2e18 && d < 9.2e18 ? (int64_t)d : dflt;
	}
	return json_object_get_int64(v);
}

uint64_t jr_uint64(struct json_object *o, const char *key, uint64_t dflt)
{
	struct json_object *v = jr_get(o, key);

	if (!jr_is_num(v))
		return dflt;
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);

		return isfinite(d) && d > 0 && d < 1.8e19 ? (uint64_t)d : dflt;
	}
	return json_object_get_uint64(v);
}

int jr_bool(struct json_object *o, const char *key)
{
	struct json_object *v = jr_get(o, key);

	return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}
