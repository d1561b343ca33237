/* The Java threads of a HotSpot fork-dump, as jcmd's dump has them: each
 * thread's stack trace with its frames (method, signature, source file,
 * class, line), gathered in the parent with the other threads suspended, so
 * that the frames match the locals the heap walk reports for them (by
 * frame depth) at the fork that follows. The child writes them
 * (STRING, STACK_FRAME and STACK_TRACE records). */
#ifndef OOMSCOPE_SHIM_HS_THREADS_H
#define OOMSCOPE_SHIM_HS_THREADS_H

#include <jvmti.h>
#include <stdint.h>

struct hs_method {
	jmethodID id;
	uint32_t name, sig, file; /* indices in strings */
	uint32_t class_serial;    /* the layout's class tag, 0 when not in it */
	jint nlines;              /* GetLineNumberTable's; -1: native, 0: none */
	jvmtiLineNumberEntry *lines;
};

struct hs_frame {
	uint32_t method;          /* index in methods */
	int32_t line;             /* hprof: > 0 a line, -1 unknown, -3 native */
};

struct hs_thread {
	jobject ref;              /* global ref to the thread object */
	jlong tag;                /* its tag during the dump */
	uint32_t frames_at, nframes;
	int suspended;            /* suspended by us (resumed after the fork) */
};

struct hs_threads {
	struct hs_thread *list;
	uint32_t n;
	struct hs_frame *frames;
	size_t nframes, frames_cap;
	struct hs_method *methods;
	size_t nmethods, methods_cap;
	char **strings;
	uint32_t nstrings;
	size_t strings_cap;
	int consistent;           /* the others were suspended: traces match the walk */
	double suspended_at_ms;   /* when the suspension began (the app's pause starts) */
};

/* Suspends every Java thread but the caller, reads their stack traces and
 * tags the thread objects with *next_tag onwards (class_tags: how many
 * classes the layout tagged, 1..class_tags). A thread that cannot be
 * suspended is read as it runs (t->consistent then 0). 0 or -1 with why. */
int hs_threads_gather(jvmtiEnv *jvmti, JNIEnv *jni, struct hs_threads *t, jlong *next_tag, jlong class_tags,
		      char *why, size_t why_len);
/* Resumes the threads gathered suspended (parent, right after the fork). */
void hs_threads_resume(jvmtiEnv *jvmti, struct hs_threads *t);
/* Removes the tags and frees everything (parent, after the dump started). */
void hs_threads_release(jvmtiEnv *jvmti, JNIEnv *jni, struct hs_threads *t);
/* The thread whose object has tag, or NULL. */
const struct hs_thread *hs_threads_find(const struct hs_threads *t, jlong tag);

#endif
