/* The field lists' writer and reader (fields.h). */
#include "run/fields.h"
#include "run/timeline.h"
#include "util/json.h"
#include "util/jsonread.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

#define AT(rec, f, type) ((type *)((char *)(rec) + (f)->off))
#define AT_C(rec, f, type) ((const type *)((const char *)(rec) + (f)->off))

void run_fields_write(struct json *j, const void *rec, const struct run_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++, f++) {
		switch ((enum run_fk)f->kind) {
		case RF_STR_SET:
			if (!*AT_C(rec, f, const char *))
				break;
			/* fall through */
		case RF_STR:
			json_kstr(j, f->key, *AT_C(rec, f, const char *));
			break;
		case RF_I64_SET:
			if (*AT_C(rec, f, int64_t) == RUN_NONE)
				break;
			json_kint(j, f->key, *AT_C(rec, f, int64_t));
			break;
		case RF_I64_NZ:
			if (!*AT_C(rec, f, int64_t))
				break;
			json_kint(j, f->key, *AT_C(rec, f, int64_t));
			break;
		case RF_I64_NN:
			if (*AT_C(rec, f, int64_t) < 0)
				break;
			json_kint(j, f->key, *AT_C(rec, f, int64_t));
			break;
		case RF_I64:
		case RF_I64_0:
		case RF_I64_M1:
			json_kint(j, f->key, *AT_C(rec, f, int64_t));
			break;
		case RF_INT_0:
			json_kint(j, f->key, *AT_C(rec, f, int));
			break;
		case RF_U64_SET:
			if (!*AT_C(rec, f, uint64_t))
				break;
			/* fall through */
		case RF_U64:
			json_kuint(j, f->key, *AT_C(rec, f, uint64_t));
			break;
		case RF_DBL_SET:
			if (isnan(*AT_C(rec, f, double)))
				break;
			/* fall through */
		case RF_DBL:
		case RF_DBL_0:
			json_kdbl(j, f->key, *AT_C(rec, f, double));
			break;
		case RF_BOOL:
			json_kbool(j, f->key, *AT_C(rec, f, int));
			break;
		}
	}
}

void run_fields_read(struct json_object *o, void *rec, const struct run_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++, f++) {
		switch ((enum run_fk)f->kind) {
		case RF_STR:
		case RF_STR_SET:
			*AT(rec, f, const char *) = jr_str(o, f->key);
			break;
		case RF_I64:
		case RF_I64_SET:
			*AT(rec, f, int64_t) = jr_int64(o, f->key, RUN_NONE);
			break;
		case RF_I64_0:
		case RF_I64_NZ:
			*AT(rec, f, int64_t) = jr_int64(o, f->key, 0);
			break;
		case RF_I64_M1:
		case RF_I64_NN:
			*AT(rec, f, int64_t) = jr_int64(o, f->key, -1);
			break;
		case RF_INT_0:
			*AT(rec, f, int) = (int)jr_int64(o, f->key, 0);
			break;
		case RF_U64:
		case RF_U64_SET:
			*AT(rec, f, uint64_t) = jr_uint64(o, f->key, 0);
			break;
		case RF_DBL:
		case RF_DBL_SET:
			*AT(rec, f, double) = jr_num(o, f->key, NAN);
			break;
		case RF_DBL_0:
			*AT(rec, f, double) = jr_num(o, f->key, 0);
			break;
		case RF_BOOL:
			*AT(rec, f, int) = jr_bool(o, f->key);
			break;
		}
	}
}

void run_parts_write(struct json *j, const void *rec, const struct run_part *p, size_t n)
{
	for (size_t i = 0; i < n; i++, p++) {
		if (!*(const int *)((const char *)rec + p->has_off))
			continue;
		json_key(j, p->key);
		json_obj(j);
		run_fields_write(j, rec, p->fields, p->n);
		json_obj_end(j);
	}
}

void run_parts_read(struct json_object *o, void *rec, const struct run_part *p, size_t n)
{
	for (size_t i = 0; i < n; i++, p++) {
		struct json_object *x = jr_get(o, p->key);
		int there = x && json_object_is_type(x, json_type_object);

		*(int *)((char *)rec + p->has_off) = there;
		if (there)
			run_fields_read(x, rec, p->fields, p->n);
	}
}
