/* Sampled page faults (collect_faults.bpf.h): a software perf event counting
 * page faults on each CPU, one in fault_period of them running the BPF
 * program, which keeps the target's. Per CPU rather than per thread: the
 * target's threads made later need nothing done, and the kernel samples
 * every period-th fault of the CPU whoever made it, so the target's share
 * of the samples is its share of the faults. */
#define _GNU_SOURCE
#include "collector/kernel/kernel_side.h"
#include "collect.skel.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int perf_open(struct perf_event_attr *attr, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int coll_k_faults_attach(struct coll_kernel *ks)
{
	struct perf_event_attr attr;
	int ncpu = libbpf_num_possible_cpus(), e = 0;

	if (!ks->fault_period || ncpu <= 0)
		return ncpu < 0 ? ncpu : 0;
	ks->fault_links = calloc((size_t)ncpu, sizeof(*ks->fault_links));
	if (!ks->fault_links)
		return -ENOMEM;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.sample_period = ks->fault_period;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int fd = perf_open(&attr, cpu);
		struct bpf_link *l;

		if (fd < 0) {
			if (errno == ENODEV) /* a CPU not online */
				continue;
			e = -errno;
			break;
		}
		l = bpf_program__attach_perf_event(ks->skel->progs.fault_sample, fd);
		if (!l) {
			e = -errno;
			close(fd);
			break;
		}
		ks->fault_links[ks->nfault_links++] = l; /* the link closes the fd */
	}
	if (e)
		coll_k_faults_detach(ks);
	return e;
}

void coll_k_faults_detach(struct coll_kernel *ks)
{
	for (int i = 0; i < ks->nfault_links; i++)
		bpf_link__destroy(ks->fault_links[i]);
	free(ks->fault_links);
	ks->fault_links = NULL;
	ks->nfault_links = 0;
}
