/* The target's memory and pids cgroups (v1 or v2): their limits, and the
 * counters that tell a memory cgroup's OOM kill from the global OOM
 * killer's. Paths come from /proc/PID/cgroup and the mount table. */
#ifndef OOMSCOPE_PROC_CGROUP_H
#define OOMSCOPE_PROC_CGROUP_H

#include <stdint.h>
#include <sys/types.h>

struct ooms_cgroup {
	char mem_dir[512];  /* the memory cgroup's directory, "" if none is found */
	char mem_name[256]; /* its path inside the hierarchy, "/a/b" */
	int mem_v2;
	int64_t mem_limit;  /* bytes; -1 = no limit */
	int64_t mem_usage;  /* bytes */
	int64_t mem_hits;   /* times usage hit the limit: v1 memory.failcnt, v2 memory.events "oom" */
	int64_t oom_kills;  /* v1 memory.oom_control / v2 memory.events "oom_kill" */
	int64_t mem_high;   /* v2 memory.high: throttled above it, never killed; -1 = none */
	int64_t mem_unreclaimable; /* bytes no reclaim takes back: memory.stat anon + shmem (v1
				    * total_rss + total_shmem); -1 unknown */
	char pids_dir[512];
	int64_t pids_max;   /* -1 = no limit or unknown */
	int found;                /* the paths above were resolved */
	uint64_t membership_hash; /* of the /proc/PID/cgroup they were resolved from */
};

/* Finds the target's cgroups and reads their figures. cg starts zeroed;
 * called again, it resolves the paths again only when the target moved to
 * other cgroups. 0, or -errno when /proc/PID/cgroup cannot be read (cg is
 * then left as it was). */
int ooms_cgroup_find(pid_t pid, struct ooms_cgroup *cg);
/* Reads the figures again (the target may be gone; its cgroup stays). */
void ooms_cgroup_refresh(struct ooms_cgroup *cg);

/* Moves pid to the root of every cgroup hierarchy mounted (v2's and each
 * v1 one's: cgroup_move.c), out of the cgroups it shares with its parent. For
 * a dump's child: Android's activity manager kills an app's cgroup whole
 * (killProcessGroup) and freezes it when cached, and a memory cgroup at
 * its limit kills within it. The hierarchies it was moved in (*tried: those
 * mounted), or the first -errno when none took it. */
int ooms_cgroup_to_roots(pid_t pid, int *tried);

#endif
