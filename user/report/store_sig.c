/* A finding's signature (store_int.h): the kind of finding and the
 * function names of its stack's top frames (a frame without a symbol counts
 * by its module's name, never by an address or an offset), so that it stays
 * the same across builds where the code did not change. */
#define _GNU_SOURCE
#include "report/store_int.h"

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "run/frames.h"
#include "util/hash.h"

#define SIG_FRAMES 5

/* The module's file name of a frame ("libc.so.6" of "/usr/lib/x86_64-linux-gnu/libc.so.6"). */
static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

void store_sign(const char *what, const char *const *names, size_t n, char out[STORE_SIG_LEN + 1])
{
	uint64_t h = fnv1a_str(FNV1A_BASIS, what);

	for (size_t i = 0, used = 0; i < n && used < SIG_FRAMES; i++) {
		if (!names[i])
			continue;
		h = fnv1a_str(fnv1a_str(h, "|"), names[i]);
		used++;
	}
	snprintf(out, STORE_SIG_LEN + 1, "%016llx", (unsigned long long)h);
}

void store_signature(const char *what, struct json_object *frames, char out[STORE_SIG_LEN + 1])
{
	const char *names[SIG_FRAMES];
	size_t n = frames && json_object_is_type(frames, json_type_array) ? json_object_array_length(frames) : 0, k = 0;

	for (size_t i = 0; i < n && k < SIG_FRAMES; i++) {
		int is_module;
		const char *name = run_frames_sig_name(frames, i, &is_module);

		if ((name = is_module ? base_name(name) : name))
			names[k++] = name;
	}
	store_sign(what, names, k, out);
}

/* The same of a stack read: each frame's symbol, else its module's name. */
void store_frames_signature(const char *what, const struct run_frames *fr, char out[STORE_SIG_LEN + 1])
{
	const char *names[SIG_FRAMES];
	size_t k = 0;

	for (size_t i = 0; i < fr->n && k < SIG_FRAMES; i++) {
		const char *name = fr->v[i].symbol ? fr->v[i].symbol : base_name(fr->v[i].module);

		if (name)
			names[k++] = name;
	}
	store_sign(what, names, k, out);
}
