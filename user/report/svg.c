#include "report/escape.h"
#include "report/svg.h"

#include <math.h>
#include <string.h>

#define W 920.0
#define H 240.0
#define LEFT 64.0
#define RIGHT 16.0
#define TOP 28.0
#define BOTTOM 34.0

struct scale {
	double t0, t1, y0, y1;
};

static double sx(const struct scale *s, double t)
{
	return LEFT + (t - s->t0) / (s->t1 - s->t0) * (W - LEFT - RIGHT);
}

static double sy(const struct scale *s, double y)
{
	return H - BOTTOM - (y - s->y0) / (s->y1 - s->y0) * (H - TOP - BOTTOM);
}

/* A round step for about n ticks over span. */
static double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void axes(FILE *f, const struct svg_chart *c, const struct scale *s)
{
	double st = nice_step(s->y1 - s->y0, 4), tt = nice_step(s->t1 - s->t0, 8);

	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"plot\"/>\n", LEFT, TOP,
		W - LEFT - RIGHT, H - TOP - BOTTOM);
	for (double y = ceil(s->y0 / st) * st; y <= s->y1 + 1e-9; y += st) {
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", LEFT, W - RIGHT,
			sy(s, y), sy(s, y));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ytick\">%g</text>\n", LEFT - 6, sy(s, y) + 4, y);
	}
	for (double t = ceil(s->t0 / tt) * tt; t <= s->t1 + 1e-9; t += tt)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"xtick\">%gs</text>\n", sx(s, t), H - BOTTOM + 16, t);
	fprintf(f, "<text x=\"%.1f\" y=\"18\" class=\"title\">", LEFT);
	esc_html(f, c->title);
	fprintf(f, " <tspan class=\"unit\">(");
	esc_html(f, c->unit);
	fprintf(f, ")</tspan></text>\n");
}

static void path(FILE *f, const struct svg_chart *c, const struct svg_series *se, const struct scale *s)
{
	int pen = 0;

	fprintf(f, "<path data-series=\"%s\" class=\"series%s\" stroke=\"%s\" d=\"", se->name,
		se->dashed ? " limit" : "", se->color);
	for (size_t i = 0; i < c->n; i++) {
		if (isnan(se->ys[i])) {
			pen = 0;
			continue;
		}
		fprintf(f, "%c%.1f %.1f ", pen ? 'L' : 'M', sx(s, c->ts[i]), sy(s, se->ys[i]));
		pen = 1;
	}
	fprintf(f, "\"><title>");
	esc_html(f, se->name);
	fprintf(f, "</title></path>\n");
}

void svg_chart_write(FILE *f, const struct svg_chart *c, const struct rd_event *ev, size_t nev, const double *drops)
{
	struct scale s = {0, c->t_end > 0 ? c->t_end : 1, 0, 0};
	double ymax = 0, data_max = 0, smax[SVG_MAX_SERIES] = {0};
	int limit_drawn = 0, drawn[SVG_MAX_SERIES];

	for (size_t i = 0; i < c->n; i++) {
		if (c->ts[i] > s.t1)
			s.t1 = c->ts[i];
		for (int k = 0; k < c->nseries; k++)
			if (!isnan(c->series[k].ys[i]) && c->series[k].ys[i] > smax[k])
				smax[k] = c->series[k].ys[i];
	}
	for (int k = 0; k < c->nseries; k++)
		if (!c->series[k].dashed && smax[k] > data_max)
			data_max = smax[k];
	/* a limit (constant or a dashed series) far above the data would
	 * flatten it: drawn only when near, else named in the legend */
	ymax = data_max;
	for (int k = 0; k < c->nseries; k++) {
		drawn[k] = !c->series[k].dashed || smax[k] <= (data_max > 0 ? data_max : 1) * 3;
		if (drawn[k] && smax[k] > ymax)
			ymax = smax[k];
	}
	if (!isnan(c->limit) && c->limit > 0 && c->limit <= (data_max > 0 ? data_max : 1) * 3) {
		if (c->limit > ymax)
			ymax = c->limit;
		limit_drawn = 1;
	}
	s.y1 = ymax > 0 ? ymax * 1.08 : 1;
	fprintf(f, "<svg id=\"chart-%s\" class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		c->id, W, H);
	axes(f, c, &s);
	if (limit_drawn) {
		fprintf(f, "<line class=\"threshold\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>", LEFT,
			W - RIGHT, sy(&s, c->limit), sy(&s, c->limit));
		esc_html(f, c->limit_label);
		/* at the left: crossings, drawn at the right end of a run, label there */
		fprintf(f, "</title></line><text class=\"thlabel\" x=\"%.1f\" y=\"%.1f\">", LEFT + 6,
			sy(&s, c->limit) - 4);
		esc_html(f, c->limit_label);
		fprintf(f, "</text>\n");
	}
	for (size_t i = 0; i < nev; i++) {
		const struct rd_event *e = &ev[i];
		double x = sx(&s, e->t);

		if (!strcmp(e->kind, "crossing") && c->crossing_prefix &&
		    !strncmp(e->rule, c->crossing_prefix, strlen(c->crossing_prefix))) {
			fprintf(f, "<line class=\"crossing\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>", x, x,
				TOP, H - BOTTOM);
			esc_html(f, e->rule);
			fprintf(f, " at %.1f s: ", e->t);
			esc_html(f, e->text);
			/* near the right edge the label goes to the left of its line */
			fprintf(f, "</title></line><text class=\"mlabel crossing-label\" x=\"%.1f\" y=\"%.1f\"%s>",
				x + 7 * (double)strlen(e->rule) > W - RIGHT ? x - 3 : x + 3, TOP + 12,
				x + 7 * (double)strlen(e->rule) > W - RIGHT ? " text-anchor=\"end\"" : "");
			esc_html(f, e->rule);
			fprintf(f, "</text>\n");
		} else if (!strcmp(e->kind, "dump") && c->dumps) {
			double x0 = sx(&s, e->t - e->dur_ms / 1000);

			fprintf(f, "<rect class=\"dump\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>dump %d %s at %.1f s (%s): %.0f ms of app pause, %.1f s to write; ",
				x0, TOP, x - x0 > 2 ? x - x0 : 2, H - TOP - BOTTOM, e->seq, e->ok ? "written" : "failed",
				e->t, e->rule, isnan(e->value) ? 0 : e->value, e->dur_ms / 1000);
			esc_html(f, e->text);
			fprintf(f, "</title></rect>\n");
		} else if (!strcmp(e->kind, "gc") && c->gc_ticks) {
			double h = 4 + (e->dur_ms > 500 ? 500 : e->dur_ms) / 500 * 30;

			fprintf(f, "<line class=\"gc\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>%s GC at %.1f s: %.1f ms pause</title></line>\n",
				x, x, H - BOTTOM, H - BOTTOM - h, e->ok ? "full" : "young", e->t, e->dur_ms);
		} else if (!strcmp(e->kind, "oom") && c->gc_ticks) {
			fprintf(f, "<line class=\"oom\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>OutOfMemoryError at %.1f s: ",
				x, x, TOP, H - BOTTOM, e->t);
			esc_html(f, e->text);
			fprintf(f, "</title></line>\n");
		}
	}
	for (int k = 0; k < c->nseries; k++)
		if (drawn[k])
			path(f, c, &c->series[k], &s);
	/* events the kernel could not deliver: never hidden */
	for (size_t i = 1; drops && i < c->n; i++)
		if (drops[i] > drops[i - 1])
			fprintf(f, "<path class=\"drop\" d=\"M%.1f %.1f l-5 -9 h10 z\"><title>%.0f events lost in the kernel before %.1f s</title></path>\n",
				sx(&s, c->ts[i]), TOP - 1, drops[i] - drops[i - 1], c->ts[i]);
	/* legend */
	{
		double x = LEFT + 240;

		for (int k = 0; k < c->nseries; k++) {
			fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"14\" y2=\"14\" stroke=\"%s\" class=\"legend%s\"/>", x,
				x + 18, c->series[k].color, c->series[k].dashed ? " limit" : "");
			fprintf(f, "<text x=\"%.0f\" y=\"18\" class=\"legendtext\">", x + 22);
			esc_html(f, c->series[k].name);
			if (!drawn[k])
				fprintf(f, " (%g: above)", smax[k]);
			fprintf(f, "</text>");
			x += 46 + 6.2 * (double)strlen(c->series[k].name) + (drawn[k] ? 0 : 80);
		}
		if (!isnan(c->limit) && !limit_drawn && c->limit_label) {
			fprintf(f, "<text x=\"%.0f\" y=\"18\" class=\"legendtext\">(", x);
			esc_html(f, c->limit_label);
			fprintf(f, ": above the chart)</text>");
		}
		fputc('\n', f);
	}
	fprintf(f, "</svg>\n");
}
