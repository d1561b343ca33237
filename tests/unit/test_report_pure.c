/* The report's pure parts: HTML escaping (user/report/escape.c), byte
 * figures (html_heap.c's html_bytes), and the SVG charts (svg.c) drawn
 * from hand-made series and events into memory: scales, gaps, limits near
 * and far, markers for crossings, dumps, OutOfMemoryErrors, GC pauses,
 * large allocations and lost events, and the long-run reduction that keeps
 * a one-sample spike; the lab store's finding signatures and run ids
 * (store_rows.c). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "report/escape.h"
#include "report/html_int.h"
#include "report/store_int.h"
#include "report/svg.h"
#include "tap.h"

/* What esc_html writes of s. */
static char *escaped(const char *s)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	esc_html(f, s);
	fclose(f);
	return out;
}

static char *chart(const struct svg_chart *c, const struct rd_event *ev, size_t nev, const double *drops)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	svg_chart_write(f, c, ev, nev, drops);
	fclose(f);
	return out;
}

static size_t count(const char *hay, const char *needle)
{
	size_t k = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		k++;
	return k;
}

/* The d attribute of the path of series name: its points (x, y), how many. */
static size_t points(const char *svg, const char *name, double *xs, double *ys, size_t max, size_t *moves)
{
	char key[64];
	const char *p;
	size_t n = 0;

	snprintf(key, sizeof(key), "data-series=\"%s\"", name);
	if (!(p = strstr(svg, key)) || !(p = strstr(p, " d=\"")))
		return 0;
	*moves = 0;
	for (p += 4; *p == 'M' || *p == 'L';) {
		char *end;
		double x, y;

		*moves += *p == 'M';
		x = strtod(p + 1, &end);
		y = strtod(end, &end);
		if (n < max) {
			xs[n] = x;
			ys[n] = y;
		}
		n++;
		p = end + 1;
	}
	return n;
}

static void escaping(void)
{
	char *s = escaped("<a href=\"x\">&amp;</a>");

	TAP_EQ_STR(s, "&lt;a href=&quot;x&quot;&gt;&amp;amp;&lt;/a&gt;", "esc_html: < > & \" as entities");
	free(s);
	s = escaped("name\n\twith \x1b[31mred\x7f");
	TAP_EQ_STR(s, "name\\n\\twith \\x1b[31mred\\x7f", "esc_html: a newline, a tab and control bytes shown, not sent");
	free(s);
	s = escaped("caf\xc3\xa9 \xe2\x82\xac");
	TAP_EQ_STR(s, "caf\xc3\xa9 \xe2\x82\xac", "esc_html: UTF-8 passes as it is");
	free(s);
	s = escaped(NULL);
	TAP_EQ_STR(s, "", "esc_html: NULL writes nothing");
	free(s);
}

static void bytes(void)
{
	static const struct {
		double b;
		const char *want;
	} cases[] = {
		{0, "0 B"},           {1023, "1023 B"},         {1024, "1.0 KB"},          {1536, "1.5 KB"},
		{1048575, "1024.0 KB"}, {1048576, "1.0 MB"},    {8294400, "7.9 MB"},       {1073741824.0 * 3, "3.00 GB"},
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		TAP_EQ_STR(html_bytes(cases[i].b, buf, sizeof(buf)), cases[i].want, "html_bytes(%.0f)", cases[i].b);
	TAP_EQ_STR(html_bytes(NAN, buf, sizeof(buf)), "-", "html_bytes(NAN): -");
	TAP_EQ_STR(html_bytes(1048576, buf, 4), "1.0", "html_bytes: cut to the buffer");
}

static void simple_chart(void)
{
	double ts[6] = {0, 1, 2, 3, 4, 5}, rss[6] = {10, 20, NAN, 40, 50, 60}, lim[6] = {100, 100, 100, 100, 100, 100};
	double xs[16], ys[16], drops[6] = {0, 0, 3, 3, 10, 10};
	size_t moves, n;
	struct svg_chart c = {.id = "memory", .title = "Memory <RSS>", .unit = "MB", .ts = ts, .n = 6, .nseries = 2,
			      .limit = 80, .limit_label = "limit & more", .crossing_rules = {"vm_trend"}, .gc_ticks = 1, .dumps = 1,
			      .t_end = 5};
	struct rd_event ev[6] = {
		{.t = 2.5, .kind = REC_CROSSING, .rule = "vm_trend", .text = "rising <fast>"},
		{.t = 3, .kind = REC_CROSSING, .rule = "fd_ratio", .text = "not this chart's"},
		{.t = 1, .dur_ms = 12.5, .kind = REC_GC},
		{.t = 4, .dur_ms = 800, .kind = REC_GC, .ok = 1},
		{.t = 4.5, .dur_ms = 500, .kind = REC_DUMP, .ok = 1, .seq = 1, .rule = "shim", .text = "dump-1.hprof", .value = 30},
		{.t = 5, .kind = REC_OOM, .text = "Java heap space"},
	};
	struct rd_alloc al[1] = {{.t = 2, .bytes = 2 * 1048576, .function = "make<big>", .by = "worker"}};
	char *s;

	c.series[0] = (struct svg_series){"rss", "#123", rss, 0};
	c.series[1] = (struct svg_series){"limit", "#999", lim, 1};
	c.allocs = al;
	c.nallocs = 1;
	s = chart(&c, ev, 6, drops);
	TAP_OK(!strncmp(s, "<svg id=\"chart-memory\" class=\"chart\" viewBox=\"0 0 920 240\"", 58) &&
		       !strcmp(s + strlen(s) - 7, "</svg>\n"),
	       "one <svg> element, 920x240, its id from the chart's");
	TAP_OK(strstr(s, "class=\"title\">Memory &lt;RSS&gt; <tspan class=\"unit\">(MB)</tspan>") != NULL, "the title escaped, the unit beside it");
	n = points(s, "rss", xs, ys, 16, &moves);
	TAP_OK(n == 5 && moves == 2, "a NAN breaks the line: 5 points in 2 runs (got %zu in %zu)", n, moves);
	/* x: 64 + t / 5 * 840; y: 206 - v / (100 * 1.08) * 178 (the dashed limit, near, sets the top) */
	TAP_OK(fabs(xs[0] - 64) < 0.06 && fabs(xs[4] - 904) < 0.06 && fabs(ys[0] - (206 - 10 / 108.0 * 178)) < 0.06 &&
		       fabs(ys[4] - (206 - 60 / 108.0 * 178)) < 0.06,
	       "points scaled: t 0..5 over x 64..904, y by the largest drawn value (the limit, 100) + 8%%");
	TAP_OK(strstr(s, "data-series=\"limit\" class=\"series limit\"") && !strstr(s, "above)"),
	       "a dashed limit near the data is drawn as a series");
	TAP_OK(strstr(s, "class=\"threshold\"") && strstr(s, "<title>limit &amp; more</title>"), "the constant limit drawn, its label escaped");
	TAP_OK(count(s, "class=\"crossing\"") == 1 && strstr(s, "vm_trend at 2.5 s: rising &lt;fast&gt;") && !strstr(s, "fd_ratio"),
	       "crossings of this chart's rules marked (escaped), others not");
	TAP_OK(count(s, "class=\"gc\"") == 2 && strstr(s, "young GC at 1.0 s: 12.5 ms pause") &&
		       strstr(s, "full GC at 4.0 s: 800.0 ms pause"),
	       "a tick per GC pause, young or full");
	TAP_OK(count(s, "class=\"dump\"") == 1 && strstr(s, "dump 1 written at 4.5 s (shim): 30 ms of app pause, 0.5 s to write; dump-1.hprof"),
	       "the dump marked with its pause and time");
	TAP_OK(strstr(s, "class=\"oom\"") && strstr(s, "OutOfMemoryError at 5.0 s: Java heap space"), "the OutOfMemoryError marked");
	TAP_OK(count(s, "class=\"alloc\"") == 1 && strstr(s, "large allocation at 2.0 s: 2.0 MB, make&lt;big&gt; by worker"),
	       "a large allocation's tick: size, function (escaped), thread");
	TAP_OK(count(s, "class=\"drop\"") == 2 && strstr(s, "3 events lost in the kernel before 2.0 s") &&
		       strstr(s, "7 events lost in the kernel before 4.0 s"),
	       "lost events: a marker where the count rose, with the losses since the one before");
	free(s);

	/* a limit far above the data: named in the legend instead */
	c.limit = 1000;
	lim[0] = lim[1] = lim[2] = lim[3] = lim[4] = lim[5] = 5000;
	c.gc_ticks = c.dumps = 0;
	c.nallocs = 0;
	s = chart(&c, ev, 6, NULL);
	n = points(s, "rss", xs, ys, 16, &moves);
	TAP_OK(!strstr(s, "class=\"threshold\"") && strstr(s, "(limit &amp; more: above the chart)") &&
		       strstr(s, "limit (5000: above)") && !strstr(s, "data-series=\"limit\""),
	       "limits over 3x the data are not drawn, named in the legend");
	TAP_OK(n == 5 && fabs(ys[4] - (206 - 60 / (60 * 1.08) * 178)) < 0.06, "then the data's own top scales the chart");
	TAP_OK(!strstr(s, "class=\"gc\"") && !strstr(s, "class=\"dump\"") && !strstr(s, "class=\"oom\"") && !strstr(s, "class=\"drop\""),
	       "no GC, dump, OOM or loss markers when the chart does not ask for them");
	free(s);
}

/* 20,000 samples over 840 pixel columns: at most 4 points a column, and
 * the one-sample spike still drawn. */
static void long_run(void)
{
	enum { N = 20000 };
	double *ts = malloc(N * sizeof(*ts)), *ys = malloc(N * sizeof(*ys)), *px = malloc(N * sizeof(*px)),
	       *py = malloc(N * sizeof(*py)), top = 1e9;
	struct svg_chart c = {.id = "threads", .title = "Threads", .unit = "threads", .ts = ts, .n = N, .nseries = 1,
			      .limit = NAN, .t_end = 0};
	size_t n, moves;
	char *s;

	for (int i = 0; i < N; i++) {
		ts[i] = i * 0.01;
		ys[i] = 10 + (i % 7);
	}
	ys[12345] = 100;
	c.series[0] = (struct svg_series){"threads", "#000", ys, 0};
	s = chart(&c, NULL, 0, NULL);
	n = points(s, "threads", px, py, N, &moves);
	for (size_t i = 0; i < n && i < N; i++)
		top = py[i] < top ? py[i] : top;
	TAP_OK(n > 840 && n <= 4 * 841 && moves == 1, "20000 samples drawn with %zu points (at most 4 a pixel column)", n);
	TAP_OK(fabs(top - (206 - 100 / 108.0 * 178)) < 0.06, "the one-sample spike (100) is among them: y %.1f", top);
	TAP_OK(fabs(px[n - 1] - 904) < 0.06, "the time axis ends at the last sample (no t_end given)");
	free(s);
	free(ts);
	free(ys);
	free(px);
	free(py);
}

static void sig(const char *what, const char *frames_json, char out[STORE_SIG_LEN + 1])
{
	struct json_object *f = frames_json ? json_tokener_parse(frames_json) : NULL;

	store_signature(what, f, out);
	json_object_put(f);
}

static void signatures(void)
{
	char a[STORE_SIG_LEN + 1], b[STORE_SIG_LEN + 1], c[STORE_SIG_LEN + 1];
	size_t hex = 0;

	sig("fd:eventfd", "[{\"symbol\":\"open_cache\",\"module\":\"/usr/bin/app\",\"offset\":4660},"
			  "{\"module\":\"/usr/lib/x86_64-linux-gnu/libc.so.6\",\"offset\":8192}]", a);
	sig("fd:eventfd", "[{\"symbol\":\"open_cache\",\"module\":\"/opt/app/bin/app\",\"offset\":1},"
			  "{\"module\":\"/lib/libc.so.6\",\"offset\":77}]", b);
	for (const char *p = a; *p; p++)
		hex += (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f');
	TAP_OK(strlen(a) == STORE_SIG_LEN && hex == STORE_SIG_LEN, "a signature: 16 hex digits (%s)", a);
	TAP_EQ_STR(a, b, "symbols and module names count, not addresses, offsets or directories");
	sig("fd:memfd", "[{\"symbol\":\"open_cache\"},{\"module\":\"libc.so.6\"}]", c);
	TAP_OK(strcmp(a, c) != 0, "another kind of finding, another signature");
	sig("fd:eventfd", "[{\"symbol\":\"open_cache\"},{\"module\":\"libc.so.6\"}]", c);
	TAP_EQ_STR(c, a, "the same frames written shorter: the same");
	sig("thread", "[\"a.B.run(B.java:1)\",\"c\",\"d\",\"e\",\"f\",\"g\"]", a);
	sig("thread", "[\"a.B.run(B.java:1)\",\"c\",\"d\",\"e\",\"f\",\"other\"]", b);
	sig("thread", "[\"a.B.run(B.java:2)\",\"c\",\"d\",\"e\",\"f\"]", c);
	TAP_OK(!strcmp(a, b) && strcmp(a, c), "Java frames as strings: the top 5 count, a sixth does not");
	sig("thread", NULL, a);
	sig("thread", "{\"not\":\"an array\"}", b);
	TAP_OK(strlen(a) == STORE_SIG_LEN && !strcmp(a, b), "no frames, or frames not an array: the kind alone");
}

static void run_ids(void)
{
	struct rundata *rd = calloc(1, sizeof(*rd));
	char a[RUN_ID_LEN + 1], b[RUN_ID_LEN + 1];

	rd->start_rec.run_id = "0123456789abcdef0123456789abcdef";
	store_run_id(rd, a);
	TAP_EQ_STR(a, "0123456789abcdef0123456789abcdef", "a run's own id is its id");
	rd->start_rec.run_id = NULL;
	rd->start = json_tokener_parse("{\"type\":\"start\",\"pid\":42}");
	store_run_id(rd, a);
	store_run_id(rd, b);
	TAP_OK(run_id_valid(a) && !strcmp(a, b), "a run from before ids: one derived from its start record, the same each time");
	json_object_put(rd->start);
	rd->start = json_tokener_parse("{\"type\":\"start\",\"pid\":43}");
	store_run_id(rd, b);
	TAP_OK(run_id_valid(b) && strcmp(a, b), "another start record, another id");
	rd->start_rec.run_id = "not an id";
	store_run_id(rd, a);
	TAP_EQ_STR(a, b, "a damaged id: derived instead");
	json_object_put(rd->start);
	free(rd);
}

int main(void)
{
	escaping();
	bytes();
	simple_chart();
	long_run();
	signatures();
	run_ids();
	return tap_done();
}
