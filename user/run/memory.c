/* memory.json's writer beside its reader (memory.h). */
#include "run/memory.h"
#include "run/fields.h"
#include "run/files.h"
#include "run/records.h"
#include "run/timeline.h"
#include "util/json.h"
#include "util/jsonread.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct run_field head_fields[] = {
	RF(RF_I64, struct run_memory, pid, "pid"),
	RF(RF_DBL, struct run_memory, t, "t"),
	RF(RF_BOOL, struct run_memory, target_alive, "target_alive"),
	RF(RF_I64, struct run_memory, memory_kb, "memory_kb"),
	RF(RF_I64, struct run_memory, limit_kb, "memory_limit_kb"),
	RF(RF_STR, struct run_memory, limit_src, "memory_limit_src"),
	RF(RF_I64, struct run_memory, rss_kb, "rss_kb"),
};

static const struct run_field cgroup_fields[] = {
	RF(RF_STR, struct run_memory, cgroup, "path"),
	RF(RF_I64_SET, struct run_memory, cgroup_limit_kb, "limit_kb"),
	RF(RF_I64_SET, struct run_memory, cgroup_usage_kb, "usage_kb"),
};

static const struct run_field total_fields[] = {
	RF(RF_I64, struct run_memory, pss_kb, "pss_kb"),
	RF(RF_I64, struct run_memory, smaps_rss_kb, "rss_kb"),
	RF(RF_I64, struct run_memory, smaps_swap_kb, "swap_kb"),
};

static const struct run_field cat_fields[] = {
	RF(RF_STR, struct run_memory_cat, category, "category"),
	RF(RF_I64, struct run_memory_cat, pss_kb, "pss_kb"),
	RF(RF_I64, struct run_memory_cat, rss_kb, "rss_kb"),
	RF(RF_I64, struct run_memory_cat, private_dirty_kb, "private_dirty_kb"),
	RF(RF_I64, struct run_memory_cat, anon_kb, "anon_kb"),
	RF(RF_I64, struct run_memory_cat, swap_kb, "swap_kb"),
};

static const struct run_field map_fields[] = {
	RF(RF_STR, struct run_memory_map, perms, "perms"),
	RF(RF_STR, struct run_memory_map, name, "name"),
	RF(RF_STR, struct run_memory_map, category, "category"),
	RF(RF_I64, struct run_memory_map, rss_kb, "rss_kb"),
	RF(RF_I64, struct run_memory_map, pss_kb, "pss_kb"),
	RF(RF_I64, struct run_memory_map, anon_kb, "anon_kb"),
	RF(RF_I64, struct run_memory_map, swap_kb, "swap_kb"),
};

static const struct run_field fault_fields[] = {
	RF(RF_U64, struct run_memory, period_bytes, "period_bytes"),
	RF(RF_U64, struct run_memory, samples, "samples"),
	RF(RF_U64, struct run_memory, lost, "lost"),
};

static const struct run_field group_fields[] = {
	RF(RF_U64, struct run_memory_group, samples, "samples"),
	RF(RF_I64, struct run_memory_group, bytes, "bytes_estimated"),
	RF(RF_U64, struct run_memory_group, anon, "anon_samples"),
	RF(RF_U64, struct run_memory_group, file, "file_samples"),
	RF(RF_U64, struct run_memory_group, shared, "shared_samples"),
	RF(RF_STR, struct run_memory_group, created_by, "created_by"),
	RF(RF_STR, struct run_memory_group, thread, "thread"),
};

static const struct run_field culprit_fields[] = {
	RF(RF_STR, struct run_memory_culprit, created_by, "created_by"),
	RF(RF_U64, struct run_memory_culprit, samples, "samples"),
	RF(RF_I64, struct run_memory_culprit, bytes, "bytes_estimated"),
	RF(RF_U64, struct run_memory_culprit, anon, "anon_samples"),
	RF(RF_U64, struct run_memory_culprit, file, "file_samples"),
	RF(RF_U64, struct run_memory_culprit, shared, "shared_samples"),
};

const char *run_memory_backing(uint64_t anon, uint64_t file, uint64_t shared)
{
	return file > anon + shared ? "mapped file" : shared > anon ? "shared memory" : "anonymous";
}

static int culprit_cmp(const void *x, const void *y)
{
	const struct run_memory_culprit *a = x, *b = y;

	return a->samples != b->samples ? (a->samples > b->samples ? -1 : 1) : 0;
}

static int same_culprit(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int run_memory_culprits(const struct run_memory *m, struct run_memory_culprit **out, size_t *n)
{
	struct run_memory_culprit *c = m->ngroups ? calloc(m->ngroups, sizeof(*c)) : NULL;
	size_t nc = 0;

	*out = NULL;
	*n = 0;
	if (m->ngroups && !c)
		return -ENOMEM;
	for (size_t i = 0; i < m->ngroups; i++) {
		const struct run_memory_group *g = &m->groups[i];
		size_t k = 0;

		while (k < nc && !same_culprit(c[k].created_by, g->created_by))
			k++;
		if (k == nc) {
			c[nc].created_by = g->created_by;
			if (!(c[nc].stacks = calloc(m->ngroups - i, sizeof(*c[nc].stacks)))) {
				run_memory_culprits_free(c, nc);
				return -ENOMEM;
			}
			nc++;
		}
		c[k].samples += g->samples;
		c[k].anon += g->anon;
		c[k].file += g->file;
		c[k].shared += g->shared;
		c[k].bytes += g->bytes;
		c[k].stacks[c[k].nstacks++] = i;
	}
	if (nc)
		qsort(c, nc, sizeof(*c), culprit_cmp); /* c is NULL when there are none */
	*out = c;
	*n = nc;
	return 0;
}

void run_memory_culprits_free(struct run_memory_culprit *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++)
		free(c[i].stacks);
	free(c);
}

static void hex_key(struct json *j, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	json_kstr(j, key, buf);
}

void run_memory_write(struct json *j, const struct run_memory *m,
		      void (*frames)(struct json *j, size_t group, void *ctx), void *ctx)
{
	json_obj(j);
	json_kint(j, "version", 1);
	run_fields_write(j, m, head_fields, RUN_FIELDS_N(head_fields));
	run_memfig_write(j, "memory", &m->fig);
	if (m->cgroup) {
		json_key(j, "cgroup");
		json_obj(j);
		run_fields_write(j, m, cgroup_fields, RUN_FIELDS_N(cgroup_fields));
		json_obj_end(j);
	}
	if (m->has_categories) {
		json_key(j, "smaps");
		json_obj(j);
		run_fields_write(j, m, total_fields, RUN_FIELDS_N(total_fields));
		json_key(j, "categories");
		json_arr(j);
		for (size_t i = 0; i < m->ncats; i++) {
			json_obj(j);
			run_fields_write(j, &m->cats[i], cat_fields, RUN_FIELDS_N(cat_fields));
			json_obj_end(j);
		}
		json_arr_end(j);
		json_key(j, "largest_mappings");
		json_arr(j);
		for (size_t i = 0; i < m->nmaps; i++) {
			json_obj(j);
			hex_key(j, "start", m->maps[i].start);
			hex_key(j, "end", m->maps[i].end);
			run_fields_write(j, &m->maps[i], map_fields, RUN_FIELDS_N(map_fields));
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_key(j, "faults");
	json_obj(j);
	run_fields_write(j, m, fault_fields, RUN_FIELDS_N(fault_fields));
	json_key(j, "groups");
	json_arr(j);
	for (size_t i = 0; i < m->ngroups; i++) {
		json_obj(j);
		run_fields_write(j, &m->groups[i], group_fields, RUN_FIELDS_N(group_fields));
		if (frames)
			frames(j, i, ctx);
		json_obj_end(j);
	}
	json_arr_end(j);
	/* the same by culprit, each with its stacks (the groups' indices) */
	{
		struct run_memory_culprit *c;
		size_t nc;

		if (run_memory_culprits(m, &c, &nc) == 0) {
			json_key(j, "culprits");
			json_arr(j);
			for (size_t i = 0; i < nc; i++) {
				json_obj(j);
				run_fields_write(j, &c[i], culprit_fields, RUN_FIELDS_N(culprit_fields));
				json_key(j, "stacks");
				json_arr(j);
				for (size_t k = 0; k < c[i].nstacks; k++)
					json_int(j, (int64_t)c[i].stacks[k]);
				json_arr_end(j);
				json_obj_end(j);
			}
			json_arr_end(j);
			run_memory_culprits_free(c, nc);
		}
	}
	json_obj_end(j);
	json_obj_end(j);
}

static uint64_t hex_of(struct json_object *o, const char *key)
{
	const char *s = jr_str(o, key);

	return s ? strtoull(s, NULL, 16) : 0;
}

int run_memory_read(struct json_object *doc, struct run_memory *out)
{
	struct json_object *mem, *cg, *sm, *fa, *arr;
	struct ooms_memfig none = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, INT32_MIN, -1};

	memset(out, 0, sizeof(*out));
	if (!doc || !json_object_is_type(doc, json_type_object) || !jr_get(doc, "memory_kb") ||
	    !(fa = jr_get(doc, "faults")))
		return -EINVAL;
	run_fields_read(doc, out, head_fields, RUN_FIELDS_N(head_fields));
	run_memfig_from(&out->fig, &none);
	if ((mem = jr_get(doc, "memory")) && json_object_is_type(mem, json_type_object))
		run_memfig_read(mem, &out->fig);
	out->cgroup_limit_kb = out->cgroup_usage_kb = RUN_NONE;
	if ((cg = jr_get(doc, "cgroup")) && json_object_is_type(cg, json_type_object))
		run_fields_read(cg, out, cgroup_fields, RUN_FIELDS_N(cgroup_fields));
	if ((sm = jr_get(doc, "smaps")) && json_object_is_type(sm, json_type_object)) {
		out->has_categories = 1;
		run_fields_read(sm, out, total_fields, RUN_FIELDS_N(total_fields));
		if ((arr = jr_get(sm, "categories")) && json_object_is_type(arr, json_type_array)) {
			size_t n = json_object_array_length(arr);

			if (n && !(out->cats = calloc(n, sizeof(*out->cats))))
				return -ENOMEM;
			for (size_t i = 0; i < n; i++)
				run_fields_read(json_object_array_get_idx(arr, i), &out->cats[out->ncats++], cat_fields,
						RUN_FIELDS_N(cat_fields));
		}
		if ((arr = jr_get(sm, "largest_mappings")) && json_object_is_type(arr, json_type_array)) {
			size_t n = json_object_array_length(arr);

			if (n && !(out->maps = calloc(n, sizeof(*out->maps))))
				return run_memory_free(out), -ENOMEM;
			for (size_t i = 0; i < n; i++) {
				struct json_object *o = json_object_array_get_idx(arr, i);
				struct run_memory_map *mp = &out->maps[out->nmaps++];

				run_fields_read(o, mp, map_fields, RUN_FIELDS_N(map_fields));
				mp->start = hex_of(o, "start");
				mp->end = hex_of(o, "end");
			}
		}
	}
	run_fields_read(fa, out, fault_fields, RUN_FIELDS_N(fault_fields));
	if ((arr = jr_get(fa, "groups")) && json_object_is_type(arr, json_type_array)) {
		size_t n = json_object_array_length(arr);

		if (n && !(out->groups = calloc(n, sizeof(*out->groups))))
			return run_memory_free(out), -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			struct json_object *o = json_object_array_get_idx(arr, i);
			struct run_memory_group *g = &out->groups[out->ngroups++];

			run_fields_read(o, g, group_fields, RUN_FIELDS_N(group_fields));
			g->obj = o;
		}
	}
	return 0;
}

void run_memory_free(struct run_memory *m)
{
	free(m->cats);
	free(m->maps);
	free(m->groups);
	m->cats = NULL;
	m->maps = NULL;
	m->groups = NULL;
	m->ncats = m->nmaps = m->ngroups = 0;
}

int run_memory_load(const char *dir, const char *name, struct json_object **doc, struct run_memory *out)
{
	char path[4400];

	*doc = NULL;
	memset(out, 0, sizeof(*out));
	if (run_name_snapshot_kind(name) != SNAP_MEMORY || strchr(name, '/'))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(*doc = json_object_from_file(path)))
		return -1;
	if (run_memory_read(*doc, out)) {
		json_object_put(*doc);
		*doc = NULL;
		return -1;
	}
	return 0;
}
