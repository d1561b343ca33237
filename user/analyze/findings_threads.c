/* The threads in the analysis' text and JSON: each thread's name, stack
 * trace and the locals of each frame, with what they retain. */
#include "analyze/findings.h"
#include "analyze/findings_int.h"
#include "run/analysis.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define TEXT_FRAMES 24 /* frames per thread in the text; the JSON has all */

/* Locals of t at frame depth f (f < 0: those with no frame), one call each. */
static void each_local(const struct ooms_analysis *a, const struct ooms_thread *t, int32_t f,
		       void (*fn)(const struct ooms_analysis *a, const struct ooms_root *r, void *ctx), void *ctx)
{
	for (uint32_t i = 0; i < t->nroots; i++) {
		const struct ooms_root *r = &a->ix.roots[a->threads.roots[t->roots_at + i]];

		if ((f < 0 && r->frame < 0) || (f >= 0 && r->frame == f))
			fn(a, r, ctx);
	}
}

static const char *local_kind(uint8_t kind)
{
	return kind == HPROF_ROOT_JNI_LOCAL ? "JNI local" : kind == HPROF_ROOT_NATIVE_STACK ? "native stack"
	       : kind == HPROF_ROOT_THREAD_BLOCK ? "thread block" : "local";
}

static void local_json(const struct ooms_analysis *a, const struct ooms_root *r, void *ctx)
{
	run_anw_local(ctx, &(struct run_anw_local){
		.kind = ooms_root_kind_name(r->kind), .class_name = report_node_class(&a->ix, r->node),
		.object_id = ooms_index_id(&a->ix, r->node),
		.retained_size = ooms_dominated(&a->dom, r->node) ? ooms_retained(&a->dom, r->node) : 0,
	});
}

static void local_text(const struct ooms_analysis *a, const struct ooms_root *r, void *ctx)
{
	char b1[32];

	report_human_bytes(ooms_dominated(&a->dom, r->node) ? ooms_retained(&a->dom, r->node) : 0, b1, sizeof(b1));
	fprintf(ctx, "          %s %s@0x%" PRIx64 " retains %s\n", local_kind(r->kind), report_node_class(&a->ix, r->node),
		ooms_index_id(&a->ix, r->node), b1);
}

void report_threads_json(struct json *j, const struct ooms_analysis *a)
{
	const struct ooms_index *ix = &a->ix;
	char frame[1200];

	run_anw_list(j, RUN_AN_THREADS);
	for (size_t k = 0; k < a->threads.n; k++) {
		const struct ooms_thread *t = &a->threads.list[k];
		const struct ooms_trace *tr = t->trace != OOMS_NONE ? &ix->traces[t->trace] : NULL;

		run_anw_thread_begin(j, &(struct run_anw_thread){
			.serial = t->serial, .name = t->name[0] ? t->name : NULL, .class_name = report_node_class(ix, t->node),
			.object_id = ooms_index_id(ix, t->node), .threw_oom = t->oom, .held_retained_size = t->held,
			.retained_size = ooms_dominated(&a->dom, t->node) ? ooms_retained(&a->dom, t->node) : 0,
			.stack_trace_serial = tr ? (int64_t)tr->serial : -1, .declared_frames = tr ? tr->declared : 0,
		});
		for (uint32_t f = 0; tr && f < tr->nframes; f++) {
			ooms_frame_text(ix, &a->threads, ix->trace_frames[tr->frames_at + f], frame, sizeof(frame));
			run_anw_frame_begin(j, frame);
			each_local(a, t, (int32_t)f, local_json, j);
			run_anw_frame_end(j);
		}
		run_anw_other_locals(j); /* with no frame, or a frame the trace does not have */
		each_local(a, t, -1, local_json, j);
		for (uint32_t i = 0; i < t->nroots; i++) {
			const struct ooms_root *r = &ix->roots[a->threads.roots[t->roots_at + i]];

			if (r->frame >= 0 && (!tr || (uint32_t)r->frame >= tr->nframes))
				local_json(a, r, j);
		}
		run_anw_thread_end(j);
	}
	run_anw_list_end(j);
}

void report_threads_text(const struct ooms_analysis *a, FILE *f)
{
	const struct ooms_index *ix = &a->ix;
	char frame[1200], b1[32];

	fprintf(f, "\nthreads: %zu (by what their locals retain; %u stack traces, %u frames in the dump)\n", a->threads.n,
		ix->ntraces, ix->nframes);
	for (size_t k = 0; k < a->threads.n; k++) {
		const struct ooms_thread *t = &a->threads.list[k];
		const struct ooms_trace *tr = t->trace != OOMS_NONE ? &ix->traces[t->trace] : NULL;

		report_human_bytes(t->held, b1, sizeof(b1));
		fprintf(f, "\n\"%s\" serial %u, %s@0x%" PRIx64 ", locals retain %s%s\n", t->name[0] ? t->name : "?", t->serial,
			report_node_class(ix, t->node), ooms_index_id(ix, t->node), b1,
			t->oom ? "  <- threw the OutOfMemoryError" : "");
		for (uint32_t i = 0; tr && i < tr->nframes; i++) {
			if (i == TEXT_FRAMES) {
				fprintf(f, "        ... %u more frames (--json has them all)\n", tr->nframes - i);
				break;
			}
			ooms_frame_text(ix, &a->threads, ix->trace_frames[tr->frames_at + i], frame, sizeof(frame));
			fprintf(f, "        at %s\n", frame);
			each_local(a, t, (int32_t)i, local_text, f);
		}
		each_local(a, t, -1, local_text, f);
	}
}
