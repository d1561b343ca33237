/* dump-N.analysis.json's writer: the keys, in the file's order. */
#include "run/analysis.h"
#include "util/json.h"

void run_anw_begin(struct json *j, const struct run_anw_info *in)
{
	json_obj(j);
	json_kstr(j, "schema", RUN_ANALYSIS_SCHEMA);
	json_kbool(j, "analysisDone", 1);
	json_kint(j, "reAnalysisTimes", 0);
	json_key(j, "runningInfo");
	json_obj(j);
	json_kstr(j, "file", in->file);
	json_kstr(j, "format", in->format);
	json_kstr(j, "stripped", in->stripped);
	json_kint(j, "idSize", in->id_size);
	json_kstr(j, "runtime", in->runtime);
	json_kuint(j, "dumpBytes", in->dump_bytes);
	json_kuint(j, "objects", in->objects);
	json_kuint(j, "classes", in->classes);
	json_kuint(j, "gcRoots", in->gc_roots);
	json_kuint(j, "references", in->references);
	json_kuint(j, "weakReferences", in->weak_references);
	json_kuint(j, "danglingReferences", in->dangling_references);
	json_kuint(j, "reachableObjects", in->reachable_objects);
	json_kuint(j, "shallowSize", in->shallow_size);
	json_kuint(j, "reachableShallowSize", in->reachable_shallow_size);
	json_kuint(j, "unreachableObjects", in->unreachable_objects);
	json_kuint(j, "unreachableShallowSize", in->unreachable_shallow_size);
	json_kuint(j, "nativeAllocationRegistry", in->native_allocation_registry);
	json_key(j, "nativeRegistered");
	json_obj(j);
	json_kuint(j, "objects", in->native_objects);
	json_kuint(j, "bytes", in->native_bytes);
	json_obj_end(j);
	json_key(j, "directBuffers");
	json_obj(j);
	json_kuint(j, "objects", in->direct_objects);
	json_kuint(j, "bytes", in->direct_bytes);
	json_obj_end(j);
	json_key(j, "gcRootKinds"); /* as Shark names them */
	json_obj(j);
	for (size_t i = 0; i < in->nroot_kinds; i++)
		json_kuint(j, in->root_kinds[i].name, in->root_kinds[i].count);
	json_obj_end(j);
	json_kstr(j, "retainedModel", in->retained_model);
	if (in->model_rounds)
		json_kuint(j, "retainedModelRounds", in->model_rounds);
	json_key(j, "gcRootOrder");
	json_arr(j);
	for (size_t i = 0; i < in->nroot_order; i++)
		json_str(j, in->root_order[i]);
	json_arr_end(j);
	json_kstr(j, "referencesNotCrossed", in->not_crossed);
	json_kuint(j, "stackTraces", in->stack_traces);
	json_kuint(j, "stackFrames", in->stack_frames);
	json_kdbl(j, "analysisSeconds", in->seconds);
	json_obj_end(j);
}

static const char *const list_keys[] = {
	[RUN_AN_CLASS_INFOS] = "classInfos", [RUN_AN_GC_PATHS] = "gcPaths", [RUN_AN_SUSPECTS] = "suspects",
	[RUN_AN_THREADS] = "threads", [RUN_AN_CLASS_LOADERS] = "classLoaders",
	[RUN_AN_DUPLICATE_CLASSES] = "duplicateClasses", [RUN_AN_TOP_RETAINERS] = "topRetainers",
	[RUN_AN_CLASS_HISTOGRAM] = "classHistogram", [RUN_AN_UNREACHABLE] = "unreachableHistogram",
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
	json_kstr(j, "className", c->class_name);
	json_kuint(j, "instanceCount", c->instance_count);
	json_kuint(j, "leakInstanceCount", c->leak_instance_count);
	json_kstr(j, "leakReason", c->leak_reason);
	json_obj_end(j);
}

void run_anw_leak_begin(struct json *j, const struct run_anw_leak *l)
{
	json_obj(j);
	json_kuint(j, "instanceCount", l->instance_count);
	json_kstr(j, "leakReason", l->leak_reason);
	json_kbool(j, "libraryLeak", l->library_leak != NULL);
	json_kstr(j, "libraryLeakReference", l->library_leak);
	if (l->watcher != RUN_AN_UNWATCHED) {
		json_key(j, l->watcher == RUN_AN_MATRIX ? "matrix" : "leakCanary");
		json_obj(j);
		json_kstr(j, "key", l->watch_key);
		json_kstr(j, "description", l->watch_description);
		if (l->watch_uptime_ms != INT64_MIN)
			json_kint(j, "watchUptimeMillis", l->watch_uptime_ms);
		if (l->retained_uptime_ms != INT64_MIN)
			json_kint(j, "retainedUptimeMillis", l->retained_uptime_ms);
		if (l->watch_uptime_ms != INT64_MIN && l->retained_uptime_ms != INT64_MIN && l->retained_uptime_ms >= 0)
			json_kint(j, "retainedAfterWatchMillis", l->retained_uptime_ms - l->watch_uptime_ms);
		json_obj_end(j);
	}
	json_kstr(j, "gcRoot", l->gc_root);
	json_kstr(j, "signature", l->signature);
	json_kstr(j, "className", l->class_name);
	if (l->retained_native_size)
		json_kuint(j, "retainedNativeSize", l->retained_native_size);
	json_khex(j, "leakObjectId", l->leak_object_id);
	json_kuint(j, "retainedSize", l->retained_size);
	json_kuint(j, "retainedSizeTotal", l->retained_size_total);
	if (l->native_size_total)
		json_kuint(j, "nativeSizeTotal", l->native_size_total);
	json_kuint(j, "pathLength", l->path_length);
}

void run_anw_suspect_begin(struct json *j, const struct run_anw_suspect *s)
{
	json_obj(j);
	json_kstr(j, "kind", s->instances ? "instances" : "object");
	json_kstr(j, "description", s->description);
	json_kstr(j, "className", s->class_name);
	json_kbool(j, "isClass", s->is_class);
	json_khex(j, "objectId", s->object_id);
	json_kuint(j, "count", s->count);
	json_kuint(j, "retainedSize", s->retained_size);
	json_kdbl(j, "heapShare", s->heap_share);
	json_kstr(j, "signature", s->signature);
	json_kstr(j, "gcRoot", s->gc_root);
	json_key(j, "accumulationPoint");
	json_obj(j);
	json_kstr(j, "className", s->point_class);
	json_khex(j, "objectId", s->point_id);
	json_kuint(j, "retainedSize", s->point_retained_size);
	json_kuint(j, "children", s->point_children);
	if (s->chain_class) {
		json_kstr(j, "chainClass", s->chain_class);
		json_kuint(j, "chainLength", s->chain_length);
	}
	json_obj_end(j);
	json_key(j, "accumulates");
	json_arr(j);
	for (size_t k = 0; k < s->naccumulates; k++) {
		json_obj(j);
		json_kstr(j, "className", s->accumulates[k].class_name);
		json_kuint(j, "instanceCount", s->accumulates[k].instance_count);
		json_kuint(j, "retainedSize", s->accumulates[k].retained_size);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_kuint(j, "pathLength", s->path_length);
}

void run_anw_loader_begin(struct json *j, const struct run_anw_loader *l)
{
	json_obj(j);
	json_kstr(j, "className", l->class_name);
	json_kuint(j, "loaders", l->loaders);
	json_kuint(j, "classes", l->classes);
	json_kuint(j, "retainedSize", l->retained_size);
	if (l->example_id)
		json_khex(j, "exampleId", l->example_id);
	if (l->has_path)
		json_kstr(j, "gcRoot", l->gc_root);
}

void run_anw_path_begin(struct json *j)
{
	json_key(j, "path");
	json_arr(j);
}

void run_anw_step(struct json *j, const struct run_anw_step *s)
{
	json_obj(j);
	json_kstr(j, "reference", s->reference);
	json_kstr(j, "referenceType", s->reference_type);
	json_kstr(j, "declaredClass", s->declared_class);
	if (s->has_object_id)
		json_khex(j, "objectId", s->object_id);
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
	json_kuint(j, "serial", t->serial);
	json_kstr(j, "name", t->name);
	json_kstr(j, "className", t->class_name);
	json_khex(j, "objectId", t->object_id);
	json_kbool(j, "threwOutOfMemoryError", t->threw_oom);
	json_kuint(j, "heldRetainedSize", t->held_retained_size);
	json_kuint(j, "retainedSize", t->retained_size);
	json_kint(j, "stackTraceSerial", t->stack_trace_serial);
	json_kuint(j, "declaredFrames", t->declared_frames);
	json_key(j, "frames");
	json_arr(j);
}

void run_anw_frame_begin(struct json *j, const char *frame)
{
	json_obj(j);
	json_kstr(j, "frame", frame);
	json_key(j, "locals");
	json_arr(j);
}

void run_anw_local(struct json *j, const struct run_anw_local *l)
{
	json_obj(j);
	json_kstr(j, "kind", l->kind);
	json_kstr(j, "className", l->class_name);
	json_khex(j, "objectId", l->object_id);
	json_kuint(j, "retainedSize", l->retained_size);
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
	json_key(j, "otherLocals"); /* with no frame, or a frame the trace does not have */
	json_arr(j);
}

void run_anw_thread_end(struct json *j)
{
	json_arr_end(j); /* the other locals */
	json_obj_end(j);
}

void run_anw_growth_begin(struct json *j, const struct run_anw_growth *g)
{
	json_key(j, "growth");
	json_obj(j);
	json_kstr(j, "baseline", g->baseline);
	json_kuint(j, "reachableShallowSizeBefore", g->reachable_before);
	json_kuint(j, "reachableShallowSize", g->reachable);
	json_key(j, "classes");
	json_arr(j);
}

void run_anw_growth_class(struct json *j, const struct run_anw_growth_class *c)
{
	json_obj(j);
	json_kstr(j, "className", c->class_name);
	json_kuint(j, "instanceCountBefore", c->count_before);
	json_kuint(j, "instanceCount", c->count);
	json_kuint(j, "retainedSizeBefore", c->retained_before);
	json_kuint(j, "retainedSize", c->retained);
	json_obj_end(j);
}

void run_anw_growth_suspects(struct json *j)
{
	json_arr_end(j); /* the classes */
	json_key(j, "suspects");
	json_arr(j);
}

void run_anw_growth_suspect(struct json *j, const struct run_anw_growth_suspect *s)
{
	json_obj(j);
	json_kstr(j, "signature", s->signature);
	json_kstr(j, "description", s->description);
	json_kbool(j, "new", s->is_new);
	json_kuint(j, "retainedSizeBefore", s->retained_before);
	json_kuint(j, "retainedSize", s->retained);
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
	json_kstr(j, "className", d->class_name);
	json_kuint(j, "loaders", d->loaders);
	json_kuint(j, "classes", d->classes);
	json_obj_end(j);
}

void run_anw_duplicate_names(struct json *j, uint64_t n)
{
	json_kuint(j, "duplicateClassNames", n);
}

void run_anw_retainer(struct json *j, const struct run_anw_retainer *r)
{
	json_obj(j);
	json_khex(j, "objectId", r->object_id);
	json_kstr(j, "className", r->class_name);
	json_kbool(j, "isClass", r->is_class);
	json_kuint(j, "shallowSize", r->shallow_size);
	json_kuint(j, "retainedSize", r->retained_size);
	if (r->retained_native_size)
		json_kuint(j, "retainedNativeSize", r->retained_native_size);
	json_obj_end(j);
}

void run_anw_class(struct json *j, const struct run_anw_class *c)
{
	json_obj(j);
	json_kstr(j, "className", c->class_name);
	json_kuint(j, "instanceCount", c->instance_count);
	json_kuint(j, "shallowSize", c->shallow_size);
	json_kuint(j, "retainedSize", c->retained_size);
	json_obj_end(j);
}

void run_anw_unreachable(struct json *j, const struct run_anw_class *c)
{
	json_obj(j);
	json_kstr(j, "className", c->class_name);
	json_kuint(j, "instanceCount", c->instance_count);
	json_kuint(j, "shallowSize", c->shallow_size);
	json_obj_end(j);
}

void run_anw_end(struct json *j, const struct run_anw_timings *t)
{
	json_key(j, "timings");
	json_obj(j);
	json_kdbl(j, "indexPass1", t->index_pass1);
	json_kdbl(j, "indexPass2", t->index_pass2);
	json_kdbl(j, "dominators", t->dominators);
	json_kdbl(j, "shortestPaths", t->shortest_paths);
	json_kdbl(j, "leakRules", t->leak_rules);
	json_kdbl(j, "referenceNames", t->reference_names);
	json_kdbl(j, "modelSearch", t->model_search);
	json_kdbl(j, "classHistogram", t->class_histogram);
	json_kdbl(j, "suspects", t->suspects);
	json_kdbl(j, "threads", t->threads);
	json_kdbl(j, "total", t->total);
	json_obj_end(j);
	json_obj_end(j);
	json_end_line(j);
}
