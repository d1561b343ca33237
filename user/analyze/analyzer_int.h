/* The analysis' parts that name what it found (analyzer_groups.c): leaks
 * grouped by the signature of their paths, their references named, the
 * watches read, the suspects' and loaders' paths. Private to analyzer.c and
 * analyzer_groups.c. */
#ifndef OOMSCOPE_ANALYZE_ANALYZER_INT_H
#define OOMSCOPE_ANALYZE_ANALYZER_INT_H

#include <stddef.h>
#include "analyze/analyzer.h"

/* Leaks reached only across a library leak's reference, or from a root of a library's class, marked. */
void an_mark_library_leaks(struct ooms_analysis *a);
/* Leaks grouped by path signature (the search's parents read for the last time). 0 or -errno, err set. */
int an_group_leaks(struct ooms_analysis *a, struct ooms_err *err);
/* The LeakCanary and Matrix watch records whose contents the names pass reads. 0 or -ENOMEM. */
int an_want_watches(struct ooms_analysis *a, size_t *cap);
/* Once the names pass ran: groups, suspects' and loaders' paths named. 0 or -ENOMEM. */
int an_finish_groups(struct ooms_analysis *a);
int an_finish_suspects(struct ooms_analysis *a);
int an_finish_loaders(struct ooms_analysis *a);

#endif
