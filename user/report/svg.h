/* Time-series charts as inline SVG, drawn by oomscope (no script, no font
 * files): series as paths, threshold lines, and markers for crossings, dumps,
 * GC pauses, large allocations and lost events. Every series path carries data-series="NAME" and
 * every marker a class, so a test can find what was drawn. */
#ifndef OOMSCOPE_REPORT_SVG_H
#define OOMSCOPE_REPORT_SVG_H

#include <stddef.h>
#include <stdio.h>
#include "report/rundata.h"

#define SVG_MAX_SERIES 4

struct svg_series {
	const char *name;       /* data-series and legend */
	const char *color;
	const double *ys;       /* one per t (NAN: no point) */
	int dashed;             /* a limit drawn from per-sample values */
};

struct svg_chart {
	const char *id;         /* "memory", "heap", ... */
	const char *title;
	const char *unit;       /* "MB", "threads", ... */
	const double *ts;
	size_t n;
	struct svg_series series[SVG_MAX_SERIES];
	int nseries;
	double limit;           /* a constant threshold line (NAN: none) */
	const char *limit_label;
	/* the rules whose crossings are marked, by their names (NULL-ended):
	 * the resource's own, never another's that shares a prefix ("memory"
	 * and "memory_stall") */
	const char *crossing_rules[5];
	int gc_ticks;           /* mark GC pauses */
	int dumps;              /* mark dumps */
	double t_end;
	const struct rd_alloc *allocs;  /* large allocations to mark, in time order (may be NULL) */
	size_t nallocs;
};

/* Writes one chart; ev are the run's events (for markers). */
void svg_chart_write(FILE *f, const struct svg_chart *c, const struct rd_event *ev, size_t nev, const double *drops);

#endif
