/* A process frozen by a cgroup freezer, thawed while oomscope needs it to
 * run (an attach, a dump) and frozen again after. Android 12 and later
 * freeze cached apps (the cgroup v2 freezer, task profile "Frozen": the
 * app's cgroup.freeze); a frozen app's threads, the shim's among them,
 * answer nothing until thawed. Both freezers: v2's cgroup.freeze and v1's
 * freezer.state, over the process's cgroup and its ancestors (a parent's
 * freeze holds its children). As root. */
#ifndef OOMSCOPE_PROC_FREEZER_H
#define OOMSCOPE_PROC_FREEZER_H

#include <stddef.h>
#include <sys/types.h>
#include "util/err.h"

#define OOMS_THAW_MAX 4

struct ooms_thaw {
	pid_t pid;
	int n;                          /* cgroups thawed here, to freeze again */
	char dir[OOMS_THAW_MAX][512];
	int v1[OOMS_THAW_MAX];          /* 1: v1's freezer.state; 0: v2's cgroup.freeze */
	int adj;                        /* the process's oom_score_adj when thawed */
};

/* Thaws every cgroup that holds pid frozen. 0 when none did (nothing
 * done); 1 when it was frozen and is thawed now (t says where); -errno when
 * it is frozen and could not be thawed (err says where and why). t is
 * filled in each case, for ooms_refreeze. */
int ooms_thaw(pid_t pid, struct ooms_thaw *t, struct ooms_err *err);

/* Freezes again what ooms_thaw thawed, unless the process was let go since:
 * a cgroup thawed by another too (Android's activity manager thaws an app
 * it brings back, and the process's oom_score_adj falls below what it was,
 * as an app leaving the cached state's does) is left running. 1 when frozen
 * again, 0 when nothing was to be done or it was left running (why, when
 * why is given), -errno. */
int ooms_refreeze(struct ooms_thaw *t, char *why, size_t len);

/* "the cgroup v2 freezer (DIR)": where t thawed, for the lines said. */
void ooms_thaw_where(const struct ooms_thaw *t, char *buf, size_t len);

#endif
