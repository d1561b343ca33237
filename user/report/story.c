/* The run's story on a terminal (report.h: ooms_report_story), as `perf
 * report --stdio` tells a profile: how it ended, each rule that crossed and
 * what held the resource then, the largest groups, the failing calls, the
 * large allocations, the memory's growth by code, the Java heap's leaks and
 * suspects, what was lost. Each part a few lines; the whole at most
 * STORY_LINES. */
#define _GNU_SOURCE
#include "report/report.h"
#include "report/kids.h"
#include "run/files.h"
#include "util/units.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define STORY_LINES 40
#define PER_PART 3 /* items a part lists */

struct story {
	FILE *f;
	int lines, cut;
};

static void say(struct story *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct story *s, const char *fmt, ...)
{
	va_list ap;

	if (s->lines >= STORY_LINES - 1) { /* the last line says what was left out */
		s->cut++;
		return;
	}
	va_start(ap, fmt);
	vfprintf(s->f, fmt, ap);
	va_end(ap);
	fputc('\n', s->f);
	s->lines++;
}

static const char *mb(double bytes, char *buf, size_t len)
{
	return units_bytes(bytes, buf, len);
}

static const char *or_unknown(const char *s, const char *why)
{
	return s && *s ? s : why;
}

/* What a stack of a snapshot is known by: its code, or why none. */
static const char *stack_by(const struct run_snap_stack *st)
{
	return st->created_by ? st->created_by : or_unknown(st->unknown, "code unknown");
}

/* Code a Java runtime or oomscope's shim runs for itself: its threads are
 * the runtime's own, not the app's. */
static int runtime_own(const char *by)
{
	static const char *const libs[] = {"(libjvm.so)", "(libart.so)", "(liboomscope_shim.so)"};
	size_t n = by ? strlen(by) : 0;

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (n >= strlen(libs[i]) && !strcmp(by + n - strlen(libs[i]), libs[i]))
			return 1;
	return 0;
}

/* Does this stack name the code that made it (a Java frame with its file, a
 * native function), rather than why it cannot? */
static int named(const struct run_snap_stack *st)
{
	return st && st->created_by && strncmp(st->created_by, "Java code (", 11) &&
	       strncmp(st->created_by, "interpreted Java (", 18);
}

/* The largest groups, at equal counts the ones whose code is named first;
 * the threads a runtime made for itself (a JVM's compiler and GC threads)
 * said in the last line, not listed. */
static void snapshot_groups(struct story *s, const struct run_snapshot *snap, const char *indent)
{
	const char *what = snap->kind == SNAP_THREADS ? "thread" : "fd";
	size_t top[PER_PART], ntop = 0, own_groups = 0, rest = 0;
	uint64_t own = 0;

	for (size_t i = 0; i < snap->ngroups; i++) {
		const struct run_snap_group *g = &snap->groups[i];
		const struct run_snap_stack *st = g->nstacks ? &g->stacks[0] : NULL;
		size_t k;

		if (snap->kind == SNAP_THREADS && st && runtime_own(st->created_by)) {
			own += g->count;
			own_groups++;
			continue;
		}
		rest++;
		/* insert into the top few (groups come largest first: a later one
		 * goes ahead only at an equal count with its code named) */
		for (k = ntop; k > 0; k--) {
			const struct run_snap_group *h = &snap->groups[top[k - 1]];

			if (!(h->count < g->count ||
			      (h->count == g->count && named(st) && !named(h->nstacks ? &h->stacks[0] : NULL))))
				break;
		}
		if (k >= PER_PART)
			continue;
		if (ntop < PER_PART)
			ntop++;
		memmove(top + k + 1, top + k, (ntop - 1 - k) * sizeof(top[0]));
		top[k] = i;
	}
	for (size_t i = 0; i < ntop; i++) {
		const struct run_snap_group *g = &snap->groups[top[i]];
		const struct run_snap_stack *st = g->nstacks ? &g->stacks[0] : NULL;

		say(s, "%s%6llu %s%s %s%s%s", indent, (unsigned long long)g->count, what, g->count == 1 ? "" : "s",
		    or_unknown(g->name, "?"), st ? " <- " : "", st ? stack_by(st) : "");
	}
	if (rest > ntop && own)
		say(s, "%s       (%zu more group%s; and %llu thread%s the runtime made for itself)", indent, rest - ntop,
		    rest - ntop == 1 ? "" : "s", (unsigned long long)own, own == 1 ? "" : "s");
	else if (rest > ntop)
		say(s, "%s       (%zu more group%s)", indent, rest - ntop, rest - ntop == 1 ? "" : "s");
	else if (own)
		say(s, "%s       (and %llu thread%s the runtime made for itself, in %zu group%s)", indent,
		    (unsigned long long)own, own == 1 ? "" : "s", own_groups, own_groups == 1 ? "" : "s");
}

static void how_it_ended(struct story *s, const struct rundata *rd)
{
	if (rd->have_death && rd->death.how) {
		say(s, "how it ended: %s", rd->death.how);
		if (rd->death.has_memory_kill && rd->death.memory_kill.sentence) /* each of its lines under it */
			for (const char *l = rd->death.memory_kill.sentence; *l;) {
				int n = (int)strcspn(l, "\n");

				if (n)
					say(s, "  %.*s", n, l);
				l += n + (l[n] == '\n');
			}
		if (rd->death.has_java_oom && rd->death.java_oom.message)
			say(s, "  OutOfMemoryError (%lld): %s", (long long)rd->death.java_oom.count,
			    rd->death.java_oom.message);
	} else if (rd->ended) {
		say(s, "how it ended: the watch stopped (%s) after %.1f s, the target still running",
		    or_unknown(rd->end_reason, "?"), rd->end_t);
	} else {
		say(s, "how it ended: the run has no end record (oomscope itself was stopped)");
	}
}

/* The processes the target started, each watched as a run of its own. */
static void children(struct story *s, const struct rundata *rd)
{
	char *names[KIDS_MAX];
	size_t n = report_kids_list(rd->dir, names);

	if (n)
		say(s, "children watched (%zu), each a run of its own (oomscope report %s/children/NAME):", n, rd->dir);
	for (size_t i = 0; i < n && i < PER_PART + 2; i++) {
		char kdir[4400];
		struct kid_summary ks;

		snprintf(kdir, sizeof(kdir), "%s/" RUN_CHILDREN "/%s", rd->dir, names[i]);
		if (report_kid_summary(kdir, &ks) != 0)
			say(s, "  %s: not a run directory", names[i]);
		else if (ks.have_failures)
			say(s, "  %s: %s; %zu crossing%s, %llu failing call%s", names[i], ks.how, ks.crossings,
			    ks.crossings == 1 ? "" : "s", (unsigned long long)ks.failures, ks.failures == 1 ? "" : "s");
		else
			say(s, "  %s: %s; %zu crossing%s", names[i], ks.how, ks.crossings, ks.crossings == 1 ? "" : "s");
	}
	if (n > PER_PART + 2)
		say(s, "  (%zu more)", n - PER_PART - 2);
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
		snapshot_groups(s, &snap, "    ");
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
			for (size_t i = 0; i < nc && i < PER_PART; i++)
				say(s, "    ~%s grown by %s (%llu of %llu sampled faults)", mb((double)c[i].bytes, b, sizeof(b)),
				    or_unknown(c[i].created_by, "code unknown"), (unsigned long long)c[i].samples,
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
		say(s, "crossings: none (no rule's limit was reached)");
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
		say(s, "crossings (%zu, by %zu rule%s; each rule's first):", n, rules, rules == 1 ? "" : "s");
	else
		say(s, "crossings (%zu):", n);
	for (size_t i = 0; i < rd->nevents; i++) {
		const struct rd_event *e = &rd->events[i];
		int seen = 0;

		if (e->kind != REC_CROSSING)
			continue;
		for (size_t k = 0; k < i && !seen; k++) /* each rule once: its first crossing */
			seen = rd->events[k].kind == REC_CROSSING && !strcmp(rd->events[k].rule, e->rule);
		if (seen)
			continue;
		say(s, "  %7.1f s  %s: %s%s%s", e->t, e->rule, e->text, e->file[0] ? " -> " : "", e->file);
		crossing_snapshot(s, rd, e->file);
	}
}

static void at_the_end(struct story *s, const struct rundata *rd)
{
	if (rd->have_fds && rd->fds.ngroups) {
		say(s, "fds at the end (%lld):", (long long)rd->fds.members);
		snapshot_groups(s, &rd->fds, "  ");
	}
	if (rd->have_threads && rd->threads.ngroups) {
		say(s, "threads at the end (%lld):", (long long)rd->threads.members);
		snapshot_groups(s, &rd->threads, "  ");
	}
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The failing calls by call, error and caller: the kernel keys one site by
 * stack, and a program without frame pointers has many stacks a site. */
static void failing_calls(struct story *s, const struct rundata *rd)
{
	struct { const struct run_fail_group *g; uint64_t count; } top[16];
	size_t ntop = 0;

	if (!rd->have_failures || !rd->failures.count)
		return;
	for (size_t i = 0; i < rd->failures.n; i++) {
		const struct run_fail_group *g = &rd->failures.groups[i];
		size_t k = 0;

		while (k < ntop && !(same_str(top[k].g->syscall, g->syscall) && same_str(top[k].g->err, g->err) &&
				     same_str(top[k].g->called_by, g->called_by)))
			k++;
		if (k == ntop) {
			if (ntop == sizeof(top) / sizeof(top[0]))
				continue;
			top[ntop++] = (typeof(top[0])){g, 0};
		}
		top[k].count += g->count;
	}
	for (size_t i = 1; i < ntop; i++) /* most first */
		for (size_t k = i; k > 0 && top[k].count > top[k - 1].count; k--) {
			typeof(top[0]) t = top[k];

			top[k] = top[k - 1];
			top[k - 1] = t;
		}
	say(s, "failing calls (%llu):", (unsigned long long)rd->failures.count);
	for (size_t i = 0; i < ntop && i < PER_PART; i++)
		say(s, "  %6llu %s %s <- %s (thread %s)", (unsigned long long)top[i].count, or_unknown(top[i].g->syscall, "?"),
		    or_unknown(top[i].g->err, "?"), or_unknown(top[i].g->called_by, "caller unknown"),
		    or_unknown(top[i].g->thread, "?"));
}

static void large_allocations(struct story *s, const struct rundata *rd)
{
	char b[32];
	size_t top[PER_PART] = {0}, ntop = 0;

	if (!rd->nalloc_list)
		return;
	/* the largest few, in size order */
	for (size_t i = 0; i < rd->nalloc_list; i++) {
		size_t k = ntop < PER_PART ? ntop++ : PER_PART;

		if (k == PER_PART) {
			if (rd->alloc_list[i].bytes <= rd->alloc_list[top[PER_PART - 1]].bytes)
				continue;
			k = PER_PART - 1;
		}
		while (k > 0 && rd->alloc_list[top[k - 1]].bytes < rd->alloc_list[i].bytes) {
			top[k] = top[k - 1];
			k--;
		}
		top[k] = i;
	}
	say(s, "large allocations (%zu):", rd->nalloc_list);
	for (size_t i = 0; i < ntop; i++) {
		const struct rd_alloc *a = &rd->alloc_list[top[i]];

		int state = a->state && strcmp(a->state, "unknown");

		say(s, "  %9s %s <- %s at %.1f s%s%s", mb(a->bytes, b, sizeof(b)), or_unknown(a->function, "?"),
		    or_unknown(a->by, "code unknown"), a->t, state ? ", " : "", state ? a->state : "");
	}
}

/* The memory's growth by code: the stacks of one culprit as one line, the
 * largest first. */
static void memory_growth(struct story *s, const struct rundata *rd)
{
	struct run_memory_culprit *c;
	size_t nc;
	char b[32];

	if (!rd->have_memory || !rd->memory.ngroups || run_memory_culprits(&rd->memory, &c, &nc))
		return;
	say(s, "memory grown by (sampled page faults, one each %s):", mb((double)rd->memory.period_bytes, b, sizeof(b)));
	for (size_t i = 0; i < nc && i < PER_PART; i++) {
		say(s, "  ~%9s %s (%s)", mb((double)c[i].bytes, b, sizeof(b)), or_unknown(c[i].created_by, "code unknown"),
		    run_memory_backing(c[i].anon, c[i].file, c[i].shared));
		/* the Java heap grew: what holds it, as the last dump's analysis says */
		if (c[i].created_by && !strcmp(c[i].created_by, RUN_MEMORY_JAVA_HEAP) && rd->nanalyses) {
			const struct run_analysis *an = &rd->an[rd->nanalyses - 1];

			if (an->nleaks)
				say(s, "              what holds it (the last heap dump): %.0f %s, %s retained", an->leaks[0].instance_count,
				    or_unknown(an->leaks[0].class_name, "?"), mb(an->leaks[0].retained_size_total, b, sizeof(b)));
			else if (an->nsuspects)
				say(s, "              what holds it (the last heap dump): %s", or_unknown(an->suspects[0].description, "?"));
		}
	}
	run_memory_culprits_free(c, nc);
}

static void java_heap(struct story *s, const struct rundata *rd)
{
	char b[32];

	for (size_t i = 0; i < rd->nevents; i++) {
		const struct rd_event *e = &rd->events[i];

		if (e->kind == REC_DUMP && e->ok && !isnan(e->value))
			say(s, "heap dump %d: %s (%s, the app paused %.0f ms)", e->seq, e->text, e->rule, e->value);
		else if (e->kind == REC_DUMP)
			say(s, "heap dump %d: %s%s (%s)", e->seq, e->ok ? "" : "failed: ", e->text, e->rule);
	}
	for (size_t i = 0; i < rd->nanalyses; i++) {
		const struct run_analysis *an = &rd->an[i];

		for (size_t k = 0; k < an->nleaks && k < PER_PART; k++)
			say(s, "  leak: %.0f %s (%s), %s retained", an->leaks[k].instance_count,
			    or_unknown(an->leaks[k].class_name, "?"), or_unknown(an->leaks[k].leak_reason, "by rule"),
			    mb(an->leaks[k].retained_size_total, b, sizeof(b)));
		for (size_t k = 0; k < an->nsuspects && k < PER_PART; k++)
			say(s, "  suspect #%zu: %s", k + 1, or_unknown(an->suspects[k].description, "?"));
	}
}

static void lost(struct story *s, const struct rundata *rd)
{
	double drops = (isnan(rd->ringbuf_drops) ? 0 : rd->ringbuf_drops) +
		       (isnan(rd->set_full_drops) ? 0 : rd->set_full_drops) +
		       (isnan(rd->runtime_drops) ? 0 : rd->runtime_drops);

	if (drops > 0)
		say(s, "lost: %.0f events the kernel could not deliver (counted; the figures above may be short)", drops);
}

void ooms_report_story(const struct rundata *rd, FILE *f)
{
	struct story s = {f, 0, 0};

	say(&s, "oomscope: PID %d (%s), %s on %s %s, %.1f s", rd->pid, or_unknown(rd->command, "?"),
	    or_unknown(rd->mode, "watch"), or_unknown(rd->kernel, "?"), or_unknown(rd->arch, ""),
	    rd->ended ? rd->end_t : (rd->nsamples ? rd->samples[rd->nsamples - 1].t : 0.0));
	how_it_ended(&s, rd);
	children(&s, rd);
	crossings(&s, rd);
	failing_calls(&s, rd);
	memory_growth(&s, rd);
	large_allocations(&s, rd);
	java_heap(&s, rd);
	at_the_end(&s, rd);
	lost(&s, rd);
	if (s.cut)
		fprintf(f, "(%d lines more: report.html has everything)\n", s.cut);
}
