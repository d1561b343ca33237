/* A fresh dump's analysis: the dump read whole (the analyzer), its analysis
 * written as JSON and as text (each through a temporary file renamed into
 * place), and its first leak group in one line. Whoever took the dump calls
 * it (oomscope dump; the collector's dump threads) after ooms_dump_take or
 * ooms_dump_armed: the dumper itself only dumps. */
#ifndef OOMSCOPE_DUMP_FRESH_H
#define OOMSCOPE_DUMP_FRESH_H

#include <stddef.h>
#include <stdint.h>
#include "analyze/analyzer.h"

struct ooms_fresh_request {
	const char *json, *txt;        /* the analysis files (txt may be NULL) */
	struct ooms_analyze_opts aopts;
	unsigned top;                  /* groups written (0: 10) */
	void (*status)(void *ctx, const char *what); /* progress words, may be NULL */
	void *sctx;
};

struct ooms_fresh_result {
	int analyzed;
	double analyze_ms;
	size_t leak_groups;
	uint64_t leak_objects;
	char top_leak[400];            /* the first group: class, count, root and path, one line */
	char error[256];               /* when not analyzed */
};

/* Analyzes the dump at path into rq's files. oom_kind: what the shim said
 * ran out when the dump was taken at an OutOfMemoryError ("heap", "direct",
 * "metaspace"; "" or NULL: none), which the analysis then looks for. 0, or
 * -1 with res->error saying why. */
int ooms_fresh_analyze(const char *path, const char *oom_kind, const struct ooms_fresh_request *rq,
		       struct ooms_fresh_result *res);

#endif
