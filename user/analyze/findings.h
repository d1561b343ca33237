/* Writers of an analysis: the JSON report (KOOM's field names at its core:
 * analysisDone, runningInfo, classInfos, gcPaths; oomscope's additions beside
 * them), the human text, and a per-object table of retained sizes. */
#ifndef OOMSCOPE_ANALYZE_REPORT_H
#define OOMSCOPE_ANALYZE_REPORT_H

#include <stdio.h>
#include "analyze/analyzer.h"


void ooms_analysis_json(const struct ooms_analysis *a, unsigned top, FILE *f);
void ooms_analysis_text(const struct ooms_analysis *a, unsigned top, FILE *f);
/* Leak group i in one line: "Class xN [signature] from GC root KIND Class ->
 * Class.field -> ...". 0, or -1 when there is no such group. */
int ooms_analysis_leak_line(const struct ooms_analysis *a, size_t i, char *buf, size_t len);
/* Suspect i in one sentence: "1 `java.util.ArrayList` referenced by static
 * `A.LISTENERS` accumulates 200 `A$Session`, 50.0 MB, 98 % of the heap".
 * 0, or -1 when there is no such suspect. */
int ooms_analysis_suspect_line(const struct ooms_analysis *a, size_t i, char *buf, size_t len);
/* "id<TAB>shallow<TAB>retained" per object (class objects included, marked
 * "\tclass"), sorted by id: for comparing with other tools. */
int ooms_analysis_retained_tsv(const struct ooms_analysis *a, FILE *f);

#endif
