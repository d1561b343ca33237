/* report.html's tables of groups with their creation stacks: the threads
 * and fds at a crossing and at the end, the large allocations. */
#include <dirent.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/escape.h"
#include "report/html_int.h"
#include "report/store_query.h"
#include "run/files.h"
#include "report/report.h"
#include "report/svg.h"

void html_frame_lines(FILE *f, const struct run_frames *fr)
{
	if (!fr->n) {
		fprintf(f, "<span class=\"none\">no stack</span>");
		return;
	}
	fprintf(f, "<details><summary>%zu frame%s</summary><pre>", fr->n, fr->n == 1 ? "" : "s");
	for (size_t i = 0; i < fr->n; i++) {
		fprintf(f, "#%02zu ", i);
		esc_html(f, fr->v[i].label);
		fputc('\n', f);
	}
	fprintf(f, "</pre></details>");
}

/* The frames of a record read as JSON (a snapshot's stack, a failure). */
static void frames(FILE *f, struct json_object *owner)
{
	struct run_frames fr;

	if (run_frames_read(owner, &fr) == 0) {
		html_frame_lines(f, &fr);
		run_frames_free(&fr);
	}
}

/* One snapshot's groups as a table. */
static void group_table(FILE *f, const struct run_snapshot *snap, const char *file)
{
	fprintf(f, "<table><tr><th>%s</th><th>count</th><th>created by</th><th>stack</th></tr>\n",
		snap->kind == SNAP_THREADS ? "name" : "kind");
	for (size_t i = 0; i < snap->ngroups && i < TOP_GROUPS; i++) {
		const struct run_snap_group *g = &snap->groups[i];
		const struct run_snap_stack *s0 = g->nstacks ? &g->stacks[0] : NULL;

		fprintf(f, "<tr><td>");
		esc_html(f, g->name);
		fprintf(f, "</td><td class=\"n\">%" PRIu64 "</td><td>", g->count);
		esc_html(f, s0 && s0->created_by ? s0->created_by : s0 && s0->unknown ? s0->unknown : "-");
		if (s0 && s0->start_routine) {
			fprintf(f, "<br><small>start routine ");
			esc_html(f, s0->start_routine);
			fprintf(f, "</small>");
		}
		if (g->nstacks > 1)
			fprintf(f, "<br><small>and %zu more stack(s)</small>", g->nstacks - 1);
		fprintf(f, "</td><td>");
		frames(f, s0 ? s0->obj : NULL);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
	if (snap->ngroups > TOP_GROUPS) {
		fprintf(f, "<p class=\"sub\">%zu more groups in ", snap->ngroups - TOP_GROUPS);
		esc_html(f, file);
		fprintf(f, ".</p>\n");
	}
}

/* The first crossing of rules starting with prefix that wrote a snapshot. */
static const struct rd_event *first_crossing(const struct rundata *rd, const char *prefix)
{
	for (size_t i = 0; i < rd->nevents; i++)
		if (rd->events[i].kind == REC_CROSSING && !strncmp(rd->events[i].rule, prefix, strlen(prefix)) &&
		    rd->events[i].file[0] && !strchr(rd->events[i].file, '/'))
			return &rd->events[i];
	return NULL;
}

/* Threads or fds: the groups when the rule fired (the evidence), then at
 * the end of the run. */
void html_groups(FILE *f, const struct rundata *rd, const struct run_snapshot *end, const char *title,
		   enum ooms_snap kind)
{
	const char *what = ooms_snap_base[kind];
	const struct rd_event *x = first_crossing(rd, kind == SNAP_THREADS ? "thread" : "fd");
	struct json_object *doc = NULL;
	struct run_snapshot at;
	int have_at = 0;
	char file[32];

	fprintf(f, "<h2>%s</h2>\n", title);
	if (x && run_snapshot_load(rd->dir, x->file, &doc, &at) == 0) {
		have_at = at.kind == kind;
		if (!have_at)
			run_snapshot_free(&at);
	}
	if (have_at) {
		fprintf(f, "<h3>At the crossing: %.1f s, ", x->t);
		esc_html(f, x->rule);
		fprintf(f, "</h3>\n");
		for (int i = 0; i < rd->nrecurred; i++)
			if (!strcmp(rd->recurred[i].rule, x->rule))
				fprintf(f, "<p class=\"recurred\">The rule held again %.0f time%s after this crossing, without the "
					   "count falling back under 90%% of its threshold: one finding, recurring.</p>\n",
					rd->recurred[i].times, rd->recurred[i].times == 1 ? "" : "s");
		fprintf(f, "<p class=\"sub\">%" PRId64 " %s when the rule fired (", at.members, what);
		esc_html(f, x->file);
		fprintf(f, "); groups largest first, each with its creation stacks.</p>\n");
		group_table(f, &at, x->file);
		run_snapshot_free(&at);
	}
	json_object_put(doc);
	snprintf(file, sizeof(file), "%s", run_snapshot_file(kind));
	if (!end) {
		fprintf(f, "<p class=\"none\">No %s in this run directory.</p>\n", file);
		return;
	}
	if (have_at)
		fprintf(f, "<h3>At the end</h3>\n");
	fprintf(f, "<p class=\"sub\">%" PRId64 " %s at %s; groups largest first, each with its creation stacks.</p>\n",
		end->members, what, end->target_alive ? "the end of the run" : "the last sample before the target exited");
	group_table(f, end, file);
}

void html_allocations(FILE *f, const struct rundata *rd)
{
	const struct run_allocs *al = &rd->allocs;
	char b1[32], b2[32], b3[32];

	fprintf(f, "<h2>Large allocations</h2>\n");
	if (!rd->have_allocs) {
		fprintf(f, "<p class=\"none\">Not followed in this run (oomscope --big-alloc BYTES).</p>\n");
		return;
	}
	fprintf(f, "<p class=\"sub\">%.0f allocations of %s or more (%s mode), grouped by stack, largest total first; the same in allocs.pb.gz for pprof.</p>\n",
		(double)al->head.count, html_bytes((double)al->head.threshold_bytes, b1, sizeof(b1)),
		al->head.mode ? al->head.mode : "?");
	fprintf(f, "<table><tr><th>allocated by</th><th>count</th><th>total</th><th>largest</th><th>live</th><th>functions</th><th>stack</th></tr>\n");
	for (size_t i = 0; i < al->ngroups && i < TOP_GROUPS; i++) {
		const struct run_alloc_group *g = &al->groups[i];

		fprintf(f, "<tr><td>");
		esc_html(f, g->allocated_by ? g->allocated_by : "?");
		fprintf(f, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
			g->count, html_bytes((double)g->total_bytes, b1, sizeof(b1)),
			html_bytes((double)g->largest_bytes, b2, sizeof(b2)),
			html_bytes(g->has_live ? (double)g->live_bytes : NAN, b3, sizeof(b3)));
		for (size_t k = 0; k < g->nfunctions; k++) {
			esc_html(f, g->functions[k]);
			if (k + 1 < g->nfunctions)
				fputs(", ", f);
		}
		fprintf(f, "</td><td>");
		html_frame_lines(f, &g->frames);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

void html_threads(FILE *f, const struct rundata *rd)
{
	html_groups(f, rd, rd->have_threads ? &rd->threads : NULL, "Threads", SNAP_THREADS);
}

void html_fds(FILE *f, const struct rundata *rd)
{
	html_groups(f, rd, rd->have_fds ? &rd->fds : NULL, "File descriptors", SNAP_FDS);
}
