/* The system's memory as the killers see it: /proc/meminfo's figures and
 * the pressure stall information (PSI) of /proc/pressure/memory or a
 * cgroup's memory.pressure, read or waited for through a PSI trigger. */
#ifndef OOMSCOPE_PROC_MEMINFO_H
#define OOMSCOPE_PROC_MEMINFO_H

#include <stdint.h>

/* kB; -1 where the kernel does not give it */
struct proc_meminfo {
	int64_t total, free, available, cached, swap_total, swap_free, shmem, anon;
};

/* PSI: the share of time (percent) some or all tasks stalled on memory over
 * the last 10, 60 and 300 s, and the total stall (us); -1 unknown. */
struct proc_psi_line {
	double avg10, avg60, avg300;
	int64_t total_us;
};
struct proc_psi {
	struct proc_psi_line some, full;
};

/* 0 or -errno. MemAvailable is guessed (MemFree + Cached - Shmem, as
 * earlyoom does) on kernels before 3.14. */
int proc_read_meminfo(struct proc_meminfo *m);
/* path: "/proc/pressure/memory" or a cgroup's memory.pressure. 0 or -errno
 * (-ENOENT: no PSI on this kernel or for this cgroup). */
int proc_read_psi(const char *path, struct proc_psi *p);
/* A PSI trigger on path: an fd that polls POLLPRI when some task stalled
 * stall_us within a window_us window ("some"; full: "full"). The kernel
 * lets a process without CAP_SYS_RESOURCE use only windows of whole 2 s
 * multiples: asked for a shorter one, this tries 2 s with the stall scaled
 * (*window_used says which was taken). The fd, or -errno. */
int proc_psi_trigger(const char *path, int full, uint64_t stall_us, uint64_t window_us, uint64_t *window_used,
		     uint64_t *stall_used);

#endif
