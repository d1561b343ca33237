/* direct.json's writer. */
#include "run/direct.h"
#include "util/json.h"

void run_direct_begin(struct json *j, const struct run_direct_head *h)
{
	json_obj(j);
	json_kint(j, "version", 1);
	json_kint(j, "pid", h->pid);
	json_kdbl(j, "t", h->t);
	json_kuint(j, "live_bytes", h->live_bytes);
	json_kuint(j, "blocks", h->blocks);
	json_kint(j, "limit", h->limit);
	json_kuint(j, "untracked", h->untracked);
	json_kuint(j, "sites_total", h->sites_total);
	json_key(j, "sites");
	json_arr(j);
}

void run_direct_site_begin(struct json *j, const struct run_direct_site *s)
{
	json_obj(j);
	json_kuint(j, "bytes", s->bytes);
	json_kuint(j, "blocks", s->blocks);
	json_kstr(j, "created_by", s->created_by);
	json_kstr(j, "creator_thread", s->creator_thread);
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
