#define _GNU_SOURCE
#include "collector/cgroup.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The mount point of a v1 controller, or of the v2 hierarchy (ctl NULL). */
static int mount_of(const char *ctl, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[512], type[64], opts[512];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fscanf(f, "%255s %511s %63s %511s %*d %*d", dev, dir, type, opts) == 4) {
		if (!ctl && !strcmp(type, "cgroup2"))
			found = 1;
		else if (ctl && !strcmp(type, "cgroup")) {
			for (char *save = NULL, *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
				if (!strcmp(o, ctl))
					found = 1;
		}
		if (found)
			snprintf(out, len, "%s", dir);
	}
	fclose(f);
	return found;
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

void ooms_cgroup_refresh(struct ooms_cgroup *cg)
{
	if (cg->mem_dir[0] && cg->mem_v2) {
		cg->mem_limit = read_num(cg->mem_dir, "memory.max");
		cg->mem_usage = read_num(cg->mem_dir, "memory.current");
		cg->mem_hits = read_keyed(cg->mem_dir, "memory.events", "oom");
		cg->oom_kills = read_keyed(cg->mem_dir, "memory.events", "oom_kill");
	} else if (cg->mem_dir[0]) {
		cg->mem_limit = read_num(cg->mem_dir, "memory.limit_in_bytes");
		if (cg->mem_limit >= (INT64_C(1) << 62))
			cg->mem_limit = -1; /* v1's "unlimited" is a page-rounded LONG_MAX */
		cg->mem_usage = read_num(cg->mem_dir, "memory.usage_in_bytes");
		cg->mem_hits = read_num(cg->mem_dir, "memory.failcnt");
		cg->oom_kills = read_keyed(cg->mem_dir, "memory.oom_control", "oom_kill");
	}
	cg->pids_max = cg->pids_dir[0] ? read_num(cg->pids_dir, "pids.max") : -1;
}

int ooms_cgroup_find(pid_t pid, struct ooms_cgroup *cg)
{
	char path[64], line[1024], root[512];
	char v2_path[512] = "", mem_path[512] = "", pids_path[512] = "";
	int have_v2 = 0, have_mem = 0, have_pids = 0;
	FILE *f;

	memset(cg, 0, sizeof(*cg));
	cg->mem_limit = cg->mem_usage = cg->mem_hits = cg->oom_kills = cg->pids_max = -1;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *ctls = strchr(line, ':'), *p;

		if (!ctls || !(p = strchr(ctls + 1, ':')))
			continue;
		*p++ = 0;
		ctls++;
		p[strcspn(p, "\n")] = 0;
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
	fclose(f);
	/* a v1 controller wins where it is mounted; else the v2 hierarchy has it */
	if (have_mem && mount_of("memory", root, sizeof(root))) {
		snprintf(cg->mem_dir, sizeof(cg->mem_dir), "%s%s", root, mem_path);
		snprintf(cg->mem_name, sizeof(cg->mem_name), "%s", mem_path);
	} else if (have_v2 && mount_of(NULL, root, sizeof(root))) {
		snprintf(cg->mem_dir, sizeof(cg->mem_dir), "%s%s", root, v2_path);
		snprintf(cg->mem_name, sizeof(cg->mem_name), "%s", v2_path);
		cg->mem_v2 = 1;
	}
	if (have_pids && mount_of("pids", root, sizeof(root)))
		snprintf(cg->pids_dir, sizeof(cg->pids_dir), "%s%s", root, pids_path);
	else if (have_v2 && mount_of(NULL, root, sizeof(root)))
		snprintf(cg->pids_dir, sizeof(cg->pids_dir), "%s%s", root, v2_path);
	ooms_cgroup_refresh(cg);
	return 0;
}
