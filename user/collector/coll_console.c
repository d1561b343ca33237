/* The terminal: the table, progress lines, how it ended. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "util/text.h"

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

void coll_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
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
			fprintf(stderr, "  %.1f ms before the end; %" PRIu64 " failed call(s) in all (failures.json)\n",
				(d->ts_ns - g->last_ns) / 1e6, ooms_failures_total(c->fails));
	}
}
