/* The terminal: the table, progress lines, how it ended. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "util/text.h"
#include "run/files.h"
#include "run/timeline.h"
#include "util/clock.h"

void coll_print_header(void)
{
	printf("%8s %9s %10s %15s %15s %7s %15s\n", "TIME(s)", "RSS(MB)", "VMSIZE(MB)", "THREADS/LIMIT",
	       "FDS/LIMIT", "DROPS", "JAVA HEAP(MB)");
}

void coll_print_row(const struct ooms_sample *s)
{
	char th[32], fd[32];

	snprintf(th, sizeof(th), "%" PRId64 "/%" PRId64, s->res[RES_THREADS].value, s->res[RES_THREADS].limit);
	snprintf(fd, sizeof(fd), "%" PRId64 "/%" PRId64, s->res[RES_FDS].value, s->res[RES_FDS].limit);
	char heap[40] = "-";

	if (s->heap_src)
		snprintf(heap, sizeof(heap), "%.0f/%.0f", s->heap_used / 1048576.0, s->heap_max / 1048576.0);
	printf("%8.1f %9.1f %10.1f %15s %15s %7" PRIu64 " %15s\n", s->t, s->rss_kb / 1024.0,
	       s->res[RES_VMSIZE].value / 1024.0, th, fd, s->ringbuf_drops + s->set_full_drops, heap);
	fflush(stdout);
}

void coll_say(void *ctx, const char *fmt, ...)
{
	struct coll *c = ctx;
	va_list ap;

	if (c->o->json)
		return;
	printf("%8.1f ", c->start_ns ? coll_since(c) : 0.0);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void coll_headline(struct coll *c, const char *fmt, ...)
{
	char line[1200], name[64] = "";
	va_list ap;
	int n;

	if (c->o->headline_fd < 0)
		return;
	if (proc_task_comm(c->pid, c->pid, name, sizeof(name)) != 0)
		snprintf(name, sizeof(name), "?");
	n = snprintf(line, sizeof(line), "%8.1f child %d (%s): ", (mono_ns() - c->o->headline_t0_ns) / 1e9, (int)c->pid,
		     name);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* one write: the launcher's and its other children's lines do not interleave with it */
	if (write(c->o->headline_fd, line, (size_t)n) < 0) {
		/* the launcher's terminal is gone: the child's own terminal has the line */
	}
}

/* Progress of the phases that take a while, on a terminal only. From the
 * dump thread too: one fprintf is one write. */
void coll_progress(void *ctx, const char *what)
{
	struct coll *c = ctx;

	if (c->o->quiet || c->o->json || !isatty(2))
		return;
	fprintf(stderr, "oomscope: %s ...\n", what);
}

/* "how it ended" on the terminal, with the last failure before it. */
void coll_print_death(struct coll *c, const struct ooms_death_rec *d)
{
	const struct ooms_fail_group *g = ooms_failures_last(c->fails);
	char line[512], safe[1024];

	fprintf(stderr, "oomscope: how it ended: PID %d %s\n", (int)c->pid, d->sentence);
	if (c->has_kill) /* what the memory killer saw: two lines */
		for (const char *p = c->kill.sentence; *p;) {
			size_t n = strcspn(p, "\n");

			fprintf(stderr, "  %.*s\n", (int)n, p);
			p += n + (p[n] == '\n');
		}
	if (c->jheap) {
		double ot;
		const char *msg, *thread, *dump;
		int n = ooms_jheap_last_oom(c->jheap, &ot, &msg, &thread, &dump);

		if (n)
			fprintf(stderr, "  after java.lang.OutOfMemoryError: %s (thread %s, %.2f s; %d in all)%s%s\n", msg,
				thread[0] ? thread : "?", ot, n,
				dump ? "; the heap dumped at the throw: " : !strstr(msg, "heap") ? ""
				: "; no heap dump at the throw (--shim takes one)", dump ? dump : "");
	}
	if (g) {
		ooms_failures_line(c->fails, g, line, sizeof(line));
		fprintf(stderr, "  last failure%s: %s\n",
			d->ts_ns > g->last_ns ? "" : " (after)", text_term_safe(safe, sizeof(safe), line));
		if (d->ts_ns > g->last_ns)
			fprintf(stderr, "  %.1f ms before the end; %" PRIu64 " failed call(s) in all (" RUN_FAILURES ")\n",
				(d->ts_ns - g->last_ns) / 1e6, ooms_failures_total(c->fails));
	}
}

/* The end's lines: why it stopped, what the kernel or the disk lost, its
 * own cost, how the target ended, the largest groups and allocations. */
/* What the collector was handed and did not know: each kind in a line. */
static void unknown_lines(struct coll *c)
{
	struct run_end e = {0};

	coll_unknown_counts(c, &e);
	if (e.unknown_events)
		fprintf(stderr, "oomscope: %" PRIu64 " event(s) of a type this collector does not know (the first: type %" PRId64
			") were dropped\n", e.unknown_events, e.unknown_event_type);
	if (e.unknown_classes)
		fprintf(stderr, "oomscope: %" PRIu64 " syscall return(s) of a class the BPF object has no case for were "
			"not followed\n", e.unknown_classes);
	if (e.unknown_snap_kinds)
		fprintf(stderr, "oomscope: %" PRIu64 " snapshot(s) of a kind this collector has no writer for (the first: %"
			PRId64 ") were not written\n", e.unknown_snap_kinds, e.unknown_snap_kind);
	if (e.unknown_errnos)
		fprintf(stderr, "oomscope: %" PRIu64 " failed call(s) with an errno this collector does not name (the first: %"
			PRId64 ") are in " RUN_FAILURES " as 'errno N'\n", e.unknown_errnos, e.unknown_errno);
}

void coll_print_end(struct coll *c, const char *why, const struct ooms_death_rec *d, uint64_t skipped, size_t unseen)
{
	volatile struct ooms_totals *t = coll_k_totals(&c->k);
	char summary[4096];
	double cpu;
	uint64_t rss;

	fprintf(stderr, "oomscope: stopped (%s) after %.1f s; %d crossing(s); %" PRIu64 " events, %" PRIu64
		" lost in the kernel\n",
		why, coll_since(c), coll_crossings(c), ooms_attrib_events(c->attrib),
		(uint64_t)(t->ringbuf_drops + t->set_full_drops + t->no_regs) + coll_k_kretprobes_missed(&c->k));
	if (t->no_regs)
		fprintf(stderr, "oomscope: %" PRIu64 " syscall return(s) not followed: this kernel has no bpf_task_pt_regs "
			"(5.15) and where a task's registers sit was not learned (--syscall-hook raw reads them anyway)\n",
			(uint64_t)t->no_regs);
	if (coll_k_kretprobes_missed(&c->k))
		fprintf(stderr, "oomscope: the kernel's kretprobes missed %" PRIu64 " syscall return(s): more calls were "
			"in flight than their 4096 instances (--syscall-hook raw misses none)\n", coll_k_kretprobes_missed(&c->k));
	if (skipped)
		fprintf(stderr, "oomscope: the kernel skipped %" PRIu64 " run(s) of oomscope's programs (another BPF "
			"program was running on that CPU): up to as many events, of this process or another, "
			"were not sent\n", skipped);
	if (c->timeline_lost)
		fprintf(stderr, "oomscope: the timeline lacks %" PRIu64 " record(s) that could not be written\n",
			c->timeline_lost);
	unknown_lines(c);
	if (unseen)
		fprintf(stderr, "oomscope: %zu fd(s) made while watched came with no creation event (lost in the kernel, or "
			"oomscope's syscall hook did not run for them): " RUN_FDS " lists them without a stack, as "
			"'creation event not received'\n", unseen);
	coll_own_cost(&cpu, &rss);
	if (rss)
		fprintf(stderr, "oomscope: its own cost: %.2f s of CPU, peak RSS %.1f MB\n", cpu, rss / 1024.0);
	if (d)
		coll_print_death(c, d);
	if (ooms_attrib_summary(c->attrib, &c->last, summary, sizeof(summary)) > 0)
		fprintf(stderr, "largest groups at the end:\n%s", summary);
	ooms_allocs_text(c->allocs, stderr, 5, 1); /* the rest: allocs.txt */
}
