/* report.html's Java heap section: each analyzed dump's leak suspects,
 * what grew since the dump before, leak groups with their paths, the
 * threads and top retainers. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/html_int.h"
#include "util/units.h"

/* The one way bytes are printed (util/units.c), "-" for unknown. */
const char *html_bytes(double b, char *buf, size_t len)
{
	if (isnan(b))
		snprintf(buf, len, "-");
	else
		units_bytes(b, buf, len);
	return buf;
}

/* A leak group's or suspect's path from its GC root, folded: its root kind
 * and length, then one step a line. */
static void path_details(FILE *f, const struct run_an_path *p)
{
	fprintf(f, "<details><summary>GC root ");
	esc_html(f, p->gc_root);
	fprintf(f, ", %zu steps</summary><pre>", p->nsteps);
	for (size_t k = 0; k < p->nsteps; k++) {
		fprintf(f, "%-15s ", p->steps[k].reference_type ? p->steps[k].reference_type : "");
		esc_html(f, p->steps[k].reference);
		fputc('\n', f);
	}
	fprintf(f, "</pre></details>");
}

/* The suspects of one analysis: what accumulates where, and the path. */
static void suspects(FILE *f, const struct run_analysis *an)
{
	char b1[32];

	if (!an->nsuspects)
		return;
	fprintf(f, "<table><tr><th>leak suspect (found with no rule)</th><th>retained</th><th>path from a GC root</th></tr>\n");
	for (size_t i = 0; i < an->nsuspects && i < TOP_GROUPS; i++) {
		const struct run_an_suspect *s = &an->suspects[i];

		fprintf(f, "<tr><td>");
		esc_html(f, s->description);
		fprintf(f, "</td><td class=\"n\">%s</td><td>", html_bytes(s->retained_size, b1, sizeof(b1)));
		path_details(f, &s->path);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

/* The threads whose locals hold most (the one that threw the
 * OutOfMemoryError first), with their stack traces folded. */
static void threads(FILE *f, const struct run_analysis *an)
{
	char b1[32];

	if (!an->nthreads)
		return;
	fprintf(f, "<table><tr><th>thread</th><th>its locals retain</th><th>stack</th></tr>\n");
	for (size_t i = 0; i < an->nthreads && i < 5; i++) {
		const struct run_an_thread *t = &an->threads[i];

		fprintf(f, "<tr><td>");
		esc_html(f, t->name ? t->name : "?");
		if (t->threw_oom)
			fprintf(f, " <span class=\"bad\">threw the OutOfMemoryError</span>");
		fprintf(f, "</td><td class=\"n\">%s</td><td><details><summary>", html_bytes(t->held_retained_size, b1, sizeof(b1)));
		esc_html(f, t->nframes ? t->frames[0].frame : "(no frames)");
		fprintf(f, "</summary><pre>");
		for (size_t k = 0; k < t->nframes; k++) {
			const struct run_an_frame *el = &t->frames[k];

			fprintf(f, "at ");
			esc_html(f, el->frame);
			fputc('\n', f);
			for (size_t l = 0; l < el->nlocals; l++) {
				fprintf(f, "    local ");
				esc_html(f, el->locals[l].class_name);
				fprintf(f, " retains %s\n", html_bytes(el->locals[l].retained_size, b1, sizeof(b1)));
			}
		}
		fprintf(f, "</pre></details></td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

struct class_growth {
	const char *name;
	double count, count0, retained, retained0;
};

static int by_growth(const void *x, const void *y)
{
	const struct class_growth *a = x, *b = y;
	int ma = a->count > a->count0, mb = b->count > b->count0;
	double da = a->retained - a->retained0, db = b->retained - b->retained0;

	if (ma != mb) /* more instances first, as analyze --baseline */
		return mb - ma;
	return (da < db) - (da > db);
}

/* By name, then in the histogram's order. */
static int by_name(const void *x, const void *y)
{
	const struct run_an_class *const *a = x, *const *b = y;
	int c = strcmp((*a)->class_name, (*b)->class_name);

	return c ? c : (*a > *b) - (*a < *b);
}

static int name_only(const void *x, const void *y)
{
	const struct run_an_class *const *a = x, *const *b = y;

	return strcmp((*a)->class_name, (*b)->class_name);
}

static double or0(double v)
{
	return isnan(v) ? 0 : v;
}

/* What grew between two analyses of the run, by their class histograms
 * (every class). */
static void growth(FILE *f, const struct run_analysis *prev, int prev_seq, const struct run_analysis *an)
{
	const struct run_an_class **idx = calloc(prev->nclasses + 1, sizeof(*idx));
	struct class_growth *rows = calloc(an->nclasses + 1, sizeof(*rows));
	size_t n0 = 0, n = 0;
	char b1[32], b2[32];

	if (!idx || !rows || !an->nclasses)
		goto out;
	/* the earlier histogram by name; a name twice (two loaders): its last */
	for (size_t i = 0; i < prev->nclasses; i++)
		if (prev->classes[i].class_name)
			idx[n0++] = &prev->classes[i];
	qsort(idx, n0, sizeof(*idx), by_name);
	for (size_t i = 0; i < an->nclasses; i++) {
		const struct run_an_class *c = &an->classes[i], *c0 = NULL;
		struct run_an_class key = {.class_name = c->class_name};
		const struct run_an_class *kp = &key, **at;
		struct class_growth g = {c->class_name, or0(c->instance_count), 0, or0(c->retained_size), 0};

		if (!g.name)
			continue;
		if (n0 && (at = bsearch(&kp, idx, n0, sizeof(*idx), name_only))) {
			while (at + 1 < idx + n0 && !strcmp(at[1]->class_name, g.name))
				at++;
			c0 = *at;
		}
		g.count0 = c0 ? or0(c0->instance_count) : 0;
		g.retained0 = c0 ? or0(c0->retained_size) : 0;
		if (g.count > g.count0 || g.retained > g.retained0)
			rows[n++] = g;
	}
	qsort(rows, n, sizeof(*rows), by_growth);
	fprintf(f, "<table><tr><th>grew since dump %d</th><th>instances</th><th>retained</th></tr>\n", prev_seq);
	for (size_t i = 0; i < n && i < 10; i++) {
		fprintf(f, "<tr><td>");
		esc_html(f, rows[i].name);
		fprintf(f, "</td><td class=\"n\">%+.0f (%.0f)</td><td class=\"n\">+%s (%s)</td></tr>\n",
			rows[i].count - rows[i].count0, rows[i].count,
			html_bytes(rows[i].retained - rows[i].retained0, b1, sizeof(b1)), html_bytes(rows[i].retained, b2, sizeof(b2)));
	}
	if (!n)
		fprintf(f, "<tr><td colspan=\"3\">no class grew</td></tr>\n");
	fprintf(f, "</table>\n");
out:
	free(idx);
	free(rows);
}

/* The objects no GC root reaches (garbage the dump kept), by class: MAT's
 * unreachable objects histogram, left out of every retained size. */
static void unreachable(FILE *f, const struct run_analysis *an)
{
	char b1[32];

	if (!an->nunreachable || !(an->unreachable_objects > 0))
		return;
	fprintf(f, "<details><summary>%.0f unreachable objects (%s): garbage the dump kept, in no retained size</summary>\n",
		an->unreachable_objects, html_bytes(or0(an->unreachable_shallow_size), b1, sizeof(b1)));
	fprintf(f, "<table><tr><th>class</th><th>objects</th><th>shallow</th></tr>\n");
	for (size_t i = 0; i < an->nunreachable && i < 10; i++) {
		const struct run_an_class *c = &an->unreachable[i];

		fprintf(f, "<tr><td>");
		esc_html(f, c->class_name);
		fprintf(f, "</td><td class=\"n\">%.0f</td><td class=\"n\">%s</td></tr>\n", or0(c->instance_count),
			html_bytes(or0(c->shallow_size), b1, sizeof(b1)));
	}
	fprintf(f, "</table></details>\n");
}

/* A metaspace analysis's class loaders by their class (the ones that leak
 * hold their classes), each with what keeps an example alive, and the
 * classes loaded by more than one loader. */
static void loaders(FILE *f, const struct run_analysis *an)
{
	char b1[32];

	if (an->nloaders) {
		fprintf(f, "<table><tr><th>class loaders by class</th><th>loaders</th><th>classes</th><th>retained</th>"
			   "<th>what keeps one alive</th></tr>\n");
		for (size_t i = 0; i < an->nloaders && i < TOP_GROUPS; i++) {
			const struct run_an_loader *l = &an->loaders[i];

			fprintf(f, "<tr><td>");
			esc_html(f, l->class_name);
			fprintf(f, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n\">%s</td><td>",
				or0(l->loaders), or0(l->classes), html_bytes(or0(l->retained_size), b1, sizeof(b1)));
			if (l->path.gc_root)
				path_details(f, &l->path);
			fprintf(f, "</td></tr>\n");
		}
		fprintf(f, "</table>\n");
	}
	if (an->nduplicates) {
		fprintf(f, "<table><tr><th>class loaded more than once</th><th>loaders</th><th>copies</th></tr>\n");
		for (size_t i = 0; i < an->nduplicates && i < TOP_GROUPS; i++) {
			const struct run_an_duplicate *d = &an->duplicates[i];

			fprintf(f, "<tr><td>");
			esc_html(f, d->class_name);
			fprintf(f, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td></tr>\n", or0(d->loaders),
				or0(d->classes));
		}
		fprintf(f, "</table>\n");
	}
}

void html_heap_section(FILE *f, const struct rundata *rd)
{
	char b1[32], b2[32];

	fprintf(f, "<h2>Java heap: leaks and retainers</h2>\n");
	if (!rd->nanalyses) {
		fprintf(f, "<p class=\"none\">No heap dump was analyzed in this run%s.</p>\n",
			rd->runtime[0] ? " (no heap rule crossing, or --no-analyze)" : " (no Java runtime)");
		return;
	}
	for (size_t a = 0; a < rd->nanalyses; a++) {
		const struct run_analysis *an = &rd->an[a];

		fprintf(f, "<h3>dump %d: %.0f objects, %s reachable; %zu leak group(s)</h3>\n", rd->analysis_seq[a],
			or0(an->objects), html_bytes(an->reachable_shallow_size, b1, sizeof(b1)), an->nleaks);
		suspects(f, an);
		if (a > 0)
			growth(f, &rd->an[a - 1], rd->analysis_seq[a - 1], an);
		if (an->nleaks) {
			fprintf(f, "<table><tr><th>leak</th><th>instances</th><th>retained</th><th>why</th><th>path from a GC root</th></tr>\n");
			for (size_t i = 0; i < an->nleaks && i < TOP_GROUPS; i++) {
				const struct run_an_leak *g = &an->leaks[i];

				fprintf(f, "<tr><td><b>");
				esc_html(f, g->class_name);
				fprintf(f, "</b><br><small>%s</small></td><td class=\"n\">%.0f</td><td class=\"n\">%s<br><small>largest %s</small></td><td>",
					g->signature ? g->signature : "", or0(g->instance_count),
					html_bytes(g->retained_size_total, b1, sizeof(b1)),
					html_bytes(g->retained_size, b2, sizeof(b2)));
				esc_html(f, g->leak_reason);
				fprintf(f, "</td><td>");
				path_details(f, &g->path);
				fprintf(f, "</td></tr>\n");
			}
			fprintf(f, "</table>\n");
		}
		threads(f, an);
		loaders(f, an);
		if (an->nretainers) {
			fprintf(f, "<table><tr><th>top retainer</th><th>retained</th><th>shallow</th></tr>\n");
			for (size_t i = 0; i < an->nretainers && i < 10; i++) {
				const struct run_an_retainer *r = &an->retainers[i];

				fprintf(f, "<tr><td>%s", r->is_class ? "class " : "");
				esc_html(f, r->class_name);
				fprintf(f, " <small>");
				esc_html(f, r->object_id);
				fprintf(f, "</small></td><td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n",
					html_bytes(or0(r->retained_size), b1, sizeof(b1)), html_bytes(or0(r->shallow_size), b2, sizeof(b2)));
			}
			fprintf(f, "</table>\n");
		}
		unreachable(f, an);
	}
}
