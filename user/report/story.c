/* The run's story on a terminal (report.h: ooms_report_story), as `perf
 * report --stdio` tells a profile: how it ended, each rule that crossed and
 * what held the resource then, the largest groups, the failing calls, the
 * large allocations, the memory's growth by code, the Java heap's leaks and
 * suspects, what was lost. Each part a few lines; the whole at most
 * STORY_LINES. */
#define _GNU_SOURCE
#include "report/report.h"
#include "report/kids.h"
#include "report/run_files.h"
#include "report/story_out.h"
#include "run/files.h"
#include "util/units.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The processes the target started, each watched as a run of its own. */
static void children(struct story *s, const struct rundata *rd)
{
	char *names[KIDS_MAX];
	size_t n = report_kids_list(rd->dir, names);

	if (n)
		story_say(s, "children watched (%zu), each a run of its own (oomscope report %s/children/NAME):", n, rd->dir);
	for (size_t i = 0; i < n && i < STORY_PER_PART + 2; i++) {
		char kdir[4400];
		struct kid_summary ks;

		snprintf(kdir, sizeof(kdir), "%s/" RUN_CHILDREN "/%s", rd->dir, names[i]);
		if (report_kid_summary(kdir, &ks) != 0)
			story_say(s, "  %s: not a run directory", names[i]);
		else if (ks.have_failures)
			story_say(s, "  %s: %s; %zu crossing%s, %llu failing call%s", names[i], ks.how, ks.crossings,
			    ks.crossings == 1 ? "" : "s", (unsigned long long)ks.failures, ks.failures == 1 ? "" : "s");
		else
			story_say(s, "  %s: %s; %zu crossing%s", names[i], ks.how, ks.crossings, ks.crossings == 1 ? "" : "s");
	}
	if (n > STORY_PER_PART + 2)
		story_say(s, "  (%zu more)", n - STORY_PER_PART - 2);
	report_kids_free(names, n);
}

static void crossing_snapshot(struct story *s, const struct rundata *rd, const char *file)
{
	struct json_object *doc = NULL;
	struct run_snapshot snap;
	struct run_memory mem;

	if (!file[0])
		return;
	if (run_snapshot_load(rd->dir, file, &doc, &snap) == 0) {
		story_snapshot_groups(s, &snap, "    ");
		run_snapshot_free(&snap);
		json_object_put(doc);
		return;
	}
	doc = NULL;
	if (run_memory_load(rd->dir, file, &doc, &mem) == 0) {
		struct run_memory_culprit *c;
		size_t nc;
		char b[32];

		/* by culprit: each once, whatever stacks reach it */
		if (run_memory_culprits(&mem, &c, &nc) == 0) {
			for (size_t i = 0; i < nc && i < STORY_PER_PART; i++)
				story_say(s, "    ~%s grown by %s (%llu of %llu sampled faults)", story_mb((double)c[i].bytes, b, sizeof(b)),
				    story_or(c[i].created_by, "code unknown"), (unsigned long long)c[i].samples,
				    (unsigned long long)mem.samples);
			run_memory_culprits_free(c, nc);
		}
		run_memory_free(&mem);
		json_object_put(doc);
	}
}

static void crossings(struct story *s, const struct rundata *rd)
{
	size_t n = 0;

	for (size_t i = 0; i < rd->nevents; i++)
		n += rd->events[i].kind == REC_CROSSING;
	if (!n) {
		story_say(s, "crossings: none (no rule's limit was reached)");
		return;
	}
	size_t rules = 0;

	for (size_t i = 0; i < rd->nevents; i++) { /* the rules that crossed: each listed once */
		int seen = rd->events[i].kind != REC_CROSSING;

		for (size_t k = 0; k < i && !seen; k++)
			seen = rd->events[k].kind == REC_CROSSING && !strcmp(rd->events[k].rule, rd->events[i].rule);
		rules += !seen;
	}
	if (rules < n)
		story_say(s, "crossings (%zu, by %zu rule%s; each rule's first):", n, rules, rules == 1 ? "" : "s");
	else
		story_say(s, "crossings (%zu):", n);
	for (size_t i = 0; i < rd->nevents; i++) {
		const struct rd_event *e = &rd->events[i];
		int seen = 0;

		if (e->kind != REC_CROSSING)
			continue;
		for (size_t k = 0; k < i && !seen; k++) /* each rule once: its first crossing */
			seen = rd->events[k].kind == REC_CROSSING && !strcmp(rd->events[k].rule, e->rule);
		if (seen)
			continue;
		story_say(s, "  %7.1f s  %s: %s%s%s", e->t, e->rule, e->text, e->file[0] ? " -> " : "", e->file);
		crossing_snapshot(s, rd, e->file);
	}
}

static void java_heap(struct story *s, const struct rundata *rd)
{
	char b[32];

	for (size_t i = 0; i < rd->nevents; i++) {
		const struct rd_event *e = &rd->events[i];

		if (e->kind == REC_DUMP && e->ok && !isnan(e->value))
			story_say(s, "heap dump %d: %s (%s, the app paused %.0f ms)", e->seq, e->text, e->rule, e->value);
		else if (e->kind == REC_DUMP)
			story_say(s, "heap dump %d: %s%s (%s)", e->seq, e->ok ? "" : "failed: ", e->text, e->rule);
	}
	for (size_t i = 0; i < rd->nanalyses; i++) {
		const struct run_analysis *an = &rd->an[i];

		for (size_t k = 0; k < an->nleaks && k < STORY_PER_PART; k++)
			story_say(s, "  leak: %.0f %s (%s), %s retained", an->leaks[k].instance_count,
			    story_or(an->leaks[k].class_name, "?"), story_or(an->leaks[k].leak_reason, "by rule"),
			    story_mb(an->leaks[k].retained_size_total, b, sizeof(b)));
		for (size_t k = 0; k < an->nsuspects && k < STORY_PER_PART; k++)
			story_say(s, "  suspect #%zu: %s", k + 1, story_or(an->suspects[k].description, "?"));
	}
}

static void lost(struct story *s, const struct rundata *rd)
{
	double drops = (isnan(rd->ringbuf_drops) ? 0 : rd->ringbuf_drops) +
		       (isnan(rd->set_full_drops) ? 0 : rd->set_full_drops) +
		       (isnan(rd->runtime_drops) ? 0 : rd->runtime_drops);

	if (drops > 0)
		story_say(s, "lost: %.0f events the kernel could not deliver (counted; the figures above may be short)", drops);
}

void ooms_report_story(const struct rundata *rd, FILE *f)
{
	struct story s = {f, 0, 0};

	story_say(&s, "oomscope: PID %d (%s), %s on %s %s, %.1f s", rd->pid, story_or(rd->command, "?"),
		  story_or(rd->mode, "watch"), story_or(rd->kernel, "?"), story_or(rd->arch, ""),
		  rd->ended ? rd->end_t : (rd->nsamples ? rd->samples[rd->nsamples - 1].t : 0.0));
	/* the run directory's files each tell their part (run_files.c), in its
	 * table's order: how it ended first, the groups at the end last */
	rd_files_story(&s, rd, RD_HEAD);
	children(&s, rd);
	crossings(&s, rd);
	rd_files_story(&s, rd, RD_BODY);
	java_heap(&s, rd);
	rd_files_story(&s, rd, RD_TAIL);
	lost(&s, rd);
	if (s.cut)
		fprintf(f, "(%d lines more: report.html has everything)\n", s.cut);
}
