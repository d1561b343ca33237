/* The threads of a dump, as MAT's thread overview and hprof-slurp show
 * them: each thread object with its name, its stack trace from the dump's
 * STACK_TRACE and STACK_FRAME records, the locals each frame holds
 * (ROOT_JAVA_FRAME with its frame number, JNI locals), and the retained
 * size of what it holds through them. HotSpot marks the thread that threw
 * an OutOfMemoryError with a top frame in OutOfMemoryError's constructor. */
#ifndef OOMSCOPE_ANALYZE_THREADS_H
#define OOMSCOPE_ANALYZE_THREADS_H

#include <stddef.h>
#include <stdint.h>
#include "graph/dominators.h"
#include "graph/index.h"
#include "graph/labels.h"

#define OOMS_THREAD_NAME 128

struct ooms_thread {
	uint32_t serial;          /* the dump's thread serial */
	uint32_t node;            /* the thread object */
	uint32_t trace_serial;    /* its root's stack trace serial */
	uint32_t trace;           /* index in ix->traces, or OOMS_NONE */
	uint32_t roots_at, nroots; /* its locals: indices in ix->roots, by frame */
	uint64_t held;            /* retained through its locals (an object two locals share is not counted) */
	int oom;                  /* it threw the OutOfMemoryError the dump was taken for */
	char name[OOMS_THREAD_NAME]; /* "" when the dump does not hold it */
	/* while the name is read: the String and its characters (contents wanted) */
	uint32_t name_string, name_chars;
};

struct ooms_threads {
	struct ooms_thread *list; /* by held, largest first (after ooms_threads_finish) */
	size_t n;
	uint32_t *roots;          /* the locals' root indices, per thread */
	struct u64map frame_of;   /* frame id -> index in ix->frames */
};

/* The threads from the roots, their traces and locals. name_values: the
 * probe of java.lang.Thread.name (NULL: no names). 0 or -ENOMEM. */
int ooms_threads_find(const struct ooms_index *ix, const struct ooms_dominators *d,
		      const struct ooms_probe *name_values, struct ooms_threads *t);
/* The records whose contents the names need, appended to *wants. */
int ooms_threads_wants(const struct ooms_index *ix, struct ooms_threads *t, struct ooms_content **wants,
		       size_t *n, size_t *cap);
/* The names from the contents read, and the threads sorted by held. */
void ooms_threads_finish(const struct ooms_index *ix, struct ooms_threads *t, const struct ooms_content *wants,
			 size_t n);
void ooms_threads_free(struct ooms_threads *t);

/* A frame, as Java prints it: "com.example.A.run(A.java:12)". */
void ooms_frame_text(const struct ooms_index *ix, const struct ooms_threads *t, uint64_t frame_id, char *buf,
		     size_t len);

#endif
