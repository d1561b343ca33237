/* failures.json and its groups: writer beside reader. */
#include "run/failures.h"
#include "run/records.h"
#include "util/json.h"
#include "util/jsonread.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

void run_fail_group_write(struct json *j, const struct run_fail_group *g, int brief)
{
	json_kstr(j, "kind", g->kind);
	json_kstr(j, "syscall", g->syscall);
	json_kint(j, "kernel_stack_id", g->kernel_stack_id);
	json_kstr(j, "errno", g->err);
	json_kuint(j, "count", g->count);
	if (g->count_estimated)
		json_kbool(j, "count_estimated", 1);
	json_kdbl(j, "t_first", g->t_first);
	json_kdbl(j, "t_last", g->t_last);
	json_kuint(j, "tid", g->tid);
	json_kstr(j, "thread", g->thread);
	if (g->fds_open >= 0)
		json_kint(j, "fds_open", g->fds_open);
	if (g->threads >= 0)
		json_kint(j, "threads", g->threads);
	if (g->clone_flags >= 0)
		json_khex(j, "clone_flags", (uint64_t)g->clone_flags);
	if (g->bytes >= 0)
		json_kuint(j, "bytes", (uint64_t)g->bytes);
	json_kstr(j, "called_by", g->called_by);
	if (!brief && g->write_stacks)
		g->write_stacks(j, g->stacks_ctx);
}

void run_failure_record(struct json *j, const struct run_fail_group *g, const char *wrote)
{
	json_obj(j);
	json_kstr(j, "type", run_rec_name(REC_FAILURE));
	json_kdbl(j, "t", g->t_last);
	run_fail_group_write(j, g, 1);
	if (wrote)
		json_kstr(j, "wrote", wrote);
	json_obj_end(j);
}

int run_fail_group_read(struct json_object *o, struct run_fail_group *g)
{
	const char *flags = jr_str(o, "clone_flags");

	memset(g, 0, sizeof(*g));
	g->obj = o;
	g->kind = jr_str(o, "kind");
	g->syscall = jr_str(o, "syscall");
	g->kernel_stack_id = jr_int64(o, "kernel_stack_id", -1);
	g->err = jr_str(o, "errno");
	g->count = jr_uint64(o, "count", 0);
	g->count_estimated = jr_bool(o, "count_estimated");
	g->t_first = jr_num(o, "t_first", 0);
	g->t_last = jr_num(o, "t_last", 0);
	g->tid = jr_uint64(o, "tid", 0);
	g->thread = jr_str(o, "thread");
	g->fds_open = jr_int64(o, "fds_open", -1);
	g->threads = jr_int64(o, "threads", -1);
	g->clone_flags = flags ? (int64_t)strtoull(flags, NULL, 16) : -1;
	g->bytes = jr_int64(o, "bytes", -1);
	g->called_by = jr_str(o, "called_by");
	return run_frames_read(o, &g->frames);
}

void run_fail_group_free(struct run_fail_group *g)
{
	run_frames_free(&g->frames);
}

void run_failures_begin(struct json *j, uint64_t count)
{
	json_obj(j);
	json_kstr(j, "type", "failures");
	json_kuint(j, "count", count);
	json_key(j, "groups");
	json_arr(j);
}

void run_failures_group(struct json *j, const struct run_fail_group *g)
{
	json_obj(j);
	run_fail_group_write(j, g, 0);
	json_obj_end(j);
}

void run_failures_end(struct json *j)
{
	json_arr_end(j);
	json_obj_end(j);
}

int run_failures_read(struct json_object *doc, struct run_failures *out)
{
	struct json_object *gs = jr_arr(doc, "groups");
	size_t n = gs ? json_object_array_length(gs) : 0;

	memset(out, 0, sizeof(*out));
	if (!doc || !json_object_is_type(doc, json_type_object))
		return -EINVAL;
	out->count = jr_uint64(doc, "count", 0);
	if (n && !(out->groups = calloc(n, sizeof(*out->groups))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (run_fail_group_read(json_object_array_get_idx(gs, i), &out->groups[out->n++])) {
			run_failures_free(out);
			return -ENOMEM;
		}
	return 0;
}

void run_failures_free(struct run_failures *f)
{
	for (size_t i = 0; i < f->n; i++)
		run_fail_group_free(&f->groups[i]);
	free(f->groups);
	memset(f, 0, sizeof(*f));
}
