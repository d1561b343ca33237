/* The timeline's start, death and end records, death.json and failures.json. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "run/records.h"
#include "run/timeline.h"
#include "run/files.h"
#include "run/run_id.h"
#include "run/death.h"


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
		.libc = c->k.libc_path[0] ? c->k.libc_path : NULL, .page_size = sysconf(_SC_PAGESIZE),
		.ringbuf_bytes = coll_ringbuf_bytes(c->o), .wall_time = when, .syscall_hook = c->k.syscall_hook,
		.bpf_fallbacks = c->k.fallbacks[0] ? c->k.fallbacks : NULL,
		.settings = {
			.vmsize_64bit = d->vmsize_limit_64bit, .big_alloc_bytes = c->o->big_alloc_bytes,
			.big_alloc_mode = !c->o->big_alloc_bytes ? NULL
					  : c->k.alloc_mode == ALLOC_UPROBE ? "uprobe" : "syscall",
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

/* As it stood just before the end: the last sample, and the kernel side's
 * sets, which the teardown does not empty; or the OOM killer's own figures,
 * read when it chose the process (a sample taken after that saw it torn
 * down: the OOM reaper frees its memory at once). */
static void fill_last_state(struct run_death *r, const struct death_line *l, uint64_t start)
{
	const struct ooms_death_rec *d = l->d;
	const struct ooms_sample *s = &l->c->last_smp;
	volatile struct ooms_totals *t = coll_k_totals(&l->c->k);

	r->has_last_state = 1;
	if (d->oom.ts_ns > start) {
		r->last_state.source = "oom_killer";
		r->last_state.t_sample = (d->oom.ts_ns - start) / 1e9;
		r->last_state.rss_kb = (int64_t)(d->oom.anon_rss_kb + d->oom.file_rss_kb + d->oom.shmem_rss_kb);
		r->last_state.vmsize_kb = (int64_t)d->oom.total_vm_kb;
	} else {
		r->last_state.source = "sample";
		r->last_state.t_sample = s->t;
		r->last_state.rss_kb = s->rss_kb;
		r->last_state.vmsize_kb = s->res[RES_VMSIZE].value;
	}
	r->last_state.threads = (int64_t)t->threads_live;
	r->last_state.thread_limit = s->res[RES_THREADS].limit;
	r->last_state.fds = (int64_t)t->fds_live;
	r->last_state.fd_limit = s->res[RES_FDS].limit;
	r->last_state.has_heap = s->heap_src != NULL;
	r->last_state.heap_used = s->heap_used;
	r->last_state.heap_max = s->heap_max;
}

void coll_death_body(struct json *j, void *arg)
{
	struct death_line *l = arg;
	const struct ooms_death_rec *d = l->d;
	const struct ooms_fail_group *g = ooms_failures_last(l->c->fails);
	const struct ooms_cgroup *cg = l->cg;
	uint64_t start = l->c->start_ns;
	struct ooms_fail_rec last;
	double ot;
	const char *msg, *thread, *dump;
	int n = l->c->jheap ? ooms_jheap_last_oom(l->c->jheap, &ot, &msg, &thread, &dump) : 0;
	struct run_death r = {
		.t = d->ts_ns > start ? (d->ts_ns - start) / 1e9 : coll_since(l->c), .pid = l->c->pid,
		.cause = ooms_death_cause_name(d->cause), .how = d->sentence, .wait_status = d->status,
		.exit_code = d->code, .signal = d->signal, .signal_name = d->signal ? ooms_signal_name(d->signal) : NULL,
		.core_dumped = d->core, .has_sender = d->signal != 0,
		.sender = {d->sender_pid, d->sender_comm[0] ? d->sender_comm : NULL, d->si_code},
		.threads_file = RUN_THREADS, .fds_file = RUN_FDS, .vmsize_file = RUN_VMSIZE};

	if (d->oom.ts_ns) {
		r.has_oom_killer = 1;
		r.oom_killer.t = d->oom.ts_ns > start ? (d->oom.ts_ns - start) / 1e9 : 0;
		r.oom_killer.total_vm_kb = d->oom.total_vm_kb;
		r.oom_killer.anon_rss_kb = d->oom.anon_rss_kb;
		r.oom_killer.file_rss_kb = d->oom.file_rss_kb;
		r.oom_killer.shmem_rss_kb = d->oom.shmem_rss_kb;
		r.oom_killer.pgtables_kb = d->oom.pgtables_kb;
		r.oom_killer.oom_score_adj = d->oom.oom_score_adj;
		r.oom_killer.allocating_pid = d->oom.killer_tgid;
		r.oom_killer.allocating_comm = d->oom.killer_comm;
	}
	if (cg->mem_dir[0]) {
		r.has_memory_cgroup = 1;
		r.memory_cgroup.path = cg->mem_name;
		r.memory_cgroup.version = cg->mem_v2 ? "v2" : "v1";
		r.memory_cgroup.limit_bytes = cg->mem_limit;
		r.memory_cgroup.limit_hits = cg->mem_hits;
		r.memory_cgroup.oom_kills = cg->oom_kills;
	}
	fill_last_state(&r, l, start);
	if (n) {
		r.has_java_oom = 1;
		r.java_oom.count = n;
		r.java_oom.t_last = ot;
		r.java_oom.message = msg;
		r.java_oom.thread = thread[0] ? thread : NULL;
		r.java_oom.dump = dump;
	}
	if (g) {
		ooms_failures_rec(l->c->fails, g, start, &last);
		r.has_last_failure = 1;
		r.last_failure = last.r;
	}
	if (l->c->has_kill) {
		const struct memory_kill *k = &l->c->kill;
		struct run_kill_victim round[KILL_ROUND_MAX];

		r.has_memory_kill = 1;
		r.memory_kill = (struct run_memory_kill){
			.killer = k->killer, .known_by = k->known_by, .order = k->order, .sentence = k->sentence,
			.rank = (int64_t)k->rank, .ranked = (int64_t)k->ranked, .rank_t = k->rank_t, .at_t = k->at_t,
			.min_available_kb = k->min_available_kb, .moments = (int64_t)k->moments,
			.max_some10 = k->max_some10, .max_full10 = k->max_full10, .round = round, .nround = k->nround};
		run_memfig_from(&r.memory_kill.at, &k->at);
		for (size_t i = 0; i < k->nround; i++)
			round[i] = (struct run_kill_victim){k->round[i].pid, k->round[i].rss_kb >= 0 ? k->round[i].rss_kb : RUN_NONE,
							    k->round[i].adj == INT32_MIN ? RUN_NONE : k->round[i].adj,
							    k->round[i].comm, k->round[i].t};
	}
	run_death_write(j, &r);
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
	int fd = coll_k_fail_counts_fd(&c->k);
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

/* What the collector was handed and does not know, from each room that
 * counts it: into the end record's unknown fields. */
void coll_unknown_counts(struct coll *c, struct run_end *e)
{
	volatile struct ooms_totals *t = coll_k_totals(&c->k);
	int err = 0;

	e->unknown_events = c->unknown.events + (c->jheap ? ooms_jheap_unknown_events(c->jheap) : 0);
	e->unknown_event_type = c->unknown.events ? c->unknown.event_type : RUN_NONE;
	e->unknown_classes = t ? t->unknown_class : 0;
	e->unknown_snap_kinds = c->unknown.snap_kinds;
	e->unknown_snap_kind = c->unknown.snap_kinds ? c->unknown.snap_kind : RUN_NONE;
	e->unknown_errnos = ooms_failures_unknown(c->fails, &err);
	e->unknown_errno = e->unknown_errnos ? err : RUN_NONE;
}

/* The end record: why the run stopped, and what was lost on the way. */
void coll_emit_end(struct coll *c, const char *reason, int exit_status, const struct ooms_death_rec *death,
		   uint64_t skipped_runs, uint64_t fds_without_event)
{
	volatile struct ooms_totals *t = coll_k_totals(&c->k);
	struct run_record r = {.type = REC_END, .u.end = {
		.t = coll_since(c), .reason = reason, .target_exit_code = RUN_NONE, .target_signal = RUN_NONE,
		.ringbuf_drops = t->ringbuf_drops, .set_full_drops = t->set_full_drops,
		.events_sent = t->events_sent, .events_received = ooms_attrib_events(c->attrib),
		.timeline_lost = c->timeline_lost, .skipped_runs = skipped_runs,
		.fds_without_event = fds_without_event, .crossings = coll_crossings(c), .call_fails = t->call_fails, .call_fails_sent = t->call_fails_sent,
		.syscalls_without_regs = t->no_regs,
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
	e->probe_misses = c->k.hook == OOMS_HOOK_KPROBE ? (int64_t)coll_k_kretprobes_missed(&c->k) : -1;
	e->java_asked = t->java_asked;
	e->java_sampled_out = t->java_sampled_out;
	e->java_reported = c->java.reports;
	e->java_unmatched = ooms_attrib_java_unmatched(c->attrib);
	coll_unknown_counts(c, e);
	coll_own_cost(&e->collector_cpu_s, &e->collector_peak_rss_kb);
	coll_emit(c, run_record_body, &r);
}
