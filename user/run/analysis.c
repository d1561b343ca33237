/* dump-N.analysis.json's reader: a field list per record. */
#include "run/analysis.h"
#include "run/analysis_keys.h"
#include "run/fields.h"
#include "util/jsonread.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The fields read of each record (what the report and the store use; the
 * writer, analysis_write.c, has them all), by the keys of analysis_keys.h. */
static const struct run_field step_fields[] = {
	RF(RF_STR, struct run_an_step, reference_type, AK_REFERENCE_TYPE),
	RF(RF_STR, struct run_an_step, reference, AK_REFERENCE),
};

static const struct run_field leak_fields[] = {
	RF(RF_STR, struct run_an_leak, class_name, AK_CLASS_NAME),
	RF(RF_STR, struct run_an_leak, signature, AK_SIGNATURE),
	RF(RF_STR, struct run_an_leak, leak_reason, AK_LEAK_REASON),
	RF(RF_DBL, struct run_an_leak, instance_count, AK_INSTANCE_COUNT),
	RF(RF_DBL, struct run_an_leak, retained_size_total, AK_RETAINED_SIZE_TOTAL),
	RF(RF_DBL, struct run_an_leak, retained_size, AK_RETAINED_SIZE),
};

static const struct run_field suspect_fields[] = {
	RF(RF_STR, struct run_an_suspect, description, AK_DESCRIPTION),
	RF(RF_STR, struct run_an_suspect, signature, AK_SIGNATURE),
	RF(RF_STR, struct run_an_suspect, class_name, AK_CLASS_NAME),
	RF(RF_DBL, struct run_an_suspect, count, AK_COUNT),
	RF(RF_DBL, struct run_an_suspect, retained_size, AK_RETAINED_SIZE),
};

static const struct run_field local_fields[] = {
	RF(RF_STR, struct run_an_local, class_name, AK_CLASS_NAME),
	RF(RF_DBL, struct run_an_local, retained_size, AK_RETAINED_SIZE),
};

static const struct run_field thread_fields[] = {
	RF(RF_STR, struct run_an_thread, name, AK_NAME),
	RF(RF_BOOL, struct run_an_thread, threw_oom, AK_THREW_OUT_OF_MEMORY_ERROR),
	RF(RF_DBL, struct run_an_thread, held_retained_size, AK_HELD_RETAINED_SIZE),
};

static const struct run_field class_fields[] = {
	RF(RF_STR, struct run_an_class, class_name, AK_CLASS_NAME),
	RF(RF_DBL, struct run_an_class, instance_count, AK_INSTANCE_COUNT),
	RF(RF_DBL, struct run_an_class, shallow_size, AK_SHALLOW_SIZE),
	RF(RF_DBL, struct run_an_class, retained_size, AK_RETAINED_SIZE),
};

static const struct run_field retainer_fields[] = {
	RF(RF_BOOL, struct run_an_retainer, is_class, AK_IS_CLASS),
	RF(RF_STR, struct run_an_retainer, class_name, AK_CLASS_NAME),
	RF(RF_STR, struct run_an_retainer, object_id, AK_OBJECT_ID),
	RF(RF_DBL, struct run_an_retainer, retained_size, AK_RETAINED_SIZE),
	RF(RF_DBL, struct run_an_retainer, shallow_size, AK_SHALLOW_SIZE),
};

static const struct run_field loader_fields[] = {
	RF(RF_STR, struct run_an_loader, class_name, AK_CLASS_NAME),
	RF(RF_DBL, struct run_an_loader, loaders, AK_LOADERS),
	RF(RF_DBL, struct run_an_loader, classes, AK_CLASSES),
	RF(RF_DBL, struct run_an_loader, retained_size, AK_RETAINED_SIZE),
};

static const struct run_field duplicate_fields[] = {
	RF(RF_STR, struct run_an_duplicate, class_name, AK_CLASS_NAME),
	RF(RF_DBL, struct run_an_duplicate, loaders, AK_LOADERS),
	RF(RF_DBL, struct run_an_duplicate, classes, AK_CLASSES),
};

static const struct run_field info_fields[] = { /* runningInfo */
	RF(RF_DBL, struct run_analysis, objects, AK_OBJECTS),
	RF(RF_DBL, struct run_analysis, reachable_shallow_size, AK_REACHABLE_SHALLOW_SIZE),
	RF(RF_DBL, struct run_analysis, unreachable_objects, AK_UNREACHABLE_OBJECTS),
	RF(RF_DBL, struct run_analysis, unreachable_shallow_size, AK_UNREACHABLE_SHALLOW_SIZE),
};

/* Each element of o's array key through fn into a fresh array of size
 * bytes each. 0 or -ENOMEM. */
static int read_array(struct json_object *o, const char *key, size_t size, void **out, size_t *n,
		      int (*fn)(struct json_object *el, void *dst))
{
	struct json_object *a = jr_arr(o, key);
	size_t len = a ? json_object_array_length(a) : 0;
	char *v;

	*out = NULL;
	*n = 0;
	if (!len)
		return 0;
	/* one more, zeroed: a failed read's element (and the one past a whole
	 * array) is freed as empty */
	if (!(v = calloc(len + 1, size)))
		return -ENOMEM;
	*out = v;
	for (size_t i = 0; i < len; i++) {
		if (fn(json_object_array_get_idx(a, i), v + i * size))
			return -ENOMEM; /* the caller frees what was read */
		(*n)++;
	}
	return 0;
}

static int read_step(struct json_object *o, void *dst)
{
	struct run_an_step *s = dst;

	run_fields_read(o, s, step_fields, RUN_FIELDS_N(step_fields));
	return 0;
}

static int read_path(struct json_object *o, struct run_an_path *p)
{
	p->gc_root = jr_str(o, AK_GC_ROOT);
	return read_array(o, AK_PATH, sizeof(*p->steps), (void **)&p->steps, &p->nsteps, read_step);
}

static int read_leak(struct json_object *o, void *dst)
{
	struct run_an_leak *l = dst;

	run_fields_read(o, l, leak_fields, RUN_FIELDS_N(leak_fields));
	return read_path(o, &l->path);
}

static int read_suspect(struct json_object *o, void *dst)
{
	struct run_an_suspect *s = dst;

	run_fields_read(o, s, suspect_fields, RUN_FIELDS_N(suspect_fields));
	{
		struct json_object *acc = jr_arr(o, AK_ACCUMULATES);

		if (acc && json_object_array_length(acc) > 0)
			s->accumulates = jr_str(json_object_array_get_idx(acc, 0), AK_CLASS_NAME);
	}
	return read_path(o, &s->path);
}

static int read_local(struct json_object *o, void *dst)
{
	struct run_an_local *l = dst;

	run_fields_read(o, l, local_fields, RUN_FIELDS_N(local_fields));
	return 0;
}

static int read_frame(struct json_object *o, void *dst)
{
	struct run_an_frame *f = dst;

	f->frame = jr_str(o, AK_FRAME);
	return read_array(o, AK_LOCALS, sizeof(*f->locals), (void **)&f->locals, &f->nlocals, read_local);
}

static int read_thread(struct json_object *o, void *dst)
{
	struct run_an_thread *t = dst;

	run_fields_read(o, t, thread_fields, RUN_FIELDS_N(thread_fields));
	return read_array(o, AK_FRAMES, sizeof(*t->frames), (void **)&t->frames, &t->nframes, read_frame);
}

static int read_class(struct json_object *o, void *dst)
{
	struct run_an_class *c = dst;

	run_fields_read(o, c, class_fields, RUN_FIELDS_N(class_fields));
	return 0;
}

static int read_loader(struct json_object *o, void *dst)
{
	struct run_an_loader *l = dst;

	run_fields_read(o, l, loader_fields, RUN_FIELDS_N(loader_fields));
	return read_path(o, &l->path);
}

static int read_duplicate(struct json_object *o, void *dst)
{
	run_fields_read(o, dst, duplicate_fields, RUN_FIELDS_N(duplicate_fields));
	return 0;
}

static int read_retainer(struct json_object *o, void *dst)
{
	struct run_an_retainer *r = dst;

	run_fields_read(o, r, retainer_fields, RUN_FIELDS_N(retainer_fields));
	return 0;
}

int run_analysis_read(struct json_object *doc, struct run_analysis *out)
{
	struct json_object *ri = jr_get(doc, AK_RUNNING_INFO);

	memset(out, 0, sizeof(*out));
	if (!doc || !json_object_is_type(doc, json_type_object))
		return -EINVAL;
	run_fields_read(ri, out, info_fields, RUN_FIELDS_N(info_fields));
	if (read_array(doc, AK_GC_PATHS, sizeof(*out->leaks), (void **)&out->leaks, &out->nleaks, read_leak) ||
	    read_array(doc, AK_SUSPECTS, sizeof(*out->suspects), (void **)&out->suspects, &out->nsuspects, read_suspect) ||
	    read_array(doc, AK_THREADS, sizeof(*out->threads), (void **)&out->threads, &out->nthreads, read_thread) ||
	    read_array(doc, AK_CLASS_HISTOGRAM, sizeof(*out->classes), (void **)&out->classes, &out->nclasses, read_class) ||
	    read_array(doc, AK_UNREACHABLE_HISTOGRAM, sizeof(*out->unreachable), (void **)&out->unreachable,
		       &out->nunreachable, read_class) ||
	    read_array(doc, AK_TOP_RETAINERS, sizeof(*out->retainers), (void **)&out->retainers, &out->nretainers,
		       read_retainer) ||
	    read_array(doc, AK_CLASS_LOADERS, sizeof(*out->loaders), (void **)&out->loaders, &out->nloaders, read_loader) ||
	    read_array(doc, AK_DUPLICATE_CLASSES, sizeof(*out->duplicates), (void **)&out->duplicates, &out->nduplicates,
		       read_duplicate)) {
		run_analysis_free(out);
		return -ENOMEM;
	}
	return 0;
}

void run_analysis_free(struct run_analysis *a)
{
	/* a failed read stops at the element that failed: the arrays hold one
	 * element more than read, zeroed (read_array), so index n is freed as
	 * empty or as the partly read one */
	if (a->leaks)
		for (size_t i = 0; i <= a->nleaks; i++)
			free(a->leaks[i].path.steps);
	if (a->suspects)
		for (size_t i = 0; i <= a->nsuspects; i++)
			free(a->suspects[i].path.steps);
	if (a->threads)
		for (size_t i = 0; i <= a->nthreads; i++)
			if (a->threads[i].frames) {
				for (size_t k = 0; k <= a->threads[i].nframes; k++)
					free(a->threads[i].frames[k].locals);
				free(a->threads[i].frames);
			}
	if (a->loaders)
		for (size_t i = 0; i <= a->nloaders; i++)
			free(a->loaders[i].path.steps);
	free(a->loaders);
	free(a->duplicates);
	free(a->leaks);
	free(a->suspects);
	free(a->threads);
	free(a->classes);
	free(a->unreachable);
	free(a->retainers);
	memset(a, 0, sizeof(*a));
}
