/* direct.json's writer and reader, from one field list each for the head
 * and a site. */
#include "run/direct.h"
#include "run/fields.h"
#include "util/json.h"
#include "util/jsonread.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static const struct run_field head_fields[] = {
	RF(RF_I64, struct run_direct_head, pid, "pid"),
	RF(RF_DBL, struct run_direct_head, t, "t"),
	RF(RF_U64, struct run_direct_head, live_bytes, "live_bytes"),
	RF(RF_U64, struct run_direct_head, blocks, "blocks"),
	RF(RF_I64, struct run_direct_head, limit, "limit"),
	RF(RF_U64, struct run_direct_head, untracked, "untracked"),
	RF(RF_U64, struct run_direct_head, sites_total, "sites_total"),
};

static const struct run_field site_fields[] = {
	RF(RF_U64, struct run_direct_site, bytes, "bytes"),
	RF(RF_U64, struct run_direct_site, blocks, "blocks"),
	RF(RF_STR, struct run_direct_site, created_by, "created_by"),
	RF(RF_STR, struct run_direct_site, creator_thread, "creator_thread"),
};

void run_direct_begin(struct json *j, const struct run_direct_head *h)
{
	json_obj(j);
	json_kint(j, "version", 1);
	run_fields_write(j, h, head_fields, RUN_FIELDS_N(head_fields));
	json_key(j, "sites");
	json_arr(j);
}

void run_direct_site_begin(struct json *j, const struct run_direct_site *s)
{
	json_obj(j);
	run_fields_write(j, s, site_fields, RUN_FIELDS_N(site_fields));
}

void run_direct_site_end(struct json *j)
{
	json_obj_end(j);
}

void run_direct_end(struct json *j)
{
	json_arr_end(j);
	json_obj_end(j);
}

int run_direct_read(struct json_object *o, struct run_direct *d)
{
	struct json_object *sites;
	size_t n;

	memset(d, 0, sizeof(*d));
	if (!o || !json_object_is_type(o, json_type_object) || !jr_get(o, "live_bytes"))
		return -EINVAL;
	run_fields_read(o, &d->head, head_fields, RUN_FIELDS_N(head_fields));
	sites = jr_get(o, "sites");
	n = sites && json_object_is_type(sites, json_type_array) ? json_object_array_length(sites) : 0;
	if (n && !(d->sites = calloc(n, sizeof(*d->sites))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(sites, i);

		if (!s || !json_object_is_type(s, json_type_object))
			continue;
		run_fields_read(s, &d->sites[d->nsites], site_fields, RUN_FIELDS_N(site_fields));
		d->sites[d->nsites++].obj = s;
	}
	return 0;
}

void run_direct_free(struct run_direct *d)
{
	free(d->sites);
	memset(d, 0, sizeof(*d));
}
