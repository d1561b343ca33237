/* Figures read from /proc for one process: the collector's seed and its
 * reconciliation against the BPF totals. Every reader returns -errno when
 * the process is gone or the file cannot be read; figures not found are -1. */
#ifndef OOMSCOPE_PROCFS_H
#define OOMSCOPE_PROCFS_H

#include <stdint.h>
#include <sys/types.h>

struct proc_status {
	int64_t vmsize_kb, vmpeak_kb, rss_kb, threads;
	/* VmRSS's parts (4.5+; -1 on older kernels), VmSwap, VmData */
	int64_t rss_anon_kb, rss_file_kb, rss_shmem_kb, swap_kb, vmdata_kb;
	int64_t uid;                      /* the real uid (an app's: its Android user * 100000 + app id) */
	char name[64];
};

struct proc_limits {
	int64_t nofile_soft, nofile_hard; /* -1 = unlimited */
	int64_t nproc_soft;
	int64_t as_soft;                  /* Max address space, bytes; -1 = unlimited */
	int64_t data_soft;                /* Max data size (RLIMIT_DATA), bytes; -1 = unlimited */
};

int proc_read_status(pid_t pid, struct proc_status *st);
int proc_read_limits(pid_t pid, struct proc_limits *lim);
int64_t proc_threads_max(void);                 /* /proc/sys/kernel/threads-max */
/* /proc/PID/oom_score_adj and oom_score: -errno (or INT32_MIN for adj) when unreadable */
int proc_oom_score_adj(pid_t pid);
int proc_oom_score(pid_t pid);
/* Calls fn for each numeric entry of /proc/PID/<dir> ("fd" or "task").
 * Returns the count, or -errno. fn may be NULL. */
int64_t proc_list(pid_t pid, const char *dir, void (*fn)(void *ctx, int64_t n), void *ctx);
/* How many fds are open: /proc/PID/fd's size where the kernel gives it
 * (6.2+), else its entries counted; -1 when it cannot be read. */
int64_t proc_fd_count(pid_t pid);
/* Link target of /proc/PID/fd/FD into buf. 0 or -errno. */
int proc_fd_target(pid_t pid, int fd, char *buf, size_t len);
/* /proc/PID/task/TID/comm, newline stripped. 0 or -errno. */
int proc_task_comm(pid_t pid, int tid, char *buf, size_t len);
/* 1 if /proc/PID/exe is ELFCLASS32, 0 if 64-bit, -errno. */
int proc_exe_is_32bit(pid_t pid);
/* The same for an ELF file by its path: 1, 0, or -errno (-ENOEXEC: not ELF). */
int elf_path_is_32bit(const char *path);
/* Command line, arguments joined by spaces. 0 or -errno. */
int proc_cmdline(pid_t pid, char *buf, size_t len);
int proc_exists(pid_t pid);
/* Whether /proc/PID/DIR/N is there now ("task" and a tid, "fd" and an fd). */
int proc_entry_exists(pid_t pid, const char *dir, int64_t n);
/* Whether thread tid of pid is there and not on its way out (PF_EXITING:
 * its exit has been or is about to be seen; /proc lists it a while longer). */
int proc_task_live(pid_t pid, int tid);
/* The process's start time (/proc/PID/stat field 22, clock ticks after
 * boot): with the PID, it names one process; a PID reused by another
 * process has another start time. -errno when it cannot be read. */
int64_t proc_start_time(pid_t pid);
/* 1 when the process exists and has not exited (a zombie has: its parent
 * has yet to reap it), else 0. */
int proc_alive(pid_t pid);
/* 1 when the process is gone, a zombie, exiting, or has a SIGKILL pending
 * (a kill reaches it before any of its files closes: the main thread keeps
 * the signal pending until it dequeues it and starts exiting), else 0. */
int proc_dying(pid_t pid);
/* Up to len bytes of a small /proc file into buf (one read, no NUL added):
 * bytes read, or -errno. */
ssize_t proc_read_file(const char *path, void *buf, size_t len);

#endif
