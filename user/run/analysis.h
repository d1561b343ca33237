/* dump-N.analysis.json (KOOM's and Shark's key names, which other tools
 * read), its writer and its reader.
 *
 * The writer (analysis_write.c) is called in the file's order by the
 * analyzer's findings (analyze/findings*.c), one record at a time: the analyzer
 * fills the run_anw_* structs, this module spells the keys. A record with
 * a path is written in three calls: its _begin, the path's steps, then
 * run_anw_item_end.
 *
 * The keys are spelled once, in analysis_keys.h, for both.
 *
 * The reader (analysis.c) is what the report and the lab's store read: the
 * leak groups by rule (gcPaths) and the suspects with their paths from a
 * GC root, the threads with their frames and locals, the class histogram,
 * the top retainers, the class loaders and the classes loaded more than
 * once (a metaspace analysis), the heap's totals. Strings point into the parsed
 * object; a missing figure reads as NAN. */
#ifndef OOMSCOPE_RUN_ANALYSIS_H
#define OOMSCOPE_RUN_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

struct json;
struct json_object;

#define RUN_ANALYSIS_SCHEMA "oomscope-analysis/1"

/* ---- the writer ---- */

struct run_anw_count {
	const char *name;
	uint64_t count;
};

struct run_anw_info {            /* runningInfo */
	const char *file, *format, *stripped, *runtime;
	int64_t id_size;
	uint64_t dump_bytes, objects, classes, gc_roots, references, weak_references, dangling_references;
	uint64_t reachable_objects, shallow_size, reachable_shallow_size, native_allocation_registry;
	uint64_t unreachable_objects, unreachable_shallow_size; /* no GC root reaches them (MAT's graph) */
	uint64_t native_objects, native_bytes;  /* with a NativeAllocationRegistry size, and its sum */
	uint64_t direct_objects, direct_bytes;  /* DirectByteBuffers with memory to free, and its sum */
	const struct run_anw_count *root_kinds; /* root records by kind (those with any) */
	size_t nroot_kinds;
	const char *retained_model;
	uint64_t model_rounds;                  /* MAT's: dominator trees computed (matmodel.h) */
	const char *const *root_order;          /* the kinds paths start from, preferred first */
	size_t nroot_order;
	const char *not_crossed;                /* the references paths never cross */
	uint64_t stack_traces, stack_frames;
	double seconds;
	unsigned threads;                       /* the analysis's: 1 or 2 (0: not said) */
};

/* The file's arrays, in its order. */
enum run_an_list {
	RUN_AN_CLASS_INFOS, RUN_AN_GC_PATHS, RUN_AN_SUSPECTS, RUN_AN_THREADS, RUN_AN_CLASS_LOADERS,
	RUN_AN_DUPLICATE_CLASSES, RUN_AN_TOP_RETAINERS, RUN_AN_CLASS_HISTOGRAM, RUN_AN_UNREACHABLE,
};

struct run_anw_class_info {      /* classInfos: a leak rule's class */
	const char *class_name, *leak_reason;
	uint64_t instance_count, leak_instance_count;
};

enum run_an_watcher { RUN_AN_UNWATCHED, RUN_AN_LEAKCANARY, RUN_AN_MATRIX };

struct run_anw_leak {            /* gcPaths: a leak group */
	uint64_t instance_count;
	const char *leak_reason;
	const char *library_leak;      /* the known reference it leaks through, or NULL */
	enum run_an_watcher watcher;   /* the watcher that named it, its key and description */
	const char *watch_key, *watch_description;
	int64_t watch_uptime_ms, retained_uptime_ms; /* INT64_MIN: not known */
	const char *gc_root, *signature, *class_name;
	uint64_t retained_native_size; /* 0: none */
	uint64_t leak_object_id, retained_size, retained_size_total;
	uint64_t native_size_total;    /* 0: none */
	uint64_t path_length;
};

struct run_anw_accumulated {
	const char *class_name;
	uint64_t instance_count, retained_size;
};

struct run_anw_suspect {         /* suspects: found with no rule */
	int instances;                 /* 1: many instances of a class; 0: one object */
	const char *description, *class_name, *signature, *gc_root;
	int is_class;
	uint64_t object_id, count, retained_size;
	double heap_share;             /* of the reachable heap, 0..1 */
	const char *point_class;       /* the accumulation point */
	uint64_t point_id, point_retained_size, point_children;
	const char *chain_class;       /* a chain of one class down to it, or NULL */
	uint64_t chain_length;
	const struct run_anw_accumulated *accumulates;
	size_t naccumulates;
	uint64_t path_length;
};

struct run_anw_step {            /* one reference of a path from a GC root */
	const char *reference, *reference_type, *declared_class;
	int has_object_id;
	uint64_t object_id;
};

struct run_anw_thread {
	uint64_t serial;
	const char *name, *class_name; /* name: NULL when the dump has none */
	uint64_t object_id;
	int threw_oom;
	uint64_t held_retained_size, retained_size;
	int64_t stack_trace_serial;    /* -1: none */
	uint64_t declared_frames;
};

struct run_anw_local {
	const char *kind, *class_name;
	uint64_t object_id, retained_size;
};

struct run_anw_growth {          /* since a baseline dump */
	const char *baseline;
	uint64_t reachable_before, reachable;
};

struct run_anw_growth_class {
	const char *class_name;
	uint64_t count_before, count, retained_before, retained;
};

struct run_anw_growth_suspect {
	const char *signature, *description;
	int is_new;
	uint64_t retained_before, retained;
};

struct run_anw_loader {          /* classLoaders (--ran-out metaspace) */
	const char *class_name;
	uint64_t loaders, classes, retained_size;
	uint64_t example_id;           /* 0: none */
	int has_path;                  /* what keeps the example alive follows */
	const char *gc_root;
};

struct run_anw_duplicate {
	const char *class_name;
	uint64_t loaders, classes;
};

struct run_anw_retainer {
	uint64_t object_id;
	const char *class_name;
	int is_class;
	uint64_t shallow_size, retained_size, retained_native_size; /* native: 0, none */
};

struct run_anw_class {           /* classHistogram; unreachableHistogram (no retained size) */
	const char *class_name;
	uint64_t instance_count, shallow_size, retained_size;
};

struct run_anw_timings {
	double index_pass1, index_pass2, dominators, shortest_paths, leak_rules, reference_names;
	double model_search, class_histogram, suspects, threads, total;
};

/* The document's head and runningInfo (the document stays open). */
void run_anw_begin(struct json *j, const struct run_anw_info *info);
/* One of the file's arrays, opened and closed. */
void run_anw_list(struct json *j, enum run_an_list which);
void run_anw_list_end(struct json *j);
void run_anw_class_info(struct json *j, const struct run_anw_class_info *c);
void run_anw_leak_begin(struct json *j, const struct run_anw_leak *l);
void run_anw_suspect_begin(struct json *j, const struct run_anw_suspect *s);
void run_anw_loader_begin(struct json *j, const struct run_anw_loader *l);
/* A record's path ("path"): its steps, GC root first. */
void run_anw_path_begin(struct json *j);
void run_anw_step(struct json *j, const struct run_anw_step *s);
void run_anw_path_end(struct json *j);
/* Closes a record begun above (after its path, if it has one). */
void run_anw_item_end(struct json *j);
/* A thread: its frames, each with its locals, then the locals of no frame
 * (run_anw_other_locals), then run_anw_thread_end. */
void run_anw_thread_begin(struct json *j, const struct run_anw_thread *t);
void run_anw_frame_begin(struct json *j, const char *frame);
void run_anw_local(struct json *j, const struct run_anw_local *l);
void run_anw_frame_end(struct json *j);
void run_anw_other_locals(struct json *j);
void run_anw_thread_end(struct json *j);
/* growth: its classes, then run_anw_growth_suspects and its suspects, then
 * run_anw_growth_end. */
void run_anw_growth_begin(struct json *j, const struct run_anw_growth *g);
void run_anw_growth_class(struct json *j, const struct run_anw_growth_class *c);
void run_anw_growth_suspects(struct json *j);
void run_anw_growth_suspect(struct json *j, const struct run_anw_growth_suspect *s);
void run_anw_growth_end(struct json *j);
void run_anw_duplicate(struct json *j, const struct run_anw_duplicate *d);
void run_anw_duplicate_names(struct json *j, uint64_t n);
void run_anw_retainer(struct json *j, const struct run_anw_retainer *r);
void run_anw_class(struct json *j, const struct run_anw_class *c);
void run_anw_unreachable(struct json *j, const struct run_anw_class *c);
/* The timings, and the document's end. */
void run_anw_end(struct json *j, const struct run_anw_timings *t);

/* ---- the reader ---- */

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
	const char *accumulates;         /* the class it accumulates most of (NULL: not said) */
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

struct run_an_class {            /* the class histogram; the unreachable one (no retained size) */
	const char *class_name;
	double instance_count, shallow_size, retained_size;
};

struct run_an_retainer {
	int is_class;
	const char *class_name, *object_id;
	double retained_size, shallow_size;
};

struct run_an_loader {           /* classLoaders (--ran-out metaspace): loaders by their class */
	const char *class_name;
	double loaders, classes, retained_size;
	struct run_an_path path;     /* what keeps its example alive (no steps: none written) */
};

struct run_an_duplicate {        /* duplicateClasses: a class name loaded by several loaders */
	const char *class_name;
	double loaders, classes;
};

struct run_analysis {
	double objects, reachable_shallow_size; /* runningInfo */
	double unreachable_objects, unreachable_shallow_size;
	struct run_an_leak *leaks;
	size_t nleaks;
	struct run_an_suspect *suspects;
	size_t nsuspects;
	struct run_an_thread *threads;
	size_t nthreads;
	struct run_an_class *classes;
	size_t nclasses;
	struct run_an_class *unreachable; /* by shallow size */
	size_t nunreachable;
	struct run_an_retainer *retainers;
	size_t nretainers;
	struct run_an_loader *loaders;
	size_t nloaders;
	struct run_an_duplicate *duplicates;
	size_t nduplicates;
};

/* doc into out (arrays allocated; run_analysis_free). 0, -EINVAL (not an
 * object) or -ENOMEM. */
int run_analysis_read(struct json_object *doc, struct run_analysis *out);
void run_analysis_free(struct run_analysis *a);

#endif
