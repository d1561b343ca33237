/* Why memory killed the target (killer.h). */
#define _GNU_SOURCE
#include "collector/end/killer.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

int ooms_memory_short(const struct mem_moment *hist, size_t n)
{
	/* the last two moments: a kill comes within a second or two of its cause */
	for (size_t i = n > 2 ? n - 2 : 0; i < n; i++) {
		const struct mem_moment *m = &hist[i];

		if ((m->total_kb > 0 && m->available_kb >= 0 && m->available_kb * 10 < m->total_kb) || m->some10 >= 10)
			return 1;
	}
	return 0;
}

static void mb(char *buf, size_t len, int64_t kb)
{
	if (kb < 0)
		snprintf(buf, len, "?");
	else if (kb >= 1024 * 1024)
		snprintf(buf, len, "%.1f GB", kb / 1048576.0);
	else
		snprintf(buf, len, "%.0f MB", kb / 1024.0);
}

static const char *ordinal(size_t n)
{
	return n % 100 >= 11 && n % 100 <= 13 ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

int ooms_memory_kill_explain(const struct killer_input *in, struct memory_kill *out)
{
	struct ooms_death_rec *d = in->death;
	const struct ooms_memfig *f = in->last ? &in->last->mem : NULL;
	enum mem_order order = MEM_ORDER_SCORE;
	uint64_t kill_ns = d->ts_ns;
	char avail[32], total[32], rss[32], swap[32], line2[384];
	size_t off;

	memset(out, 0, sizeof(*out));
	switch (d->cause) {
	case DEATH_OOM_GLOBAL:
	case DEATH_OOM_CGROUP:
		snprintf(out->killer, sizeof(out->killer), "the kernel's OOM killer");
		out->known_by = "kernel";
		if (d->oom.ts_ns)
			kill_ns = d->oom.ts_ns;
		break;
	case DEATH_LMKD:
		snprintf(out->killer, sizeof(out->killer), "lmkd");
		out->known_by = "name";
		order = MEM_ORDER_ADJ_RSS;
		break;
	case DEATH_MEM_KILLER:
		snprintf(out->killer, sizeof(out->killer), "%s", ooms_memory_killer_name(d->sender_comm));
		out->known_by = "name";
		if (!strcmp(out->killer, "systemd-oomd") || !strcmp(out->killer, "oomd"))
			order = MEM_ORDER_CGROUP;
		break;
	case DEATH_OTHER:
		/* unnamed: a root process's SIGKILL or SIGTERM while memory was short */
		if ((d->signal != SIGKILL && d->signal != SIGTERM) || in->sender_root == 0 ||
		    !ooms_memory_short(in->hist, in->nhist))
			return 0;
		d->cause = DEATH_MEM_KILLER;
		snprintf(out->killer, sizeof(out->killer), "%s", d->sender_comm);
		out->known_by = "behaviour";
		snprintf(d->sentence, sizeof(d->sentence),
			 "killed by %s sent by PID %u (%s)%s while memory was short: a memory killer, by its behaviour",
			 ooms_signal_name(d->signal), d->sender_pid, d->sender_comm, in->sender_root == 1 ? ", a root process," : "");
		break;
	/* no memory killer's (each cause named, no default: a cause added to
	 * end_cause.h does not build until it is placed here or above) */
	case DEATH_UNKNOWN:
	case DEATH_EXIT:
	case DEATH_SELF_SIGNAL:
	case DEATH_FAULT:
	case DEATH_KERNEL:
		return 0;
	}
	out->order = order == MEM_ORDER_SCORE	  ? "oom_score"
		     : order == MEM_ORDER_ADJ_RSS ? "oom_score_adj, then RSS"
						  : "a cgroup's: the most reclaim under memory pressure, or the most swap";
	if (in->rank && in->rank->n && order != MEM_ORDER_CGROUP) {
		/* a memory cgroup's OOM killer picks among the cgroup's processes */
		if (d->cause == DEATH_OOM_CGROUP) {
			out->order = "oom_score in its memory cgroup";
			out->rank = mem_ranking_place_cg(in->rank, in->pid, &out->ranked);
		} else {
			out->rank = mem_ranking_place(in->rank, in->pid, order, &out->ranked);
		}
		out->rank_t = in->rank->t;
	}
	if (f)
		out->at = *f;
	out->at_t = in->last ? in->last->t : 0;
	out->min_available_kb = -1;
	for (size_t i = 0; i < in->nhist; i++) {
		const struct mem_moment *m = &in->hist[i];

		if (m->t < in->death_t - 60)
			continue;
		out->moments++;
		if (m->available_kb >= 0 && (out->min_available_kb < 0 || m->available_kb < out->min_available_kb))
			out->min_available_kb = m->available_kb;
		if (m->some10 > out->max_some10)
			out->max_some10 = m->some10;
		if (m->full10 > out->max_full10)
			out->max_full10 = m->full10;
	}
	/* the round: the others the same sender killed within 30 s of the target */
	for (size_t i = 0; d->sender_pid && out->known_by[0] != 'k' && i < in->nkills && out->nround < KILL_ROUND_MAX; i++) {
		const struct ooms_kill_rec *k = &in->kills[i];
		uint64_t gap = k->ts_ns > kill_ns ? k->ts_ns - kill_ns : kill_ns - k->ts_ns;
		const struct mem_proc *p;
		struct kill_victim *v;

		if (!k->ts_ns || k->sender_tgid != d->sender_pid || k->victim_tgid == (uint32_t)in->pid ||
		    gap > KILL_ROUND_NS || (kill_ns == 0))
			continue;
		v = &out->round[out->nround++];
		v->pid = (pid_t)k->victim_tgid;
		memcpy(v->comm, k->victim_comm, sizeof(v->comm));
		v->comm[sizeof(v->comm) - 1] = 0;
		v->t = k->ts_ns > in->start_ns ? (k->ts_ns - in->start_ns) / 1e9 : 0;
		p = in->rank ? mem_ranking_find(in->rank, v->pid) : NULL;
		v->rss_kb = p ? p->rss_kb : -1;
		v->adj = p ? p->adj : INT32_MIN;
	}
	mb(avail, sizeof(avail), out->at.sys_available_kb);
	mb(total, sizeof(total), out->at.sys_total_kb);
	mb(rss, sizeof(rss), out->at.anon_kb >= 0 ? out->at.anon_kb + (out->at.file_kb > 0 ? out->at.file_kb : 0) +
				     (out->at.shmem_kb > 0 ? out->at.shmem_kb : 0)
				   : -1);
	mb(swap, sizeof(swap), out->at.swap_kb);
	off = (size_t)snprintf(out->sentence, sizeof(out->sentence), "memory then: MemAvailable %s of %s", avail, total);
	if (out->at.sys_total_kb > 0 && out->at.sys_available_kb >= 0 && off < sizeof(out->sentence))
		off += (size_t)snprintf(out->sentence + off, sizeof(out->sentence) - off, " (%.0f %%)",
					100.0 * (double)out->at.sys_available_kb / (double)out->at.sys_total_kb);
	if (off < sizeof(out->sentence))
		off += (size_t)(out->at.sys_swap_total_kb > 0
				? snprintf(out->sentence + off, sizeof(out->sentence) - off, ", swap %.0f %% free",
					   100.0 * (double)out->at.sys_swap_free_kb / (double)out->at.sys_swap_total_kb)
				: snprintf(out->sentence + off, sizeof(out->sentence) - off, ", no swap"));
	if (out->at.psi_some10 >= 0 && off < sizeof(out->sentence))
		off += (size_t)snprintf(out->sentence + off, sizeof(out->sentence) - off,
					", PSI some %.1f %% full %.1f %% (avg10; %.1f %% over the minute's worst 10 s)",
					out->at.psi_some10, out->at.psi_full10 >= 0 ? out->at.psi_full10 : 0, out->max_some10);
	snprintf(line2, sizeof(line2), "the target: oom_score_adj %lld, oom_score %lld, RSS %s, swap %s",
		 (long long)(out->at.oom_score_adj == INT32_MIN ? 0 : out->at.oom_score_adj), (long long)out->at.oom_score,
		 rss, swap);
	if (off < sizeof(out->sentence))
		off += (size_t)snprintf(out->sentence + off, sizeof(out->sentence) - off, "\n%s", line2);
	if (out->rank && off < sizeof(out->sentence))
		off += (size_t)snprintf(out->sentence + off, sizeof(out->sentence) - off,
					"; the %zu%s of %zu process%s by %s (%s's order)", out->rank, ordinal(out->rank),
					out->ranked, out->ranked == 1 ? "" : "es", out->order, out->killer);
	if (out->nround && off < sizeof(out->sentence))
		snprintf(out->sentence + off, sizeof(out->sentence) - off, "; %zu other process(es) killed by it within 30 s",
			 out->nround);
	return 1;
}
