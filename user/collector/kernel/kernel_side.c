/* What the rest of the collector may ask of the kernel side's BPF object
 * (collect.bpf.c): its totals, its records of the target's end, the kernel's
 * failure counts, the Java stacks' signal, the direct-memory programs. The
 * skeleton is touched in kernel/ alone. */
#define _GNU_SOURCE
#include "collector/kernel/kernel_side.h"
#include "collector/console/console.h"
#include "collect.skel.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collector/kernel/tracefs.h"

#include <sys/mman.h>

volatile struct ooms_totals *coll_k_totals(struct coll_kernel *ks)
{
	return &ks->skel->bss->totals;
}

uint64_t coll_k_oom_ns(struct coll_kernel *ks)
{
	return ks->skel ? ks->skel->bss->oom.ts_ns : 0;
}

int coll_k_death_seen(struct coll_kernel *ks)
{
	return ks->skel && ks->skel->bss->death.ts_ns;
}

void coll_k_end_records(struct coll_kernel *ks, const struct ooms_death **death, const struct ooms_sig_rec **sigs,
			const struct ooms_oom_victim **oom)
{
	*death = &ks->skel->bss->death;
	*sigs = ks->skel->bss->last_sig;
	*oom = &ks->skel->bss->oom;
}

const struct ooms_kill_rec *coll_k_kills(struct coll_kernel *ks, size_t *n)
{
	*n = ks->skel ? OOMS_KILLS : 0;
	return ks->skel ? ks->skel->bss->kills : NULL;
}

int coll_k_fail_count(struct coll_kernel *ks, const struct ooms_fail_key *key, struct ooms_fail_count *n)
{
	return bpf_map_lookup_elem(bpf_map__fd(ks->skel->maps.fail_counts), key, n);
}

int coll_k_fail_counts_fd(struct coll_kernel *ks)
{
	return bpf_map__fd(ks->skel->maps.fail_counts);
}

void coll_k_java_signal(struct coll_kernel *ks, int sig)
{
	if (ks->skel)
		ks->skel->bss->java_signal = (uint32_t)sig;
}

void coll_k_direct_progs(struct coll_kernel *ks, struct bpf_program **progs)
{
	struct collect_bpf *skel = ks->skel;

	/* one return program for both: each finds its call's entry by thread */
	progs[0] = skel->progs.direct_alloc;
	progs[1] = skel->progs.direct_alloc_ret;
	progs[2] = skel->progs.direct_realloc;
	progs[3] = skel->progs.direct_alloc_ret;
	progs[4] = skel->progs.direct_free;
}

int coll_k_hold_code_maps(struct coll_kernel *ks)
{
	return ks->skel && ks->skel->rodata->hold_code_maps;
}

int coll_k_live_threads_fd(struct coll_kernel *ks)
{
	return bpf_map__fd(ks->skel->maps.live_threads);
}

/* Everything undone (the target's links, the kretprobes, the fd bitmap, the
 * object; tracefs if it was mounted for this run). */
void coll_k_close(struct coll_kernel *ks)
{
	ring_buffer__free(ks->rb);
	ks->rb = NULL;
	bpf_link__destroy(ks->libc_link);
	ks->libc_link = NULL;
	coll_k_kretprobes_detach(ks); /* the syscall events' links too */
	for (int i = 0; i < ks->nalloc_links; i++)
		bpf_link__destroy(ks->alloc_links[i]);
	ks->nalloc_links = 0;
	coll_k_faults_detach(ks);
	if (ks->fd_bits)
		munmap(ks->fd_bits, ks->fd_words * 8);
	ks->fd_bits = NULL;
	collect_bpf__destroy(ks->skel);
	ks->skel = NULL;
	tracefs_release(ks->tracefs, ks->tracefs_mounted);
	ks->tracefs_mounted = 0;
}
