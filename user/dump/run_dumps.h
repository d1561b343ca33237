/* A run's dumps analyzed after the run, where the run did not analyze them
 * (watch --no-analyze): on the host, a phone's run pulled with its dumps
 * (scripts/oomscope-android), as the watch would have analyzed each:
 * its runtime's rules, what ran out when it was taken, the leak rules
 * given. `oomscope report --analyze DIR`. */
#ifndef OOMSCOPE_DUMP_RUN_DUMPS_H
#define OOMSCOPE_DUMP_RUN_DUMPS_H

#include <stddef.h>
#include <stdint.h>
#include "util/err.h"

struct ooms_run_dumps_opts {
	const char *const *leak_classes, *const *leak_ifs;
	size_t nleak_classes, nleak_ifs;
	uint64_t max_memory;                 /* each analysis's bound (0: none) */
	/* a line for each dump: analyzed (its first leak) or why not */
	void (*say)(void *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	void *ctx;
};

/* Every dump the timeline of run directory dir records as written, whose
 * analysis file is not there yet, analyzed into it. Returns how many were
 * analyzed (a dump that cannot be is said and passed over), or -errno
 * with err set (no timeline). */
int ooms_run_dumps_analyze(const char *dir, const struct ooms_run_dumps_opts *o, struct ooms_err *err);

#endif
