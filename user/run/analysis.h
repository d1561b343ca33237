/* dump-N.analysis.json as the report and the lab's store read it: the
 * leak groups by rule (gcPaths) and the suspects with their paths from a
 * GC root, the threads with their frames and locals, the class histogram,
 * the top retainers, the heap's totals. The analyzer's report writes the
 * file (analyze/report.c, in Shark's and KOOM's key names, which other
 * tools read); this module is its one reader. Strings point into the
 * parsed object; a missing figure reads as NAN. */
#ifndef OOMSCOPE_RUN_ANALYSIS_H
#define OOMSCOPE_RUN_ANALYSIS_H

#include <stddef.h>

struct json_object;

struct run_an_step {
	const char *reference_type;  /* "INSTANCE_FIELD", "ARRAY_ENTRY", ... */
	const char *reference;       /* "java.util.ArrayList.elementData" */
};

struct run_an_path {
	const char *gc_root;         /* the root's kind */
	struct run_an_step *steps;
	size_t nsteps;
};

struct run_an_leak {             /* a gcPaths entry: a leak group by rule */
	const char *class_name, *signature, *leak_reason;
	double instance_count, retained_size_total, retained_size;
	struct run_an_path path;
};

struct run_an_suspect {          /* found with no rule: what accumulates where */
	const char *description, *signature, *class_name;
	double count, retained_size;
	struct run_an_path path;
};

struct run_an_local {
	const char *class_name;
	double retained_size;
};

struct run_an_frame {
	const char *frame;           /* "Class.method(File.java:N)" */
	struct run_an_local *locals;
	size_t nlocals;
};

struct run_an_thread {
	const char *name;
	int threw_oom;
	double held_retained_size;
	struct run_an_frame *frames;
	size_t nframes;
};

struct run_an_class {            /* the class histogram */
	const char *class_name;
	double instance_count, retained_size;
};

struct run_an_retainer {
	int is_class;
	const char *class_name, *object_id;
	double retained_size, shallow_size;
};

struct run_analysis {
	double objects, reachable_shallow_size; /* runningInfo */
	struct run_an_leak *leaks;
	size_t nleaks;
	struct run_an_suspect *suspects;
	size_t nsuspects;
	struct run_an_thread *threads;
	size_t nthreads;
	struct run_an_class *classes;
	size_t nclasses;
	struct run_an_retainer *retainers;
	size_t nretainers;
};

/* doc into out (arrays allocated; run_analysis_free). 0, -EINVAL (not an
 * object) or -ENOMEM. */
int run_analysis_read(struct json_object *doc, struct run_analysis *out);
void run_analysis_free(struct run_analysis *a);

#endif
