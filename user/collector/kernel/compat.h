/* What this kernel's BPF offers past Android 12's GKI floor (5.10), probed
 * with libbpf's feature probes before the collector loads, never read from
 * the version number (vendors backport). The BPF side takes each as a
 * read-only flag, so the verifier never sees a call the kernel lacks. */
#ifndef OOMSCOPE_COLLECTOR_KERNEL_COMPAT_H
#define OOMSCOPE_COLLECTOR_KERNEL_COMPAT_H

#include <stdbool.h>
#include <stddef.h>

struct coll_kcompat {
	bool ringbuf;      /* BPF_MAP_TYPE_RINGBUF (5.8): needed, no fallback */
	bool task_btf;     /* bpf_get_current_task_btf (5.11): else bpf_get_current_task, read the same */
	bool task_pt_regs; /* bpf_task_pt_regs (5.15): else the registers' place learned at attach */
};

/* Probes this kernel (loads a few two-instruction programs). */
void coll_kcompat_probe(struct coll_kcompat *k);
/* What this kernel lacks, for the start record and -v ("" when nothing):
 * "bpf_get_current_task_btf, bpf_task_pt_regs". */
void coll_kcompat_missing(const struct coll_kcompat *k, char *out, size_t len);

#endif
