/* allocs.json: writer beside reader. */
#include "run/allocs.h"
#include "run/records.h"
#include "util/json.h"
#include "util/jsonread.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void run_allocs_begin(struct json *j, const struct run_allocs_head *h)
{
	json_obj(j);
	json_kstr(j, "type", "allocs");
	json_kuint(j, "threshold_bytes", h->threshold_bytes);
	json_kstr(j, "mode", h->mode);
	json_kbool(j, "return_probes", h->return_probes);
	json_kuint(j, "stack_depth", h->stack_depth);
	json_kuint(j, "count", h->count);
	json_kuint(j, "frees_without_record", h->frees_without_record);
	json_key(j, "groups");
	json_arr(j);
}

static void read_head(struct json_object *o, struct run_allocs_head *h)
{
	h->threshold_bytes = jr_uint64(o, "threshold_bytes", 0);
	h->mode = jr_str(o, "mode");
	h->return_probes = jr_bool(o, "return_probes");
	h->stack_depth = jr_uint64(o, "stack_depth", 0);
	h->count = jr_uint64(o, "count", 0);
	h->frees_without_record = jr_uint64(o, "frees_without_record", 0);
}

void run_alloc_group_write(struct json *j, const struct run_alloc_group *g)
{
	json_obj(j);
	json_kuint(j, "stack_id", g->stack_id);
	json_kuint(j, "count", g->count);
	json_kuint(j, "total_bytes", g->total_bytes);
	json_kuint(j, "largest_bytes", g->largest_bytes);
	if (g->has_live)
		json_kuint(j, "live_bytes", g->live_bytes);
	json_key(j, "functions");
	json_arr(j);
	for (size_t i = 0; i < g->nfunctions; i++)
		json_str(j, g->functions[i]);
	json_arr_end(j);
	json_kstr(j, "allocated_by", g->allocated_by);
	if (g->write_frames)
		g->write_frames(j, g->frames_ctx);
	else {
		run_frames_open(j);
		for (size_t i = 0; i < g->frames.n; i++)
			run_frame_write(j, &g->frames.v[i]);
		json_arr_end(j);
	}
	json_obj_end(j);
}

static int read_group(struct json_object *o, struct run_alloc_group *g)
{
	struct json_object *fns = jr_arr(o, "functions");

	memset(g, 0, sizeof(*g));
	g->stack_id = jr_uint64(o, "stack_id", 0);
	g->count = jr_uint64(o, "count", 0);
	g->total_bytes = jr_uint64(o, "total_bytes", 0);
	g->largest_bytes = jr_uint64(o, "largest_bytes", 0);
	g->has_live = jr_is_num(jr_get(o, "live_bytes"));
	g->live_bytes = jr_uint64(o, "live_bytes", 0);
	for (size_t i = 0; fns && i < json_object_array_length(fns) && g->nfunctions < RUN_ALLOC_FUNCTIONS; i++) {
		struct json_object *f = json_object_array_get_idx(fns, i);

		if (json_object_is_type(f, json_type_string))
			g->functions[g->nfunctions++] = json_object_get_string(f);
	}
	g->allocated_by = jr_str(o, "allocated_by");
	return run_frames_read(o, &g->frames);
}

void run_allocs_between(struct json *j)
{
	json_arr_end(j);
	json_key(j, "allocations");
	json_arr(j);
}

void run_alloc_fields(struct json *j, const struct run_alloc *a)
{
	json_kdbl(j, "t", a->t);
	json_kuint(j, "bytes", a->bytes);
	json_kstr(j, "function", a->function);
	json_kuint(j, "tid", a->tid);
	json_kstr(j, "thread", a->thread);
	if (a->address)
		json_khex(j, "address", a->address);
	else
		json_kstr(j, "address", NULL);
	json_kstr(j, "state", a->state);
	json_kstr(j, "allocated_by", a->allocated_by);
	json_kuint(j, "stack_id", a->stack_id);
}

void run_alloc_write(struct json *j, const struct run_alloc *a)
{
	json_obj(j);
	run_alloc_fields(j, a);
	json_obj_end(j);
}

void run_alloc_record(struct json *j, const struct run_alloc *a, double t_seen, int freed,
		      void (*write_frames)(struct json *j, void *ctx), void *ctx)
{
	json_obj(j);
	json_kstr(j, "type", freed ? "alloc_freed" : run_rec_name(REC_BIG_ALLOC));
	json_kdbl(j, "t_seen", t_seen);
	run_alloc_fields(j, a);
	json_key(j, "stack");
	json_obj(j);
	write_frames(j, ctx);
	json_obj_end(j);
	json_obj_end(j);
}

static void read_alloc(struct json_object *o, struct run_alloc *a)
{
	const char *addr = jr_str(o, "address");

	a->t = jr_num(o, "t", NAN);
	a->bytes = jr_uint64(o, "bytes", 0);
	a->function = jr_str(o, "function");
	a->tid = jr_uint64(o, "tid", 0);
	a->thread = jr_str(o, "thread");
	a->address = addr ? strtoull(addr, NULL, 16) : 0;
	a->state = jr_str(o, "state");
	a->allocated_by = jr_str(o, "allocated_by");
	a->stack_id = jr_uint64(o, "stack_id", 0);
}

void run_allocs_end(struct json *j)
{
	json_arr_end(j);
	json_obj_end(j);
}

int run_allocs_read(struct json_object *doc, struct run_allocs *out)
{
	struct json_object *gs = jr_arr(doc, "groups"), *as = jr_arr(doc, "allocations");
	size_t ng = gs ? json_object_array_length(gs) : 0, na = as ? json_object_array_length(as) : 0;

	memset(out, 0, sizeof(*out));
	if (!doc || !json_object_is_type(doc, json_type_object))
		return -EINVAL;
	read_head(doc, &out->head);
	if ((ng && !(out->groups = calloc(ng, sizeof(*out->groups)))) ||
	    (na && !(out->allocations = calloc(na, sizeof(*out->allocations))))) {
		run_allocs_free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ng; i++)
		if (read_group(json_object_array_get_idx(gs, i), &out->groups[out->ngroups++])) {
			run_allocs_free(out);
			return -ENOMEM;
		}
	for (size_t i = 0; i < na; i++)
		read_alloc(json_object_array_get_idx(as, i), &out->allocations[out->nallocations++]);
	return 0;
}

void run_allocs_free(struct run_allocs *a)
{
	for (size_t i = 0; i < a->ngroups; i++)
		run_frames_free(&a->groups[i].frames);
	free(a->groups);
	free(a->allocations);
	memset(a, 0, sizeof(*a));
}
