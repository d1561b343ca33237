/* The snapshot files: the writer's pieces beside the reader. */
#include "run/snapshot.h"
#include "run/files.h"
#include "util/json.h"
#include "util/jsonread.h"

#include <errno.h>
#include <stdio.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* The keys that differ by resource: its members' count, its limit, a
 * group's name. */
static const struct {
	const char *members, *limit, *group;
} keys[SNAP_MAX] = {
	[SNAP_THREADS] = {"threads", "thread_limit", "name"},
	[SNAP_FDS] = {"fds", "fd_limit", "kind"},
	[SNAP_VMSIZE] = {"vmsize_kb", NULL, NULL},
};

void run_snapshot_head(struct json *j, int64_t pid, double t, int alive)
{
	json_obj(j);
	json_kint(j, "version", 1);
	json_kint(j, "pid", pid);
	json_kdbl(j, "t", t);
	json_kbool(j, "target_alive", alive);
}

void run_snapshot_begin(struct json *j, enum ooms_snap kind, int64_t pid, double t, int alive, int64_t members,
			int64_t limit)
{
	run_snapshot_head(j, pid, t, alive);
	json_kint(j, keys[kind].members, members);
	json_kint(j, keys[kind].limit, limit);
	json_key(j, "groups");
	json_arr(j);
}

void run_snap_examples(struct json *j, const char *const *names, size_t n)
{
	json_key(j, "examples");
	json_arr(j);
	for (size_t i = 0; i < n; i++)
		json_str(j, names[i]);
	json_arr_end(j);
}

void run_snap_counts_begin(struct json *j, enum run_snap_counted what)
{
	json_key(j, what == RUN_SNAP_FAMILIES ? "families" : "paths");
	json_arr(j);
}

void run_snap_count(struct json *j, enum run_snap_counted what, const char *value, uint64_t count)
{
	json_obj(j);
	json_kstr(j, what == RUN_SNAP_FAMILIES ? "family" : "path", value);
	json_kuint(j, "count", count);
	json_obj_end(j);
}

void run_snap_patterns_begin(struct json *j)
{
	json_key(j, "patterns");
	json_arr(j);
}

void run_snap_pattern(struct json *j, const char *pattern, uint64_t count, const char *const *examples, size_t n)
{
	json_obj(j);
	json_kstr(j, "pattern", pattern);
	json_kuint(j, "count", count);
	run_snap_examples(j, examples, n);
	json_obj_end(j);
}

void run_snap_list_end(struct json *j)
{
	json_arr_end(j);
}

void run_vmsize_begin(struct json *j, const struct run_vmsize_head *h)
{
	run_snapshot_head(j, h->pid, h->t, h->alive);
	json_kint(j, "vmsize_kb", h->vmsize_kb);
	json_kint(j, "vmpeak_kb", h->vmpeak_kb);
	json_kuint(j, "mappings_total", h->mappings_total);
	json_kstr(j, "mappings_from", h->mappings_replayed ? "proc+events" : "proc");
	json_kuint(j, "mappings_replayed", h->mappings_replayed);
	if (h->replay_partial)
		json_kbool(j, "mappings_replay_partial", 1);
	json_key(j, "largest");
	json_arr(j);
}

void run_vmsize_map_begin(struct json *j, const struct run_vmsize_map *m)
{
	json_obj(j);
	json_khex(j, "start", m->start);
	json_khex(j, "end", m->end);
	json_kuint(j, "bytes", m->end - m->start);
	json_kstr(j, "perms", m->perms);
	json_kstr(j, "path", m->path);
	json_key(j, "origins");
	json_arr(j);
}

void run_vmsize_origin_begin(struct json *j, const struct run_vmsize_origin *o)
{
	json_obj(j);
	json_kuint(j, "count", o->count);
	json_kuint(j, "mapped_bytes", o->mapped_bytes);
	json_kstr(j, "syscall", o->syscall);
	json_kstr(j, "thread", o->thread);
	json_kstr(j, "created_by", o->created_by);
}

void run_vmsize_origin_end(struct json *j)
{
	json_obj_end(j);
}

void run_vmsize_map_end(struct json *j)
{
	json_arr_end(j);
	json_obj_end(j);
}

void run_vmsize_end(struct json *j)
{
	json_arr_end(j);
	json_obj_end(j);
}

void run_snap_group_begin(struct json *j, enum ooms_snap kind, const char *name, uint64_t count)
{
	json_obj(j);
	json_kstr(j, keys[kind].group, name);
	json_kuint(j, "count", count);
}

void run_snap_stacks_begin(struct json *j)
{
	json_key(j, "stacks");
	json_arr(j);
}

void run_snap_stack_write(struct json *j, const struct run_snap_stack *s)
{
	json_obj(j);
	json_kuint(j, "count", s->count);
	if (s->unknown) {
		json_kstr(j, "unknown", s->unknown);
		if (!s->created_by) /* else: no native stack, its Java one known (a thread the shim saw start) */
			return;
	}
	json_kstr(j, "created_by", s->created_by);
	json_kstr(j, "creator_thread", s->creator_thread);
	if (s->syscall)
		json_kstr(j, "syscall", s->syscall);
}

void run_snap_stack_end(struct json *j)
{
	json_obj_end(j);
}

void run_snap_start_routine_key(struct json *j)
{
	json_key(j, "start_routine");
}

void run_snap_group_end(struct json *j)
{
	json_arr_end(j);
	json_obj_end(j);
}

void run_snapshot_end(struct json *j)
{
	json_arr_end(j);
	json_obj_end(j);
}

static int read_group(struct json_object *o, enum ooms_snap kind, struct run_snap_group *g)
{
	struct json_object *st = jr_arr(o, "stacks");
	size_t n = st ? json_object_array_length(st) : 0;

	g->name = jr_str(o, keys[kind].group);
	g->count = jr_uint64(o, "count", 0);
	if (n && !(g->stacks = calloc(n, sizeof(*g->stacks))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(st, i);
		struct run_snap_stack *s = &g->stacks[g->nstacks++];

		s->obj = x;
		s->count = jr_uint64(x, "count", 0);
		s->unknown = jr_str(x, "unknown");
		s->created_by = jr_str(x, "created_by");
		s->creator_thread = jr_str(x, "creator_thread");
		s->syscall = jr_str(x, "syscall");
		s->start_routine = jr_str(jr_get(x, "start_routine"), "symbol");
	}
	return 0;
}

int run_snapshot_read(struct json_object *doc, enum ooms_snap kind, struct run_snapshot *out)
{
	struct json_object *gs = jr_arr(doc, "groups");
	size_t n = gs ? json_object_array_length(gs) : 0;

	memset(out, 0, sizeof(*out));
	out->kind = kind;
	if (!doc || !json_object_is_type(doc, json_type_object) || !keys[kind].group)
		return -EINVAL;
	out->pid = jr_int64(doc, "pid", 0);
	out->t = jr_num(doc, "t", 0);
	out->target_alive = jr_bool(doc, "target_alive");
	out->members = jr_int64(doc, keys[kind].members, 0);
	out->limit = jr_int64(doc, keys[kind].limit, -1);
	if (n && !(out->groups = calloc(n, sizeof(*out->groups))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (read_group(json_object_array_get_idx(gs, i), kind, &out->groups[out->ngroups++])) {
			run_snapshot_free(out);
			return -ENOMEM;
		}
	return 0;
}

void run_snapshot_free(struct run_snapshot *s)
{
	for (size_t i = 0; i < s->ngroups; i++)
		free(s->groups[i].stacks);
	free(s->groups);
	memset(s, 0, sizeof(*s));
}

int run_snapshot_load(const char *dir, const char *name, struct json_object **doc, struct run_snapshot *out)
{
	int kind = run_name_snapshot_kind(name);
	char path[4400];

	*doc = NULL;
	memset(out, 0, sizeof(*out));
	if ((kind != SNAP_THREADS && kind != SNAP_FDS) || strchr(name, '/'))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(*doc = json_object_from_file(path)))
		return -1;
	if (run_snapshot_read(*doc, (enum ooms_snap)kind, out)) {
		json_object_put(*doc);
		*doc = NULL;
		return -1;
	}
	return 0;
}
