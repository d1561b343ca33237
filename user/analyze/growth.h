/* What grew between two dumps of one process (`analyze --baseline OLD
 * NEW`): classes matched by name, suspects by path signature (both stable
 * across dumps, whatever the strip mode or codec), largest growth first. */
#ifndef OOMSCOPE_ANALYZE_GROWTH_H
#define OOMSCOPE_ANALYZE_GROWTH_H

#include <stddef.h>
#include <stdint.h>
#include "util/u64map.h"

struct ooms_analysis;

struct ooms_baseline_class {
	char *name;
	uint64_t count, retained;
};

struct ooms_baseline_suspect {
	uint64_t signature;
	uint64_t retained;
	uint32_t count;
};

/* What is kept of the older dump's analysis, so it can be freed. */
struct ooms_baseline {
	char *path;
	struct ooms_baseline_class *classes;
	size_t nclasses;
	struct u64map class_of;       /* hash of the name -> index in classes */
	struct ooms_baseline_suspect *suspects;
	size_t nsuspects;
	uint64_t reachable;           /* the heap's reachable bytes */
};

struct ooms_growth_class {
	uint32_t cls;                 /* in the newer analysis (the first of its name) */
	uint64_t count0, retained0;   /* in the baseline (0: not there) */
	uint64_t count1, retained1;   /* in the newer one; classes of one name summed in both */
};

struct ooms_growth_suspect {
	size_t suspect;               /* index in the newer analysis' suspects */
	uint64_t retained0;
	uint32_t count0;
	int is_new;                   /* no suspect of this signature in the baseline */
};

struct ooms_growth {
	const struct ooms_baseline *base;
	struct ooms_growth_class *classes;  /* that grew in count or retained size: those with more
					     * instances first, then by retained growth */
	size_t nclasses;
	struct ooms_growth_suspect *suspects; /* that grew, or are new */
	size_t nsuspects;
};

int ooms_baseline_take(const struct ooms_analysis *a, struct ooms_baseline *b);
void ooms_baseline_free(struct ooms_baseline *b);
int ooms_growth_compute(const struct ooms_baseline *b, const struct ooms_analysis *a, struct ooms_growth *g);
void ooms_growth_free(struct ooms_growth *g);

#endif
