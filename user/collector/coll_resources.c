/* Each watched resource's counting code (detect/resource.h's rows): its
 * figure and its limit for a sample, from /proc's lists (read whole, or
 * the last reading with /proc/PID/status's counts), the limits and the
 * cgroup. Adding a resource adds its function to the table below. */
#define _GNU_SOURCE
#include "collector/coll.h"

struct res_input {
	const struct ooms_snapshot *s;  /* the lists: this sample's, or the last full reading */
	const struct proc_status *st;   /* NULL before the first sample */
	const struct proc_limits *lim;
	int full;                       /* s was read for this sample */
	int64_t fds;                    /* /proc/PID/fd's count when s is not fresh, -1 unknown */
	const struct ooms_memfig *mem;  /* the sample's memory figures (filled before) */
};

/* The tightest thread limit: threads-max, RLIMIT_NPROC, --thread-limit,
 * the pids cgroup's pids.max (which counts the cgroup's tasks, the
 * target's among them). */
static void count_threads(struct coll *c, const struct res_input *in, struct ooms_res_fig *f)
{
	struct ooms_cgroup cg;

	f->value = !in->st ? -1 : in->full ? (int64_t)in->s->nthreads : in->st->threads;
	f->limit = c->threads_max;
	f->limit_src = "threads-max";
	if (in->lim->nproc_soft > 0 && in->lim->nproc_soft < f->limit) {
		f->limit = in->lim->nproc_soft;
		f->limit_src = "RLIMIT_NPROC";
	}
	if (c->o->detect.res[RES_THREADS].ratio > 0 && c->o->thread_limit > 0 && c->o->thread_limit < f->limit) {
		f->limit = c->o->thread_limit;
		f->limit_src = "--thread-limit";
	}
	/* kept as they were once the OOM killer has chosen the target: the
	 * death's cause is read from what changed since */
	if (!coll_k_oom_ns(&c->k) && ooms_cgroup_find(c->pid, &cg) == 0) {
		c->cg_prev = c->cg;
		c->cg_prev_ns = c->cg_ns;
		c->cg = cg;
		c->cg_ns = coll_now_ns();
	}
	if (c->cg.pids_max > 0 && c->cg.pids_max < f->limit) {
		f->limit = c->cg.pids_max;
		f->limit_src = "pids.max";
	}
}

static void count_fds(struct coll *c, const struct res_input *in, struct ooms_res_fig *f)
{
	(void)c;
	f->value = !in->st ? -1 : in->full ? (int64_t)in->s->nfds : in->fds;
	f->limit = in->lim->nofile_soft;
}

static void count_vmsize(struct coll *c, const struct res_input *in, struct ooms_res_fig *f)
{
	(void)c;
	f->value = in->st ? in->st->vmsize_kb : -1;
	f->limit = in->lim->as_soft > 0 ? in->lim->as_soft / 1024 : -1;
}

/* The fds on a memfd or an ashmem region, from the lists: counted when they
 * were read for this sample (a large target's are read at most every 20x
 * what reading them cost); between two readings, the last count stands. */
static void count_memfd(struct coll *c, const struct res_input *in, struct ooms_res_fig *f)
{
	char buf[64];
	int64_t n = 0;

	if (!in->full && in->st && c->have_smp && c->last_smp.res[RES_MEMFD].value >= 0) {
		f->value = c->last_smp.res[RES_MEMFD].value;
		f->limit = in->lim->nofile_soft;
		return;
	}
	for (size_t i = 0; i < in->s->nfds; i++) {
		const char *kind = ooms_fd_kind(ooms_snap_fd_target(in->s, i), buf, sizeof(buf));

		n += ooms_fd_kind_shared_memory(kind);
	}
	f->value = in->st ? n : -1;
	f->limit = in->lim->nofile_soft;
}

/* The memory no reclaim can take back (anonymous, shared, swapped) against
 * the room the tightest limit leaves it: its own figure plus what is left
 * under a memory cgroup's limit (of what the cgroup holds that cannot be
 * reclaimed: page cache is reclaimed before its OOM killer acts), under
 * memory.high (where it is throttled), under the system's available memory
 * (what a system killer watches), or under RLIMIT_DATA (of VmData). */
static void count_memory(struct coll *c, const struct res_input *in, struct ooms_res_fig *f)
{
	const struct ooms_memfig *m = in->mem;
	const struct ooms_cgroup *cg = &c->cg;
	int64_t v, room;

	f->value = f->limit = -1;
	if (!in->st)
		return;
	v = (m->anon_kb >= 0 ? m->anon_kb : in->st->rss_kb) + (m->shmem_kb > 0 ? m->shmem_kb : 0) +
	    (m->swap_kb > 0 ? m->swap_kb : 0);
	f->value = v;
#define TIGHTER(lim, src)                                                                                   	do {                                                                                                		int64_t l_ = (lim);                                                                         		if (l_ > 0 && (f->limit <= 0 || l_ < f->limit)) {                                           			f->limit = l_;                                                                      			f->limit_src = (src);                                                               		}                                                                                           	} while (0)
	if (cg->mem_limit > 0) {
		int64_t held = cg->mem_unreclaimable >= 0 ? cg->mem_unreclaimable : cg->mem_usage;

		room = (cg->mem_limit - (held > 0 ? held : 0)) / 1024;
		TIGHTER(v + (room > 0 ? room : 0), cg->mem_v2 ? "memory.max" : "memory.limit_in_bytes");
	}
	if (cg->mem_high > 0) {
		int64_t held = cg->mem_unreclaimable >= 0 ? cg->mem_unreclaimable : cg->mem_usage;

		room = (cg->mem_high - (held > 0 ? held : 0)) / 1024;
		TIGHTER(v + (room > 0 ? room : 0), "memory.high");
	}
	if (m->sys_available_kb >= 0)
		TIGHTER(v + m->sys_available_kb, "MemAvailable");
	if (in->lim->data_soft > 0 && in->st->vmdata_kb >= 0) {
		room = in->lim->data_soft / 1024 - in->st->vmdata_kb;
		TIGHTER(v + (room > 0 ? room : 0), "RLIMIT_DATA");
	}
#undef TIGHTER
}

/* Pressure: ms a second stalled on memory (PSI some avg10), or the
 * trigger's stall when it fired since the last sample. */
static void count_memstall(struct coll *c, const struct res_input *in, struct ooms_res_fig *f)
{
	f->value = coll_memory_stall_ms(&c->mem, in->mem, &f->limit_src);
	f->limit = f->value >= 0 ? 1000 : -1;
}

static void (*const counters[RES_MAX])(struct coll *, const struct res_input *, struct ooms_res_fig *) = {
	[RES_THREADS] = count_threads,
	[RES_FDS] = count_fds,
	[RES_VMSIZE] = count_vmsize,
	[RES_MEMFD] = count_memfd,
	[RES_MEMORY] = count_memory,
	[RES_MEMSTALL] = count_memstall,
};

void coll_count_resources(struct coll *c, const struct ooms_snapshot *s, const struct proc_status *st,
			  const struct proc_limits *lim, int full, int64_t fds, struct ooms_sample *smp)
{
	struct res_input in = {s, st, lim, full, fds, &smp->mem};

	for (int r = 0; r < RES_MAX; r++) {
		smp->res[r] = (struct ooms_res_fig){-1, -1, NULL};
		counters[r](c, &in, &smp->res[r]);
	}
}
