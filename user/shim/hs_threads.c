/* The Java threads' stack traces for the HotSpot fork-dump (hs_threads.h). */
#define _GNU_SOURCE
#include "shim/hs_threads.h"
#include "shim/shim.h"
#include "util/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 1024

static uint32_t add_string(struct hs_threads *t, const char *s)
{
	char **slot;

	for (uint32_t i = 0; i < t->nstrings; i++) /* few: method names repeat little */
		if (!strcmp(t->strings[i], s))
			return i;
	if (!(slot = VEC_PUSH(t->strings, t->nstrings, t->strings_cap)) || !(*slot = strdup(s))) {
		if (slot)
			t->nstrings--;
		return UINT32_MAX;
	}
	return t->nstrings - 1;
}

/* Method m's index in t->methods, resolved once. UINT32_MAX: out of memory. */
static uint32_t method_index(jvmtiEnv *jvmti, JNIEnv *jni, struct hs_threads *t, jmethodID m, jlong class_tags)
{
	struct hs_method *x;
	char *name = NULL, *sig = NULL, *file = NULL;
	jclass k = NULL;
	jlong tag = 0;
	jboolean native = 0;

	for (size_t i = t->nmethods; i-- > 0;)
		if (t->methods[i].id == m)
			return (uint32_t)i;
	if (!(x = VEC_PUSH(t->methods, t->nmethods, t->methods_cap)))
		return UINT32_MAX;
	memset(x, 0, sizeof(*x));
	x->id = m;
	(*jvmti)->GetMethodName(jvmti, m, &name, &sig, NULL);
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &k) == JVMTI_ERROR_NONE && k) {
		if ((*jvmti)->GetTag(jvmti, k, &tag) == JVMTI_ERROR_NONE && tag >= 1 && tag <= class_tags)
			x->class_serial = (uint32_t)tag; /* LOAD_CLASS serial = class tag */
		(*jvmti)->GetSourceFileName(jvmti, k, &file);
		(*jni)->DeleteLocalRef(jni, k);
	}
	x->name = add_string(t, name ? name : "?");
	x->sig = add_string(t, sig ? sig : "?");
	x->file = add_string(t, file ? file : "Unknown Source");
	(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)file);
	if ((*jvmti)->IsMethodNative(jvmti, m, &native) == JVMTI_ERROR_NONE && native)
		x->nlines = -1;
	else if ((*jvmti)->GetLineNumberTable(jvmti, m, &x->nlines, &x->lines) != JVMTI_ERROR_NONE)
		x->nlines = 0, x->lines = NULL;
	if (x->name == UINT32_MAX || x->sig == UINT32_MAX || x->file == UINT32_MAX) {
		t->nmethods--;
		return UINT32_MAX;
	}
	return (uint32_t)(t->nmethods - 1);
}

/* The source line of bytecode index loc, as HotSpot's dumper gives it. */
static int32_t line_of(const struct hs_method *m, jlocation loc)
{
	int32_t line = -1;
	jlocation best = -1;

	if (m->nlines < 0)
		return -3;
	for (jint i = 0; i < m->nlines; i++)
		if (m->lines[i].start_location <= loc && m->lines[i].start_location > best) {
			best = m->lines[i].start_location;
			line = m->lines[i].line_number;
		}
	return line;
}

/* Reads the traces of threads[0..n) into t (its frames and methods). */
static int read_traces(jvmtiEnv *jvmti, JNIEnv *jni, struct hs_threads *t, const jthread *threads, jint n,
		       jlong class_tags)
{
	jvmtiStackInfo *info = NULL;
	int rc = 0;

	t->nframes = 0;
	if ((*jvmti)->GetThreadListStackTraces(jvmti, n, threads, MAX_FRAMES, &info) != JVMTI_ERROR_NONE)
		return -1;
	for (jint i = 0; i < n && !rc; i++) {
		struct hs_thread *th = &t->list[i];

		th->frames_at = (uint32_t)t->nframes;
		th->nframes = 0;
		if (info[i].state & JVMTI_THREAD_STATE_TERMINATED || info[i].frame_count <= 0)
			continue;
		for (jint f = 0; f < info[i].frame_count; f++) {
			uint32_t mi = method_index(jvmti, jni, t, info[i].frame_buffer[f].method, class_tags);
			struct hs_frame *fr;

			if (mi == UINT32_MAX || !(fr = VEC_PUSH(t->frames, t->nframes, t->frames_cap))) {
				rc = -1;
				break;
			}
			fr->method = mi;
			fr->line = line_of(&t->methods[mi], info[i].frame_buffer[f].location);
			th->nframes++;
		}
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)info);
	return rc;
}

int hs_threads_gather(jvmtiEnv *jvmti, JNIEnv *jni, struct hs_threads *t, jlong *next_tag, jlong class_tags,
		      char *why, size_t why_len)
{
	jint n = 0, k = 0;
	jthread *all = NULL, *others = NULL, self = NULL;
	jvmtiError *results = NULL;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if ((*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE ||
	    (*jvmti)->GetAllThreads(jvmti, &n, &all) != JVMTI_ERROR_NONE) {
		snprintf(why, why_len, "GetAllThreads failed");
		return -1;
	}
	others = calloc((size_t)n + 1, sizeof(*others));
	results = calloc((size_t)n + 1, sizeof(*results));
	t->list = calloc((size_t)n + 1, sizeof(*t->list));
	if (!others || !results || !t->list) {
		snprintf(why, why_len, "out of memory");
		goto out;
	}
	for (jint i = 0; i < n; i++)
		if (!(*jni)->IsSameObject(jni, all[i], self))
			others[k++] = all[i];
	t->n = (uint32_t)k;
	for (jint i = 0; i < k; i++)
		if (!(t->list[i].ref = (*jni)->NewGlobalRef(jni, others[i]))) {
			snprintf(why, why_len, "out of memory");
			goto out;
		}
	/* first while they run, so that resolving their methods (the slow part)
	 * is mostly done before anything is suspended */
	if (read_traces(jvmti, jni, t, others, k, class_tags)) {
		snprintf(why, why_len, "GetThreadListStackTraces failed");
		goto out;
	}
	t->suspended_at_ms = shim_now_ms();
	t->consistent = k > 0 && (*jvmti)->SuspendThreadList(jvmti, k, others, results) == JVMTI_ERROR_NONE;
	for (jint i = 0; i < k; i++) {
		t->list[i].suspended = t->consistent && results[i] == JVMTI_ERROR_NONE;
		/* a thread suspended by someone else stays as it is; one that ended has no frames */
		if (t->consistent && results[i] != JVMTI_ERROR_NONE && results[i] != JVMTI_ERROR_THREAD_NOT_ALIVE)
			t->consistent = 0;
	}
	if (!k)
		t->consistent = 1;
	if (read_traces(jvmti, jni, t, others, k, class_tags)) {
		snprintf(why, why_len, "GetThreadListStackTraces failed");
		goto out;
	}
	for (jint i = 0; i < k; i++) {
		t->list[i].tag = (*next_tag)++;
		if ((*jvmti)->SetTag(jvmti, others[i], t->list[i].tag) != JVMTI_ERROR_NONE) {
			snprintf(why, why_len, "SetTag on a thread failed");
			goto out;
		}
	}
	rc = 0;
out:
	if (rc)
		hs_threads_resume(jvmti, t);
	for (jint i = 0; i < n; i++)
		(*jni)->DeleteLocalRef(jni, all[i]);
	if (self)
		(*jni)->DeleteLocalRef(jni, self);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)all);
	free(others);
	free(results);
	return rc;
}

void hs_threads_resume(jvmtiEnv *jvmti, struct hs_threads *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->list[i].suspended) {
			(*jvmti)->ResumeThread(jvmti, t->list[i].ref);
			t->list[i].suspended = 0;
		}
}

void hs_threads_release(jvmtiEnv *jvmti, JNIEnv *jni, struct hs_threads *t)
{
	hs_threads_resume(jvmti, t);
	for (uint32_t i = 0; i < t->n; i++)
		if (t->list[i].ref) {
			(*jvmti)->SetTag(jvmti, t->list[i].ref, 0);
			(*jni)->DeleteGlobalRef(jni, t->list[i].ref);
		}
	for (size_t i = 0; i < t->nmethods; i++)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)t->methods[i].lines);
	for (uint32_t i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->strings);
	free(t->methods);
	free(t->frames);
	free(t->list);
	memset(t, 0, sizeof(*t));
}

const struct hs_thread *hs_threads_find(const struct hs_threads *t, jlong tag)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->list[i].tag == tag)
			return &t->list[i];
	return NULL;
}
