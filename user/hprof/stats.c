#include "hprof/stats.h"

#include <inttypes.h>
#include <string.h>
#include "util/json.h"

void hprof_stats_init(struct hprof_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->nheaps = 1; /* heap 0 ("default") until a HEAP_DUMP_INFO says otherwise */
}

const char *hprof_heap_name(uint32_t heap_id, char *buf, size_t len)
{
	switch (heap_id) {
	case HPROF_HEAP_DEFAULT: return "default";
	case HPROF_HEAP_APP: return "app";
	case HPROF_HEAP_IMAGE: return "image";
	case HPROF_HEAP_ZYGOTE: return "zygote";
	case 'J': return "jit";
	}
	snprintf(buf, len, "%u", heap_id);
	return buf;
}

static int st_header(void *ctx, const struct hprof_header *h)
{
	((struct hprof_stats *)ctx)->header = *h;
	return 0;
}

static int st_record(void *ctx, const struct hprof_record *r)
{
	struct hprof_stats *st = ctx;

	st->records[r->tag].count++;
	st->records[r->tag].bytes += 9 + (uint64_t)r->len;
	st->later_dump = hprof_heap_later(&st->dumps, r->tag);
	return 0;
}

static int st_sub(void *ctx, const struct hprof_sub *s)
{
	struct hprof_stats *st = ctx;
	struct hprof_heap_stats *h;
	uint64_t bytes = s->head_len + s->payload_len;
	unsigned esz;

	st->subs[s->tag].count++;
	st->subs[s->tag].bytes += bytes;
	if (!st->later_dump && s->tag == HPROF_CLASS_DUMP)
		st->first_classes++;
	else if (!st->later_dump && (s->tag == HPROF_INSTANCE_DUMP || s->tag == HPROF_OBJ_ARRAY_DUMP ||
				     s->tag == HPROF_PRIM_ARRAY_DUMP || s->tag == HPROF_PRIM_ARRAY_NODATA))
		st->first_objects++;
	if (s->tag == HPROF_HEAP_DUMP_INFO) {
		int i;

		for (i = 0; i < st->nheaps && st->heaps[i].heap_id != s->heap_id; i++)
			;
		if (i == st->nheaps && st->nheaps < HPROF_MAX_HEAPS)
			st->nheaps++;
		if (i < st->nheaps) {
			st->heaps[i].heap_id = s->heap_id;
			st->heaps[i].name_id = s->heap_name_id;
			st->cur_heap = i;
		}
		return 0;
	}
	h = &st->heaps[st->cur_heap];
	switch (s->tag) {
	case HPROF_CLASS_DUMP:
		h->classes.count++;
		h->classes.bytes += bytes;
		break;
	case HPROF_INSTANCE_DUMP:
		h->instances.count++;
		h->instances.bytes += bytes;
		break;
	case HPROF_OBJ_ARRAY_DUMP:
		h->obj_arrays.count++;
		h->obj_arrays.bytes += bytes;
		break;
	case HPROF_PRIM_ARRAY_DUMP:
		h->prim_arrays.count++;
		h->prim_arrays.bytes += bytes;
		h->prim_content_bytes += s->payload_len;
		st->prim_content_bytes += s->payload_len;
		st->prim_content_original_bytes += s->payload_len;
		break;
	case HPROF_PRIM_ARRAY_NODATA:
		h->prim_nodata.count++;
		h->prim_nodata.bytes += bytes;
		esz = hprof_type_size(s->elem_type, st->header.id_size);
		st->prim_content_original_bytes += (uint64_t)s->count * esz;
		break;
	default:
		st->gc_roots++; /* roots, and UNREACHABLE */
	}
	return 0;
}

void hprof_stats_visitor(struct hprof_stats *st, struct hprof_visitor *v)
{
	memset(v, 0, sizeof(*v));
	v->ctx = st;
	v->header = st_header;
	v->record_begin = st_record;
	v->sub_begin = st_sub;
}

static void json_count(struct json *j, const char *k, const struct hprof_count *c)
{
	json_key(j, k);
	json_obj(j);
	json_kuint(j, "count", c->count);
	json_kuint(j, "bytes", c->bytes);
	json_obj_end(j);
}

static void print_json(const struct hprof_stats *st, FILE *f)
{
	struct json j;
	char buf[16];

	json_init(&j, f, 1);
	json_obj(&j);
	json_kstr(&j, "format", st->header.format);
	json_kstr(&j, "original_format", st->header.orig_format);
	json_kstr(&j, "stripped", st->header.strip_mode[0] ? st->header.strip_mode : NULL);
	json_kint(&j, "id_size", st->header.id_size);
	json_kuint(&j, "time_ms", st->header.time_ms);
	json_kuint(&j, "file_bytes", st->file_bytes);
	json_key(&j, "records");
	json_obj(&j);
	for (int t = 0; t < 256; t++)
		if (st->records[t].count)
			json_count(&j, hprof_tag_name(t), &st->records[t]);
	json_obj_end(&j);
	json_key(&j, "heap_dump_subrecords");
	json_obj(&j);
	for (int t = 0; t < 256; t++)
		if (st->subs[t].count)
			json_count(&j, hprof_subtag_name(t), &st->subs[t]);
	json_obj_end(&j);
	json_key(&j, "heaps");
	json_arr(&j);
	for (int i = 0; i < st->nheaps; i++) {
		const struct hprof_heap_stats *h = &st->heaps[i];

		json_obj(&j);
		json_kstr(&j, "heap", hprof_heap_name(h->heap_id, buf, sizeof(buf)));
		json_kuint(&j, "heap_id", h->heap_id);
		json_count(&j, "classes", &h->classes);
		json_count(&j, "instances", &h->instances);
		json_count(&j, "object_arrays", &h->obj_arrays);
		json_count(&j, "primitive_arrays", &h->prim_arrays);
		json_count(&j, "primitive_arrays_nodata", &h->prim_nodata);
		json_kuint(&j, "primitive_content_bytes", h->prim_content_bytes);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_kuint(&j, "gc_roots", st->gc_roots);
	json_kuint(&j, "objects", st->subs[HPROF_INSTANCE_DUMP].count + st->subs[HPROF_OBJ_ARRAY_DUMP].count +
				    st->subs[HPROF_PRIM_ARRAY_DUMP].count + st->subs[HPROF_PRIM_ARRAY_NODATA].count);
	json_kuint(&j, "primitive_content_bytes", st->prim_content_bytes);
	json_kuint(&j, "primitive_content_original_bytes", st->prim_content_original_bytes);
	json_kuint(&j, "heap_dumps", st->dumps.dumps);
	json_key(&j, "first_heap_dump"); /* what analyzers read (VisualVM, oomscope analyze) */
	json_obj(&j);
	json_kuint(&j, "objects", st->first_objects);
	json_kuint(&j, "classes", st->first_classes);
	json_obj_end(&j);
	json_obj_end(&j);
	json_end_line(&j);
}

void hprof_stats_print(const struct hprof_stats *st, FILE *f, int json)
{
	char buf[16];
	uint64_t objs = st->subs[HPROF_INSTANCE_DUMP].count + st->subs[HPROF_OBJ_ARRAY_DUMP].count +
			st->subs[HPROF_PRIM_ARRAY_DUMP].count + st->subs[HPROF_PRIM_ARRAY_NODATA].count;

	if (json) {
		print_json(st, f);
		return;
	}
	fprintf(f, "format      %s%s%s\n", st->header.format, st->header.strip_mode[0] ? "  (stripped, mode " : "",
		st->header.strip_mode[0] ? st->header.strip_mode : "");
	if (st->header.strip_mode[0])
		fputs(")\n", f);
	fprintf(f, "id size     %u\nbytes       %" PRIu64 "\nobjects     %" PRIu64 "\ngc roots    %" PRIu64 "\n",
		st->header.id_size, st->file_bytes, objs, st->gc_roots);
	if (st->dumps.dumps > 1)
		fprintf(f, "heap dumps  %u in one file; the first holds %" PRIu64 " objects and %" PRIu64
			   " classes (analyzers read the first)\n", st->dumps.dumps, st->first_objects, st->first_classes);
	fprintf(f, "primitive array contents: %" PRIu64 " bytes (%.1f%% of the file)%s\n", st->prim_content_bytes,
		st->file_bytes ? 100.0 * st->prim_content_bytes / st->file_bytes : 0.0,
		st->prim_content_original_bytes != st->prim_content_bytes ? " (stripped arrays not counted)" : "");
	fprintf(f, "\n%-24s %12s %15s\n", "record", "count", "bytes");
	for (int t = 0; t < 256; t++)
		if (st->records[t].count)
			fprintf(f, "%-24s %12" PRIu64 " %15" PRIu64 "\n", hprof_tag_name(t), st->records[t].count,
				st->records[t].bytes);
	fprintf(f, "\n%-24s %12s %15s\n", "heap dump sub-record", "count", "bytes");
	for (int t = 0; t < 256; t++)
		if (st->subs[t].count)
			fprintf(f, "%-24s %12" PRIu64 " %15" PRIu64 "\n", hprof_subtag_name(t), st->subs[t].count,
				st->subs[t].bytes);
	fprintf(f, "\n%-10s %12s %12s %12s %12s %16s\n", "heap", "classes", "instances", "obj arrays", "prim arrays",
		"prim contents");
	for (int i = 0; i < st->nheaps; i++) {
		const struct hprof_heap_stats *h = &st->heaps[i];

		fprintf(f, "%-10s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %16" PRIu64 "\n",
			hprof_heap_name(h->heap_id, buf, sizeof(buf)), h->classes.count, h->instances.count,
			h->obj_arrays.count, h->prim_arrays.count + h->prim_nodata.count, h->prim_content_bytes);
	}
}
