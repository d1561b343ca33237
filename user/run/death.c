/* death.json: writer beside reader, from one field list per object. */
#include "run/death.h"
#include "run/records.h"
#include "run/fields.h"
#include "run/timeline.h"
#include "util/json.h"
#include "util/jsonread.h"

#include <errno.h>
#include <stddef.h>
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

/* death.json's keys: the head, its objects, the tail (the file names) */
static const struct run_field head_fields[] = {
	RF(RF_DBL_0, struct run_death, t, "t"),
	RF(RF_I64_0, struct run_death, pid, "pid"),
	RF(RF_STR, struct run_death, cause, "cause"),
	RF(RF_STR, struct run_death, how, "how"),
	RF(RF_I64_NN, struct run_death, wait_status, "wait_status"),
	RF(RF_I64_NN, struct run_death, exit_code, "exit_code"),
	RF(RF_I64_NZ, struct run_death, signal, "signal"),
	RF(RF_STR_SET, struct run_death, signal_name, "signal_name"),
	RF(RF_BOOL, struct run_death, core_dumped, "core_dumped"),
};

static const struct run_field sender_fields[] = {
	RF(RF_I64_0, struct run_death, sender.pid, "pid"),
	RF(RF_STR, struct run_death, sender.comm, "comm"),
	RF(RF_I64_0, struct run_death, sender.si_code, "si_code"),
};

static const struct run_field oom_killer_fields[] = {
	RF(RF_DBL_0, struct run_death, oom_killer.t, "t"),
	RF(RF_U64, struct run_death, oom_killer.total_vm_kb, "total_vm_kb"),
	RF(RF_U64, struct run_death, oom_killer.anon_rss_kb, "anon_rss_kb"),
	RF(RF_U64, struct run_death, oom_killer.file_rss_kb, "file_rss_kb"),
	RF(RF_U64, struct run_death, oom_killer.shmem_rss_kb, "shmem_rss_kb"),
	RF(RF_U64, struct run_death, oom_killer.pgtables_kb, "pgtables_kb"),
	RF(RF_I64_0, struct run_death, oom_killer.oom_score_adj, "oom_score_adj"),
	RF(RF_I64_0, struct run_death, oom_killer.allocating_pid, "allocating_pid"),
	RF(RF_STR, struct run_death, oom_killer.allocating_comm, "allocating_comm"),
};

static const struct run_field cgroup_fields[] = {
	RF(RF_STR, struct run_death, memory_cgroup.path, "path"),
	RF(RF_STR, struct run_death, memory_cgroup.version, "version"),
	RF(RF_I64_M1, struct run_death, memory_cgroup.limit_bytes, "limit_bytes"),
	RF(RF_I64_0, struct run_death, memory_cgroup.limit_hits, "limit_hits"),
	RF(RF_I64_0, struct run_death, memory_cgroup.oom_kills, "oom_kills"),
};

/* as it stood just before the end; the heap's figures only with a heap */
static const struct run_field last_state_fields[] = {
	RF(RF_STR, struct run_death, last_state.source, "source"),
	RF(RF_DBL_0, struct run_death, last_state.t_sample, "t_sample"),
	RF(RF_I64_M1, struct run_death, last_state.rss_kb, "rss_kb"),
	RF(RF_I64_M1, struct run_death, last_state.vmsize_kb, "vmsize_kb"),
	RF(RF_I64_M1, struct run_death, last_state.threads, "threads"),
	RF(RF_I64_M1, struct run_death, last_state.thread_limit, "thread_limit"),
	RF(RF_I64_M1, struct run_death, last_state.fds, "fds"),
	RF(RF_I64_M1, struct run_death, last_state.fd_limit, "fd_limit"),
	RF(RF_I64_NN, struct run_death, last_state.heap_used, "heap_used"),
	RF(RF_I64_NN, struct run_death, last_state.heap_max, "heap_max"),
};

static const struct run_field java_oom_fields[] = {
	RF(RF_I64_0, struct run_death, java_oom.count, "count"),
	RF(RF_DBL_0, struct run_death, java_oom.t_last, "t_last"),
	RF(RF_STR, struct run_death, java_oom.message, "message"),
	RF(RF_STR, struct run_death, java_oom.thread, "thread"),
	RF(RF_STR, struct run_death, java_oom.dump, "dump"),
};

static const struct run_part parts[] = {
	RUN_PART(struct run_death, has_sender, "sender", sender_fields),
	RUN_PART(struct run_death, has_oom_killer, "oom_killer", oom_killer_fields),
	RUN_PART(struct run_death, has_memory_cgroup, "memory_cgroup", cgroup_fields),
	RUN_PART(struct run_death, has_last_state, "last_state", last_state_fields),
	RUN_PART(struct run_death, has_java_oom, "java_oom", java_oom_fields),
};

static const struct run_field tail_fields[] = {
	RF(RF_STR, struct run_death, threads_file, "threads_file"),
	RF(RF_STR, struct run_death, fds_file, "fds_file"),
	RF(RF_STR, struct run_death, vmsize_file, "vmsize_file"),
};

void run_death_write(struct json *j, const struct run_death *d)
{
	struct run_death w = *d;

	if (!w.last_state.has_heap)
		w.last_state.heap_used = w.last_state.heap_max = -1;
	json_obj(j);
	json_kstr(j, "type", run_rec_name(REC_DEATH));
	run_fields_write(j, &w, head_fields, RUN_FIELDS_N(head_fields));
	run_parts_write(j, &w, parts, RUN_FIELDS_N(parts));
	if (d->has_last_failure) {
		json_key(j, "last_failure");
		json_obj(j);
		run_fail_group_write(j, &d->last_failure, 1);
		json_obj_end(j);
	}
	if (d->has_memory_kill)
		memory_kill_write(j, &d->memory_kill);
	run_fields_write(j, &w, tail_fields, RUN_FIELDS_N(tail_fields));
	json_obj_end(j);
}

int run_death_read(struct json_object *o, struct run_death *d)
{
	struct json_object *x;

	memset(d, 0, sizeof(*d));
	if (!o || !json_object_is_type(o, json_type_object) || !jr_str(o, "how"))
		return -EINVAL;
	run_fields_read(o, d, head_fields, RUN_FIELDS_N(head_fields));
	run_parts_read(o, d, parts, RUN_FIELDS_N(parts));
	d->last_state.has_heap = d->has_last_state && d->last_state.heap_max >= 0;
	run_fields_read(o, d, tail_fields, RUN_FIELDS_N(tail_fields));
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
	return 0;
}

void run_death_free(struct run_death *d)
{
	if (d->has_last_failure)
		run_fail_group_free(&d->last_failure);
	free(d->memory_kill.round);
	memset(d, 0, sizeof(*d));
}
