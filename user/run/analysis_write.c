/* dump-N.analysis.json's writer: the keys, in the file's order. */
#include "run/analysis.h"
#include "run/analysis_keys.h"
#include "util/json.h"

void run_anw_begin(struct json *j, const struct run_anw_info *in)
{
	json_obj(j);
	json_kstr(j, AK_SCHEMA, RUN_ANALYSIS_SCHEMA);
	json_kbool(j, AK_ANALYSIS_DONE, 1);
	json_kint(j, AK_RE_ANALYSIS_TIMES, 0);
	json_key(j, AK_RUNNING_INFO);
	json_obj(j);
	json_kstr(j, AK_FILE, in->file);
	json_kstr(j, AK_FORMAT, in->format);
	json_kstr(j, AK_STRIPPED, in->stripped);
	json_kint(j, AK_ID_SIZE, in->id_size);
	json_kstr(j, AK_RUNTIME, in->runtime);
	json_kuint(j, AK_DUMP_BYTES, in->dump_bytes);
	json_kuint(j, AK_OBJECTS, in->objects);
	json_kuint(j, AK_CLASSES, in->classes);
	json_kuint(j, AK_GC_ROOTS, in->gc_roots);
	json_kuint(j, AK_REFERENCES, in->references);
	json_kuint(j, AK_WEAK_REFERENCES, in->weak_references);
	json_kuint(j, AK_DANGLING_REFERENCES, in->dangling_references);
	json_kuint(j, AK_REACHABLE_OBJECTS, in->reachable_objects);
	json_kuint(j, AK_SHALLOW_SIZE, in->shallow_size);
	json_kuint(j, AK_REACHABLE_SHALLOW_SIZE, in->reachable_shallow_size);
	json_kuint(j, AK_UNREACHABLE_OBJECTS, in->unreachable_objects);
	json_kuint(j, AK_UNREACHABLE_SHALLOW_SIZE, in->unreachable_shallow_size);
	json_kuint(j, AK_NATIVE_ALLOCATION_REGISTRY, in->native_allocation_registry);
	json_key(j, AK_NATIVE_REGISTERED);
	json_obj(j);
	json_kuint(j, AK_OBJECTS, in->native_objects);
	json_kuint(j, AK_BYTES, in->native_bytes);
	json_obj_end(j);
	json_key(j, AK_DIRECT_BUFFERS);
	json_obj(j);
	json_kuint(j, AK_OBJECTS, in->direct_objects);
	json_kuint(j, AK_BYTES, in->direct_bytes);
	json_obj_end(j);
	json_key(j, AK_GC_ROOT_KINDS); /* as Shark names them */
	json_obj(j);
	for (size_t i = 0; i < in->nroot_kinds; i++)
		json_kuint(j, in->root_kinds[i].name, in->root_kinds[i].count);
	json_obj_end(j);
	json_kstr(j, AK_RETAINED_MODEL, in->retained_model);
	if (in->model_rounds)
		json_kuint(j, AK_RETAINED_MODEL_ROUNDS, in->model_rounds);
	json_key(j, AK_GC_ROOT_ORDER);
	json_arr(j);
	for (size_t i = 0; i < in->nroot_order; i++)
		json_str(j, in->root_order[i]);
	json_arr_end(j);
	json_kstr(j, AK_REFERENCES_NOT_CROSSED, in->not_crossed);
	json_kuint(j, AK_STACK_TRACES, in->stack_traces);
	json_kuint(j, AK_STACK_FRAMES, in->stack_frames);
	json_kdbl(j, AK_ANALYSIS_SECONDS, in->seconds);
	if (in->threads)
		json_kuint(j, AK_ANALYSIS_THREADS, in->threads);
	json_obj_end(j);
}

static const char *const list_keys[] = {
	[RUN_AN_CLASS_INFOS] = AK_CLASS_INFOS, [RUN_AN_GC_PATHS] = AK_GC_PATHS, [RUN_AN_SUSPECTS] = AK_SUSPECTS,
	[RUN_AN_THREADS] = AK_THREADS, [RUN_AN_CLASS_LOADERS] = AK_CLASS_LOADERS,
	[RUN_AN_DUPLICATE_CLASSES] = AK_DUPLICATE_CLASSES, [RUN_AN_TOP_RETAINERS] = AK_TOP_RETAINERS,
	[RUN_AN_CLASS_HISTOGRAM] = AK_CLASS_HISTOGRAM, [RUN_AN_UNREACHABLE] = AK_UNREACHABLE_HISTOGRAM,
};

void run_anw_list(struct json *j, enum run_an_list which)
{
	json_key(j, list_keys[which]);
	json_arr(j);
}

void run_anw_list_end(struct json *j)
{
	json_arr_end(j);
}

void run_anw_class_info(struct json *j, const struct run_anw_class_info *c)
{
	json_obj(j);
	json_kstr(j, AK_CLASS_NAME, c->class_name);
	json_kuint(j, AK_INSTANCE_COUNT, c->instance_count);
	json_kuint(j, AK_LEAK_INSTANCE_COUNT, c->leak_instance_count);
	json_kstr(j, AK_LEAK_REASON, c->leak_reason);
	json_obj_end(j);
}

void run_anw_leak_begin(struct json *j, const struct run_anw_leak *l)
{
	json_obj(j);
	json_kuint(j, AK_INSTANCE_COUNT, l->instance_count);
	json_kstr(j, AK_LEAK_REASON, l->leak_reason);
	json_kbool(j, AK_LIBRARY_LEAK, l->library_leak != NULL);
	json_kstr(j, AK_LIBRARY_LEAK_REFERENCE, l->library_leak);
	if (l->watcher != RUN_AN_UNWATCHED) {
		json_key(j, l->watcher == RUN_AN_MATRIX ? AK_MATRIX : AK_LEAK_CANARY);
		json_obj(j);
		json_kstr(j, AK_KEY, l->watch_key);
		json_kstr(j, AK_DESCRIPTION, l->watch_description);
		if (l->watch_uptime_ms != INT64_MIN)
			json_kint(j, AK_WATCH_UPTIME_MILLIS, l->watch_uptime_ms);
		if (l->retained_uptime_ms != INT64_MIN)
			json_kint(j, AK_RETAINED_UPTIME_MILLIS, l->retained_uptime_ms);
		if (l->watch_uptime_ms != INT64_MIN && l->retained_uptime_ms != INT64_MIN && l->retained_uptime_ms >= 0)
			json_kint(j, AK_RETAINED_AFTER_WATCH_MILLIS, l->retained_uptime_ms - l->watch_uptime_ms);
		json_obj_end(j);
	}
	json_kstr(j, AK_GC_ROOT, l->gc_root);
	json_kstr(j, AK_SIGNATURE, l->signature);
	json_kstr(j, AK_CLASS_NAME, l->class_name);
	if (l->retained_native_size)
		json_kuint(j, AK_RETAINED_NATIVE_SIZE, l->retained_native_size);
	json_khex(j, AK_LEAK_OBJECT_ID, l->leak_object_id);
	json_kuint(j, AK_RETAINED_SIZE, l->retained_size);
	json_kuint(j, AK_RETAINED_SIZE_TOTAL, l->retained_size_total);
	if (l->native_size_total)
		json_kuint(j, AK_NATIVE_SIZE_TOTAL, l->native_size_total);
	json_kuint(j, AK_PATH_LENGTH, l->path_length);
}

void run_anw_suspect_begin(struct json *j, const struct run_anw_suspect *s)
{
	json_obj(j);
	json_kstr(j, AK_KIND, s->instances ? "instances" : "object");
	json_kstr(j, AK_DESCRIPTION, s->description);
	json_kstr(j, AK_CLASS_NAME, s->class_name);
	json_kbool(j, AK_IS_CLASS, s->is_class);
	json_khex(j, AK_OBJECT_ID, s->object_id);
	json_kuint(j, AK_COUNT, s->count);
	json_kuint(j, AK_RETAINED_SIZE, s->retained_size);
	json_kdbl(j, AK_HEAP_SHARE, s->heap_share);
	json_kstr(j, AK_SIGNATURE, s->signature);
	json_kstr(j, AK_GC_ROOT, s->gc_root);
	json_key(j, AK_ACCUMULATION_POINT);
	json_obj(j);
	json_kstr(j, AK_CLASS_NAME, s->point_class);
	json_khex(j, AK_OBJECT_ID, s->point_id);
	json_kuint(j, AK_RETAINED_SIZE, s->point_retained_size);
	json_kuint(j, AK_CHILDREN, s->point_children);
	if (s->chain_class) {
		json_kstr(j, AK_CHAIN_CLASS, s->chain_class);
		json_kuint(j, AK_CHAIN_LENGTH, s->chain_length);
	}
	json_obj_end(j);
	json_key(j, AK_ACCUMULATES);
	json_arr(j);
	for (size_t k = 0; k < s->naccumulates; k++) {
		json_obj(j);
		json_kstr(j, AK_CLASS_NAME, s->accumulates[k].class_name);
		json_kuint(j, AK_INSTANCE_COUNT, s->accumulates[k].instance_count);
		json_kuint(j, AK_RETAINED_SIZE, s->accumulates[k].retained_size);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_kuint(j, AK_PATH_LENGTH, s->path_length);
}

void run_anw_loader_begin(struct json *j, const struct run_anw_loader *l)
{
	json_obj(j);
	json_kstr(j, AK_CLASS_NAME, l->class_name);
	json_kuint(j, AK_LOADERS, l->loaders);
	json_kuint(j, AK_CLASSES, l->classes);
	json_kuint(j, AK_RETAINED_SIZE, l->retained_size);
	if (l->example_id)
		json_khex(j, AK_EXAMPLE_ID, l->example_id);
	if (l->has_path)
		json_kstr(j, AK_GC_ROOT, l->gc_root);
}

void run_anw_path_begin(struct json *j)
{
	json_key(j, AK_PATH);
	json_arr(j);
}

void run_anw_step(struct json *j, const struct run_anw_step *s)
{
	json_obj(j);
	json_kstr(j, AK_REFERENCE, s->reference);
	json_kstr(j, AK_REFERENCE_TYPE, s->reference_type);
	json_kstr(j, AK_DECLARED_CLASS, s->declared_class);
	if (s->has_object_id)
		json_khex(j, AK_OBJECT_ID, s->object_id);
	json_obj_end(j);
}

void run_anw_path_end(struct json *j)
{
	json_arr_end(j);
}

void run_anw_item_end(struct json *j)
{
	json_obj_end(j);
}

void run_anw_thread_begin(struct json *j, const struct run_anw_thread *t)
{
	json_obj(j);
	json_kuint(j, AK_SERIAL, t->serial);
	json_kstr(j, AK_NAME, t->name);
	json_kstr(j, AK_CLASS_NAME, t->class_name);
	json_khex(j, AK_OBJECT_ID, t->object_id);
	json_kbool(j, AK_THREW_OUT_OF_MEMORY_ERROR, t->threw_oom);
	json_kuint(j, AK_HELD_RETAINED_SIZE, t->held_retained_size);
	json_kuint(j, AK_RETAINED_SIZE, t->retained_size);
	json_kint(j, AK_STACK_TRACE_SERIAL, t->stack_trace_serial);
	json_kuint(j, AK_DECLARED_FRAMES, t->declared_frames);
	json_key(j, AK_FRAMES);
	json_arr(j);
}

void run_anw_frame_begin(struct json *j, const char *frame)
{
	json_obj(j);
	json_kstr(j, AK_FRAME, frame);
	json_key(j, AK_LOCALS);
	json_arr(j);
}

void run_anw_local(struct json *j, const struct run_anw_local *l)
{
	json_obj(j);
	json_kstr(j, AK_KIND, l->kind);
	json_kstr(j, AK_CLASS_NAME, l->class_name);
	json_khex(j, AK_OBJECT_ID, l->object_id);
	json_kuint(j, AK_RETAINED_SIZE, l->retained_size);
	json_obj_end(j);
}

void run_anw_frame_end(struct json *j)
{
	json_arr_end(j);
	json_obj_end(j);
}

void run_anw_other_locals(struct json *j)
{
	json_arr_end(j); /* the frames */
	json_key(j, AK_OTHER_LOCALS); /* with no frame, or a frame the trace does not have */
	json_arr(j);
}

void run_anw_thread_end(struct json *j)
{
	json_arr_end(j); /* the other locals */
	json_obj_end(j);
}

void run_anw_growth_begin(struct json *j, const struct run_anw_growth *g)
{
	json_key(j, AK_GROWTH);
	json_obj(j);
	json_kstr(j, AK_BASELINE, g->baseline);
	json_kuint(j, AK_REACHABLE_SHALLOW_SIZE_BEFORE, g->reachable_before);
	json_kuint(j, AK_REACHABLE_SHALLOW_SIZE, g->reachable);
	json_key(j, AK_CLASSES);
	json_arr(j);
}

void run_anw_growth_class(struct json *j, const struct run_anw_growth_class *c)
{
	json_obj(j);
	json_kstr(j, AK_CLASS_NAME, c->class_name);
	json_kuint(j, AK_INSTANCE_COUNT_BEFORE, c->count_before);
	json_kuint(j, AK_INSTANCE_COUNT, c->count);
	json_kuint(j, AK_RETAINED_SIZE_BEFORE, c->retained_before);
	json_kuint(j, AK_RETAINED_SIZE, c->retained);
	json_obj_end(j);
}

void run_anw_growth_suspects(struct json *j)
{
	json_arr_end(j); /* the classes */
	json_key(j, AK_SUSPECTS);
	json_arr(j);
}

void run_anw_growth_suspect(struct json *j, const struct run_anw_growth_suspect *s)
{
	json_obj(j);
	json_kstr(j, AK_SIGNATURE, s->signature);
	json_kstr(j, AK_DESCRIPTION, s->description);
	json_kbool(j, AK_NEW, s->is_new);
	json_kuint(j, AK_RETAINED_SIZE_BEFORE, s->retained_before);
	json_kuint(j, AK_RETAINED_SIZE, s->retained);
	json_obj_end(j);
}

void run_anw_growth_end(struct json *j)
{
	json_arr_end(j);
	json_obj_end(j);
}

void run_anw_duplicate(struct json *j, const struct run_anw_duplicate *d)
{
	json_obj(j);
	json_kstr(j, AK_CLASS_NAME, d->class_name);
	json_kuint(j, AK_LOADERS, d->loaders);
	json_kuint(j, AK_CLASSES, d->classes);
	json_obj_end(j);
}

void run_anw_duplicate_names(struct json *j, uint64_t n)
{
	json_kuint(j, AK_DUPLICATE_CLASS_NAMES, n);
}

void run_anw_retainer(struct json *j, const struct run_anw_retainer *r)
{
	json_obj(j);
	json_khex(j, AK_OBJECT_ID, r->object_id);
	json_kstr(j, AK_CLASS_NAME, r->class_name);
	json_kbool(j, AK_IS_CLASS, r->is_class);
	json_kuint(j, AK_SHALLOW_SIZE, r->shallow_size);
	json_kuint(j, AK_RETAINED_SIZE, r->retained_size);
	if (r->retained_native_size)
		json_kuint(j, AK_RETAINED_NATIVE_SIZE, r->retained_native_size);
	json_obj_end(j);
}

void run_anw_class(struct json *j, const struct run_anw_class *c)
{
	json_obj(j);
	json_kstr(j, AK_CLASS_NAME, c->class_name);
	json_kuint(j, AK_INSTANCE_COUNT, c->instance_count);
	json_kuint(j, AK_SHALLOW_SIZE, c->shallow_size);
	json_kuint(j, AK_RETAINED_SIZE, c->retained_size);
	json_obj_end(j);
}

void run_anw_unreachable(struct json *j, const struct run_anw_class *c)
{
	json_obj(j);
	json_kstr(j, AK_CLASS_NAME, c->class_name);
	json_kuint(j, AK_INSTANCE_COUNT, c->instance_count);
	json_kuint(j, AK_SHALLOW_SIZE, c->shallow_size);
	json_obj_end(j);
}

void run_anw_end(struct json *j, const struct run_anw_timings *t)
{
	json_key(j, AK_TIMINGS);
	json_obj(j);
	json_kdbl(j, AK_INDEX_PASS1, t->index_pass1);
	json_kdbl(j, AK_INDEX_PASS2, t->index_pass2);
	json_kdbl(j, AK_DOMINATORS, t->dominators);
	json_kdbl(j, AK_SHORTEST_PATHS, t->shortest_paths);
	json_kdbl(j, AK_LEAK_RULES, t->leak_rules);
	json_kdbl(j, AK_REFERENCE_NAMES, t->reference_names);
	json_kdbl(j, AK_MODEL_SEARCH, t->model_search);
	json_kdbl(j, AK_CLASS_HISTOGRAM, t->class_histogram);
	json_kdbl(j, AK_SUSPECTS, t->suspects);
	json_kdbl(j, AK_THREADS, t->threads);
	json_kdbl(j, AK_TOTAL, t->total);
	json_obj_end(j);
	json_obj_end(j);
	json_end_line(j);
}
