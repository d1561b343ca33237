/* Memory as the killers see it (issue 45): the system's memory and its
 * pressure each sample, a PSI trigger that wakes the collector when tasks
 * stall on memory between samples, and the last minute of both, kept for
 * a death's explanation. Its state is its own; the target is given. */
#ifndef OOMSCOPE_COLLECTOR_MEMORY_MEMORY_WATCH_H
#define OOMSCOPE_COLLECTOR_MEMORY_MEMORY_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "detect/sample.h"
#include "proc/procfs.h"
#include "collector/memory/ranking.h"

#define MEM_HISTORY 128 /* samples of the system's memory kept: a minute at 0.5 s */

struct mem_moment {
	double t;
	int64_t available_kb, total_kb, swap_free_kb, swap_total_kb;
	double some10, full10, some60, full60;
};

struct coll_memory {
	/* given */
	pid_t pid;
	/* the PSI trigger (-1: none): the stall it waits for, in ms a second,
	 * as the kernel took it ("some 200000 2000000"), fired since the last
	 * sample */
	int psi_fd;
	int64_t trigger_ms;
	char trigger[64];
	char trigger_src[80]; /* "PSI trigger (some 200000 2000000)": a sample's figure from it */
	char trigger_avg_src[100]; /* the trigger fired, avg10 the larger figure */
	int fired;
	/* the system's memory, a moment each sample, oldest first from next */
	struct mem_moment hist[MEM_HISTORY];
	size_t nhist, next;
	/* every process as the killers rank them: each sample while memory is
	 * short, else every 10 s */
	struct mem_ranking rank;
	double next_rank_t;
	char cg_procs[600];   /* the target's memory cgroup's cgroup.procs ("": none known), set by the collector */
};

/* Opens the PSI trigger on /proc/pressure/memory for stalls of ms_per_s
 * (0: none). 0, or -errno (no PSI, or not allowed: the samples' avg10 still
 * serves). */
int coll_memory_start(struct coll_memory *m, pid_t pid, int64_t ms_per_s);
void coll_memory_stop(struct coll_memory *m);
/* The trigger fired (its fd polled POLLPRI). */
void coll_memory_fired(struct coll_memory *m);
/* A sample's memory figures: the target's (st) and the system's; the
 * moment kept at t. */
void coll_memory_figures(struct coll_memory *m, const struct proc_status *st, double t, struct ooms_memfig *out);
/* The stall figure for the memory_stall rule: avg10 in ms a second, or the
 * trigger's own stall if it fired since the last sample (then cleared);
 * *src says which ("PSI some avg10", "PSI trigger (some ...)"; "PSI some
 * avg10, PSI trigger (some ...) fired" when the trigger woke the sample but
 * avg10 is the larger). */
int64_t coll_memory_stall_ms(struct coll_memory *m, const struct ooms_memfig *f, const char **src);
/* The moments from t0 on, oldest first (at most MEM_HISTORY). */
size_t coll_memory_history(const struct coll_memory *m, double t0, struct mem_moment *out);

#endif
