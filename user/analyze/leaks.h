/* Leak detectors: small table-driven rules, per runtime. A rule names a
 * class (instances of it and of its subclasses are candidates) and a test on
 * up to two of their fields; the fields are read during indexing as probes. */
#ifndef OOMSCOPE_ANALYZE_LEAKS_H
#define OOMSCOPE_ANALYZE_LEAKS_H

#include <stddef.h>
#include <stdint.h>
#include "graph/index.h"
#include "util/err.h"

enum ooms_runtime { RUNTIME_AUTO, RUNTIME_ANDROID, RUNTIME_JVM };

enum ooms_leak_test {
	LEAK_ALWAYS,        /* every reachable instance (--leak-class) */
	LEAK_F1_EQ,         /* field 1 == value (booleans, numbers; value OOMS_NULL_VALUE for null) */
	LEAK_F1_NE,         /* field 1 != value */
	LEAK_F1_OR_F2_TRUE, /* Activity: mDestroyed || mFinished */
	LEAK_F1_NULL_F2_TRUE, /* Fragment: mFragmentManager == null && mCalled */
	LEAK_AREA_OVER,     /* Bitmap: f1 * f2 > value */
	LEAK_REFERENT,      /* LeakCanary's KeyedWeakReference: its referent (field 1), still strongly
			     * reachable, is the leak (not the reference itself) */
	LEAK_REFERENT_OF,   /* Matrix's DestroyedActivityInfo: the referent of the Reference in field 1,
			     * still strongly reachable, is the leak */
};

#define OOMS_NULL_VALUE UINT64_MAX
/* Matrix ResourceCanary's record of a destroyed Activity it watches */
#define OOMS_MATRIX_WATCHER "com.tencent.matrix.resource.analyzer.model.DestroyedActivityInfo"

struct ooms_leak_rule {
	enum ooms_runtime runtime;  /* RUNTIME_AUTO: every runtime */
	const char *class_name;
	const char *field1, *field2;
	enum ooms_leak_test test;
	uint64_t value;
	char reason[160];           /* leakReason */
	/* filled by ooms_leaks_find */
	uint64_t instances, leaks;
	int probe1, probe2;         /* indices in the probe table, -1 if none */
};

struct ooms_leak {
	uint32_t node;
	uint32_t rule;
	uint32_t library;   /* OOMS_MARK_NONE, or the mark of the library leak reference its path crosses */
	uint32_t watcher;   /* LeakCanary: the KeyedWeakReference that watches it, else OOMS_NONE */
};

struct ooms_leak_rules {
	struct ooms_leak_rule *rules;
	size_t n, cap;
};

/* The built-in rules of runtime rt (Android: Activity, Fragments, Bitmap,
 * Window, ViewRootImpl; the JVM has none), bitmap threshold w x h. 0/-ENOMEM. */
int ooms_leak_rules_builtin(struct ooms_leak_rules *r, enum ooms_runtime rt, uint32_t bitmap_w, uint32_t bitmap_h);
/* --leak-class NAME */
int ooms_leak_rules_add_class(struct ooms_leak_rules *r, const char *name);
/* The same with the reason the groups give (what ran out, say). */
int ooms_leak_rules_add_class_why(struct ooms_leak_rules *r, const char *name, const char *reason);
/* --leak-if 'Class.field==value' (or !=), value true|false|null|integer.
 * 0, or -EINVAL or -ENOMEM with a message in err. */
int ooms_leak_rules_add_if(struct ooms_leak_rules *r, const char *expr, struct ooms_err *err);
void ooms_leak_rules_free(struct ooms_leak_rules *r);

/* The probes the rules need, for ooms_index_build: *probes is allocated. */
int ooms_leak_probes(struct ooms_leak_rules *r, struct ooms_probe **probes, size_t *nprobes);
/* Applies the rules to the indexed heap: every reachable instance that a
 * rule flags (reached[n] != OOMS_NONE: the search's parents), first rule
 * wins; one reached only across a finalizer's referent (late, a bitmap, or
 * NULL) is not a leak: it is on its way out. Counts go into the rules. */
int ooms_leaks_find(const struct ooms_index *ix, struct ooms_leak_rules *r, const struct ooms_probe *probes,
		    const uint32_t *reached, const uint8_t *late, struct ooms_leak **out, size_t *nout);

#endif
