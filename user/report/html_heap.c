/* report.html's Java heap section: each analyzed dump's leak suspects,
 * leak groups with their paths, and top retainers. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>

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

/* The suspects of one analysis: what accumulates where, and the path. */
static void suspects(FILE *f, struct json_object *an)
{
	struct json_object *sus = rd_arr(an, "suspects");
	size_t n = sus ? json_object_array_length(sus) : 0;
	char b1[32];

	if (!n)
		return;
	fprintf(f, "<table><tr><th>leak suspect (found with no rule)</th><th>retained</th><th>path from a GC root</th></tr>\n");
	for (size_t i = 0; i < n && i < TOP_GROUPS; i++) {
		struct json_object *s = json_object_array_get_idx(sus, i), *path = rd_arr(s, "path");
		size_t np = path ? json_object_array_length(path) : 0;

		fprintf(f, "<tr><td>");
		esc_html(f, rd_str(s, "description"));
		fprintf(f, "</td><td class=\"n\">%s</td><td><details><summary>GC root ",
			html_bytes(rd_num(s, "retainedSize", NAN), b1, sizeof(b1)));
		esc_html(f, rd_str(s, "gcRoot"));
		fprintf(f, ", %zu steps</summary><pre>", np);
		for (size_t k = 0; k < np; k++) {
			struct json_object *el = json_object_array_get_idx(path, k);

			fprintf(f, "%-18s ", rd_str(el, "referenceType") ? rd_str(el, "referenceType") : "");
			esc_html(f, rd_str(el, "reference"));
			fputc('\n', f);
		}
		fprintf(f, "</pre></details></td></tr>\n");
	}
	fprintf(f, "</table>\n");
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
		struct json_object *an = rd->analyses[a], *gp = rd_arr(an, "gcPaths"), *tr = rd_arr(an, "topRetainers");
		struct json_object *ri = rd_get(an, "runningInfo");
		size_t ng = gp ? json_object_array_length(gp) : 0;

		fprintf(f, "<h3>dump %d: %.0f objects, %s reachable; %zu leak group(s)</h3>\n", rd->analysis_seq[a],
			rd_num(ri, "objects", 0), html_bytes(rd_num(ri, "reachableShallowSize", NAN), b1, sizeof(b1)), ng);
		suspects(f, an);
		if (ng) {
			fprintf(f, "<table><tr><th>leak</th><th>instances</th><th>retained</th><th>why</th><th>path from a GC root</th></tr>\n");
			for (size_t i = 0; i < ng && i < TOP_GROUPS; i++) {
				struct json_object *g = json_object_array_get_idx(gp, i), *path = rd_arr(g, "path");
				size_t np = path ? json_object_array_length(path) : 0;

				fprintf(f, "<tr><td><b>");
				esc_html(f, rd_str(g, "className"));
				fprintf(f, "</b><br><small>%s</small></td><td class=\"n\">%.0f</td><td class=\"n\">%s<br><small>largest %s</small></td><td>",
					rd_str(g, "signature") ? rd_str(g, "signature") : "", rd_num(g, "instanceCount", 0),
					html_bytes(rd_num(g, "retainedSizeTotal", NAN), b1, sizeof(b1)),
					html_bytes(rd_num(g, "retainedSize", NAN), b2, sizeof(b2)));
				esc_html(f, rd_str(g, "leakReason"));
				fprintf(f, "</td><td><details><summary>GC root ");
				esc_html(f, rd_str(g, "gcRoot"));
				fprintf(f, ", %zu steps</summary><pre>", np);
				for (size_t k = 0; k < np; k++) {
					struct json_object *el = json_object_array_get_idx(path, k);

					fprintf(f, "%-15s ", rd_str(el, "referenceType") ? rd_str(el, "referenceType") : "");
					esc_html(f, rd_str(el, "reference"));
					fputc('\n', f);
				}
				fprintf(f, "</pre></details></td></tr>\n");
			}
			fprintf(f, "</table>\n");
		}
		if (tr && json_object_array_length(tr)) {
			fprintf(f, "<table><tr><th>top retainer</th><th>retained</th><th>shallow</th></tr>\n");
			for (size_t i = 0; i < json_object_array_length(tr) && i < 10; i++) {
				struct json_object *r = json_object_array_get_idx(tr, i);

				fprintf(f, "<tr><td>%s", json_object_get_boolean(rd_get(r, "isClass")) ? "class " : "");
				esc_html(f, rd_str(r, "className"));
				fprintf(f, " <small>");
				esc_html(f, rd_str(r, "objectId"));
				fprintf(f, "</small></td><td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n",
					html_bytes(rd_num(r, "retainedSize", 0), b1, sizeof(b1)),
					html_bytes(rd_num(r, "shallowSize", 0), b2, sizeof(b2)));
			}
			fprintf(f, "</table>\n");
		}
	}
}

