/* What the rest of the collector may ask of the kernel side's BPF object
 * (collect.bpf.c): its totals, its records of the target's end, the kernel's
 * failure counts, the Java stacks' signal, the direct-memory programs. The
 * skeleton is touched in kernel/ alone. */
#define _GNU_SOURCE
#include "collector/coll.h"

volatile struct ooms_totals *coll_totals(struct coll *c)
{
	return &c->skel->bss->totals;
}

uint64_t coll_k_oom_ns(struct coll *c)
{
	return c->skel ? c->skel->bss->oom.ts_ns : 0;
}

int coll_k_death_seen(struct coll *c)
{
	return c->skel && c->skel->bss->death.ts_ns;
}

void coll_k_end_records(struct coll *c, const struct ooms_death **death, const struct ooms_sig_rec **sigs,
			const struct ooms_oom_victim **oom)
{
	*death = &c->skel->bss->death;
	*sigs = c->skel->bss->last_sig;
	*oom = &c->skel->bss->oom;
}

int coll_k_fail_count(struct coll *c, const struct ooms_fail_key *key, struct ooms_fail_count *n)
{
	return bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.fail_counts), key, n);
}

int coll_k_fail_counts_fd(struct coll *c)
{
	return bpf_map__fd(c->skel->maps.fail_counts);
}

void coll_k_java_signal(struct coll *c, int sig)
{
	if (c->skel)
		c->skel->bss->java_signal = (uint32_t)sig;
}

void coll_k_direct_progs(struct coll *c, struct bpf_program **progs)
{
	struct collect_bpf *k = c->skel;

	/* one return program for both: each finds its call's entry by thread */
	progs[0] = k->progs.direct_alloc;
	progs[1] = k->progs.direct_alloc_ret;
	progs[2] = k->progs.direct_realloc;
	progs[3] = k->progs.direct_alloc_ret;
	progs[4] = k->progs.direct_free;
}

int coll_k_hold_code_maps(struct coll *c)
{
	return c->skel && c->skel->rodata->hold_code_maps;
}

int coll_k_events_fd(struct coll *c)
{
	return bpf_map__fd(c->skel->maps.events);
}

int coll_k_live_threads_fd(struct coll *c)
{
	return bpf_map__fd(c->skel->maps.live_threads);
}

void coll_k_destroy(struct coll *c)
{
	collect_bpf__destroy(c->skel);
	c->skel = NULL;
}
