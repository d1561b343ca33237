/* The timeline's start, death and end records, death.json and failures.json. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "run/records.h"
#include "run/timeline.h"
#include "run/files.h"
#include "run/run_id.h"


/* The start record: the target, this kernel, and the settings the rules
 * run with (the report draws them). */
void coll_emit_start(struct coll *c)
{
	const struct ooms_detect_config *d = &c->o->detect;
	const struct ooms_heap_rule_config *h = &c->o->java.rule;
	char cmd[1024] = "", kernel[128] = "", when[40], host[256] = "", id[RUN_ID_LEN + 1];
	time_t now = time(NULL);
	struct tm tm;
	FILE *f = fopen("/proc/sys/kernel/osrelease", "re");

	if (f) {
		if (fgets(kernel, sizeof(kernel), f))
			kernel[strcspn(kernel, "\n")] = 0;
		fclose(f);
	}
	/* watch --app: the package (held since it took its name, the app may not
	 * have written its command line yet) */
	if (c->o->app)
		snprintf(cmd, sizeof(cmd), "%s", c->o->app);
	else
		proc_cmdline(c->pid, cmd, sizeof(cmd));
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gethostname(host, sizeof(host) - 1) != 0)
		snprintf(host, sizeof(host), "?");
	run_id_new(id);
	struct run_record r = {.type = REC_START, .u.start = {
		.run_id = id, .host = host, .nlabels = c->o->nlabels,
		.pid = c->pid, .command = cmd, .mode = c->launched ? "run" : "watch", .kernel = kernel,
		.arch = c->arch == ARCH_X86_64 ? "x86_64" : "arm64", .target_32bit = c->is_32bit,
		.interval_s = c->o->interval_s, .duration_s = c->o->duration_s,
		.libc = c->libc_path[0] ? c->libc_path : NULL, .page_size = sysconf(_SC_PAGESIZE),
		.ringbuf_bytes = coll_ringbuf_bytes(c->o), .wall_time = when, .syscall_hook = c->syscall_hook,
		.settings = {
			.vmsize_64bit = d->vmsize_limit_64bit, .big_alloc_bytes = c->o->big_alloc_bytes,
			.big_alloc_mode = !c->o->big_alloc_bytes ? NULL
					  : c->alloc_mode == ALLOC_UPROBE ? "uprobe" : "syscall",
			.heap_rule = ooms_heap_variant_name(h->variant), .heap_ratio = h->ratio,
			.heap_polls = h->polls, .heap_interval_s = h->interval_s, .max_dumps = h->max_dumps,
			.shim = c->o->java.shim,
		}}};

	memcpy(r.u.start.settings.res, d->res, sizeof(d->res));
	for (size_t i = 0; i < c->o->nlabels && i < RUN_MAX_LABELS; i++) {
		r.u.start.label_key[i] = c->o->label_key[i];
		r.u.start.label_value[i] = c->o->label_value[i];
	}
	coll_emit(c, run_record_body, &r);
}

static void oom_json(struct json *j, const struct ooms_oom_victim *o, uint64_t start)
{
	json_key(j, "oom_killer");
	json_obj(j);
	json_kdbl(j, "t", o->ts_ns > start ? (o->ts_ns - start) / 1e9 : 0);
	json_kuint(j, "total_vm_kb", o->total_vm_kb);
	json_kuint(j, "anon_rss_kb", o->anon_rss_kb);
	json_kuint(j, "file_rss_kb", o->file_rss_kb);
	json_kuint(j, "shmem_rss_kb", o->shmem_rss_kb);
	json_kuint(j, "pgtables_kb", o->pgtables_kb);
	json_kint(j, "oom_score_adj", o->oom_score_adj);
	json_kint(j, "allocating_pid", o->killer_tgid);
	json_kstr(j, "allocating_comm", o->killer_comm);
	json_obj_end(j);
}

static void cgroup_json(struct json *j, const struct ooms_cgroup *cg)
{
	json_key(j, "memory_cgroup");
	json_obj(j);
	json_kstr(j, "path", cg->mem_name);
	json_kstr(j, "version", cg->mem_v2 ? "v2" : "v1");
	json_kint(j, "limit_bytes", cg->mem_limit);
	json_kint(j, "limit_hits", cg->mem_hits);
	json_kint(j, "oom_kills", cg->oom_kills);
	json_obj_end(j);
}

static void last_state_json(struct json *j, const struct death_line *l, uint64_t start)
{
	const struct ooms_death_rec *d = l->d;
	const struct ooms_sample *s = &l->c->last_smp;
	volatile struct ooms_totals *t = coll_totals(l->c);

	/* as it stood just before the end: the last sample, and the kernel
	 * side's sets, which the teardown does not empty */
	json_key(j, "last_state");
	json_obj(j);
	if (d->oom.ts_ns > start) {
		/* the OOM killer's own figures, read when it chose the process: a
		 * sample or a look taken after that saw it torn down (the OOM
		 * reaper frees its memory at once), however soon */
		json_kstr(j, "source", "oom_killer");
		json_kdbl(j, "t_sample", (d->oom.ts_ns - start) / 1e9);
		json_kint(j, "rss_kb", (int64_t)(d->oom.anon_rss_kb + d->oom.file_rss_kb + d->oom.shmem_rss_kb));
		json_kint(j, "vmsize_kb", (int64_t)d->oom.total_vm_kb);
	} else {
		json_kstr(j, "source", "sample");
		json_kdbl(j, "t_sample", s->t);
		json_kint(j, "rss_kb", s->rss_kb);
		json_kint(j, "vmsize_kb", s->res[RES_VMSIZE].value);
	}
	json_kint(j, "threads", t->threads_live);
	json_kint(j, "thread_limit", s->res[RES_THREADS].limit);
	json_kint(j, "fds", t->fds_live);
	json_kint(j, "fd_limit", s->res[RES_FDS].limit);
	if (s->heap_src) {
		json_kint(j, "heap_used", s->heap_used);
		json_kint(j, "heap_max", s->heap_max);
	}
	json_obj_end(j);
}

static void java_oom_json(struct json *j, struct coll *c)
{
	double ot;
	const char *msg, *thread, *dump;
	int n = c->jheap ? ooms_jheap_last_oom(c->jheap, &ot, &msg, &thread, &dump) : 0;

	if (n) {
		json_key(j, "java_oom");
		json_obj(j);
		json_kint(j, "count", n);
		json_kdbl(j, "t_last", ot);
		json_kstr(j, "message", msg);
		json_kstr(j, "thread", thread[0] ? thread : NULL);
		json_kstr(j, "dump", dump);
		json_obj_end(j);
	}
}

void coll_death_body(struct json *j, void *arg)
{
	struct death_line *l = arg;
	const struct ooms_death_rec *d = l->d;
	const struct ooms_fail_group *g = ooms_failures_last(l->c->fails);
	uint64_t start = l->c->start_ns;

	json_obj(j);
	json_kstr(j, "type", run_rec_name(REC_DEATH));
	json_kdbl(j, "t", d->ts_ns > start ? (d->ts_ns - start) / 1e9 : coll_since(l->c));
	json_kint(j, "pid", l->c->pid);
	json_kstr(j, "cause", ooms_death_cause_name(d->cause));
	json_kstr(j, "how", d->sentence);
	if (d->status >= 0)
		json_kint(j, "wait_status", d->status);
	if (d->code >= 0)
		json_kint(j, "exit_code", d->code);
	if (d->signal) {
		json_kint(j, "signal", d->signal);
		json_kstr(j, "signal_name", ooms_signal_name(d->signal));
		json_kbool(j, "core_dumped", d->core);
		json_key(j, "sender");
		json_obj(j);
		json_kint(j, "pid", d->sender_pid);
		json_kstr(j, "comm", d->sender_comm[0] ? d->sender_comm : NULL);
		json_kint(j, "si_code", d->si_code);
		json_obj_end(j);
	}
	if (d->oom.ts_ns)
		oom_json(j, &d->oom, start);
	if (l->cg->mem_dir[0])
		cgroup_json(j, l->cg);
	last_state_json(j, l, start);
	java_oom_json(j, l->c);
	if (g) {
		json_key(j, "last_failure");
		json_obj(j);
		ooms_failures_json(j, l->c->fails, g, start, 1);
		json_obj_end(j);
	}
	json_kstr(j, "threads_file", RUN_THREADS);
	json_kstr(j, "fds_file", RUN_FDS);
	json_kstr(j, "vmsize_file", RUN_VMSIZE);
	json_obj_end(j);
}

/* death.json: the death record alone. */
void coll_write_death(struct coll *c, struct death_line *l)
{
	struct atomic_file af;
	struct json j;
	char path[4200];
	int e;

	snprintf(path, sizeof(path), "%s/" RUN_DEATH, c->dir);
	if ((e = atomic_open(&af, path)) == 0) {
		json_init(&j, af.f, 0);
		coll_death_body(&j, l);
		json_end_line(&j);
		e = atomic_commit(&af);
	}
	if (e)
		coll_err("cannot write %s: %s", path, strerror(-e));
}

/* The kernel's exact failure counts, and failures.json. */
void coll_write_failures(struct coll *c)
{
	int fd = bpf_map__fd(c->skel->maps.fail_counts);
	struct ooms_fail_key key, next, *prev = NULL;
	struct ooms_fail_count n;
	char path[4200];
	int e;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(fd, &next, &n) == 0)
			ooms_failures_set_count(c->fails, &next, n.count);
		key = next;
		prev = &key;
	}
	snprintf(path, sizeof(path), "%s/" RUN_FAILURES, c->dir);
	if ((e = ooms_failures_write(c->fails, path, c->start_ns)))
		coll_err("cannot write %s: %s", path, strerror(-e));
}

/* The end record: why the run stopped, and what was lost on the way. */
void coll_emit_end(struct coll *c, const char *reason, int exit_status, const struct ooms_death_rec *death,
		   uint64_t skipped_runs)
{
	volatile struct ooms_totals *t = coll_totals(c);
	struct run_record r = {.type = REC_END, .u.end = {
		.t = coll_since(c), .reason = reason, .target_exit_code = RUN_NONE, .target_signal = RUN_NONE,
		.ringbuf_drops = t->ringbuf_drops, .set_full_drops = t->set_full_drops,
		.events_sent = t->events_sent, .events_received = ooms_attrib_events(c->attrib),
		.timeline_lost = c->timeline_lost, .skipped_runs = skipped_runs, .crossings = coll_crossings(c), .call_fails = t->call_fails, .call_fails_sent = t->call_fails_sent,
	}};
	struct run_end *e = &r.u.end;

	for (int k = 0; k < RULE_MAX && e->nrecurred < 8; k++)
		if (ooms_detect_recurred(&c->det, (enum ooms_rule)k)) {
			e->recurred[e->nrecurred].rule = ooms_rule_name((enum ooms_rule)k);
			e->recurred[e->nrecurred++].times = ooms_detect_recurred(&c->det, (enum ooms_rule)k);
		}

	if (exit_status >= 0 && WIFEXITED(exit_status))
		e->target_exit_code = WEXITSTATUS(exit_status);
	else if (exit_status >= 0 && WIFSIGNALED(exit_status))
		e->target_signal = WTERMSIG(exit_status);
	if (death) {
		e->death = ooms_death_cause_name(death->cause);
		e->how = death->sentence;
	}
	if (c->jheap) {
		e->runtime = ooms_rt_name(ooms_jheap_runtime(c->jheap));
		e->runtime_events = ooms_jheap_events(c->jheap);
		e->runtime_ringbuf_drops = ooms_jheap_drops(c->jheap);
		e->unsafe_untracked = ooms_jheap_unsafe_untracked(c->jheap);
		e->dumps = ooms_jheap_dumps(c->jheap);
	}
	e->probe_misses = c->hook == OOMS_HOOK_KPROBE ? (int64_t)coll_kretprobes_missed(c) : -1;
	e->java_asked = t->java_asked;
	e->java_sampled_out = t->java_sampled_out;
	e->java_reported = c->js_reports;
	e->java_unmatched = ooms_attrib_java_unmatched(c->attrib);
	coll_own_cost(&e->collector_cpu_s, &e->collector_peak_rss_kb);
	coll_emit(c, run_record_body, &r);
}
