/* dump-N.analysis.json's reader. */
#include "run/analysis.h"
#include "util/jsonread.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

	s->reference_type = jr_str(o, "referenceType");
	s->reference = jr_str(o, "reference");
	return 0;
}

static int read_path(struct json_object *o, struct run_an_path *p)
{
	p->gc_root = jr_str(o, "gcRoot");
	return read_array(o, "path", sizeof(*p->steps), (void **)&p->steps, &p->nsteps, read_step);
}

static int read_leak(struct json_object *o, void *dst)
{
	struct run_an_leak *l = dst;

	l->class_name = jr_str(o, "className");
	l->signature = jr_str(o, "signature");
	l->leak_reason = jr_str(o, "leakReason");
	l->instance_count = jr_num(o, "instanceCount", NAN);
	l->retained_size_total = jr_num(o, "retainedSizeTotal", NAN);
	l->retained_size = jr_num(o, "retainedSize", NAN);
	return read_path(o, &l->path);
}

static int read_suspect(struct json_object *o, void *dst)
{
	struct run_an_suspect *s = dst;

	s->description = jr_str(o, "description");
	s->signature = jr_str(o, "signature");
	s->class_name = jr_str(o, "className");
	s->count = jr_num(o, "count", NAN);
	s->retained_size = jr_num(o, "retainedSize", NAN);
	{
		struct json_object *acc = jr_arr(o, "accumulates");

		if (acc && json_object_array_length(acc) > 0)
			s->accumulates = jr_str(json_object_array_get_idx(acc, 0), "className");
	}
	return read_path(o, &s->path);
}

static int read_local(struct json_object *o, void *dst)
{
	struct run_an_local *l = dst;

	l->class_name = jr_str(o, "className");
	l->retained_size = jr_num(o, "retainedSize", NAN);
	return 0;
}

static int read_frame(struct json_object *o, void *dst)
{
	struct run_an_frame *f = dst;

	f->frame = jr_str(o, "frame");
	return read_array(o, "locals", sizeof(*f->locals), (void **)&f->locals, &f->nlocals, read_local);
}

static int read_thread(struct json_object *o, void *dst)
{
	struct run_an_thread *t = dst;

	t->name = jr_str(o, "name");
	t->threw_oom = jr_bool(o, "threwOutOfMemoryError");
	t->held_retained_size = jr_num(o, "heldRetainedSize", NAN);
	return read_array(o, "frames", sizeof(*t->frames), (void **)&t->frames, &t->nframes, read_frame);
}

static int read_class(struct json_object *o, void *dst)
{
	struct run_an_class *c = dst;

	c->class_name = jr_str(o, "className");
	c->instance_count = jr_num(o, "instanceCount", NAN);
	c->shallow_size = jr_num(o, "shallowSize", NAN);
	c->retained_size = jr_num(o, "retainedSize", NAN);
	return 0;
}

static int read_retainer(struct json_object *o, void *dst)
{
	struct run_an_retainer *r = dst;

	r->is_class = jr_bool(o, "isClass");
	r->class_name = jr_str(o, "className");
	r->object_id = jr_str(o, "objectId");
	r->retained_size = jr_num(o, "retainedSize", NAN);
	r->shallow_size = jr_num(o, "shallowSize", NAN);
	return 0;
}

int run_analysis_read(struct json_object *doc, struct run_analysis *out)
{
	struct json_object *ri = jr_get(doc, "runningInfo");

	memset(out, 0, sizeof(*out));
	if (!doc || !json_object_is_type(doc, json_type_object))
		return -EINVAL;
	out->objects = jr_num(ri, "objects", NAN);
	out->reachable_shallow_size = jr_num(ri, "reachableShallowSize", NAN);
	out->unreachable_objects = jr_num(ri, "unreachableObjects", NAN);
	out->unreachable_shallow_size = jr_num(ri, "unreachableShallowSize", NAN);
	if (read_array(doc, "gcPaths", sizeof(*out->leaks), (void **)&out->leaks, &out->nleaks, read_leak) ||
	    read_array(doc, "suspects", sizeof(*out->suspects), (void **)&out->suspects, &out->nsuspects, read_suspect) ||
	    read_array(doc, "threads", sizeof(*out->threads), (void **)&out->threads, &out->nthreads, read_thread) ||
	    read_array(doc, "classHistogram", sizeof(*out->classes), (void **)&out->classes, &out->nclasses, read_class) ||
	    read_array(doc, "unreachableHistogram", sizeof(*out->unreachable), (void **)&out->unreachable,
		       &out->nunreachable, read_class) ||
	    read_array(doc, "topRetainers", sizeof(*out->retainers), (void **)&out->retainers, &out->nretainers,
		       read_retainer)) {
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
	free(a->leaks);
	free(a->suspects);
	free(a->threads);
	free(a->classes);
	free(a->unreachable);
	free(a->retainers);
	memset(a, 0, sizeof(*a));
}
