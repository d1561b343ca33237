/* report.html's Java heap section: each analyzed dump's leak suspects,
 * what grew since the dump before, leak groups with their paths, the
 * threads and top retainers. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/escape.h"
#include "report/html_int.h"

const char *html_bytes(double b, char *buf, size_t len)
{
	if (isnan(b))
		snprintf(buf, len, "-");
	else if (b >= 1024.0 * 1024 * 1024)
		snprintf(buf, len, "%.2f GB", b / (1024.0 * 1024 * 1024));
	else if (b >= 1024.0 * 1024)
		snprintf(buf, len, "%.1f MB", b / (1024.0 * 1024));
	else if (b >= 1024)
		snprintf(buf, len, "%.1f kB", b / 1024);
	else
		snprintf(buf, len, "%.0f B", b);
	return buf;
}

/* A leak group's or suspect's path from its GC root, folded: its root kind
 * and length, then one step a line. */
static void path_details(FILE *f, struct json_object *o)
{
	struct json_object *path = jr_arr(o, "path");
	size_t np = path ? json_object_array_length(path) : 0;

	fprintf(f, "<details><summary>GC root ");
	esc_html(f, jr_str(o, "gcRoot"));
	fprintf(f, ", %zu steps</summary><pre>", np);
	for (size_t k = 0; k < np; k++) {
		struct json_object *el = json_object_array_get_idx(path, k);

		fprintf(f, "%-15s ", jr_str(el, "referenceType") ? jr_str(el, "referenceType") : "");
		esc_html(f, jr_str(el, "reference"));
		fputc('\n', f);
	}
	fprintf(f, "</pre></details>");
}

/* The suspects of one analysis: what accumulates where, and the path. */
static void suspects(FILE *f, struct json_object *an)
{
	struct json_object *sus = jr_arr(an, "suspects");
	size_t n = sus ? json_object_array_length(sus) : 0;
	char b1[32];

	if (!n)
		return;
	fprintf(f, "<table><tr><th>leak suspect (found with no rule)</th><th>retained</th><th>path from a GC root</th></tr>\n");
	for (size_t i = 0; i < n && i < TOP_GROUPS; i++) {
		struct json_object *s = json_object_array_get_idx(sus, i);

		fprintf(f, "<tr><td>");
		esc_html(f, jr_str(s, "description"));
		fprintf(f, "</td><td class=\"n\">%s</td><td>", html_bytes(jr_num(s, "retainedSize", NAN), b1, sizeof(b1)));
		path_details(f, s);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

/* The threads whose locals hold most (the one that threw the
 * OutOfMemoryError first), with their stack traces folded. */
static void threads(FILE *f, struct json_object *an)
{
	struct json_object *ts = jr_arr(an, "threads");
	size_t n = ts ? json_object_array_length(ts) : 0;
	char b1[32];

	if (!n)
		return;
	fprintf(f, "<table><tr><th>thread</th><th>its locals retain</th><th>stack</th></tr>\n");
	for (size_t i = 0; i < n && i < 5; i++) {
		struct json_object *t = json_object_array_get_idx(ts, i), *fr = jr_arr(t, "frames");
		size_t nf = fr ? json_object_array_length(fr) : 0;

		fprintf(f, "<tr><td>");
		esc_html(f, jr_str(t, "name") ? jr_str(t, "name") : "?");
		if (json_object_get_boolean(jr_get(t, "threwOutOfMemoryError")))
			fprintf(f, " <span class=\"bad\">threw the OutOfMemoryError</span>");
		fprintf(f, "</td><td class=\"n\">%s</td><td><details><summary>", html_bytes(jr_num(t, "heldRetainedSize", NAN), b1, sizeof(b1)));
		esc_html(f, nf ? jr_str(json_object_array_get_idx(fr, 0), "frame") : "(no frames)");
		fprintf(f, "</summary><pre>");
		for (size_t k = 0; k < nf; k++) {
			struct json_object *el = json_object_array_get_idx(fr, k), *ls = jr_arr(el, "locals");

			fprintf(f, "at ");
			esc_html(f, jr_str(el, "frame"));
			fputc('\n', f);
			for (size_t l = 0; ls && l < json_object_array_length(ls); l++) {
				struct json_object *lo = json_object_array_get_idx(ls, l);

				fprintf(f, "    local ");
				esc_html(f, jr_str(lo, "className"));
				fprintf(f, " retains %s\n", html_bytes(jr_num(lo, "retainedSize", NAN), b1, sizeof(b1)));
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

/* What grew between two analyses of the run, by their class histograms
 * (every class) and suspects' signatures. */
static void growth(FILE *f, struct json_object *prev, int prev_seq, struct json_object *an)
{
	struct json_object *h0 = jr_arr(prev, "classHistogram"), *h1 = jr_arr(an, "classHistogram");
	struct json_object *idx = json_object_new_object();
	size_t n0 = h0 ? json_object_array_length(h0) : 0, n1 = h1 ? json_object_array_length(h1) : 0, n = 0;
	struct class_growth *rows = calloc(n1 + 1, sizeof(*rows));
	char b1[32], b2[32];

	if (!idx || !rows || !n1)
		goto out;
	for (size_t i = 0; i < n0; i++) {
		const char *name = jr_str(json_object_array_get_idx(h0, i), "className");

		if (name)
			json_object_object_add(idx, name, json_object_new_int64((int64_t)i));
	}
	for (size_t i = 0; i < n1; i++) {
		struct json_object *c = json_object_array_get_idx(h1, i), *at = NULL, *c0 = NULL;
		struct class_growth g = {jr_str(c, "className"), jr_num(c, "instanceCount", 0), 0,
					 jr_num(c, "retainedSize", 0), 0};

		if (!g.name)
			continue;
		if (json_object_object_get_ex(idx, g.name, &at))
			c0 = json_object_array_get_idx(h0, (size_t)json_object_get_int64(at));
		g.count0 = jr_num(c0, "instanceCount", 0);
		g.retained0 = jr_num(c0, "retainedSize", 0);
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
	json_object_put(idx);
	free(rows);
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
		struct json_object *an = rd->analyses[a], *gp = jr_arr(an, "gcPaths"), *tr = jr_arr(an, "topRetainers");
		struct json_object *ri = jr_get(an, "runningInfo");
		size_t ng = gp ? json_object_array_length(gp) : 0;

		fprintf(f, "<h3>dump %d: %.0f objects, %s reachable; %zu leak group(s)</h3>\n", rd->analysis_seq[a],
			jr_num(ri, "objects", 0), html_bytes(jr_num(ri, "reachableShallowSize", NAN), b1, sizeof(b1)), ng);
		suspects(f, an);
		if (a > 0)
			growth(f, rd->analyses[a - 1], rd->analysis_seq[a - 1], an);
		if (ng) {
			fprintf(f, "<table><tr><th>leak</th><th>instances</th><th>retained</th><th>why</th><th>path from a GC root</th></tr>\n");
			for (size_t i = 0; i < ng && i < TOP_GROUPS; i++) {
				struct json_object *g = json_object_array_get_idx(gp, i);

				fprintf(f, "<tr><td><b>");
				esc_html(f, jr_str(g, "className"));
				fprintf(f, "</b><br><small>%s</small></td><td class=\"n\">%.0f</td><td class=\"n\">%s<br><small>largest %s</small></td><td>",
					jr_str(g, "signature") ? jr_str(g, "signature") : "", jr_num(g, "instanceCount", 0),
					html_bytes(jr_num(g, "retainedSizeTotal", NAN), b1, sizeof(b1)),
					html_bytes(jr_num(g, "retainedSize", NAN), b2, sizeof(b2)));
				esc_html(f, jr_str(g, "leakReason"));
				fprintf(f, "</td><td>");
				path_details(f, g);
				fprintf(f, "</td></tr>\n");
			}
			fprintf(f, "</table>\n");
		}
		threads(f, an);
		if (tr && json_object_array_length(tr)) {
			fprintf(f, "<table><tr><th>top retainer</th><th>retained</th><th>shallow</th></tr>\n");
			for (size_t i = 0; i < json_object_array_length(tr) && i < 10; i++) {
				struct json_object *r = json_object_array_get_idx(tr, i);

				fprintf(f, "<tr><td>%s", json_object_get_boolean(jr_get(r, "isClass")) ? "class " : "");
				esc_html(f, jr_str(r, "className"));
				fprintf(f, " <small>");
				esc_html(f, jr_str(r, "objectId"));
				fprintf(f, "</small></td><td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n",
					html_bytes(jr_num(r, "retainedSize", 0), b1, sizeof(b1)),
					html_bytes(jr_num(r, "shallowSize", 0), b2, sizeof(b2)));
			}
			fprintf(f, "</table>\n");
		}
	}
}

