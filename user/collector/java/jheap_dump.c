/* The Java heap watch's dumps: those the heap rule asks for, taken on a
 * thread while the collector goes on, and the one armed for the first
 * OutOfMemoryError (the shim dumps from the throwing thread). */
#define _GNU_SOURCE
#include "collector/java/jheap_int.h"
#include "run/files.h"
#include "hprof/transform.h"
#include "run/timeline.h"
#include "dump/fresh.h"

static void *dump_main(void *arg)
{
	struct ooms_jheap *j = arg;
	uint64_t one = 1;

	if (ooms_dump_take(&j->rq, &j->res) == 0 && j->arq.json)
		ooms_fresh_analyze(j->out, NULL, &j->arq, &j->ares);
	__atomic_store_n(&j->finished, 1, __ATOMIC_SEQ_CST);
	if (write(j->efd, &one, sizeof(one)) < 0) {
	}
	return NULL;
}

const char *jheap_base(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

static void emit_dump(struct ooms_jheap *j, int seq, const struct ooms_fresh_request *arq,
		      const struct ooms_dump_result *res, const struct ooms_fresh_result *ares, const char *out,
		      const char *json, const char *when)
{
	struct run_record r = {.type = REC_DUMP, .u.dump = {
		.t = jheap_now(j), .seq = seq, .ok = res->ok, .method = res->method, .when = when,
		.file = res->ok ? jheap_base(out) : NULL, .pause_ms = res->pause_ms, .dump_ms = res->dump_ms,
		.attempts = res->attempts, .bytes_in = res->bytes_in, .bytes_out = res->bytes_out,
		.objects = res->objects, .target_exited = res->target_exited, .error = res->ok ? NULL : res->error,
		.ran_out = ooms_ran_out_name((enum ooms_ran_out)j->ran_out),
		.has_analysis = res->ok && arq->json, .analysis = ares->analyzed ? jheap_base(json) : NULL,
		.analyze_ms = ares->analyze_ms, .leak_groups = ares->leak_groups, .leak_objects = ares->leak_objects,
		.top_leak = ares->top_leak[0] ? ares->top_leak : NULL,
		.analysis_error = ares->error[0] ? ares->error : NULL}};

	j->io.emit(j->io.ctx, run_record_body, &r);
}

/* The request for a dump into out, and for its analysis files. */
static void fill_request(struct ooms_jheap *j, struct ooms_dump_request *rq, struct ooms_fresh_request *arq,
			 const char *out, const char *json, const char *txt)
{
	memset(rq, 0, sizeof(*rq));
	memset(arq, 0, sizeof(*arq));
	rq->pid = j->pid;
	rq->runtime = j->rt.kind;
	rq->method = j->o.method;
	rq->out_path = out;
	rq->op = j->o.op;
	rq->codec = j->o.codec;
	rq->level = j->o.level;
	rq->text_bytes = j->o.no_strings ? 0 : HPROF_TEXT_BYTES;
	rq->status = j->io.progress;
	rq->sctx = j->io.ctx;
	if (j->o.analyze) {
		arq->json = json;
		arq->txt = txt;
		arq->aopts.runtime = j->rt.kind == OOMS_RT_ART ? RUNTIME_ANDROID : RUNTIME_JVM;
		arq->aopts.bitmap_w = 768;
		arq->aopts.bitmap_h = 1366;
		arq->aopts.leak_classes = j->o.leak_classes;
		arq->aopts.nleak_classes = j->o.nleak_classes;
		arq->aopts.leak_ifs = j->o.leak_ifs;
		arq->aopts.ran_out = (enum ooms_ran_out)j->ran_out;
		arq->aopts.nleak_ifs = j->o.nleak_ifs;
		arq->aopts.max_memory = j->o.max_memory;
		arq->status = rq->status;
		arq->sctx = rq->sctx;
	}
}

/* Dump number seq finished (the rules' and the one at the
 * OutOfMemoryError may overlap: each keeps the number it was given): its
 * record, and its lines for the terminal. */
static void report_dump(struct ooms_jheap *j, int seq, const struct ooms_fresh_request *arq,
			const struct ooms_dump_result *r, const struct ooms_fresh_result *ar, const char *out,
			const char *json, const char *txt, const char *when)
{
	if (r->ok)
		j->dumps++;
	emit_dump(j, seq, arq, r, ar, out, json, when);
	if (!j->io.say)
		return;
	if (r->thawed) /* a cached app, frozen: the dump needed it running */
		j->io.say(j->io.ctx, "dump %d: the target was frozen (%s): thawed for the dump, %s", seq, r->thaw_where,
			  r->refrozen ? "frozen again after" : r->refreeze_note[0] ? r->refreeze_note : "not frozen again");
	if (!r->ok) {
		j->io.say(j->io.ctx, "!! dump %d%s%s failed: %s", seq, when ? " " : "", when ? when : "", r->error);
		return;
	}
	j->io.say(j->io.ctx, "dump %d written%s%s (%s): %s, %.1f MB, the app paused %.0f ms%s%s", seq, when ? " " : "",
		  when ? when : "", r->method, out, r->bytes_out / 1048576.0, r->pause_ms,
		  r->attempts > 1 ? " over forks retried after a stalled walk" : "",
		  r->target_exited ? " (the target has exited since)" : "");
	if (ar->analyzed)
		j->io.say(j->io.ctx, "analysis: %zu leak group(s), %" PRIu64 " object(s)%s%s (details: %s)", ar->leak_groups,
			  ar->leak_objects, ar->top_leak[0] ? "; first: " : "", ar->top_leak, txt);
	else if (arq->json)
		j->io.say(j->io.ctx, "!! analysis failed: %s", ar->error);
}

/* Dump SEQ's paths in the run directory: the dump (with ext), its JSON
 * and text analyses (each of the sizes j's paths have). */
static void dump_paths(const struct ooms_jheap *j, int seq, const char *ext, char *out, char *json, char *txt)
{
	char name[64];

	run_name_dump(name, sizeof(name), seq, ext);
	snprintf(out, sizeof(j->out), "%s/%s", j->dir, name);
	run_name_dump_analysis(name, sizeof(name), seq, 0);
	snprintf(json, sizeof(j->json_path), "%s/%s", j->dir, name);
	run_name_dump_analysis(name, sizeof(name), seq, 1);
	snprintf(txt, sizeof(j->txt_path), "%s/%s", j->dir, name);
}

void jheap_start_dump(struct ooms_jheap *j, const char *reason)
{
	struct run_record r;
	const char *ext = jheap_ext(j);

	j->run_seq = ++j->seq;
	dump_paths(j, j->seq, ext, j->out, j->json_path, j->txt_path);
	fill_request(j, &j->rq, &j->arq, j->out, j->json_path, j->txt_path);
	memset(&j->ares, 0, sizeof(j->ares));
	j->started_t = jheap_now(j);
	r = (struct run_record){.type = REC_DUMP_START, .u.dump_start = {j->started_t, j->seq, reason}};
	j->io.emit(j->io.ctx, run_record_body, &r);
	if (j->io.say)
		j->io.say(j->io.ctx, "dumping the Java heap to %s", j->out);
	j->finished = 0;
	if (pthread_create(&j->th, NULL, dump_main, j) != 0) {
		snprintf(j->res.error, sizeof(j->res.error), "cannot start the dump thread");
		report_dump(j, j->run_seq, &j->arq, &j->res, &j->ares, j->out, j->json_path, j->txt_path, NULL);
		return;
	}
	j->running = 1;
}

int ooms_jheap_fd(const struct ooms_jheap *j)
{
	return j->efd;
}

/* The shim's "oom ..." lines: an oom record each, with the Java stack. */
static void arm_lines(struct ooms_jheap *j)
{
	char lines[8][OOMDUMP_LINE];
	size_t n = ooms_oomdump_lines(j->arm, lines, 8);

	for (size_t i = 0; i < n; i++) {
		char kind[32], thread[200], what[300], stack[OOMDUMP_LINE];
		struct run_record r = {.type = REC_OOM, .u.oom = {.t = jheap_now(j), .bytes = RUN_NONE, .message = what,
								  .source = "shim", .thread = thread, .kind = kind, .stack = stack}};

		jheap_line_value(lines[i], "kind", kind, sizeof(kind));
		jheap_line_value(lines[i], "thread", thread, sizeof(thread));
		jheap_line_value(lines[i], "what", what, sizeof(what));
		jheap_line_value(lines[i], "stack", stack, sizeof(stack));
		snprintf(j->oom_thread, sizeof(j->oom_thread), "%s", thread);
		/* one the runtime's probe did not see (built in Java code): an
		 * error of its own; its message, so that the app printing it is
		 * not a second one */
		if (!j->ooms || !jheap_same_oom(j->oom_msg, what)) {
			j->ooms++;
			j->oom_t = r.u.oom.t;
			snprintf(j->oom_msg, sizeof(j->oom_msg), "%.*s", (int)sizeof(j->oom_msg) - 1, what);
		} else if (j->printed.pending && jheap_same_oom(j->printed.msg, what)) {
			j->ooms_printed_only--; /* printed, and thrown where the shim saw it */
		}
		jheap_printed_seen(j, what);
		j->io.emit(j->io.ctx, run_record_body, &r);
		if (j->io.say)
			j->io.say(j->io.ctx, "!! OutOfMemoryError (%s) in Java thread \"%s\" at %.*s%s", what, thread,
				  (int)strcspn(stack, ";"), stack,
				  !strcmp(kind, "heap") || !strcmp(kind, "direct") || !strcmp(kind, "metaspace")
					  ? ": dumping the heap at the throw"
					  : "");
	}
}

/* The last-chance dump is done: named as the next dump (dump-N.*), its
 * record and lines as any dump's. */
static void arm_finished(struct ooms_jheap *j)
{
	const struct ooms_dump_result *r = &j->arm_res;

	if (!r->ok && !strcmp(r->error, "no OutOfMemoryError came"))
		return;
	j->seq++;
	{
		char out[sizeof(j->arm_out)], json[sizeof(j->arm_json)], txt[sizeof(j->arm_txt)];

		dump_paths(j, j->seq, jheap_ext(j), out, json, txt);
		if (r->ok && rename(j->arm_out, out) == 0) {
			snprintf(j->arm_out, sizeof(j->arm_out), "%s", out);
			if (rename(j->arm_json, json) == 0)
				snprintf(j->arm_json, sizeof(j->arm_json), "%s", json);
			if (rename(j->arm_txt, txt) == 0)
				snprintf(j->arm_txt, sizeof(j->arm_txt), "%s", txt);
		}
	}
	report_dump(j, j->seq, &j->arm_arq, r, &j->arm_ares, j->arm_out, j->arm_json, j->arm_txt,
		    "at the OutOfMemoryError");
	if (r->ok)
		snprintf(j->oom_dump, sizeof(j->oom_dump), "%s", jheap_base(j->arm_out));
}

void ooms_jheap_done(struct ooms_jheap *j)
{
	uint64_t n;

	if (read(j->efd, &n, sizeof(n)) < 0)
		return;
	if (j->arm) {
		if (ooms_oomdump_newly_armed(j->arm) && j->io.say)
			j->io.say(j->io.ctx, "the shim is armed: the Java heap is dumped at its first OutOfMemoryError");
		arm_lines(j);
		if (ooms_oomdump_state(j->arm, &j->arm_res, &j->arm_ares) == 2)
			arm_finished(j);
	}
	if (!j->running || !__atomic_load_n(&j->finished, __ATOMIC_SEQ_CST))
		return;
	pthread_join(j->th, NULL);
	j->running = 0;
	report_dump(j, j->run_seq, &j->arq, &j->res, &j->ares, j->out, j->json_path, j->txt_path, NULL);
}

void jheap_arm_start(struct ooms_jheap *j)
{
	const char *ext = jheap_ext(j);

	dump_paths(j, RUN_DUMP_OOM, ext, j->arm_out, j->arm_json, j->arm_txt);
	fill_request(j, &j->arm_rq, &j->arm_arq, j->arm_out, j->arm_json, j->arm_txt);
	/* it writes while the run goes on: no progress line */
	j->arm_rq.status = j->arm_arq.status = NULL;
	j->arm = ooms_oomdump_start(&j->arm_rq, j->arm_arq.json ? &j->arm_arq : NULL, j->efd);
	if (!j->arm && j->io.say)
		j->io.say(j->io.ctx, "!! cannot arm the dump at the OutOfMemoryError (no thread)");
}

void ooms_jheap_finish(struct ooms_jheap *j, int wait_s)
{
	struct pollfd p = {.fd = j->efd, .events = POLLIN};

	if (j->arm) {
		/* (only asks: a result taken here would never be reported) */
		if (ooms_oomdump_writing(j->arm) && j->io.say)
			j->io.say(j->io.ctx, "waiting for the dump at the OutOfMemoryError to finish (at most %d s)", wait_s);
		ooms_oomdump_stop(j->arm, wait_s);
		arm_lines(j);
		if (ooms_oomdump_state(j->arm, &j->arm_res, &j->arm_ares) == 2)
			arm_finished(j);
		ooms_oomdump_free(j->arm);
		j->arm = NULL;
	}
	jheap_printed_flush(j); /* no line from the shim came about it */
	if (!j->running)
		return;
	if (j->io.say)
		j->io.say(j->io.ctx, "waiting for dump %d to finish (at most %d s)", j->run_seq, wait_s);
	if (poll(&p, 1, wait_s * 1000) == 1)
		ooms_jheap_done(j);
}
