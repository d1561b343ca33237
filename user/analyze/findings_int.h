/* Helpers the analysis writers share (findings_common.c, below findings.c and its parts). */
#ifndef OOMSCOPE_ANALYZE_REPORT_INT_H
#define OOMSCOPE_ANALYZE_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "analyze/analyzer.h"

struct json;

/* One path element's reference text, KOOM style: "Class.field",
 * "Type[][3]", "Class.<classLoader>". */
void report_reference_text(const struct ooms_analysis *a, uint32_t from, const struct ooms_edge_label *l, char *buf,
			   size_t len);
/* The class name of node n: the class itself for class objects. */
const char *report_node_class(const struct ooms_index *ix, uint32_t n);
/* A path (GC root first) as KOOM's gcPaths "path" array; the last node's
 * referenceType is last_type. */
void report_json_path(struct json *j, const struct ooms_analysis *a, const uint32_t *nodes, uint32_t len,
		      uint32_t root_index, const char *last_type);
/* "12.3 MB", "4.0 kB", "17 B". */
void report_human_bytes(uint64_t b, char *buf, size_t len);

/* findings_threads.c */
void report_threads_json(struct json *j, const struct ooms_analysis *a);
void report_threads_text(const struct ooms_analysis *a, FILE *f);

/* findings_growth.c */
void report_growth_json(struct json *j, const struct ooms_analysis *a);
void report_growth_text(const struct ooms_analysis *a, unsigned top, FILE *f);

/* findings_suspects.c */
void report_suspects_json(struct json *j, const struct ooms_analysis *a);
void report_suspects_text(const struct ooms_analysis *a, unsigned top, FILE *f);

#endif
