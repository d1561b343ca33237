#define _GNU_SOURCE
#include "proc/cgroup.h"
#include "proc/procfs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the v1 memory and pids controllers and the v2 hierarchy are
 * mounted, from one pass over the mount table; "" where not mounted. */
struct cgroup_roots {
	char memory[512], pids[512], v2[512];
};

static void find_roots(struct cgroup_roots *r)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[512], type[64], opts[512];

	memset(r, 0, sizeof(*r));
	if (!f)
		return;
	while (fscanf(f, "%255s %511s %63s %511s %*d %*d", dev, dir, type, opts) == 4) {
		if (!strcmp(type, "cgroup2") && !r->v2[0])
			snprintf(r->v2, sizeof(r->v2), "%s", dir);
		else if (!strcmp(type, "cgroup"))
			for (char *save = NULL, *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
				if (!strcmp(o, "memory") && !r->memory[0])
					snprintf(r->memory, sizeof(r->memory), "%s", dir);
				else if (!strcmp(o, "pids") && !r->pids[0])
					snprintf(r->pids, sizeof(r->pids), "%s", dir);
			}
	}
	fclose(f);
}

static int64_t read_num(const char *dir, const char *file)
{
	char path[700], buf[64];
	FILE *f;
	int64_t v = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && strncmp(buf, "max", 3))
		v = strtoll(buf, NULL, 10);
	fclose(f);
	return v;
}

/* "key N" lines (memory.events, memory.oom_control) */
static int64_t read_keyed(const char *dir, const char *file, const char *key)
{
	char path[700], k[64];
	long long v;
	int64_t r = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", k, &v) == 2)
		if (!strcmp(k, key))
			r = v;
	fclose(f);
	return r;
}

/* The tightest of a v2 limit file over the cgroup and its ancestors up to
 * the hierarchy's root (a parent's memory.max binds its children too). */
static int64_t v2_tightest(const char *dir, const char *file, size_t root_len)
{
	char d[512];
	int64_t best = -1;

	snprintf(d, sizeof(d), "%s", dir);
	for (;;) {
		int64_t v = read_num(d, file);
		char *slash;

		if (v >= 0 && (best < 0 || v < best))
			best = v;
		if (strlen(d) <= root_len || !(slash = strrchr(d, '/')) || (size_t)(slash - d) < root_len)
			break;
		*slash = 0;
	}
	return best;
}

/* memory.stat's anon + shmem (v1: the hierarchy's total_rss + total_shmem) */
static int64_t unreclaimable(const struct ooms_cgroup *cg)
{
	int64_t anon = read_keyed(cg->mem_dir, "memory.stat", cg->mem_v2 ? "anon" : "total_rss");
	int64_t shmem = read_keyed(cg->mem_dir, "memory.stat", cg->mem_v2 ? "shmem" : "total_shmem");

	return anon < 0 ? -1 : anon + (shmem > 0 ? shmem : 0);
}

void ooms_cgroup_refresh(struct ooms_cgroup *cg)
{
	cg->mem_high = -1;
	cg->mem_unreclaimable = cg->mem_dir[0] ? unreclaimable(cg) : -1;
	if (cg->mem_dir[0] && cg->mem_v2) {
		size_t root_len = strlen(cg->mem_dir) - strlen(cg->mem_name);

		cg->mem_limit = v2_tightest(cg->mem_dir, "memory.max", root_len);
		cg->mem_high = v2_tightest(cg->mem_dir, "memory.high", root_len);
		cg->mem_usage = read_num(cg->mem_dir, "memory.current");
		cg->mem_hits = read_keyed(cg->mem_dir, "memory.events", "oom");
		cg->oom_kills = read_keyed(cg->mem_dir, "memory.events", "oom_kill");
	} else if (cg->mem_dir[0]) {
		/* the hierarchy's: an ancestor's limit binds too */
		cg->mem_limit = read_keyed(cg->mem_dir, "memory.stat", "hierarchical_memory_limit");
		if (cg->mem_limit < 0)
			cg->mem_limit = read_num(cg->mem_dir, "memory.limit_in_bytes");
		if (cg->mem_limit >= (INT64_C(1) << 62))
			cg->mem_limit = -1; /* v1's "unlimited" is a page-rounded LONG_MAX */
		cg->mem_usage = read_num(cg->mem_dir, "memory.usage_in_bytes");
		cg->mem_hits = read_num(cg->mem_dir, "memory.failcnt");
		cg->oom_kills = read_keyed(cg->mem_dir, "memory.oom_control", "oom_kill");
	}
	cg->pids_max = cg->pids_dir[0] ? read_num(cg->pids_dir, "pids.max") : -1;
}

/* FNV-1a: tells whether /proc/PID/cgroup changed since the last look */
static uint64_t text_hash(const char *s, ssize_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (ssize_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

int ooms_cgroup_find(pid_t pid, struct ooms_cgroup *cg)
{
	char path[64], text[8192];
	char v2_path[512] = "", mem_path[512] = "", pids_path[512] = "";
	int have_v2 = 0, have_mem = 0, have_pids = 0;
	struct cgroup_roots roots;
	uint64_t hash;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	n = proc_read_file(path, text, sizeof(text) - 1);
	if (n < 0)
		return (int)n;
	text[n] = 0;
	hash = text_hash(text, n);
	/* the same cgroups as last time: only their figures can have moved */
	if (cg->found && cg->membership_hash == hash) {
		ooms_cgroup_refresh(cg);
		return 0;
	}
	memset(cg, 0, sizeof(*cg));
	cg->mem_limit = cg->mem_usage = cg->mem_hits = cg->oom_kills = cg->pids_max = -1;
	cg->mem_high = cg->mem_unreclaimable = -1;
	cg->found = 1;
	cg->membership_hash = hash;
	for (char *save_line = NULL, *line = strtok_r(text, "\n", &save_line); line;
	     line = strtok_r(NULL, "\n", &save_line)) {
		char *ctls = strchr(line, ':'), *p;

		if (!ctls || !(p = strchr(ctls + 1, ':')))
			continue;
		*p++ = 0;
		ctls++;
		if (!strncmp(line, "0", 1) && !*ctls) {
			snprintf(v2_path, sizeof(v2_path), "%s", p);
			have_v2 = 1;
		}
		for (char *save = NULL, *c = strtok_r(ctls, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
			if (!strcmp(c, "memory"))
				snprintf(mem_path, sizeof(mem_path), "%s", p), have_mem = 1;
			else if (!strcmp(c, "pids"))
				snprintf(pids_path, sizeof(pids_path), "%s", p), have_pids = 1;
		}
	}
	find_roots(&roots);
	/* a v1 controller wins where it is mounted; else the v2 hierarchy has it */
	if (have_mem && roots.memory[0]) {
		snprintf(cg->mem_dir, sizeof(cg->mem_dir), "%s%s", roots.memory, mem_path);
		snprintf(cg->mem_name, sizeof(cg->mem_name), "%s", mem_path);
	} else if (have_v2 && roots.v2[0]) {
		snprintf(cg->mem_dir, sizeof(cg->mem_dir), "%s%s", roots.v2, v2_path);
		snprintf(cg->mem_name, sizeof(cg->mem_name), "%s", v2_path);
		cg->mem_v2 = 1;
	}
	if (have_pids && roots.pids[0])
		snprintf(cg->pids_dir, sizeof(cg->pids_dir), "%s%s", roots.pids, pids_path);
	else if (have_v2 && roots.v2[0])
		snprintf(cg->pids_dir, sizeof(cg->pids_dir), "%s%s", roots.v2, v2_path);
	ooms_cgroup_refresh(cg);
	return 0;
}
