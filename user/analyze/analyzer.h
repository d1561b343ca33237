/* One analysis of one dump: index, dominators and retained sizes, shortest
 * paths, leak rules, paths merged by signature, class histogram. What
 * `oomscope analyze` writes (findings.c, through run/analysis.h) comes from here. */
#ifndef OOMSCOPE_ANALYZE_ANALYSIS_H
#define OOMSCOPE_ANALYZE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>
#include "graph/dominators.h"
#include "util/err.h"
#include "analyze/growth.h"
#include "graph/index.h"
#include "graph/labels.h"
#include "graph/matmodel.h"
#include "analyze/leaks.h"
#include "analyze/loaders.h"
#include "graph/native.h"
#include "analyze/paths.h"
#include "analyze/suspects.h"
#include "analyze/threads.h"

/* Progress: the index passes are 1 and 2 (with bytes); then these phases. */
enum { OOMS_PHASE_PATHS = 10, OOMS_PHASE_NAMES, OOMS_PHASE_DOMINATORS, OOMS_PHASE_HISTOGRAM };

/* What ran out, when the dump was taken for it (`--ran-out`): the analysis
 * then lists what holds that memory, by path, as leak groups. */
enum ooms_ran_out {
	OOMS_RAN_OUT_HEAP = 0,  /* the Java heap: the usual analysis */
	OOMS_RAN_OUT_DIRECT,    /* direct buffer memory: every java.nio.DirectByteBuffer, its size as native */
	OOMS_RAN_OUT_METASPACE, /* class metadata: every java.lang.ClassLoader */
};
/* "heap", "direct", "metaspace"; and back: 0, or -1 for another name. */
const char *ooms_ran_out_name(enum ooms_ran_out r);
int ooms_ran_out_parse(const char *name, enum ooms_ran_out *out);

struct ooms_analyze_opts {
	enum ooms_runtime runtime;      /* RUNTIME_AUTO: Android for 1.0.3 dumps, else the JVM */
	enum ooms_ran_out ran_out;      /* OOMS_RAN_OUT_HEAP unless told */
	uint32_t bitmap_w, bitmap_h;    /* large Bitmap threshold (KOOM: 768 x 1366) */
	const char *const *leak_classes;
	size_t nleak_classes;
	const char *const *leak_ifs;
	size_t nleak_ifs;
	double suspect_share;           /* of the reachable heap; 0: OOMS_SUSPECT_SHARE */
	const char *const *ignores;     /* --ignore 'Class#field': references paths do not cross */
	size_t nignores;
	const char *const *library;     /* --library-leak 'Class#field': more library leak references */
	size_t nlibrary;
	enum ooms_retained_model retained_model; /* 0: MAT's */
	uint64_t max_memory;            /* refuse a dump that would need more (index.h); 0: no limit */
	unsigned threads;               /* 1: one thread; 2: the second pass in two halves and the
					 * dominators' search beside the paths; 0: 2 when the
					 * machine has more than one CPU */
	ooms_progress_fn progress;
	void *pctx;
};

/* Leaks whose paths are the same sequence of (class, reference). */
struct ooms_path_group {
	uint64_t signature;
	uint32_t rule;
	uint32_t count;
	uint64_t retained_sum, retained_max;
	uint32_t example;               /* the leak with the largest retained size */
	uint32_t *nodes, len;           /* its path, root first */
	uint64_t native_sum;            /* the members' retained native sizes (direct buffers' memory) */
	uint32_t root;                  /* index in ix.roots */
	uint32_t library;               /* a library leak: the mark of the reference it crosses (index.h), else 0 */
	/* the watch of the example, when LeakCanary's KeyedWeakReference (1) or
	 * Matrix's DestroyedActivityInfo (2) watches it; 0 none */
	int watched;
	char watch_key[96], watch_description[160];
	int64_t watch_uptime_ms, retained_uptime_ms; /* 2.x; INT64_MIN when the dump has none */
};

struct ooms_class_stat {
	uint64_t count, shallow, retained; /* retained: of all instances together */
	uint64_t unreachable, unreachable_shallow; /* of them, those no GC root reaches (MAT's graph) */
};

struct ooms_analysis {
	const char *path;
	enum ooms_runtime runtime;
	struct ooms_index ix;
	struct ooms_dominators dom;
	struct ooms_matmodel mat;       /* MAT's roots and reachable objects (and graph, in its model) */
	struct ooms_paths paths;
	struct ooms_leak_rules rules;
	struct ooms_probe *probes;
	size_t nprobes;
	struct ooms_leak *leaks;
	size_t nleaks;
	struct ooms_path_group *groups;
	size_t ngroups, groups_cap;
	uint64_t *leak_keys;            /* (signature, leak index) pairs, grouped */
	struct ooms_edge_label *labels; /* one per node on a reported path: parent -> node */
	size_t nlabels;
	struct u64map label_of;         /* node + 1 -> label index */
	struct ooms_domtree tree;       /* while the histogram and suspects are made */
	struct ooms_suspect *suspects;  /* largest first, merged by signature */
	size_t nsuspects;
	double suspect_share;           /* the share they were found with */
	struct ooms_threads threads;    /* every thread object, by what it holds */
	uint32_t name_probe;            /* the probe of java.lang.Thread.name */
	uint32_t native_probe;          /* the first of OOMS_NATIVE_PROBES (native.h) */
	struct ooms_native native;      /* NativeAllocationRegistry sizes, retained by dominators */
	uint32_t watch_probe[8];        /* LeakCanary's KeyedWeakReference: 1.x key, name; 2.x key,
					 * description, watchUptimeMillis, retainedUptimeMillis;
					 * Matrix's DestroyedActivityInfo: mKey, mActivityName */
	struct ooms_content *wants;     /* records whose contents the names need (pass 3) */
	size_t nwants;
	const struct ooms_growth *growth; /* since a baseline dump (set by the caller), or NULL */
	struct ooms_class_stat *class_stats; /* [ix.nclasses]; class objects count under java.lang.Class */
	uint64_t native_registry;       /* libcore.util.NativeAllocationRegistry instances */
	struct ooms_loader_group *loaders; /* --ran-out metaspace: class loaders by their class */
	size_t nloaders;
	struct ooms_dup_class *dups;    /* --ran-out metaspace: class names defined by more than one loader */
	size_t ndups;
	uint64_t total_shallow, reachable_shallow;
	enum ooms_retained_model retained_model;
	uint32_t tree_objects;          /* VisualVM's tree objects (vvmodel.h) */
	unsigned nthreads;              /* the analysis ran on: 1 or 2 */
	double t_index, t_dominators, t_model, t_paths, t_leaks, t_labels, t_histogram, t_suspects, t_threads, t_total;
};

/* 0, or -errno with a one-line message in err (and nothing of a kept to free). */
int ooms_analyze(struct ooms_analysis *a, const char *path, const struct ooms_analyze_opts *o, struct ooms_err *err);
void ooms_analysis_free(struct ooms_analysis *a);

/* Node n's path from its GC root, from the edge labels of reported paths:
 * its length (only the first max nodes are written to out). */
uint32_t ooms_analysis_path(const struct ooms_analysis *a, uint32_t n, uint32_t *out, uint32_t max);
/* The signature of a path: its (class, reference) sequence, array indices
 * left out so the same bug at another slot is the same leak. */
uint64_t ooms_analysis_signature(const struct ooms_analysis *a, const uint32_t *nodes, uint32_t len);
/* The label of the edge into node n on a reported path, or NULL. */
const struct ooms_edge_label *ooms_analysis_label(const struct ooms_analysis *a, uint32_t n);

#endif
