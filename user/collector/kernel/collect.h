/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Event ABI between collect.bpf.c and user space.
 *
 * Fixed-size structs, a type and a version in every event, kernel monotonic
 * timestamps, stacks as fixed-depth arrays of user addresses. Nothing in here
 * points into the collector's memory. Included by BPF (vmlinux.h types) and
 * by user space (stdint types), so only plain integer types are used.
 */
#ifndef OOMSCOPE_COLLECTOR_KERNEL_COLLECT_H
#define OOMSCOPE_COLLECTOR_KERNEL_COLLECT_H

#ifndef __VMLINUX_H__
#include <stdint.h> /* user space; BPF gets the same names from vmlinux.h */
#endif

#define OOMS_EVENT_VERSION 5   /* 3: lr added to struct ooms_event; 4: java_sp, java_pc; 5: path */
#define OOMS_PATH_LEN 128     /* an open's path as the call gave it (cut to this) */
#define OOMS_STACK_DEPTH 40   /* frames captured by bpf_get_stack */
#define OOMS_SLICE_WORDS 32   /* words copied from the user stack pointer up */
#define OOMS_COMM_LEN 16
#define OOMS_NR_SLOTS 1024    /* syscall class table: native nr, then compat nr + 512 */
#define OOMS_COMPAT_BASE 512
#define OOMS_FEXIT_SLOTS 48   /* fexit programs for syscall handlers (collect.bpf.c's fx_0..fx_47: checked there) */

/* What a syscall number means to the collector. User space fills the
 * nr -> class table from its per-architecture number tables, so the BPF
 * program holds no architecture-specific syscall numbers. */
enum ooms_sysclass {
	SC_NONE = 0,
	SC_FD_RET,      /* returns a new fd: open(at), socket, eventfd, dup*, accept*, ... */
	SC_FD_PAIR_A0,  /* pipe/pipe2: int fds[2] at arg0 */
	SC_FD_PAIR_A3,  /* socketpair: int sv[2] at arg3 */
	SC_FCNTL,       /* new fd only for F_DUPFD / F_DUPFD_CLOEXEC */
	SC_CLOSE,
	SC_MMAP,        /* len at arg1 */
	SC_MUNMAP,      /* len at arg1 */
	SC_MREMAP,      /* old len arg1, new len arg2 */
	SC_BRK,
	SC_MPROTECT,    /* prot at arg2: read+write over a reservation commits memory */
	SC_CLONE,       /* clone/clone3/fork/vfork: only their failures (sched_process_fork sees the rest) */
	SC_FD_PATH_A0,  /* returns a new fd, its path at arg0: open, creat */
	SC_FD_PATH_A1,  /* returns a new fd, its path at arg1: openat, openat2 */
	SC_FD_SOCKET,   /* socket: domain at arg0, type at arg1 */
	SC_CLASS_MAX,
};

enum ooms_event_type {
	EV_FD_OPEN = 1,    /* fd (and fd2 for pairs) created, with stack */
	EV_THREAD_NEW = 2, /* a thread of the target was created, with creator's stack */
	EV_MMAP_BIG = 3,   /* an mmap/mremap of at least big_map_bytes, with stack */
	EV_BIG_ALLOC = 4,  /* one allocation of at least big_alloc_bytes, with stack: ret address
			    * (0 when not known), arg0 bytes, arg1 enum ooms_alloc_fn */
	EV_ALLOC_FREE = 5, /* a reported allocation freed: ret address, arg0 bytes, arg1 enum ooms_alloc_fn */
	EV_CALL_FAIL = 6,  /* a call failed for want of a resource (EMFILE, ENFILE, EAGAIN, ENOMEM), with stack
			    * and a deep slice (sent as struct ooms_alloc_event):
			    * ret -errno, arg0 bytes asked for (mmap, mremap, brk, mprotect) or clone flags,
			    * arg1 stack id << 32 | failures of that stack id so far (the first
			    * OOMS_FAIL_FULL of each are sent; the rest only counted), live the set's size */
	EV_DEATH = 7,      /* the target's last thread exited: ret its wait status (exit code << 8, or signal) */
	EV_OOM_VICTIM = 8, /* the kernel's OOM killer chose the target (details in the oom .bss record): the
			    * collector reads its maps now, before the teardown */
	EV_MUNMAP_BIG = 10, /* at least big_map_bytes unmapped (munmap, or the range an mremap left):
			     * ret the address, arg0 the length; no stack. With EV_MMAP_BIG it lets the
			     * collector replay the large mappings after its last reading of the maps
			     * (a process the OOM killer ends is gone before they can be read) */
	EV_CODE_MAP = 9,   /* the target mapped code (an exec, or a file mapped executable: the loader
			    * loading a library): ret the address, arg0 the length, arg1 1 when the target
			    * was stopped there (SIGSTOP) until the collector has read its maps. The
			    * collector reads the maps at once, so stacks through that code resolve even if
			    * the process dies before the next sample */
	EV_DIRECT_ALLOC = 11, /* HotSpot: Unsafe.allocateMemory (or reallocateMemory) returned: ret the
			       * block's address, arg0 its bytes, arg1 the block it replaced (0: none);
			       * the stack and Java stack of the caller (direct buffers' memory) */
	EV_DIRECT_FREE = 12,  /* HotSpot: Unsafe.freeMemory: ret the address; no stack */
	EV_CHILD = 13,        /* the target forked a process (following children): ret its PID; the
			       * forking thread's stack */
	EV_CHILD_HELD = 14,   /* that child made its first followed syscall and was sent SIGSTOP there
			       * (arg0 1) or could not be (arg0 0): ret its PID, comm its thread's name;
			       * a collector of its own attaches, then lets it go on */
	EV_FAULT = 15,        /* a sampled page fault of the target (one in the event's period): ret the
			       * faulting address, arg0 the pages one sample stands for; the stack
			       * that touched the page (collect_faults.bpf.h) */
	EV_TYPE_MAX,
};

/* Where a big allocation was made (or freed). */
enum ooms_alloc_fn {
	AF_NONE = 0,
	AF_MMAP,           /* anonymous mmap */
	AF_MREMAP,         /* mremap growth (bytes: the growth) */
	AF_BRK,            /* brk growth */
	AF_MALLOC,
	AF_CALLOC,
	AF_REALLOC,
	AF_POSIX_MEMALIGN,
	AF_ALIGNED_ALLOC,
	AF_MEMALIGN,
	AF_VALLOC,
	AF_NEW,            /* operator new */
	AF_NEW_ARRAY,      /* operator new[] */
	AF_MPROTECT,       /* mprotect to read+write: reserved memory committed (glibc's thread arenas) */
	AF_FREE,
	AF_MAX,
};

/* --big-alloc-mode */
enum ooms_alloc_mode { ALLOC_OFF = 0, ALLOC_SYSCALL = 1, ALLOC_UPROBE = 2 };

struct ooms_event {
	uint16_t type;        /* enum ooms_event_type */
	uint16_t version;     /* OOMS_EVENT_VERSION */
	uint32_t tid;         /* thread that made the call */
	uint64_t ts_ns;       /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	char comm[OOMS_COMM_LEN]; /* name of the calling thread */
	int64_t ret;          /* new fd, new thread id, or mapped address */
	uint64_t arg0;        /* EV_FD_OPEN: second fd of a pair or -1; EV_MMAP_BIG: length */
	uint64_t arg1;        /* EV_THREAD_NEW: pthread start routine or 0; EV_MMAP_BIG: flags;
			       * EV_FD_OPEN of a socket: OOMS_SOCKET_TAG | domain << 32 | type;
			       * EV_FD_OPEN whose path BPF could not read (its page not present:
			       * copy_from_user_nofault does not fault): OOMS_PATH_PTR_TAG | the
			       * path's address, for user space to read from the target's memory */
	int64_t live;         /* EV_FD_OPEN, EV_CALL_FAIL on fds: open fds; EV_THREAD_NEW, EV_CALL_FAIL on
			       * clone: live threads; just after the event (rules are checked on it) */
	uint32_t nr;          /* syscall number (as seen, compat offset applied) or 0 */
	int32_t stack_bytes;  /* bytes of ustack filled, or a negative errno */
	uint64_t ustack[OOMS_STACK_DEPTH];
	uint64_t sp;          /* user stack pointer at the probe */
	uint64_t lr;          /* user link register at the probe (arm64 x30: the return address
			       * while the function has not saved it; may carry a pointer-
			       * authentication signature in its top bits); 0 on x86_64 */
	uint64_t java_pc;     /* the thread's Java stack was asked for (a signal to the shim's
			       * handler, which reports it with these): the user pc and sp it
			       * returns to; 0 when not asked */
	uint64_t java_sp;     /* when java_pc is 0: OOMS_JAVA_* (why not asked) */
	uint64_t slice[OOMS_SLICE_WORDS]; /* user stack words from sp up (zero where unreadable) */
	char path[OOMS_PATH_LEN]; /* EV_FD_OPEN by open/openat/openat2/creat: the path it was given
				   * (relative ones as given), read when the call returned; else "" */
};

#define OOMS_SOCKET_TAG (1ull << 63)
#define OOMS_PATH_PTR_TAG (1ull << 62)

/* The name the shim gives its fork-dump child (SHIM_CHILD_NAME): never
 * held or followed as a child process of the target. */
#define OOMS_DUMP_CHILD_COMM "oomscope-dump"

/* A big allocation carries a deeper slice of the user stack: the allocator's
 * own frames (libc, built without frame pointers) are unwound through it by
 * their call frame information, to the code that asked for the memory. */
#define OOMS_DEEP_WORDS 512

struct ooms_alloc_event {
	struct ooms_event ev;           /* ev.type EV_BIG_ALLOC */
	uint64_t deep[OOMS_DEEP_WORDS]; /* user stack words from ev.sp up (zero where unreadable) */
};

/* Java stacks asked of the shim, per place (the native stack's return
 * addresses: a JVM's native code often has no frame pointers, so all its
 * file opens may share one place whatever Java code made them): a bucket of
 * OOMS_JAVA_FULL asks refilled one each OOMS_JAVA_GAP_NS, so a burst of a
 * couple of hundred is seen whole (an ask costs the thread ~10-30 us), a
 * storm is sampled at 100 a second and costs little. */
#define OOMS_JAVA_FULL 256
#define OOMS_JAVA_GAP_NS 10000000ull

/* why an event's Java stack was not asked (ev.java_sp when ev.java_pc is 0) */
enum { OOMS_JAVA_OFF = 0, OOMS_JAVA_SAMPLED_OUT = 1, OOMS_JAVA_NO_SIGNAL = 2 };

struct ooms_java_place {
	uint64_t credit_ns;  /* asks left, times OOMS_JAVA_GAP_NS */
	uint64_t last_ns;    /* when it was last refilled */
};

/* Running totals, one copy, updated atomically by the BPF programs and read by
 * user space through the mmap-able .bss map. */
struct ooms_totals {
	int64_t threads_live;   /* members of the thread set */
	int64_t fds_live;       /* members of the fd set */
	int64_t vm_delta_bytes; /* mmap - munmap + mremap growth + brk growth since attach */
	uint64_t fd_opens;
	uint64_t fd_closes;
	uint64_t thread_news;
	uint64_t thread_exits;
	uint64_t mmaps;
	uint64_t munmaps;
	uint64_t mremaps;
	uint64_t brks;
	uint64_t ringbuf_drops;  /* failed bpf_ringbuf_reserve: events lost */
	uint64_t set_full_drops; /* fd/thread set, or a big-allocation table, was full */
	uint64_t events_sent;
	uint64_t brk_cur;        /* last program break seen (seeded from /proc at attach) */
	uint64_t big_allocs;     /* allocations at or over big_alloc_bytes */
	uint64_t big_frees;      /* of those, freed (uprobe mode with return probes) */
	uint64_t call_fails;     /* calls failed for want of a resource (EV_CALL_FAIL), sent or not */
	uint64_t call_fails_sent; /* of those, sent with their stack (the rest were over the per-stack limit) */
	uint64_t java_asked;     /* Java stacks asked of the shim (signals sent) */
	uint64_t java_sampled_out; /* creations whose Java stack was not asked (over the per-place limit) */
	uint64_t direct_allocs;  /* Unsafe.allocateMemory/reallocateMemory returns seen (EV_DIRECT_ALLOC) */
	uint64_t direct_frees;   /* Unsafe.freeMemory calls seen (EV_DIRECT_FREE) */
	uint64_t fault_samples;  /* the target's sampled page faults (EV_FAULT), sent or not */
	/* followed syscall returns not followed: no bpf_task_pt_regs (before
	 * 5.15) and the registers' place not learned (compat.c) */
	uint64_t no_regs;
	/* followed syscall returns of a class this BPF object has no case for
	 * (user space's table and the object of different builds) */
	uint64_t unknown_class;
};

/* Failures of one kind from one place: the first OOMS_FAIL_FULL are sent
 * with their stack, then one each OOMS_FAIL_REFILL_NS at most; the rest are
 * only counted (a loop that retries a failing call must not flood the ring
 * buffer). "One place" is the kernel's user stack id, which cannot see past
 * a libc built without frame pointers: callers of the same libc function
 * may share a key, so the refill keeps later callers visible. */
#define OOMS_FAIL_FULL 4
#define OOMS_FAIL_REFILL_NS 10000000ull

struct ooms_fail_count {
	uint64_t count;       /* failures with this key */
	uint64_t last_sent_ns; /* when the last one was sent in full */
	uint64_t sent;        /* sent in full */
};

struct ooms_fail_key {
	int32_t stack_id;     /* user stack id in fail_stacks, or -1 */
	uint32_t nr;          /* syscall slot */
	int32_t err;          /* errno (positive) */
	uint32_t pad;
};

/* The last signal of each number sent to the target (index: signal number):
 * who sent it decides "who killed it" when the exit status names a signal. */
#define OOMS_NSIG 64 /* signals 1..63 (64, SIGRTMAX, is not followed) */
struct ooms_sig_rec {
	uint64_t ts_ns;
	uint64_t count;       /* signals of this number generated for the target */
	uint32_t sender_tgid; /* current task when it was generated */
	uint32_t sender_tid;
	int32_t code;         /* si_code: SI_USER 0, SI_KERNEL 0x80, SI_TKILL -6, > 0 from a fault */
	int32_t result;       /* 0 delivered, 1 ignored, 2 already pending, ... */
	char sender_comm[OOMS_COMM_LEN];
};

/* A SIGKILL or SIGTERM any process sent any other (the kill round of a
 * memory killer: the others it signalled near the target's end), in a ring
 * of OOMS_KILLS in .bss; kills_next counts them all. */
#define OOMS_KILLS 64
struct ooms_kill_rec {
	uint64_t ts_ns;
	uint32_t sender_tgid, victim_tgid;
	int32_t sig;
	int32_t pad;
	char sender_comm[OOMS_COMM_LEN];
	char victim_comm[OOMS_COMM_LEN];
};

/* oom:mark_victim for the target: the kernel's OOM killer chose it. */
struct ooms_oom_victim {
	uint64_t ts_ns;       /* 0: never */
	uint64_t total_vm_kb, anon_rss_kb, file_rss_kb, shmem_rss_kb, pgtables_kb;
	int32_t oom_score_adj;
	uint32_t killer_tgid; /* the task whose allocation ran out (current at the tracepoint) */
	char killer_comm[OOMS_COMM_LEN];
};

/* The target's end, written when its last thread exits. */
struct ooms_death {
	uint64_t ts_ns;       /* 0: still alive */
	int32_t exit_code;    /* wait status: exit code << 8, or the signal (| 0x80 with a core dump) */
	uint32_t last_tid;
	char last_comm[OOMS_COMM_LEN];
};

#endif
