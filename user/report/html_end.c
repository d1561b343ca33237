/* report.html's sections of how the run ended: death.json (how it ended,
 * who ended it and what it saw) and failures.json (the calls that failed
 * for want of a resource); a key-value row as the page draws them. */
#include "report/escape.h"
#include "report/html_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void html_kv(FILE *f, const char *k, const char *v)
{
	fprintf(f, "<tr><th>");
	esc_html(f, k);
	fprintf(f, "</th><td>");
	esc_html(f, v && *v ? v : "-");
	fprintf(f, "</td></tr>\n");
}

/* "How it ended", at the top: the death record (death.json). */
void html_death(FILE *f, const struct rundata *rd)
{
	const struct run_death *d = &rd->death;
	char buf[512];

	if (!rd->have_death)
		return;
	fprintf(f, "<h2>How it ended</h2>\n<p class=\"bad\">%.3f s: PID %" PRId64 " ", d->t, d->pid);
	esc_html(f, d->how);
	fprintf(f, "</p>\n<table class=\"kv\">\n");
	html_kv(f, "cause", d->cause);
	if (d->signal) {
		snprintf(buf, sizeof(buf), "%s from PID %" PRId64 " (%s), si_code %" PRId64,
			 d->signal_name ? d->signal_name : "?", d->sender.pid, d->sender.comm ? d->sender.comm : "?",
			 d->sender.si_code);
		html_kv(f, "signal", buf);
	}
	if (d->has_oom_killer) {
		snprintf(buf, sizeof(buf), "at %.3f s: anon RSS %.1f MB, file RSS %.1f MB, total VM %.1f MB, oom_score_adj %" PRId64,
			 d->oom_killer.t, d->oom_killer.anon_rss_kb / 1024.0, d->oom_killer.file_rss_kb / 1024.0,
			 d->oom_killer.total_vm_kb / 1024.0, d->oom_killer.oom_score_adj);
		html_kv(f, "OOM killer", buf);
	}
	if (d->has_memory_cgroup && d->memory_cgroup.limit_bytes > 0) {
		snprintf(buf, sizeof(buf), "%s (%s): limit %.1f MB, hit %" PRId64 " times, %" PRId64 " OOM kill(s)",
			 d->memory_cgroup.path ? d->memory_cgroup.path : "?",
			 d->memory_cgroup.version ? d->memory_cgroup.version : "?", d->memory_cgroup.limit_bytes / 1048576.0,
			 d->memory_cgroup.limit_hits, d->memory_cgroup.oom_kills);
		html_kv(f, "memory cgroup", buf);
	}
	if (d->has_last_state) {
		snprintf(buf, sizeof(buf), "RSS %.1f MB, VmSize %.1f MB (read at %.3f s); %" PRId64 " threads of %" PRId64
			 "; %" PRId64 " fds of %" PRId64,
			 d->last_state.rss_kb / 1024.0, d->last_state.vmsize_kb / 1024.0, d->last_state.t_sample,
			 d->last_state.threads, d->last_state.thread_limit, d->last_state.fds, d->last_state.fd_limit);
		html_kv(f, "last state", buf);
	}
	if (d->has_java_oom) {
		const char *dump = d->java_oom.dump;

		snprintf(buf, sizeof(buf), "%s (thread %s, %.3f s; %" PRId64 " in all); %s%s",
			 d->java_oom.message ? d->java_oom.message : "?", d->java_oom.thread ? d->java_oom.thread : "?",
			 d->java_oom.t_last, d->java_oom.count,
			 dump ? "the heap was dumped at the throw: " : "no heap dump at the throw (run with --shim for one)",
			 dump ? dump : "");
		html_kv(f, "OutOfMemoryError", buf);
	}
	if (d->has_last_failure) {
		const struct run_fail_group *g = &d->last_failure;

		snprintf(buf, sizeof(buf), "%s failed with %s at %.3f s (%.1f ms before the end), called by %s",
			 g->syscall ? g->syscall : "?", g->err ? g->err : "?", g->t_last, (d->t - g->t_last) * 1000,
			 g->called_by ? g->called_by : "an unknown caller");
		html_kv(f, "last failure", buf);
	}
	if (d->has_memory_kill) {
		const struct run_memory_kill *k = &d->memory_kill;

		snprintf(buf, sizeof(buf), "%s (known by %s)", k->killer ? k->killer : "?", k->known_by ? k->known_by : "?");
		html_kv(f, "memory killer", buf);
		html_kv(f, "what it saw", k->sentence);
		for (size_t i = 0; i < k->nround; i++) {
			snprintf(buf, sizeof(buf), "PID %" PRId64 " (%s) at %.1f s%s", k->round[i].pid,
				 k->round[i].comm ? k->round[i].comm : "?", k->round[i].t,
				 k->round[i].rss_kb != RUN_NONE ? "" : ", its RSS unknown");
			if (k->round[i].rss_kb != RUN_NONE) {
				size_t n = strlen(buf);

				snprintf(buf + n, sizeof(buf) - n, ", RSS %.1f MB, oom_score_adj %" PRId64,
					 k->round[i].rss_kb / 1024.0, k->round[i].adj);
			}
			html_kv(f, i ? "" : "its round (30 s)", buf);
		}
	}
	fprintf(f, "</table>\n");
}

/* Calls that failed for want of a resource (failures.json). */
void html_failures(FILE *f, const struct rundata *rd)
{
	const struct run_failures *fl = &rd->failures;

	if (!rd->have_failures || !fl->n)
		return;
	fprintf(f, "<h2>Failed calls</h2>\n<p class=\"sub\">%" PRIu64 " call(s) failed for want of fds, threads or memory; "
		   "the kernel sends the first few of each kind from each place with a stack and counts the rest.</p>\n",
		fl->count);
	fprintf(f, "<table><tr><th>call</th><th>error</th><th>count</th><th>first, last (s)</th><th>called by</th>"
		   "<th>stack</th></tr>\n");
	for (size_t i = 0; i < fl->n && i < TOP_GROUPS; i++) {
		const struct run_fail_group *g = &fl->groups[i];

		fprintf(f, "<tr><td>");
		esc_html(f, g->syscall);
		fprintf(f, "</td><td>");
		esc_html(f, g->err);
		fprintf(f, "</td><td class=\"n\">%" PRIu64 "</td><td>%.3f, %.3f</td><td>", g->count, g->t_first, g->t_last);
		esc_html(f, g->called_by ? g->called_by : "-");
		fprintf(f, "<br><small>in ");
		esc_html(f, g->thread);
		fprintf(f, "</small></td><td>");
		html_frame_lines(f, &g->frames);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
}
