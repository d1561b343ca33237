/* Every process as the killers rank them (memory_watch's scan of /proc):
 * its oom_score_adj, oom_score (the kernel's and earlyoom's order) and RSS
 * (lmkd's within an adj band), kept from the last scan so a death can say
 * where the target stood. A scan reads three small files a process: it is
 * taken each sample while memory is short, else every 10 s. */
#ifndef OOMSCOPE_COLLECTOR_MEMORY_RANKING_H
#define OOMSCOPE_COLLECTOR_MEMORY_RANKING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mem_proc {
	pid_t pid;
	int adj, score;       /* oom_score_adj, oom_score */
	int64_t rss_kb;
	int in_cg;            /* in the target's memory cgroup (its cgroup.procs, when given) */
	char comm[16];
};

struct mem_ranking {
	double t;             /* when it was scanned (s since the watch began; < 0: never) */
	struct mem_proc *procs;
	size_t n, cap;
};

/* Scans /proc into r (its list replaced); cg_procs: the target's memory
 * cgroup's cgroup.procs (NULL: none), whose members are marked in_cg. When
 * target (> 0) is in r but not in the new scan (killed, its memory reaped
 * or being reaped: no RSS), r is kept: 1. Else 0, or -errno. */
int mem_ranking_scan(struct mem_ranking *r, double t, const char *cg_procs, pid_t target);
void mem_ranking_free(struct mem_ranking *r);
/* The process pid in r, or NULL. */
const struct mem_proc *mem_ranking_find(const struct mem_ranking *r, pid_t pid);

/* The orders killers pick in: the kernel's OOM killer and earlyoom by
 * oom_score (highest first); lmkd by oom_score_adj band (highest first)
 * and, within a band, the heaviest (lmkd takes the heaviest at adj 200 and
 * below, else the one longest in the band, which /proc does not show). */
enum mem_order {
	MEM_ORDER_SCORE,   /* the kernel's OOM killer, earlyoom: oom_score */
	MEM_ORDER_ADJ_RSS, /* lmkd: oom_score_adj, then RSS */
	MEM_ORDER_CGROUP,  /* systemd-oomd, oomd: a cgroup picked (reclaim under pressure, swap), no process ranked */
};
/* pid's place in order among the processes a killer may pick (adj above
 * -1000): 1 for the first; *of the count; 0 when pid is not in r or is
 * at -1000 itself (no killer's pick). */
size_t mem_ranking_place(const struct mem_ranking *r, pid_t pid, enum mem_order order, size_t *of);
/* The same among the processes of the target's memory cgroup (a memory
 * cgroup's OOM killer picks among them). */
size_t mem_ranking_place_cg(const struct mem_ranking *r, pid_t pid, size_t *of);

#endif
