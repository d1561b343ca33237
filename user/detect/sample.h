/* One sample per interval: every figure a detector may use.
 * Where each figure comes from is in the comment beside it; the collector
 * fills it, the detectors only read it. */
#ifndef OOMSCOPE_SAMPLE_H
#define OOMSCOPE_SAMPLE_H

#include <stdint.h>
#include "detect/resource.h"

/* Memory as the killers see it (issue 45): the target's RSS by kind and
 * its swap, the system's memory, its pressure, the target's place in the
 * OOM killer's order. kB; -1 (PSI: -1.0; oom_score_adj: INT32_MIN) unknown. */
struct ooms_memfig {
	int64_t anon_kb, file_kb, shmem_kb, swap_kb;
	int64_t sys_total_kb, sys_available_kb, sys_swap_total_kb, sys_swap_free_kb;
	double psi_some10, psi_some60, psi_full10, psi_full60; /* /proc/pressure/memory, percent */
	int64_t oom_score_adj, oom_score;
};

struct ooms_sample {
	double t;                 /* seconds since the collector attached */
	uint64_t ts_ns;           /* CLOCK_MONOTONIC at the sample */
	int64_t rss_kb;           /* /proc/PID/status VmRSS */
	int64_t vmpeak_kb;        /* /proc/PID/status VmPeak */
	int64_t vmsize_bpf_kb;    /* VmSize at the last sample + BPF mmap/munmap/mremap/brk delta */
	int64_t threads_bpf;      /* BPF thread set (clone/exit) */
	int64_t fds_bpf;          /* BPF fd set (open-like syscalls / close) */
	/* the watched resources (resource.c's rows), each figure with its
	 * limit; where each comes from: the collector's coll_resources.c */
	struct ooms_res_fig res[RES_MAX];
	uint64_t ringbuf_drops;   /* events the kernel could not deliver, cumulative */
	uint64_t set_full_drops;  /* fds/threads the BPF sets could not hold, cumulative */
	uint64_t events;          /* attribution events received, cumulative */
	int is_32bit;             /* target's executable is ELFCLASS32 */
	/* Java heap (-1 when the target runs no Java runtime or it is unknown) */
	int64_t heap_used;        /* bytes: hsperfdata (HotSpot), or the shim (Runtime) */
	int64_t heap_committed;
	int64_t heap_max;
	const char *heap_src;     /* "hsperfdata", "shim", "usdt" (after the last GC) */
	uint64_t gcs;             /* collections seen (USDT / uprobes), cumulative */
	double gc_pause_ms;       /* their pauses, cumulative */
	/* a JVM's other pools (issue 36), bytes, -1 unknown: class metadata
	 * (hsperfdata; its max -1 unless -XX:MaxMetaspaceSize set one), the
	 * compressed class space, direct buffer memory (the shim: java.nio.Bits) */
	/* the JVM's other bounded memory: used, committed (what the limit
	 * counts for class metadata: HotSpot throws when committing more would
	 * pass MaxMetaspaceSize), max; -1 unknown */
	struct ooms_pool { int64_t used, committed, max; } metaspace, class_space, direct;
	struct ooms_memfig mem;
};

#endif
