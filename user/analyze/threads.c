#include "analyze/threads.h"
#include "graph/strings.h"
#include "util/vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_local(uint8_t kind)
{
	return kind == HPROF_ROOT_JAVA_FRAME || kind == HPROF_ROOT_JNI_LOCAL || kind == HPROF_ROOT_NATIVE_STACK ||
	       kind == HPROF_ROOT_THREAD_BLOCK;
}

static const struct ooms_index *sort_ix;

/* A thread's locals by frame (those without one last), then by node. */
static int by_frame(const void *x, const void *y)
{
	const struct ooms_root *a = &sort_ix->roots[*(const uint32_t *)x], *b = &sort_ix->roots[*(const uint32_t *)y];
	uint32_t fa = a->frame < 0 ? UINT32_MAX : (uint32_t)a->frame, fb = b->frame < 0 ? UINT32_MAX : (uint32_t)b->frame;

	if (fa != fb)
		return fa < fb ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

static int by_held(const void *x, const void *y)
{
	const struct ooms_thread *a = x, *b = y;

	if (a->oom != b->oom)
		return b->oom - a->oom;
	if (a->held != b->held)
		return a->held < b->held ? 1 : -1;
	return (a->serial > b->serial) - (a->serial < b->serial);
}

/* The class name of a frame (its serial's LOAD_CLASS), dotted. */
static void frame_class(const struct ooms_index *ix, uint32_t serial, char *buf, size_t len)
{
	uint32_t off;

	snprintf(buf, len, "%s", u64map_get(&ix->class_serials, (uint64_t)serial + 1, &off) ? ix->arena + off : "?");
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '.';
}

static const struct ooms_jframe *frame_of(const struct ooms_index *ix, const struct ooms_threads *t, uint64_t id)
{
	uint32_t i;

	return u64map_get(&t->frame_of, id, &i) ? &ix->frames[i] : NULL;
}

void ooms_frame_text(const struct ooms_index *ix, const struct ooms_threads *t, uint64_t frame_id, char *buf,
		     size_t len)
{
	const struct ooms_jframe *f = frame_of(ix, t, frame_id);
	char cls[512], where[600];

	if (!f) {
		snprintf(buf, len, "(frame 0x%llx not in the dump)", (unsigned long long)frame_id);
		return;
	}
	frame_class(ix, f->class_serial, cls, sizeof(cls));
	if (f->line > 0)
		snprintf(where, sizeof(where), "%s:%d", ooms_index_str(ix, ooms_index_string_id(ix, f->source)), f->line);
	else
		snprintf(where, sizeof(where), "%s",
			 f->line == -3 ? "Native Method" : f->line == -2 ? "Compiled Code"
			 : ooms_index_string_id(ix, f->source) != OOMS_NONE ? ooms_index_str(ix, ooms_index_string_id(ix, f->source))
									    : "Unknown Source");
	snprintf(buf, len, "%s.%s(%s)", cls, ooms_index_str(ix, ooms_index_string_id(ix, f->method)), where);
}

/* HotSpot writes the thread that ran out of memory as if it were in
 * OutOfMemoryError's constructor: that fake top frame marks it. */
static int threw_oom(const struct ooms_index *ix, const struct ooms_threads *t, const struct ooms_trace *tr)
{
	const struct ooms_jframe *f;
	char cls[512];

	if (!tr->nframes || !(f = frame_of(ix, t, ix->trace_frames[tr->frames_at])))
		return 0;
	frame_class(ix, f->class_serial, cls, sizeof(cls));
	return !strcmp(cls, "java.lang.OutOfMemoryError") &&
	       !strcmp(ooms_index_str(ix, ooms_index_string_id(ix, f->method)), "<init>");
}

/* The thread of serial s in list, or NULL. */
static struct ooms_thread *thread_of(struct ooms_threads *t, uint32_t s)
{
	for (size_t i = 0; i < t->n; i++) /* threads are few */
		if (t->list[i].serial == s)
			return &t->list[i];
	return NULL;
}

static int add_threads(const struct ooms_index *ix, struct ooms_threads *t)
{
	size_t cap = 0;

	for (uint32_t i = 0; i < ix->nroots; i++) {
		const struct ooms_root *r = &ix->roots[i];
		struct ooms_thread *th;

		if (r->kind != HPROF_ROOT_THREAD_OBJECT || thread_of(t, r->thread_serial))
			continue;
		if (!(th = VEC_PUSH(t->list, t->n, cap)))
			return -ENOMEM;
		memset(th, 0, sizeof(*th));
		th->serial = r->thread_serial;
		th->node = r->node;
		th->trace_serial = r->trace_serial;
		th->trace = OOMS_NONE;
		th->name_string = th->name_chars = OOMS_NONE;
	}
	/* the trace the thread's root names; else the one naming the thread */
	for (size_t k = 0; k < t->n; k++)
		for (uint32_t i = 0; i < ix->ntraces && t->list[k].trace == OOMS_NONE; i++)
			if (t->list[k].trace_serial && ix->traces[i].serial == t->list[k].trace_serial)
				t->list[k].trace = i;
	for (uint32_t i = 0; i < ix->ntraces; i++) {
		struct ooms_thread *th = thread_of(t, ix->traces[i].thread_serial);

		if (th && th->trace == OOMS_NONE && !th->trace_serial)
			th->trace = i;
	}
	return 0;
}

/* Each thread's locals, grouped by thread in one array, and what they hold. */
static int add_locals(const struct ooms_index *ix, const struct ooms_dominators *d, struct ooms_threads *t)
{
	size_t n = 0;

	t->roots = malloc(((size_t)ix->nroots + 1) * sizeof(*t->roots));
	if (!t->roots)
		return -ENOMEM;
	for (size_t k = 0; k < t->n; k++) {
		struct ooms_thread *th = &t->list[k];

		th->roots_at = (uint32_t)n;
		for (uint32_t i = 0; i < ix->nroots; i++)
			if (is_local(ix->roots[i].kind) && ix->roots[i].thread_serial == th->serial)
				t->roots[n++] = i;
		th->nroots = (uint32_t)n - th->roots_at;
		sort_ix = ix;
		vec_sort(t->roots + th->roots_at, th->nroots, sizeof(*t->roots), by_frame);
		for (uint32_t i = 0; i < th->nroots; i++) {
			uint32_t v = ix->roots[t->roots[th->roots_at + i]].node, dup = 0;

			for (uint32_t j = 0; j < i && !dup; j++) /* a node held by two frames counts once */
				dup = ix->roots[t->roots[th->roots_at + j]].node == v;
			if (!dup && v != th->node && ooms_dominated(d, v))
				th->held += ooms_retained(d, v);
		}
	}
	return 0;
}

int ooms_threads_find(const struct ooms_index *ix, const struct ooms_dominators *d,
		      const struct ooms_probe *name_values, struct ooms_threads *t)
{
	int e;

	memset(t, 0, sizeof(*t));
	if (u64map_init(&t->frame_of, (size_t)ix->nframes + 1))
		return -ENOMEM;
	for (uint32_t i = 0; i < ix->nframes; i++)
		if (u64map_put(&t->frame_of, ix->frames[i].id, i))
			return -ENOMEM;
	if ((e = add_threads(ix, t)) || (e = add_locals(ix, d, t)))
		return e;
	for (size_t k = 0; k < t->n; k++) {
		struct ooms_thread *th = &t->list[k];

		th->oom = th->trace != OOMS_NONE && threw_oom(ix, t, &ix->traces[th->trace]);
	}
	/* the name String of each thread object, and its characters (the
	 * String's primitive array: its only reference to one) */
	for (size_t i = 0; name_values && i < name_values->count; i++) {
		const struct ooms_probe_value *pv = &name_values->values[i];
		uint32_t s = (uint32_t)pv->value;

		for (size_t k = 0; k < t->n; k++) {
			struct ooms_thread *th = &t->list[k];

			if (th->node == pv->node)
				ooms_string_nodes(ix, s, &th->name_string, &th->name_chars);
		}
	}
	return 0;
}

int ooms_threads_wants(const struct ooms_index *ix, struct ooms_threads *t, struct ooms_content **wants, size_t *n,
		       size_t *cap)
{
	(void)ix;
	for (size_t k = 0; k < t->n; k++)
		if (ooms_want(wants, n, cap, t->list[k].name_string) || ooms_want(wants, n, cap, t->list[k].name_chars))
			return -ENOMEM;
	return 0;
}

void ooms_threads_finish(const struct ooms_index *ix, struct ooms_threads *t, const struct ooms_content *wants,
			 size_t n)
{
	for (size_t k = 0; k < t->n; k++) {
		struct ooms_thread *th = &t->list[k];

		ooms_string_text(ix, th->name_string, th->name_chars, wants, n, th->name, sizeof(th->name));
	}
	vec_sort(t->list, t->n, sizeof(*t->list), by_held);
}

void ooms_threads_free(struct ooms_threads *t)
{
	free(t->list);
	free(t->roots);
	u64map_free(&t->frame_of);
	memset(t, 0, sizeof(*t));
}
