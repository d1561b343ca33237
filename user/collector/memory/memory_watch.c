/* The system's memory, its pressure and a PSI trigger (memory_watch.h). */
#define _GNU_SOURCE
#include "collector/memory/memory_watch.h"
#include "proc/meminfo.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PSI_SYSTEM "/proc/pressure/memory"

int coll_memory_start(struct coll_memory *m, pid_t pid, int64_t ms_per_s)
{
	uint64_t window, stall;
	int fd;

	memset(m, 0, sizeof(*m));
	m->pid = pid;
	m->psi_fd = -1;
	m->rank.t = -1;
	if (ms_per_s <= 0)
		return 0;
	if (ms_per_s > 1000)
		ms_per_s = 1000;
	/* lmkd's windows are a second; without CAP_SYS_RESOURCE the kernel
	 * allows whole 2 s ones (the same share of it) */
	fd = proc_psi_trigger(PSI_SYSTEM, 0, (uint64_t)ms_per_s * 1000, 1000000, &window, &stall);
	if (fd < 0)
		return fd;
	m->psi_fd = fd;
	m->trigger_ms = ms_per_s;
	snprintf(m->trigger, sizeof(m->trigger), "some %llu %llu", (unsigned long long)stall, (unsigned long long)window);
	snprintf(m->trigger_src, sizeof(m->trigger_src), "PSI trigger (%s)", m->trigger);
	snprintf(m->trigger_avg_src, sizeof(m->trigger_avg_src), "PSI some avg10, PSI trigger (%s) fired", m->trigger);
	return 0;
}

void coll_memory_stop(struct coll_memory *m)
{
	mem_ranking_free(&m->rank);
	if (m->psi_fd >= 0)
		close(m->psi_fd);
	m->psi_fd = -1;
}

void coll_memory_fired(struct coll_memory *m)
{
	m->fired = 1;
}

void coll_memory_figures(struct coll_memory *m, const struct proc_status *st, double t, struct ooms_memfig *out)
{
	struct proc_meminfo mi;
	struct proc_psi psi;
	struct mem_moment *h;
	int score;

	out->anon_kb = st ? st->rss_anon_kb : -1;
	out->file_kb = st ? st->rss_file_kb : -1;
	out->shmem_kb = st ? st->rss_shmem_kb : -1;
	out->swap_kb = st ? st->swap_kb : -1;
	if (proc_read_meminfo(&mi)) {
		out->sys_total_kb = out->sys_available_kb = out->sys_swap_total_kb = out->sys_swap_free_kb = -1;
	} else {
		out->sys_total_kb = mi.total;
		out->sys_available_kb = mi.available;
		out->sys_swap_total_kb = mi.swap_total;
		out->sys_swap_free_kb = mi.swap_free;
	}
	proc_read_psi(PSI_SYSTEM, &psi); /* -1 figures without PSI */
	out->psi_some10 = psi.some.avg10;
	out->psi_some60 = psi.some.avg60;
	out->psi_full10 = psi.full.avg10;
	out->psi_full60 = psi.full.avg60;
	out->oom_score_adj = proc_oom_score_adj(m->pid);
	score = proc_oom_score(m->pid);
	out->oom_score = score >= 0 ? score : -1;
	if (out->sys_total_kb < 0)
		return;
	h = &m->hist[m->next];
	*h = (struct mem_moment){t, out->sys_available_kb, out->sys_total_kb, out->sys_swap_free_kb,
				 out->sys_swap_total_kb, psi.some.avg10, psi.full.avg10, psi.some.avg60, psi.full.avg60};
	m->next = (m->next + 1) % MEM_HISTORY;
	if (m->nhist < MEM_HISTORY)
		m->nhist++;
	/* the ranking, for a kill's explanation: while memory is short (a
	 * quarter of it available, or tasks stalling), every sample */
	if (t >= m->next_rank_t || out->sys_available_kb * 4 < out->sys_total_kb || psi.some.avg10 >= 2) {
		mem_ranking_scan(&m->rank, t, m->cg_procs[0] ? m->cg_procs : NULL, m->pid);
		m->next_rank_t = t + 10;
	}
}

int64_t coll_memory_stall_ms(struct coll_memory *m, const struct ooms_memfig *f, const char **src)
{
	int64_t v = f->psi_some10 >= 0 ? (int64_t)(f->psi_some10 * 10 + 0.5) : -1;

	*src = v >= 0 ? "PSI some avg10" : NULL;
	if (m->fired && m->trigger_ms > v) {
		v = m->trigger_ms;
		*src = m->trigger_src;
	} else if (m->fired) { /* avg10 the larger: still said that the trigger woke this sample */
		*src = m->trigger_avg_src;
	}
	m->fired = 0;
	return v;
}

size_t coll_memory_history(const struct coll_memory *m, double t0, struct mem_moment *out)
{
	size_t n = 0, first = (m->next + MEM_HISTORY - m->nhist) % MEM_HISTORY;

	for (size_t i = 0; i < m->nhist; i++) {
		const struct mem_moment *h = &m->hist[(first + i) % MEM_HISTORY];

		if (h->t >= t0)
			out[n++] = *h;
	}
	return n;
}
