/* This kernel's BPF features, probed (compat.h). */
#include "collector/kernel/compat.h"

#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>

/* 1: the helper is there for tracing programs (kprobe's set, which the
 * raw tracepoints, tracepoints and fexit share for these); 0 otherwise,
 * or when the probe itself cannot say (then the program's load says) */
static bool helper(enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, id, NULL) == 1;
}

void coll_kcompat_probe(struct coll_kcompat *k)
{
	k->ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1;
	k->task_btf = helper(BPF_FUNC_get_current_task_btf);
	/* bpf_task_pt_regs takes a task typed by BTF: only with the above */
	k->task_pt_regs = k->task_btf && helper(BPF_FUNC_task_pt_regs);
}

void coll_kcompat_missing(const struct coll_kcompat *k, char *out, size_t len)
{
	out[0] = 0;
	if (!k->ringbuf)
		snprintf(out + strlen(out), len - strlen(out), "%sBPF ring buffer", out[0] ? ", " : "");
	if (!k->task_btf)
		snprintf(out + strlen(out), len - strlen(out), "%sbpf_get_current_task_btf", out[0] ? ", " : "");
	if (!k->task_pt_regs)
		snprintf(out + strlen(out), len - strlen(out), "%sbpf_task_pt_regs", out[0] ? ", " : "");
}
