/* What grew since the baseline dump, in the analysis' text and JSON. */
#include "analyze/findings.h"
#include "analyze/findings_int.h"
#include "run/analysis.h"

#include <inttypes.h>
#include <stdio.h>

#define JSON_ROWS 200 /* classes that grew, in the JSON */

void report_growth_json(struct json *j, const struct ooms_analysis *a)
{
	const struct ooms_growth *g = a->growth;
	char line[2048], sig[20];

	if (!g)
		return;
	run_anw_growth_begin(j, &(struct run_anw_growth){g->base->path, g->base->reachable, a->reachable_shallow});
	for (size_t i = 0; i < g->nclasses && i < JSON_ROWS; i++) {
		const struct ooms_growth_class *c = &g->classes[i];

		run_anw_growth_class(j, &(struct run_anw_growth_class){ooms_class_name(&a->ix, c->cls), c->count0, c->count1,
								       c->retained0, c->retained1});
	}
	run_anw_growth_suspects(j);
	for (size_t i = 0; i < g->nsuspects; i++) {
		const struct ooms_growth_suspect *s = &g->suspects[i];

		ooms_analysis_suspect_line(a, s->suspect, line, sizeof(line));
		snprintf(sig, sizeof(sig), "%016" PRIx64, a->suspects[s->suspect].signature);
		run_anw_growth_suspect(j, &(struct run_anw_growth_suspect){sig, line, s->is_new, s->retained0,
									   a->suspects[s->suspect].retained});
	}
	run_anw_growth_end(j);
}

static void signed_bytes(uint64_t after, uint64_t before, char *buf, size_t len)
{
	char b[32];

	report_human_bytes(after >= before ? after - before : before - after, b, sizeof(b));
	snprintf(buf, len, "%s%s", after >= before ? "+" : "-", b);
}

void report_growth_text(const struct ooms_analysis *a, unsigned top, FILE *f)
{
	const struct ooms_growth *g = a->growth;
	char b0[32], b1[32], d[40], line[2048];

	if (!g)
		return;
	report_human_bytes(g->base->reachable, b0, sizeof(b0));
	report_human_bytes(a->reachable_shallow, b1, sizeof(b1));
	fprintf(f, "\ngrowth since %s: reachable heap %s -> %s\n", g->base->path, b0, b1);
	for (size_t i = 0; i < g->nsuspects && i < top; i++) {
		const struct ooms_growth_suspect *s = &g->suspects[i];

		signed_bytes(a->suspects[s->suspect].retained, s->retained0, d, sizeof(d));
		ooms_analysis_suspect_line(a, s->suspect, line, sizeof(line));
		fprintf(f, "  suspect %s %s: %s\n", s->is_new ? "(new)" : d, s->is_new ? "" : "retained", line);
	}
	fprintf(f, "  %12s %12s %12s  %s\n", "retained", "instances", "now", "class");
	for (size_t i = 0; i < g->nclasses && i < top; i++) {
		const struct ooms_growth_class *c = &g->classes[i];

		signed_bytes(c->retained1, c->retained0, d, sizeof(d));
		fprintf(f, "  %12s %+12" PRId64 " %12" PRIu64 "  %s\n", d, (int64_t)(c->count1 - c->count0), c->count1,
			ooms_class_name(&a->ix, c->cls));
	}
	if (!g->nclasses)
		fprintf(f, "  (no class grew)\n");
}
