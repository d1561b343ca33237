/* death.json, and the timeline's death record (the same object): how the
 * target ended. The writer (the collector's coll_records.c fills the
 * struct) beside the reader (the report, the lab's store, a held child's
 * line). Strings read point into the parsed object. */
#ifndef OOMSCOPE_RUN_DEATH_H
#define OOMSCOPE_RUN_DEATH_H

#include <stdint.h>
#include "run/failures.h"
#include "detect/sample.h"

struct json;
struct json_object;

struct run_death {
	double t;
	int64_t pid;
	const char *cause;           /* "exit", "self-signal", "oom-cgroup", ... */
	const char *how;             /* the sentence */
	int64_t wait_status, exit_code; /* -1 absent */
	int64_t signal;              /* 0: none (then no sender) */
	const char *signal_name;
	int core_dumped;
	int has_sender;              /* with a signal */
	struct { int64_t pid; const char *comm; int64_t si_code; } sender;
	int has_oom_killer;
	struct {
		double t;
		uint64_t total_vm_kb, anon_rss_kb, file_rss_kb, shmem_rss_kb, pgtables_kb;
		int64_t oom_score_adj, allocating_pid;
		const char *allocating_comm;
	} oom_killer;
	int has_memory_cgroup;
	struct {
		const char *path, *version;
		int64_t limit_bytes, limit_hits, oom_kills;
	} memory_cgroup;
	int has_last_state;
	struct {
		const char *source;  /* "sample" or "oom_killer" */
		double t_sample;
		int64_t rss_kb, vmsize_kb, threads, thread_limit, fds, fd_limit;
		int has_heap;        /* a Java heap's figures (heap_used, heap_max) */
		int64_t heap_used, heap_max;
	} last_state;
	int has_java_oom;
	struct {
		int64_t count;
		double t_last;
		const char *message, *thread, *dump;
	} java_oom;
	int has_last_failure;
	struct run_fail_group last_failure; /* written brief */
	/* "memory_kill": a memory killer's or the kernel's OOM kill, explained */
	int has_memory_kill;
	struct run_memory_kill {
		const char *killer, *known_by, *order, *sentence;
		int64_t rank, ranked;     /* 0: unknown */
		double rank_t, at_t;
		struct ooms_memfig at;    /* the last sample before the kill (run_memfig_from) */
		int64_t min_available_kb, moments;
		double max_some10, max_full10;
		struct run_kill_victim { int64_t pid, rss_kb, adj; const char *comm; double t; } *round;
		size_t nround;
	} memory_kill;
	const char *threads_file, *fds_file, *vmsize_file;
};

/* The record's object, whole (the collector ends the line). */
void run_death_write(struct json *j, const struct run_death *d);
/* 0, -EINVAL (no death record) or -ENOMEM; run_death_free after. */
int run_death_read(struct json_object *o, struct run_death *d);
void run_death_free(struct run_death *d);

#endif
