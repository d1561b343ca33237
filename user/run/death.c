/* death.json: writer beside reader. */
#include "run/death.h"
#include "run/records.h"
#include "run/fields.h"
#include "run/timeline.h"
#include "util/json.h"
#include "util/jsonread.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static const struct run_field kill_fields[] = {
	RF(RF_STR, struct run_memory_kill, killer, "killer"),
	RF(RF_STR, struct run_memory_kill, known_by, "known_by"),
	RF(RF_STR, struct run_memory_kill, sentence, "sentence"),
	RF(RF_STR, struct run_memory_kill, order, "order"),
	RF(RF_I64, struct run_memory_kill, rank, "rank"),
	RF(RF_I64, struct run_memory_kill, ranked, "ranked"),
	RF(RF_DBL, struct run_memory_kill, rank_t, "rank_t"),
	RF(RF_DBL, struct run_memory_kill, at_t, "at_t"),
	RF(RF_I64, struct run_memory_kill, min_available_kb, "minute_min_available_kb"),
	RF(RF_DBL, struct run_memory_kill, max_some10, "minute_max_psi_some_avg10"),
	RF(RF_DBL, struct run_memory_kill, max_full10, "minute_max_psi_full_avg10"),
	RF(RF_I64, struct run_memory_kill, moments, "minute_samples"),
};

static const struct run_field victim_fields[] = {
	RF(RF_I64, struct run_kill_victim, pid, "pid"),
	RF(RF_STR, struct run_kill_victim, comm, "comm"),
	RF(RF_DBL, struct run_kill_victim, t, "t"),
	RF(RF_I64_SET, struct run_kill_victim, rss_kb, "rss_kb"),
	RF(RF_I64_SET, struct run_kill_victim, adj, "oom_score_adj"),
};

static void memory_kill_write(struct json *j, const struct run_memory_kill *k)
{
	json_key(j, "memory_kill");
	json_obj(j);
	run_fields_write(j, k, kill_fields, RUN_FIELDS_N(kill_fields));
	run_memfig_write(j, "at_kill", &k->at);
	json_key(j, "round");
	json_arr(j);
	for (size_t i = 0; i < k->nround; i++) {
		json_obj(j);
		run_fields_write(j, &k->round[i], victim_fields, RUN_FIELDS_N(victim_fields));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static int memory_kill_read(struct json_object *x, struct run_memory_kill *k)
{
	struct json_object *a = jr_get(x, "round"), *at = jr_get(x, "at_kill");
	struct ooms_memfig none = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, INT32_MIN, -1};

	run_fields_read(x, k, kill_fields, RUN_FIELDS_N(kill_fields));
	run_memfig_from(&k->at, &none);
	if (at && json_object_is_type(at, json_type_object))
		run_memfig_read(at, &k->at);
	if (a && json_object_is_type(a, json_type_array) && json_object_array_length(a)) {
		size_t n = json_object_array_length(a);

		if (!(k->round = calloc(n, sizeof(*k->round))))
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			run_fields_read(json_object_array_get_idx(a, i), &k->round[k->nround++], victim_fields,
					RUN_FIELDS_N(victim_fields));
	}
	return 0;
}

void run_death_write(struct json *j, const struct run_death *d)
{
	json_obj(j);
	json_kstr(j, "type", run_rec_name(REC_DEATH));
	json_kdbl(j, "t", d->t);
	json_kint(j, "pid", d->pid);
	json_kstr(j, "cause", d->cause);
	json_kstr(j, "how", d->how);
	if (d->wait_status >= 0)
		json_kint(j, "wait_status", d->wait_status);
	if (d->exit_code >= 0)
		json_kint(j, "exit_code", d->exit_code);
	if (d->signal) {
		json_kint(j, "signal", d->signal);
		json_kstr(j, "signal_name", d->signal_name);
		json_kbool(j, "core_dumped", d->core_dumped);
		json_key(j, "sender");
		json_obj(j);
		json_kint(j, "pid", d->sender.pid);
		json_kstr(j, "comm", d->sender.comm);
		json_kint(j, "si_code", d->sender.si_code);
		json_obj_end(j);
	}
	if (d->has_oom_killer) {
		json_key(j, "oom_killer");
		json_obj(j);
		json_kdbl(j, "t", d->oom_killer.t);
		json_kuint(j, "total_vm_kb", d->oom_killer.total_vm_kb);
		json_kuint(j, "anon_rss_kb", d->oom_killer.anon_rss_kb);
		json_kuint(j, "file_rss_kb", d->oom_killer.file_rss_kb);
		json_kuint(j, "shmem_rss_kb", d->oom_killer.shmem_rss_kb);
		json_kuint(j, "pgtables_kb", d->oom_killer.pgtables_kb);
		json_kint(j, "oom_score_adj", d->oom_killer.oom_score_adj);
		json_kint(j, "allocating_pid", d->oom_killer.allocating_pid);
		json_kstr(j, "allocating_comm", d->oom_killer.allocating_comm);
		json_obj_end(j);
	}
	if (d->has_memory_cgroup) {
		json_key(j, "memory_cgroup");
		json_obj(j);
		json_kstr(j, "path", d->memory_cgroup.path);
		json_kstr(j, "version", d->memory_cgroup.version);
		json_kint(j, "limit_bytes", d->memory_cgroup.limit_bytes);
		json_kint(j, "limit_hits", d->memory_cgroup.limit_hits);
		json_kint(j, "oom_kills", d->memory_cgroup.oom_kills);
		json_obj_end(j);
	}
	if (d->has_last_state) {
		/* as it stood just before the end */
		json_key(j, "last_state");
		json_obj(j);
		json_kstr(j, "source", d->last_state.source);
		json_kdbl(j, "t_sample", d->last_state.t_sample);
		json_kint(j, "rss_kb", d->last_state.rss_kb);
		json_kint(j, "vmsize_kb", d->last_state.vmsize_kb);
		json_kint(j, "threads", d->last_state.threads);
		json_kint(j, "thread_limit", d->last_state.thread_limit);
		json_kint(j, "fds", d->last_state.fds);
		json_kint(j, "fd_limit", d->last_state.fd_limit);
		if (d->last_state.has_heap) {
			json_kint(j, "heap_used", d->last_state.heap_used);
			json_kint(j, "heap_max", d->last_state.heap_max);
		}
		json_obj_end(j);
	}
	if (d->has_java_oom) {
		json_key(j, "java_oom");
		json_obj(j);
		json_kint(j, "count", d->java_oom.count);
		json_kdbl(j, "t_last", d->java_oom.t_last);
		json_kstr(j, "message", d->java_oom.message);
		json_kstr(j, "thread", d->java_oom.thread);
		json_kstr(j, "dump", d->java_oom.dump);
		json_obj_end(j);
	}
	if (d->has_last_failure) {
		json_key(j, "last_failure");
		json_obj(j);
		run_fail_group_write(j, &d->last_failure, 1);
		json_obj_end(j);
	}
	if (d->has_memory_kill)
		memory_kill_write(j, &d->memory_kill);
	json_kstr(j, "threads_file", d->threads_file);
	json_kstr(j, "fds_file", d->fds_file);
	json_kstr(j, "vmsize_file", d->vmsize_file);
	json_obj_end(j);
}

int run_death_read(struct json_object *o, struct run_death *d)
{
	struct json_object *x;

	memset(d, 0, sizeof(*d));
	if (!o || !json_object_is_type(o, json_type_object) || !jr_str(o, "how"))
		return -EINVAL;
	d->t = jr_num(o, "t", 0);
	d->pid = jr_int64(o, "pid", 0);
	d->cause = jr_str(o, "cause");
	d->how = jr_str(o, "how");
	d->wait_status = jr_int64(o, "wait_status", -1);
	d->exit_code = jr_int64(o, "exit_code", -1);
	d->signal = jr_int64(o, "signal", 0);
	d->signal_name = jr_str(o, "signal_name");
	d->core_dumped = jr_bool(o, "core_dumped");
	if ((x = jr_get(o, "sender"))) {
		d->sender.pid = jr_int64(x, "pid", 0);
		d->sender.comm = jr_str(x, "comm");
		d->sender.si_code = jr_int64(x, "si_code", 0);
	}
	if ((x = jr_get(o, "oom_killer")) && json_object_is_type(x, json_type_object)) {
		d->has_oom_killer = 1;
		d->oom_killer.t = jr_num(x, "t", 0);
		d->oom_killer.total_vm_kb = jr_uint64(x, "total_vm_kb", 0);
		d->oom_killer.anon_rss_kb = jr_uint64(x, "anon_rss_kb", 0);
		d->oom_killer.file_rss_kb = jr_uint64(x, "file_rss_kb", 0);
		d->oom_killer.shmem_rss_kb = jr_uint64(x, "shmem_rss_kb", 0);
		d->oom_killer.pgtables_kb = jr_uint64(x, "pgtables_kb", 0);
		d->oom_killer.oom_score_adj = jr_int64(x, "oom_score_adj", 0);
		d->oom_killer.allocating_pid = jr_int64(x, "allocating_pid", 0);
		d->oom_killer.allocating_comm = jr_str(x, "allocating_comm");
	}
	if ((x = jr_get(o, "memory_cgroup")) && json_object_is_type(x, json_type_object)) {
		d->has_memory_cgroup = 1;
		d->memory_cgroup.path = jr_str(x, "path");
		d->memory_cgroup.version = jr_str(x, "version");
		d->memory_cgroup.limit_bytes = jr_int64(x, "limit_bytes", -1);
		d->memory_cgroup.limit_hits = jr_int64(x, "limit_hits", 0);
		d->memory_cgroup.oom_kills = jr_int64(x, "oom_kills", 0);
	}
	if ((x = jr_get(o, "last_state")) && json_object_is_type(x, json_type_object)) {
		d->has_last_state = 1;
		d->last_state.source = jr_str(x, "source");
		d->last_state.t_sample = jr_num(x, "t_sample", 0);
		d->last_state.rss_kb = jr_int64(x, "rss_kb", -1);
		d->last_state.vmsize_kb = jr_int64(x, "vmsize_kb", -1);
		d->last_state.threads = jr_int64(x, "threads", -1);
		d->last_state.thread_limit = jr_int64(x, "thread_limit", -1);
		d->last_state.fds = jr_int64(x, "fds", -1);
		d->last_state.fd_limit = jr_int64(x, "fd_limit", -1);
		d->last_state.has_heap = jr_is_num(jr_get(x, "heap_max"));
		d->last_state.heap_used = jr_int64(x, "heap_used", -1);
		d->last_state.heap_max = jr_int64(x, "heap_max", -1);
	}
	if ((x = jr_get(o, "java_oom")) && json_object_is_type(x, json_type_object)) {
		d->has_java_oom = 1;
		d->java_oom.count = jr_int64(x, "count", 0);
		d->java_oom.t_last = jr_num(x, "t_last", 0);
		d->java_oom.message = jr_str(x, "message");
		d->java_oom.thread = jr_str(x, "thread");
		d->java_oom.dump = jr_str(x, "dump");
	}
	if ((x = jr_get(o, "last_failure")) && json_object_is_type(x, json_type_object)) {
		d->has_last_failure = 1;
		if (run_fail_group_read(x, &d->last_failure))
			return -ENOMEM;
	}
	if ((x = jr_get(o, "memory_kill")) && json_object_is_type(x, json_type_object)) {
		d->has_memory_kill = 1;
		if (memory_kill_read(x, &d->memory_kill))
			return -ENOMEM;
	}
	d->threads_file = jr_str(o, "threads_file");
	d->fds_file = jr_str(o, "fds_file");
	d->vmsize_file = jr_str(o, "vmsize_file");
	return 0;
}

void run_death_free(struct run_death *d)
{
	if (d->has_last_failure)
		run_fail_group_free(&d->last_failure);
	free(d->memory_kill.round);
	memset(d, 0, sizeof(*d));
}
