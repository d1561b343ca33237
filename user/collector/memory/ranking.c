/* The processes as the killers rank them (ranking.h). */
#define _GNU_SOURCE
#include "collector/memory/ranking.h"
#include "proc/procfs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RANK_MAX_PROCS 65536

static int64_t statm_rss_kb(pid_t pid)
{
	char path[64], buf[128];
	unsigned long long size, rss;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	n = proc_read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (sscanf(buf, "%llu %llu", &size, &rss) != 2)
		return -1;
	return (int64_t)(rss * (unsigned long long)sysconf(_SC_PAGESIZE) / 1024);
}

/* Whether pid is listed in text (cgroup.procs: a PID a line). */
static int listed(const char *text, pid_t pid)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (atoi(p) == (int)pid)
			return 1;
	return 0;
}

static int scan(struct mem_ranking *r, double t, const char *cg_procs)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char *members = NULL;

	if (!d)
		return -errno;
	if (cg_procs && (members = malloc(65536))) {
		ssize_t n = proc_read_file(cg_procs, members, 65535);

		if (n < 0) {
			free(members);
			members = NULL;
		} else {
			members[n] = 0;
		}
	}
	r->n = 0;
	while ((de = readdir(d)) && r->n < RANK_MAX_PROCS) {
		struct mem_proc p = {0};
		char path[64];
		ssize_t n;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		p.pid = (pid_t)atoi(de->d_name);
		if ((p.adj = proc_oom_score_adj(p.pid)) == INT32_MIN || (p.score = proc_oom_score(p.pid)) < 0)
			continue; /* gone meanwhile */
		p.rss_kb = statm_rss_kb(p.pid);
		if (p.rss_kb <= 0)
			continue; /* a kernel thread: no memory, never a killer's pick */
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)p.pid);
		n = proc_read_file(path, p.comm, sizeof(p.comm) - 1);
		p.comm[n > 0 ? (size_t)n : 0] = 0;
		p.comm[strcspn(p.comm, "\n")] = 0;
		p.in_cg = members && listed(members, p.pid);
		if (r->n == r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 256;
			struct mem_proc *q = realloc(r->procs, cap * sizeof(*q));

			if (!q)
				break;
			r->procs = q;
			r->cap = cap;
		}
		r->procs[r->n++] = p;
	}
	closedir(d);
	free(members);
	r->t = t;
	return 0;
}

int mem_ranking_scan(struct mem_ranking *r, double t, const char *cg_procs, pid_t target)
{
	struct mem_ranking fresh = {.t = -1};
	int e = scan(&fresh, t, cg_procs);

	if (e) {
		mem_ranking_free(&fresh);
		return e;
	}
	/* the target torn down since (killed: its memory reaped, statm's RSS
	 * 0; or, exiting, out of its cgroup's cgroup.procs while its memory
	 * is still counted) is in the kept ranking as it was, not in the new
	 * one: the kept one is the killer's view */
	const struct mem_proc *was = target > 0 && r->t >= 0 ? mem_ranking_find(r, target) : NULL;
	const struct mem_proc *now = mem_ranking_find(&fresh, target);

	if (was && (!now || (was->in_cg && !now->in_cg))) {
		mem_ranking_free(&fresh);
		return 1;
	}
	mem_ranking_free(r);
	*r = fresh;
	return 0;
}

void mem_ranking_free(struct mem_ranking *r)
{
	free(r->procs);
	r->procs = NULL;
	r->n = r->cap = 0;
}

const struct mem_proc *mem_ranking_find(const struct mem_ranking *r, pid_t pid)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->procs[i].pid == pid)
			return &r->procs[i];
	return NULL;
}

/* a before b in order: 1, else 0 (ties: the heavier first) */
static int before(const struct mem_proc *a, const struct mem_proc *b, enum mem_order order)
{
	if (order == MEM_ORDER_SCORE && a->score != b->score)
		return a->score > b->score;
	if (order == MEM_ORDER_ADJ_RSS && a->adj != b->adj)
		return a->adj > b->adj;
	return a->rss_kb > b->rss_kb;
}

static size_t place_among(const struct mem_ranking *r, pid_t pid, enum mem_order order, int only_cg, size_t *of)
{
	const struct mem_proc *me = mem_ranking_find(r, pid);
	size_t place = 1, n = 0;

	*of = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct mem_proc *p = &r->procs[i];

		if (p->adj <= -1000 || (only_cg && !p->in_cg))
			continue;
		n++;
		if (me && p->pid != pid && before(p, me, order))
			place++;
	}
	*of = n;
	/* a process at -1000 is no killer's pick: it has no place among those
	 * counted (it was given 1, "the first", as nothing is counted before it) */
	return me && me->adj > -1000 && (!only_cg || me->in_cg) ? place : 0;
}

size_t mem_ranking_place(const struct mem_ranking *r, pid_t pid, enum mem_order order, size_t *of)
{
	return place_among(r, pid, order, 0, of);
}

size_t mem_ranking_place_cg(const struct mem_ranking *r, pid_t pid, size_t *of)
{
	return place_among(r, pid, MEM_ORDER_SCORE, 1, of);
}
