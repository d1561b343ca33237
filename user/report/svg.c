#include "report/escape.h"
#include "report/svg.h"

#include <limits.h>
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

/* The pixel column of time t: what the long-run reductions group by. */
static long column_of(const struct scale *s, double t)
{
	return lround(floor(sx(s, t)));
}

/* A round step for about n ticks over span. */
static double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* A figure on a chart: a whole number as it is (no exponent: 20604000,
 * not 2.0604e+07), a fraction with a decimal or two */
static const char *num_text(double v, char *buf, size_t len)
{
	double a = fabs(v);

	if (a >= 100 || a == floor(a))
		snprintf(buf, len, "%.0f", v);
	else if (a >= 1)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
	return buf;
}

static void axes(FILE *f, const struct svg_chart *c, const struct scale *s)
{
	char tick[32];
	double st = nice_step(s->y1 - s->y0, 4), tt = nice_step(s->t1 - s->t0, 8);

	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"plot\"/>\n", LEFT, TOP,
		W - LEFT - RIGHT, H - TOP - BOTTOM);
	for (double y = ceil(s->y0 / st) * st; y <= s->y1 + 1e-9; y += st) {
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", LEFT, W - RIGHT,
			sy(s, y), sy(s, y));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ytick\">%s</text>\n", LEFT - 6, sy(s, y) + 4,
			num_text(y, tick, sizeof(tick)));
	}
	for (double t = ceil(s->t0 / tt) * tt; t <= s->t1 + 1e-9; t += tt)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"xtick\">%gs</text>\n", sx(s, t), H - BOTTOM + 16, t);
	fprintf(f, "<text x=\"%.1f\" y=\"18\" class=\"title\">", LEFT);
	esc_html(f, c->title);
	fprintf(f, " <tspan class=\"unit\">(");
	esc_html(f, c->unit);
	fprintf(f, ")</tspan></text>\n");
}

/* Many samples to one pixel column (a six-hour run at 1 s is 21,600 per
 * series): each column keeps its first, lowest, highest and last point, in
 * time order (the M4 reduction), so the drawn line is the one every point
 * would draw, a one-sample spike included, at most four points a column. */
struct column {
	long x;           /* the pixel column; LONG_MIN: none open */
	size_t idx[4];    /* first, min, max, last */
};

static void column_flush(FILE *f, const struct svg_chart *c, const struct svg_series *se, const struct scale *s,
			 struct column *col, int *pen)
{
	/* first and last bound the other two: only min and max may swap */
	size_t lo = col->idx[1] < col->idx[2] ? col->idx[1] : col->idx[2];
	size_t hi = col->idx[1] < col->idx[2] ? col->idx[2] : col->idx[1];
	size_t pick[4] = {col->idx[0], lo, hi, col->idx[3]};

	if (col->x == LONG_MIN)
		return;
	for (int i = 0; i < 4; i++) {
		if (i && pick[i] == pick[i - 1])
			continue;
		fprintf(f, "%c%.1f %.1f ", *pen ? 'L' : 'M', sx(s, c->ts[pick[i]]), sy(s, se->ys[pick[i]]));
		*pen = 1;
	}
	col->x = LONG_MIN;
}

static void path(FILE *f, const struct svg_chart *c, const struct svg_series *se, const struct scale *s)
{
	struct column col = {LONG_MIN, {0}};
	int pen = 0;

	fprintf(f, "<path data-series=\"%s\" class=\"series%s\" stroke=\"%s\" d=\"", se->name,
		se->dashed ? " limit" : "", se->color);
	for (size_t i = 0; i < c->n; i++) {
		double y = se->ys[i];
		long x;

		if (isnan(y)) { /* a gap: the line breaks */
			column_flush(f, c, se, s, &col, &pen);
			pen = 0;
			continue;
		}
		x = column_of(s, c->ts[i]);
		if (x != col.x) {
			column_flush(f, c, se, s, &col, &pen);
			col.x = x;
			for (int k = 0; k < 4; k++)
				col.idx[k] = i;
			continue;
		}
		if (y < se->ys[col.idx[1]])
			col.idx[1] = i;
		if (y > se->ys[col.idx[2]])
			col.idx[2] = i;
		col.idx[3] = i;
	}
	column_flush(f, c, se, s, &col, &pen);
	fprintf(f, "\"><title>");
	esc_html(f, se->name);
	fprintf(f, "</title></path>\n");
}

/* One tick per GC pause, its height the pause; GCs that fall in one pixel
 * column share a tick: the longest pause's height, all of them counted in
 * its title. */
struct gc_tick {
	long x;
	size_t n, full;
	double t0, t1, longest_ms;
};

static void gc_tick_flush(FILE *f, const struct scale *s, struct gc_tick *g)
{
	double x, h;

	if (!g->n)
		return;
	x = sx(s, g->t0);
	h = 4 + (g->longest_ms > 500 ? 500 : g->longest_ms) / 500 * 30;
	fprintf(f, "<line class=\"gc\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>", x, x, H - BOTTOM,
		H - BOTTOM - h);
	if (g->n == 1)
		fprintf(f, "%s GC at %.1f s: %.1f ms pause", g->full ? "full" : "young", g->t0, g->longest_ms);
	else
		fprintf(f, "%zu GCs (%zu full) from %.1f to %.1f s: the longest pause %.1f ms", g->n, g->full, g->t0,
			g->t1, g->longest_ms);
	fprintf(f, "</title></line>\n");
	g->n = 0;
}

static void gc_ticks(FILE *f, const struct scale *s, const struct rd_event *ev, size_t nev)
{
	struct gc_tick g = {0};

	for (size_t i = 0; i < nev; i++) {
		const struct rd_event *e = &ev[i];
		long x;

		if (e->kind != REC_GC)
			continue;
		x = column_of(s, e->t);
		if (g.n && x != g.x)
			gc_tick_flush(f, s, &g);
		if (!g.n) {
			g.x = x;
			g.t0 = e->t;
			g.longest_ms = 0;
			g.full = 0;
		}
		g.n++;
		g.full += e->ok != 0;
		g.t1 = e->t;
		if (e->dur_ms > g.longest_ms)
			g.longest_ms = e->dur_ms;
	}
	gc_tick_flush(f, s, &g);
}

/* One tick per large allocation, its height its share of the largest
 * column's bytes; allocations in one pixel column share a tick. */
struct alloc_tick {
	long x;
	size_t n, largest;
	double t0, t1, bytes;
};

static void alloc_tick_flush(FILE *f, const struct scale *s, const struct svg_chart *c, struct alloc_tick *a,
			     double max_bytes)
{
	const struct rd_alloc *big;
	double x, h;

	if (!a->n)
		return;
	big = &c->allocs[a->largest];
	x = sx(s, a->t0);
	h = 4 + a->bytes / max_bytes * 30;
	fprintf(f, "<line class=\"alloc\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>", x, x, H - BOTTOM,
		H - BOTTOM - h);
	if (a->n == 1)
		fprintf(f, "large allocation at %.1f s: %.1f MB, ", a->t0, a->bytes / 1048576);
	else
		fprintf(f, "%zu large allocations from %.1f to %.1f s, %.1f MB in all; the largest %.1f MB, ", a->n,
			a->t0, a->t1, a->bytes / 1048576, big->bytes / 1048576);
	esc_html(f, big->function ? big->function : "?");
	fprintf(f, " by ");
	esc_html(f, big->by ? big->by : "?");
	fprintf(f, "</title></line>\n");
	a->n = 0;
}

static void alloc_ticks(FILE *f, const struct scale *s, const struct svg_chart *c)
{
	struct alloc_tick a = {0};
	double max_bytes = 0, col = 0;
	long x_prev = LONG_MIN;

	/* the tallest tick: the most bytes in one column */
	for (size_t i = 0; i < c->nallocs; i++) {
		long x = column_of(s, c->allocs[i].t);

		col = x == x_prev ? col + c->allocs[i].bytes : c->allocs[i].bytes;
		x_prev = x;
		if (col > max_bytes)
			max_bytes = col;
	}
	if (max_bytes <= 0)
		return;
	for (size_t i = 0; i < c->nallocs; i++) {
		const struct rd_alloc *e = &c->allocs[i];
		long x = column_of(s, e->t);

		if (a.n && x != a.x)
			alloc_tick_flush(f, s, c, &a, max_bytes);
		if (!a.n) {
			a.x = x;
			a.t0 = e->t;
			a.bytes = 0;
			a.largest = i;
		}
		a.n++;
		a.t1 = e->t;
		a.bytes += e->bytes;
		if (e->bytes > c->allocs[a.largest].bytes)
			a.largest = i;
	}
	alloc_tick_flush(f, s, c, &a, max_bytes);
}

/* Is rule one of the chart's own? */
static int crossing_marked(const struct svg_chart *c, const char *rule)
{
	for (size_t i = 0; i < sizeof(c->crossing_rules) / sizeof(c->crossing_rules[0]) && c->crossing_rules[i]; i++)
		if (!strcmp(rule, c->crossing_rules[i]))
			return 1;
	return 0;
}

/* Over 100 lines on purpose: the chart's layers in drawing order (axes,
 * series, thresholds, marks, legend), each a few lines of SVG. */
void svg_chart_write(FILE *f, const struct svg_chart *c, const struct rd_event *ev, size_t nev, const double *drops)
{
	struct scale s = {0, c->t_end > 0 ? c->t_end : 1, 0, 0};
	double ymax = 0, data_max = 0, smax[SVG_MAX_SERIES] = {0};
	int limit_drawn = 0, drawn[SVG_MAX_SERIES] = {0};

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

		if (e->kind == REC_CROSSING && crossing_marked(c, e->rule)) {
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
		} else if (e->kind == REC_DUMP && c->dumps) {
			double x0 = sx(&s, e->t - e->dur_ms / 1000);

			fprintf(f, "<rect class=\"dump\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>dump %d %s at %.1f s (%s): %.0f ms of app pause, %.1f s to write; ",
				x0, TOP, x - x0 > 2 ? x - x0 : 2, H - TOP - BOTTOM, e->seq, e->ok ? "written" : "failed",
				e->t, e->rule, isnan(e->value) ? 0 : e->value, e->dur_ms / 1000);
			esc_html(f, e->text);
			fprintf(f, "</title></rect>\n");
		} else if (e->kind == REC_OOM && c->gc_ticks) {
			fprintf(f, "<line class=\"oom\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>OutOfMemoryError at %.1f s: ",
				x, x, TOP, H - BOTTOM, e->t);
			esc_html(f, e->text);
			fprintf(f, "</title></line>\n");
		}
	}
	if (c->gc_ticks)
		gc_ticks(f, &s, ev, nev);
	if (c->nallocs)
		alloc_ticks(f, &s, c);
	for (int k = 0; k < c->nseries; k++)
		if (drawn[k])
			path(f, c, &c->series[k], &s);
	/* events the kernel could not deliver: never hidden */
	for (size_t i = 1, from = 0; drops && i < c->n; i++) {
		/* one marker a pixel column: the losses of its samples summed */
		long x = column_of(&s, c->ts[i]);

		if (drops[i] <= drops[i - 1]) {
			from = i;
			continue;
		}
		if (i + 1 < c->n && drops[i + 1] > drops[i] && column_of(&s, c->ts[i + 1]) == x)
			continue;
		fprintf(f, "<path class=\"drop\" d=\"M%.1f %.1f l-5 -9 h10 z\"><title>%.0f events lost in the kernel before %.1f s</title></path>\n",
			sx(&s, c->ts[i]), TOP - 1, drops[i] - drops[from], c->ts[i]);
		from = i;
	}
	/* legend: right of the title, never under it */
	{
		double x = LEFT + 7.2 * (double)(strlen(c->title) + strlen(c->unit) + 3) + 24;
		char v[32];

		if (x < LEFT + 240)
			x = LEFT + 240;
		for (int k = 0; k < c->nseries; k++) {
			fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"14\" y2=\"14\" stroke=\"%s\" class=\"legend%s\"/>", x,
				x + 18, c->series[k].color, c->series[k].dashed ? " limit" : "");
			fprintf(f, "<text x=\"%.0f\" y=\"18\" class=\"legendtext\">", x + 22);
			esc_html(f, c->series[k].name);
			if (!drawn[k])
				fprintf(f, " (%s: above)", num_text(smax[k], v, sizeof(v)));
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
