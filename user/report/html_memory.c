/* report.html's memory section: the figure the memory rule watched against
 * its limit, memory by category (PSS, as `dumpsys meminfo` counts), the
 * largest mappings, and what grew it: the sampled page faults by the code
 * that touched the pages first, as a table and as an icicle (outermost
 * frame on top, each frame as wide as the samples under it), at the first
 * memory crossing and at the end. */
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/html_int.h"
#include "run/files.h"
#include "run/frames.h"

#define ICICLE_W 960
#define ICICLE_ROW 18
#define ICICLE_DEPTH 24

/* One node of the icicle: a frame under its parent, with the samples of
 * the stacks through it. */
struct icicle_node {
	const char *text;
	uint64_t samples;
	size_t parent, first_child, next_sibling; /* 0: none (node 0 is the root) */
	int depth;
};

struct icicle {
	struct icicle_node *v;
	size_t n, cap;
};

static size_t child_of(struct icicle *ic, size_t parent, const char *text)
{
	struct icicle_node *nv;

	for (size_t c = ic->v[parent].first_child; c; c = ic->v[c].next_sibling)
		if (!strcmp(ic->v[c].text, text))
			return c;
	if (ic->n == ic->cap) {
		size_t cap = ic->cap * 2;

		if (!(nv = realloc(ic->v, cap * sizeof(*nv))))
			return 0;
		ic->v = nv;
		ic->cap = cap;
	}
	ic->v[ic->n] = (struct icicle_node){text, 0, parent, 0, ic->v[parent].first_child, ic->v[parent].depth + 1};
	ic->v[parent].first_child = ic->n;
	return ic->n++;
}

static void icicle_draw(FILE *f, const struct icicle *ic, size_t node, double x, double w, uint64_t total)
{
	const struct icicle_node *nd = &ic->v[node];

	if (node) {
		double y = (nd->depth - 1) * ICICLE_ROW;
		unsigned hue = 0;

		for (const char *p = nd->text; *p; p++)
			hue = hue * 31 + (unsigned char)*p;
		fprintf(f, "<g class=\"frame\"><title>");
		esc_html(f, nd->text);
		fprintf(f, " (%" PRIu64 " samples, %.1f %%)</title><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" "
			   "fill=\"hsl(%u,70%%,%u%%)\"/>",
			nd->samples, 100.0 * (double)nd->samples / (double)total, x, y, w, ICICLE_ROW - 1, 10 + hue % 40,
			60 + hue % 20);
		if (w > 40) {
			int chars = (int)(w / 7);

			fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\">", x + 3, y + 13);
			for (const char *p = nd->text; *p && chars-- > 0; p++) {
				if (*p == '<')
					fputs("&lt;", f);
				else if (*p == '>')
					fputs("&gt;", f);
				else if (*p == '&')
					fputs("&amp;", f);
				else
					fputc(*p, f);
			}
			fprintf(f, "</text>");
		}
		fprintf(f, "</g>\n");
	}
	for (size_t c = nd->first_child; c; c = ic->v[c].next_sibling) {
		double cw = nd->samples ? w * (double)ic->v[c].samples / (double)nd->samples : 0;

		if (cw >= 0.5)
			icicle_draw(f, ic, c, x, cw, total);
		x += cw;
	}
}

/* The groups' stacks as an icicle: outermost frame first. */
static void icicle(FILE *f, const struct run_memory *m, struct run_frames *fr)
{
	struct icicle ic = {calloc(256, sizeof(*ic.v)), 1, 256};
	int depth = 0;

	if (!ic.v)
		return;
	ic.v[0] = (struct icicle_node){"all", 0, 0, 0, 0, 0};
	for (size_t g = 0; g < m->ngroups; g++) {
		size_t node = 0;

		ic.v[0].samples += m->groups[g].samples;
		for (size_t k = fr[g].n; k-- > 0;) {
			size_t c = child_of(&ic, node, fr[g].v[k].label);

			if (!c)
				break;
			node = c;
			ic.v[node].samples += m->groups[g].samples;
			if (ic.v[node].depth > depth)
				depth = ic.v[node].depth;
			if (ic.v[node].depth >= ICICLE_DEPTH)
				break;
		}
	}
	if (ic.v[0].samples && depth) {
		fprintf(f, "<svg class=\"icicle\" data-chart=\"memory-growth\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
			   "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"monospace\">\n",
			ICICLE_W, depth * ICICLE_ROW);
		icicle_draw(f, &ic, 0, 0, ICICLE_W, ic.v[0].samples);
		fprintf(f, "</svg>\n");
	}
	free(ic.v);
}

static void memory_view(FILE *f, const struct run_memory *m, const char *file)
{
	char a[32], b[32];
	struct run_frames *fr = calloc(m->ngroups + 1, sizeof(*fr));
	struct run_memory_culprit *cu = NULL;
	size_t ncu = 0;

	fprintf(f, "<p>%s of memory no reclaim can take back (anonymous, shared, swapped)",
		html_bytes(m->memory_kb * 1024.0, a, sizeof(a)));
	if (m->limit_kb > 0) {
		fprintf(f, " against a limit of %s (", html_bytes(m->limit_kb * 1024.0, b, sizeof(b)));
		esc_html(f, m->limit_src ? m->limit_src : "?");
		fprintf(f, ")");
	}
	fprintf(f, "; RSS %s", html_bytes(m->rss_kb * 1024.0, a, sizeof(a)));
	if (m->fig.file_kb >= 0)
		fprintf(f, " of which mapped files %s (reclaimable)", html_bytes(m->fig.file_kb * 1024.0, a, sizeof(a)));
	if (m->fig.sys_total_kb > 0)
		fprintf(f, "; the system's MemAvailable %s of %s", html_bytes(m->fig.sys_available_kb * 1024.0, a, sizeof(a)),
			html_bytes(m->fig.sys_total_kb * 1024.0, b, sizeof(b)));
	fprintf(f, ".</p>\n");
	if (m->has_categories) {
		fprintf(f, "<table class=\"memory-categories\"><tr><th>category</th><th>PSS</th><th>RSS</th>"
			   "<th>private dirty</th><th>swap</th></tr>\n");
		for (size_t i = 0; i < m->ncats; i++) {
			fprintf(f, "<tr><td>");
			esc_html(f, m->cats[i].category);
			fprintf(f, "</td><td class=\"n\">%s</td>", html_bytes(m->cats[i].pss_kb * 1024.0, a, sizeof(a)));
			fprintf(f, "<td class=\"n\">%s</td>", html_bytes(m->cats[i].rss_kb * 1024.0, a, sizeof(a)));
			fprintf(f, "<td class=\"n\">%s</td>", html_bytes(m->cats[i].private_dirty_kb * 1024.0, a, sizeof(a)));
			fprintf(f, "<td class=\"n\">%s</td></tr>\n", html_bytes(m->cats[i].swap_kb * 1024.0, a, sizeof(a)));
		}
		fprintf(f, "<tr><td><b>total</b></td><td class=\"n\">%s</td>", html_bytes(m->pss_kb * 1024.0, a, sizeof(a)));
		fprintf(f, "<td class=\"n\">%s</td><td></td>", html_bytes(m->smaps_rss_kb * 1024.0, a, sizeof(a)));
		fprintf(f, "<td class=\"n\">%s</td></tr></table>\n", html_bytes(m->smaps_swap_kb * 1024.0, a, sizeof(a)));
	}
	if (!m->samples) {
		fprintf(f, "<p class=\"sub\">No page fault of the target was sampled%s.</p>\n",
			m->period_bytes ? "" : " (--fault-sample 0)");
		free(fr);
		return;
	}
	fprintf(f, "<h3>Grown by</h3>\n<p class=\"sub\">%" PRIu64 " sampled page faults, one every %s of the "
		   "machine's faults%s; bytes are estimates (samples &times; the period).</p>\n",
		m->samples, html_bytes((double)m->period_bytes, a, sizeof(a)), m->lost ? ", some lost" : "");
	for (size_t i = 0; fr && i < m->ngroups; i++)
		run_frames_read(m->groups[i].obj, &fr[i]);
	if (fr)
		icicle(f, m, fr);
	/* a row per culprit (the first frame of the program's own code), the
	 * stacks that reach it under it */
	if (run_memory_culprits(m, &cu, &ncu))
		ncu = 0;
	fprintf(f, "<table class=\"memory-growth\"><tr><th>share</th><th>bytes (est.)</th><th>touched by</th>"
		   "<th>memory</th><th>stacks</th></tr>\n");
	for (size_t i = 0; i < ncu && i < TOP_GROUPS; i++) {
		const struct run_memory_culprit *c = &cu[i];
		const struct run_memory_group *g0 = &m->groups[c->stacks[0]];

		fprintf(f, "<tr><td class=\"n\">%.1f %%</td><td class=\"n\">%s</td><td>",
			100.0 * (double)c->samples / (double)m->samples, html_bytes((double)c->bytes, a, sizeof(a)));
		esc_html(f, c->created_by ? c->created_by : "-");
		if (g0->thread) {
			fprintf(f, "<br><small>thread ");
			esc_html(f, g0->thread);
			fprintf(f, "</small>");
		}
		fprintf(f, "</td><td>%s</td><td>", run_memory_backing(c->anon, c->file, c->shared));
		for (size_t k = 0; fr && k < c->nstacks; k++) {
			const struct run_memory_group *g = &m->groups[c->stacks[k]];

			if (c->nstacks > 1)
				fprintf(f, "<details%s><summary>%" PRIu64 " sample%s</summary>", k ? "" : " open", g->samples,
					g->samples == 1 ? "" : "s");
			html_frame_lines(f, &fr[c->stacks[k]]);
			if (c->nstacks > 1)
				fprintf(f, "</details>");
		}
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
	if (ncu > TOP_GROUPS) {
		fprintf(f, "<p class=\"sub\">%zu more in ", ncu - TOP_GROUPS);
		esc_html(f, file);
		fprintf(f, ".</p>\n");
	}
	run_memory_culprits_free(cu, ncu);
	for (size_t i = 0; fr && i < m->ngroups; i++)
		run_frames_free(&fr[i]);
	free(fr);
}

void html_memory_section(FILE *f, const struct rundata *rd)
{
	const struct rd_event *x = NULL;

	for (size_t i = 0; i < rd->nevents && !x; i++)
		if (rd->events[i].kind == REC_CROSSING && !strncmp(rd->events[i].rule, "memory", 6) && rd->events[i].file[0] &&
		    !strchr(rd->events[i].file, '/'))
			x = &rd->events[i];
	if (!x && !rd->have_memory)
		return;
	fprintf(f, "<h2 id=\"memory\">Memory</h2>\n");
	if (x) {
		struct json_object *doc;
		struct run_memory at;

		if (run_memory_load(rd->dir, x->file, &doc, &at) == 0) {
			fprintf(f, "<h3>At the crossing: %.1f s, ", x->t);
			esc_html(f, x->rule);
			fprintf(f, "</h3>\n<p>");
			esc_html(f, x->text);
			fprintf(f, "</p>\n");
			memory_view(f, &at, x->file);
			run_memory_free(&at);
		}
		json_object_put(doc);
	}
	if (rd->have_memory) {
		fprintf(f, "<h3>At the end: %.1f s</h3>\n", rd->memory.t);
		memory_view(f, &rd->memory, RUN_MEMORY);
	}
}
