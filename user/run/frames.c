/* A stack's frames in the run directory's files: writer beside reader. */
#include "run/frames.h"

#include <inttypes.h>
#include <stdio.h>
#include "util/json.h"
#include "util/jsonread.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hex(const char *s)
{
	return s ? strtoull(s, NULL, 16) : 0;
}

void run_frames_open(struct json *j)
{
	json_key(j, "frames");
	json_arr(j);
}

void run_frame_write(struct json *j, const struct run_frame *f)
{
	json_obj(j);
	json_khex(j, "addr", f->addr);
	json_kstr(j, "module", f->module);
	if (f->module) {
		json_khex(j, "base", f->base);
		json_kuint(j, "offset", f->offset);
	}
	json_kstr(j, "symbol", f->symbol);
	if (f->jit)
		json_kbool(j, "jit", 1);
	if (f->demangled)
		json_kstr(j, "demangled", f->demangled);
	if (f->sym_offset >= 0)
		json_kuint(j, "sym_offset", (uint64_t)f->sym_offset);
	if (f->build_id)
		json_kstr(j, "build_id", f->build_id);
	json_kstr(j, "text", f->text);
	json_obj_end(j);
}

void run_frame_read(struct json_object *o, struct run_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->addr = hex(jr_str(o, "addr"));
	f->module = jr_str(o, "module");
	f->base = hex(jr_str(o, "base"));
	f->offset = jr_uint64(o, "offset", 0);
	f->symbol = jr_str(o, "symbol");
	f->jit = jr_bool(o, "jit");
	f->demangled = jr_str(o, "demangled");
	f->sym_offset = jr_int64(o, "sym_offset", -1);
	f->build_id = jr_str(o, "build_id");
	f->text = jr_str(o, "text");
	{
		const char *base = f->module ? strrchr(f->module, '/') : NULL, *name = f->demangled ? f->demangled : f->symbol;

		base = base ? base + 1 : f->module;
		if (name && base)
			snprintf(f->label, sizeof(f->label), "%s (%s)", name, base);
		else if (name)
			snprintf(f->label, sizeof(f->label), "%s", name);
		else if (base)
			snprintf(f->label, sizeof(f->label), "%s+0x%" PRIx64, base, f->offset);
		else
			snprintf(f->label, sizeof(f->label), "0x%" PRIx64, f->addr);
	}
}

int run_frames_read(struct json_object *obj, struct run_frames *out)
{
	struct json_object *arr = jr_arr(obj, "frames");
	size_t n = arr ? json_object_array_length(arr) : 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return 0;
	if (!(out->v = calloc(n, sizeof(*out->v))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		run_frame_read(json_object_array_get_idx(arr, i), &out->v[out->n++]);
	return 0;
}

void run_frames_free(struct run_frames *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}

void run_java_stack_missing(struct json *j, const char *why)
{
	json_kstr(j, "java_stack", why);
}

void run_java_frames_write(struct json *j, const char *joined)
{
	json_key(j, "java_frames");
	json_arr(j);
	for (const char *p = joined; p && *p;) {
		size_t n = strcspn(p, ";");
		char frame[1024];

		snprintf(frame, sizeof(frame), "%.*s", (int)n, p);
		json_str(j, frame);
		p += n + (p[n] == ';');
	}
	json_arr_end(j);
}

size_t run_java_frames_count(struct json_object *obj)
{
	struct json_object *a = jr_arr(obj, "java_frames");

	return a ? json_object_array_length(a) : 0;
}

const char *run_java_frame(struct json_object *obj, size_t i)
{
	struct json_object *a = jr_arr(obj, "java_frames"), *v = a ? json_object_array_get_idx(a, i) : NULL;

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

struct json_object *run_frames_for_signature(struct json_object *obj)
{
	struct json_object *java = jr_arr(obj, "java_frames");

	return java ? java : jr_arr(obj, "frames");
}

const char *run_frames_sig_name(struct json_object *arr, size_t i, int *is_module)
{
	struct json_object *f = arr ? json_object_array_get_idx(arr, i) : NULL;

	*is_module = 0;
	if (!f)
		return NULL;
	if (json_object_is_type(f, json_type_string))
		return json_object_get_string(f);
	if (jr_str(f, "symbol"))
		return jr_str(f, "symbol");
	*is_module = 1;
	return jr_str(f, "module");
}

int run_frame_module_offset(struct json_object *frame, const char **module, uint64_t *offset, const char **build_id,
			    const char **text)
{
	if (!json_object_is_type(frame, json_type_object) || !jr_is_num(jr_get(frame, "offset")))
		return -1;
	*offset = jr_uint64(frame, "offset", 0);
	*module = jr_str(frame, "module");
	*build_id = jr_str(frame, "build_id");
	*text = jr_str(frame, "text");
	return 0;
}

void run_frame_set_found(struct json_object *frame, const struct run_frame_found *found)
{
	if (found->symbol && found->symbol[0]) {
		json_object_object_add(frame, "symbol", json_object_new_string(found->symbol));
		if (found->demangled)
			json_object_object_add(frame, "demangled", json_object_new_string(found->demangled));
		json_object_object_add(frame, "sym_offset", json_object_new_int64((int64_t)found->sym_offset));
	}
	if (found->file && found->line) {
		json_object_object_add(frame, "file", json_object_new_string(found->file));
		json_object_object_add(frame, "line", json_object_new_int(found->line));
	}
	json_object_object_add(frame, "symbolized_from", json_object_new_string(found->from));
	if (found->text)
		json_object_object_add(frame, "text", json_object_new_string(found->text));
}

void run_frames_walk(struct json_object *doc, void (*fn)(struct json_object *frames, void *ctx), void *ctx)
{
	if (json_object_is_type(doc, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(doc); i++)
			run_frames_walk(json_object_array_get_idx(doc, i), fn, ctx);
	} else if (json_object_is_type(doc, json_type_object)) {
		json_object_object_foreach(doc, key, val)
		{
			if (!strcmp(key, "frames") && json_object_is_type(val, json_type_array))
				fn(val, ctx);
			else
				run_frames_walk(val, fn, ctx);
		}
	}
}
