/* report.html: one self-contained page (no script, no network, no fonts). */
#include <dirent.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect/heap_rule.h"
#include "report/escape.h"
#include "report/html_int.h"
#include "report/kids.h"
#include "report/run_files.h"
#include "report/store_query.h"
#include "run/files.h"
#include "report/report.h"
#include "report/svg.h"

static const char CSS[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1000px;color:#1d2330;padding:0 16px}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d8dce4;padding-bottom:4px}"
	"h3{font-size:15px;margin:18px 0 6px}.sub{color:#5b6475;margin:0 0 14px}"
	"table{border-collapse:collapse;margin:6px 0 10px;width:100%}th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #eceef2;vertical-align:top}"
	"th{background:#f4f5f8;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"table.kv{width:auto}table.kv th{background:none;color:#5b6475;font-weight:500;padding-right:16px}"
	"pre{background:#f6f7f9;padding:8px;overflow-x:auto;font-size:12px;margin:4px 0}"
	"details summary{cursor:pointer;color:#2c5fb8}ul.find{padding-left:18px}ul.find li{margin:3px 0}"
	".bad{color:#b3261e;font-weight:600}.ok{color:#2e7d32}.none{color:#6b7385;font-style:italic}"
	".chart{width:100%;height:auto;margin:4px 0 14px;display:block}"
	".chart .plot{fill:#fbfbfd;stroke:#d8dce4}.chart .grid{stroke:#eceef2}"
	".chart .ytick{font-size:11px;fill:#5b6475;text-anchor:end}.chart .xtick{font-size:11px;fill:#5b6475;text-anchor:middle}"
	".chart .title{font-size:13px;font-weight:600;fill:#1d2330}.chart .unit{font-weight:400;fill:#5b6475}"
	".chart .series{fill:none;stroke-width:1.8}.chart .series.limit{stroke-dasharray:6 4;stroke-width:1.3}"
	".chart .threshold{stroke:#b3261e;stroke-dasharray:4 3}.chart .thlabel{font-size:11px;fill:#b3261e}"
	".chart .crossing{stroke:#b3261e;stroke-width:1.5}.chart .mlabel{font-size:11px;fill:#b3261e}"
	".chart .dump{fill:#7b3fb3;fill-opacity:.18;stroke:#7b3fb3;stroke-width:1}"
	".chart .gc{stroke:#e07b00;stroke-width:1.2}.chart .alloc{stroke:#c2185b;stroke-width:1.6}.chart .oom{stroke:#000;stroke-width:2}"
	".chart .drop{fill:#000}.chart .legend{stroke-width:2.5}.chart .legend.limit{stroke-dasharray:5 3}"
	".chart .legendtext{font-size:11px;fill:#1d2330}";

static void setting_row(void *f, const char *key, const char *value)
{
	html_kv(f, key, value);
}

static void header(FILE *f, const struct rundata *rd)
{
	char buf[512];
	double lost = rd->ringbuf_drops + rd->set_full_drops + rd->runtime_drops;

	fprintf(f, "<h1>oomscope: ");
	esc_html(f, rd->command[0] ? rd->command : "(unknown command)");
	fprintf(f, "</h1>\n<p class=\"sub\">PID %d, %s, %s</p>\n<table class=\"kv\">\n", rd->pid,
		rd->mode[0] ? rd->mode : "?", rd->wall_time[0] ? rd->wall_time : "start time not recorded");
	html_kv(f, "command", rd->command);
	snprintf(buf, sizeof(buf), "%d", rd->pid);
	html_kv(f, "PID", buf);
	snprintf(buf, sizeof(buf), "%s%s%.400s%s", rd->runtime[0] ? rd->runtime : "native",
		 rd->runtime_lib[0] ? " (" : "", rd->runtime_lib, rd->runtime_lib[0] ? ")" : "");
	html_kv(f, "runtime", buf);
	snprintf(buf, sizeof(buf), "Linux %s, %s", rd->kernel, rd->arch);
	html_kv(f, "kernel", buf);
	html_kv(f, "started (UTC)", rd->wall_time);
	if (rd->ended)
		snprintf(buf, sizeof(buf), "%.1f s, ended: %s", rd->end_t, rd->end_reason);
	else
		snprintf(buf, sizeof(buf), "%.1f s so far (no end record: the run is going on, or oomscope was killed)",
			 rd->nsamples ? rd->samples[rd->nsamples - 1].t : 0.0);
	html_kv(f, "length", buf);
	snprintf(buf, sizeof(buf), "every %.2g s", rd->interval_s);
	html_kv(f, "samples", buf);
	if (rd->ended) {
		snprintf(buf, sizeof(buf), "%.0f sent, %.0f received; %.0f lost in the kernel (ring buffer %.0f, full sets %.0f, runtime probes %.0f)",
			 rd->events_sent, rd->events_received, lost, rd->ringbuf_drops, rd->set_full_drops,
			 rd->runtime_drops);
		html_kv(f, "events", buf);
		if (rd->skipped_runs > 0) {
			snprintf(buf, sizeof(buf), "%.0f runs of oomscope's programs skipped by the kernel (another BPF "
				 "program held the CPU): up to as many events, of this process or another, not sent",
				 rd->skipped_runs);
			html_kv(f, "skipped", buf);
		}
		if (!isnan(rd->collector_cpu_s)) {
			int len = snprintf(buf, sizeof(buf), "%.2f s of CPU (%.1f %% of one core over the run)",
					   rd->collector_cpu_s, rd->end_t > 0 ? 100 * rd->collector_cpu_s / rd->end_t : 0.0);

			if (rd->events_received > 0 && len > 0 && (size_t)len < sizeof(buf))
				len += snprintf(buf + len, sizeof(buf) - (size_t)len, ", %.2f s per million events",
						rd->collector_cpu_s * 1e6 / rd->events_received);
			if (!isnan(rd->collector_peak_rss_kb) && len > 0 && (size_t)len < sizeof(buf))
				snprintf(buf + len, sizeof(buf) - (size_t)len, "; peak RSS %.1f MB",
					 rd->collector_peak_rss_kb / 1024);
			html_kv(f, "oomscope's own cost", buf);
		}
	}
	if (rd->bad_lines) {
		snprintf(buf, sizeof(buf), "%zu timeline line(s) did not parse and were left out", rd->bad_lines);
		html_kv(f, "timeline", buf);
	}
	fprintf(f, "</table>\n");
	if (rd->start) {
		fprintf(f, "<details><summary>settings</summary><table class=\"kv\">\n");
		run_settings_each(rd->start, setting_row, f);
		fprintf(f, "</table></details>\n");
	}
}


static void findings(FILE *f, const struct rundata *rd)
{
	int n = 0;
	double lost = rd->ringbuf_drops + rd->set_full_drops + rd->runtime_drops;
	char b1[32];

	fprintf(f, "<h2>Findings</h2>\n<ul class=\"find\">\n");
	for (size_t i = 0; i < rd->nevents; i++) {
		const struct rd_event *e = &rd->events[i];

		if (e->kind == REC_CROSSING) {
			fprintf(f, "<li><span class=\"bad\">%.1f s, ", e->t);
			esc_html(f, e->rule);
			fprintf(f, "</span>: ");
			esc_html(f, e->text);
			fprintf(f, "</li>\n");
			n++;
		} else if (e->kind == REC_DUMP) {
			fprintf(f, "<li>%.1f s, heap dump %d %s (", e->t, e->seq, e->ok ? "<span class=\"ok\">written</span>"
										: "<span class=\"bad\">failed</span>");
			esc_html(f, e->rule);
			fprintf(f, "): ");
			esc_html(f, e->text);
			if (e->ok && !isnan(e->value))
				fprintf(f, "; the app paused %.0f ms", e->value);
			fprintf(f, "</li>\n");
			n++;
		} else if (e->kind == REC_OOM) {
			fprintf(f, "<li><span class=\"bad\">%.1f s, OutOfMemoryError</span>: ", e->t);
			esc_html(f, e->text);
			fprintf(f, "</li>\n");
			n++;
		}
	}
	for (size_t i = 0; i < rd->nanalyses; i++) {
		const struct run_analysis *an = &rd->an[i];
		const struct run_an_leak *g = an->nleaks ? &an->leaks[0] : NULL;

		if (an->nsuspects) {
			fprintf(f, "<li>leak suspect in dump %d: ", rd->analysis_seq[i]);
			esc_html(f, an->suspects[0].description);
			fprintf(f, "</li>\n");
		}
		if (!g)
			continue;
		fprintf(f, "<li>leak in dump %d: <b>", rd->analysis_seq[i]);
		esc_html(f, g->class_name);
		fprintf(f, "</b> x%.0f, %s retained (", isnan(g->instance_count) ? 0 : g->instance_count,
			html_bytes(g->retained_size_total, b1, sizeof(b1)));
		esc_html(f, g->leak_reason);
		fprintf(f, ")</li>\n");
	}
	if (rd->have_allocs && rd->allocs.ngroups) {
		const struct run_alloc_group *g = &rd->allocs.groups[0];

		fprintf(f, "<li>largest allocations by stack: %" PRIu64 " x, %s in all, by <b>", g->count,
			html_bytes((double)g->total_bytes, b1, sizeof(b1)));
		esc_html(f, g->allocated_by ? g->allocated_by : "?");
		fprintf(f, "</b></li>\n");
	}
	if (!n)
		fprintf(f, "<li>No threshold was crossed in this run.</li>\n");
	if (rd->ended)
		fprintf(f, "<li>%s</li>\n", lost > 0 ? "<span class=\"bad\">Events were lost in the kernel</span> (see the marks on the charts and the events line above)"
						 : "No event was lost in the kernel.");
	fprintf(f, "</ul>\n");
}

/* Marks the crossings of every rule of res on chart c, by their names. */
static void resource_rules(struct svg_chart *c, const struct ooms_resource *res)
{
	_Static_assert(RK_MAX < sizeof(c->crossing_rules) / sizeof(c->crossing_rules[0]), "room for the NULL end");
	for (int k = 0; k < RK_MAX; k++)
		c->crossing_rules[k] = res->rules[k];
}

/* Resource r's chart (detect/resource.h's row): its figure, the line of
 * its ratio rule, its count rule's limit, its crossings marked. Drawn when
 * some sample has a figure over 0 (a run from before its row has none). */
static void resource_chart(FILE *f, const struct rundata *rd, int r, const double *ts, double *ys, double *ratio_line,
			   const double *drops, double t_end)
{
	const struct ooms_resource *res = &ooms_resources[r];
	const struct ooms_res_rules *rules = &rd->set.res[r];
	size_t n = rd->nsamples;
	int seen = 0, ns = 1;
	char lim[128], ratio_name[96], id[32], prefix[32];
	struct svg_chart ch;

	/* figures in kB drawn in MB, as a person reads memory */
	double scale = res->kb ? 1.0 / 1024 : 1;

	for (size_t i = 0; i < n; i++) {
		const struct rd_sample *s = &rd->samples[i];

		ys[i] = s->res[r] * scale;
		ratio_line[i] = rules->ratio > 0 && !isnan(s->res_limit[r]) ? floor(s->res_limit[r] * rules->ratio) * scale : NAN;
		seen |= ys[i] > 0;
	}
	if (!seen)
		return;
	/* "fd_ratio" -> "fd", for the limit's words */
	snprintf(prefix, sizeof(prefix), "%.*s", (int)(strlen(res->rules[RK_RATIO]) - strlen("_ratio")), res->rules[RK_RATIO]);
	snprintf(id, sizeof(id), "%s", res->name);
	snprintf(lim, sizeof(lim), "%s rule %.0f", prefix, rules->count_limit > 0 ? (double)rules->count_limit : NAN);
	snprintf(ratio_name, sizeof(ratio_name), "ratio of %s", res->limit_name);
	memset(&ch, 0, sizeof(ch));
	ch.id = id;
	ch.title = res->title;
	ch.unit = res->kb ? "MB" : res->unit;
	ch.ts = ts;
	ch.n = n;
	ch.series[0] = (struct svg_series){res->name, res->color, ys, 0};
	if (rules->ratio > 0)
		ch.series[ns++] = (struct svg_series){ratio_name, "#b3261e", ratio_line, 1};
	ch.nseries = ns;
	ch.limit = rules->count_limit > 0 ? (double)rules->count_limit * scale : NAN;
	ch.limit_label = lim;
	resource_rules(&ch, res);
	ch.t_end = t_end;
	svg_chart_write(f, &ch, rd->events, rd->nevents, drops);
}

static void charts(FILE *f, const struct rundata *rd)
{
	size_t n = rd->nsamples;
	double *ts = calloc(n + 1, sizeof(double)), *ys[7], *drops = calloc(n + 1, sizeof(double));
	double t_end = rd->ended ? rd->end_t : n ? rd->samples[n - 1].t : 1;
	int heap = 0, ok = ts && drops;
	char lim[128];

	for (int k = 0; k < 7; k++)
		ok &= (ys[k] = calloc(n + 1, sizeof(double))) != NULL;
	if (!ok)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct rd_sample *s = &rd->samples[i];

		ts[i] = s->t;
		drops[i] = s->drops;
		ys[0][i] = s->rss_mb;
		ys[1][i] = s->vmsize_mb;
		ys[2][i] = s->heap_used_mb;
		ys[3][i] = s->heap_max_mb;
		ys[4][i] = s->heap_limit_mb;
		heap |= !isnan(s->heap_used_mb);
	}
	fprintf(f, "<h2>Over time</h2>\n");
	if (!n) {
		fprintf(f, "<p class=\"none\">No samples in this run.</p>\n");
		goto out;
	}
	{
		int vm_on = rd->set.vmsize_64bit || rd->target_32bit;
		int64_t vm_kb = rd->set.res[RES_VMSIZE].count_limit;
		double vm_lim = vm_kb > 0 ? vm_kb / 1024.0 : NAN;

		struct svg_chart mem = {
			.id = "memory", .title = "Memory", .unit = "MB", .ts = ts, .n = n,
			.series = {{"RSS", "#2c5fb8", ys[0], 0}, {"VmSize", "#6b7385", ys[1], 0}}, .nseries = 2,
			.limit = vm_on ? vm_lim : NAN, .limit_label = lim, .dumps = 1,
			.t_end = t_end, .allocs = rd->alloc_list, .nallocs = rd->nalloc_list};

		snprintf(lim, sizeof(lim), "VmSize limit %.0f MB", vm_lim);
		resource_rules(&mem, &ooms_resources[RES_VMSIZE]);
		svg_chart_write(f, &mem, rd->events, rd->nevents, drops);
	}
	if (heap)
		svg_chart_write(f, &(struct svg_chart){
			.id = "heap", .title = "Java heap", .unit = "MB", .ts = ts, .n = n,
			.series = {{"heap used", "#2e7d32", ys[2], 0}, {"heap max", "#6b7385", ys[3], 0},
				   {"heap rule threshold", "#b3261e", ys[4], 1}},
			.nseries = 3, .limit = NAN, .crossing_rules = {ooms_heap_rules[HEAP_R_RATIO], ooms_heap_rules[HEAP_R_FAST_RATIO],
					   ooms_heap_rules[HEAP_R_FAST_DELTA], ooms_heap_rules[HEAP_R_TREND]}, .gc_ticks = 1, .dumps = 1, .t_end = t_end},
			rd->events, rd->nevents, drops);
	else
		fprintf(f, "<p class=\"none\">No Java heap in this run: the target mapped neither libjvm.so nor libart.so.</p>\n");
	/* a chart per watched resource that has one of its own (threads, fds, ...) */
	for (int r = 0; r < RES_MAX; r++)
		if (ooms_resources[r].chart)
			resource_chart(f, rd, r, ts, ys[5], ys[6], drops, t_end);
out:
	for (int k = 0; k < 7; k++)
		free(ys[k]);
	free(ts);
	free(drops);
}

/* The processes under dir (dir/children/PID-NAME, each with its report and
 * its own children/), as a nested list, each told in a line (kids.h); rel:
 * dir relative to the page. */
#define TREE_DEPTH 8

static size_t kid_tree(FILE *f, const char *dir, const char *rel, int depth)
{
	char *names[KIDS_MAX];
	size_t n = depth > TREE_DEPTH ? 0 : report_kids_list(dir, names);

	if (n)
		fprintf(f, "<ul>\n");
	for (size_t i = 0; i < n; i++) {
		char kdir[4400], krel[4400];
		struct kid_summary ks;

		snprintf(kdir, sizeof(kdir), "%s/" RUN_CHILDREN "/%s", dir, names[i]);
		snprintf(krel, sizeof(krel), "%schildren/%s/", rel, names[i]);
		fprintf(f, "<li><a href=\"");
		esc_html(f, krel);
		fprintf(f, "report.html\">");
		esc_html(f, names[i]);
		fprintf(f, "</a>");
		if (report_kid_summary(kdir, &ks) == 0) {
			fprintf(f, ": ");
			esc_html(f, ks.how);
			fprintf(f, "; %zu crossing%s", ks.crossings, ks.crossings == 1 ? "" : "s");
			if (ks.have_failures)
				fprintf(f, ", %" PRIu64 " failing call%s", ks.failures, ks.failures == 1 ? "" : "s");
		}
		kid_tree(f, kdir, krel, depth + 1); /* its own children, under it */
		fprintf(f, "</li>\n");
	}
	if (n)
		fprintf(f, "</ul>\n");
	report_kids_free(names, n);
	return n;
}

/* Process trees: each process the target started (and theirs) watched by
 * a collector of its own, with its report (run/children/PID-NAME/). */
static void children(FILE *f, const struct rundata *rd)
{
	char path[4200];
	struct stat st;

	snprintf(path, sizeof(path), "%s/" RUN_CHILDREN, rd->dir);
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return;
	fprintf(f, "<h2>Child processes</h2>\n<p class=\"sub\">Each watched as a target of its own, from its "
		   "first followed syscall on; the processes each started, under it.</p>\n");
	if (!kid_tree(f, rd->dir, "", 0))
		fprintf(f, "<p class=\"none\">None watched.</p>\n");
}

static void files(FILE *f, const struct rundata *rd)
{
	children(f, rd);
	fprintf(f, "<h2>Files</h2>\n<ul>\n");
	for (const struct rd_file *const *r = rd_files; *r; r++)
		if (rd_file_linked(rd, *r))
			fprintf(f, "<li><a href=\"%s\">%s</a></li>\n", (*r)->name, (*r)->name);
	for (size_t i = 0; i < rd->nevents; i++) { /* the crossings' snapshots */
		const struct rd_event *e = &rd->events[i];

		char path[8300];

		if (e->kind != REC_CROSSING || !e->file[0] || strchr(e->file, '/') || run_name_is_dump(e->file))
			continue;
		/* a rule keeps its first, largest and last snapshots */
		snprintf(path, sizeof(path), "%s/%s", rd->dir, e->file);
		if (access(path, F_OK) != 0)
			continue;
		fprintf(f, "<li><a href=\"");
		esc_html(f, e->file);
		fprintf(f, "\">");
		esc_html(f, e->file);
		fprintf(f, "</a>: the groups at the ");
		esc_html(f, e->rule);
		fprintf(f, " crossing, %.1f s</li>\n", e->t);
	}
	for (size_t a = 0; a < rd->nanalyses; a++) {
		char txt[64], json[64];

		run_name_dump_analysis(txt, sizeof(txt), rd->analysis_seq[a], 1);
		run_name_dump_analysis(json, sizeof(json), rd->analysis_seq[a], 0);
		fprintf(f, "<li><a href=\"%s\">%s</a>, <a href=\"%s\">JSON</a></li>\n", txt, txt, json);
	}
	fprintf(f, "</ul>\n<p class=\"sub\">trace.json opens in Perfetto (ui.perfetto.dev) and chrome://tracing; allocs.pb.gz and memory.pb.gz in pprof; "
		   "dump-N.hprof.gz in VisualVM, MAT or Android Studio after <code>oomscope hprof restore</code>.</p>\n");
}

/* The lab's store on this run's findings: how many other runs saw each. */
static void lab_section(FILE *f, const struct report_lab *lab)
{
	if (!lab)
		return;
	fprintf(f, "<h2>In the lab's store</h2>\n<p class=\"sub\">This run's findings by signature (function names, "
		   "not addresses: the same call site in another build of unchanged code), and how many other runs of the "
		   "store (%s) saw each, since when; most seen first.</p>\n",
		lab->backend);
	if (!lab->n) {
		fprintf(f, "<p class=\"none\">No findings with a creation stack in this run.</p>\n");
		return;
	}
	fprintf(f, "<table><tr><th>kind</th><th>what</th><th>largest</th><th>other runs</th><th>since</th>"
		   "<th>signature</th></tr>\n");
	for (size_t i = 0; i < lab->n; i++) {
		const struct store_seen *r = &lab->rows[i];

		fprintf(f, "<tr><td>");
		esc_html(f, r->kind);
		fprintf(f, "</td><td>");
		esc_html(f, r->what);
		if (!strcmp(r->kind, "leak") || !strcmp(r->kind, "memory") || !strcmp(r->kind, "alloc")) {
			char b[32];

			fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%.0f</td><td>", html_bytes(r->measure, b, sizeof(b)),
				r->others);
		} else {
			fprintf(f, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td>", r->measure, r->others);
		}
		esc_html(f, r->others > 0 ? r->since : "new: no other run");
		fprintf(f, "</td><td><code>");
		esc_html(f, r->signature);
		fprintf(f, "</code></td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

void ooms_report_html(const struct rundata *rd, const struct report_lab *lab, FILE *f)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>oomscope: ");
	esc_html(f, rd->command[0] ? rd->command : "run");
	fprintf(f, "</title>\n<style>%s</style></head><body>\n", CSS);
	header(f, rd);
	/* the run directory's files each add their section (run_files.c), in
	 * its table's order: how it ended first, the groups at the end last */
	rd_files_page(f, rd, RD_HEAD);
	findings(f, rd);
	lab_section(f, lab);
	charts(f, rd);
	rd_files_page(f, rd, RD_BODY);
	html_heap_section(f, rd);
	rd_files_page(f, rd, RD_TAIL);
	files(f, rd);
	fprintf(f, "<p class=\"sub\">written by oomscope report</p>\n</body></html>\n");
}
