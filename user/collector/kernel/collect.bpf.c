// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The collector's kernel side: threads, file descriptors and address space of
 * one target process (tgid), filtered in the kernel.
 *
 * - a followed syscall's result: from fexit on its handler where the kernel
 *   has BPF trampolines (x86_64; arm64 from 6.0), else from raw_syscalls:
 *   sys_exit, which every syscall of every process passes. The arguments are
 *   still in the saved user registers at exit, so no sys_enter is needed. The
 *   syscall number is mapped to a class through nr_class[], filled by user
 *   space from its per-architecture tables.
 * - sched:sched_process_fork / sched_process_exit (raw tracepoints) keep the
 *   thread set exact, whichever way a thread was made or died.
 * - a uprobe on the target libc's pthread_create remembers the start routine and
 *   the caller's stack for the clone that follows.
 *
 * Running totals live in `totals` (.bss, read by user space through mmap); the
 * fd and thread sets are hash maps, so a dup2 over an open fd or a double close
 * does not skew the counts. Attribution events go through one ring buffer;
 * every failed reservation is counted.
 *
 * One file over 650 lines on purpose: it is one BPF object, whose programs
 * share its maps and .bss totals, and the verifier sees it as one unit; the
 * parts that stand apart are in collect_fail.bpf.h, collect_death.bpf.h,
 * collect_allocs.bpf.h, collect_direct.bpf.h and collect_faults.bpf.h,
 * included here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "collect.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 target_tgid = 0;
const volatile __u64 big_map_bytes = 1 << 20;
const volatile __u64 big_alloc_bytes = 8 << 20;
const volatile __u8 big_alloc_mode = ALLOC_OFF;
const volatile __u32 alloc_stack_bytes = OOMS_STACK_DEPTH * 8; /* --stack-depth, in bytes */
const volatile __u64 page_size = 4096;
const volatile __u8 capture_fails = 1; /* --no-failures clears it */
const volatile __u8 nr_class[OOMS_NR_SLOTS] = {};
const volatile __u8 follow_children = 0; /* run (default) and watch --children */
/* A target of our own making (run's, a held child): stopped at each code
 * mapping until the collector has read its maps (it sends SIGCONT), so a
 * process that dies within milliseconds still has its stacks named. */
const volatile __u8 hold_code_maps = 0;
/* What this kernel's BPF has, probed by user space before load (compat.c):
 * without them the verifier never sees the calls (the branch is pruned). */
const volatile __u8 have_task_btf = 1;     /* bpf_get_current_task_btf: 5.11 */
const volatile __u8 have_task_pt_regs = 1; /* bpf_task_pt_regs: 5.15 */
const volatile __u32 collector_tgid = 0;
/* Without bpf_task_pt_regs: a task's saved user registers are at its
 * kernel stack's base plus this (THREAD_SIZE less the registers, and any
 * padding), learned by regs_learn from a syscall's own (0: not known) */
__u64 regs_off = 0;
/* how it was learned, for the start record and the tests: the runs of each
 * learner on the collector's own syscalls, and which learned it (1: the
 * sys_exit tracepoint, 2: the getppid kprobe); the collector thread's
 * thread_info flags as the kprobe saw them (TIF_SYSCALL_TRACEPOINT: whether
 * the tracepoint could have run for it) */
__u32 learn_tp_runs = 0, learn_kp_runs = 0, learned_by = 0;
__u64 learn_kp_tif = 0;

struct ooms_totals totals = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22); /* resized from the page size at load */
} events SEC(".maps");

/* The fd set as a bitmap: fd numbers are small and dense, and a bit flip is
 * far cheaper than a hash map update on the open/close path. Word i holds
 * fds 64*i .. 64*i+63. mmap-able, so user space seeds and repairs it directly. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1024); /* resized from RLIMIT_NOFILE at load */
	__type(key, __u32);
	__type(value, __u64);
} live_fds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, __u8);
} live_threads SEC(".maps");

/* A pthread_create call in flight on a thread: its start routine and stack,
 * for the clone it is about to make. */
struct pending_thread {
	__u64 start;
	__u64 sp;
	__u64 lr;
	__s32 stack_bytes;
	__u64 ustack[OOMS_STACK_DEPTH];
	__u64 slice[OOMS_SLICE_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct pending_thread);
} pending_threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pending_thread);
} pending_scratch SEC(".maps");

#define F_DUPFD 0
#define SIGSTOP_NR 19 /* x86_64 and the generic table (arm64) alike */
#define F_DUPFD_CLOEXEC 1030
#define MAX_ERRNO 4095

/* Processes the target forked, until their first followed syscall holds
 * them (SIGSTOP) for a collector of their own; children_pending counts
 * them so that other processes' syscalls skip the lookup while none waits. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} pending_children SEC(".maps");

__u32 children_pending = 0;

/* Set when the target's last thread exits: a process given its PID later
 * is not the target (nothing of it is counted, its end is not the target's). */
__u8 target_gone = 0;

/* The current task, typed where the kernel can (5.11), else read through
 * bpf_probe_read_kernel (BPF_CORE_READ) all the same. */
static __always_inline struct task_struct *current_task(void)
{
	if (have_task_btf)
		return bpf_get_current_task_btf();
	return (struct task_struct *)bpf_get_current_task();
}

/* The current task's saved user registers (read with BPF_CORE_READ only),
 * or NULL when this kernel has no bpf_task_pt_regs and their place is not
 * known yet. */
static __always_inline struct pt_regs *current_user_regs(void)
{
	void *stack;

	if (have_task_pt_regs)
		return (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!regs_off)
		return NULL;
	stack = BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), stack);
	return stack ? (struct pt_regs *)((char *)stack + regs_off) : NULL;
}

/* Attached for a moment at load where bpf_task_pt_regs is missing: the
 * collector's own syscall shows where the user registers sit. */
SEC("raw_tp/sys_exit")
int BPF_PROG(regs_learn, struct pt_regs *regs, long ret)
{
	__u64 stack;

	if (regs_off || (bpf_get_current_pid_tgid() >> 32) != collector_tgid)
		return 0;
	__sync_fetch_and_add(&learn_tp_runs, 1);
	stack = (__u64)BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), stack);
	if (stack && (__u64)regs > stack && (__u64)regs - stack < (1 << 20)) {
		regs_off = (__u64)regs - stack;
		learned_by = 1;
	}
	return 0;
}

/* The same from a kprobe on the architecture's getppid handler, attached
 * beside it: the syscall wrappers (__arm64_sys_getppid, __x64_sys_getppid)
 * take the saved user registers as their argument. It needs no syscall
 * tracepoint: on 5.10 in the VM, under load, the tracepoint above was in
 * some attaches never run on the collector's returns. */
SEC("kprobe")
int BPF_KPROBE(regs_learn_kp, struct pt_regs *uregs)
{
	struct task_struct *task;
	__u64 stack;

	if (regs_off || (bpf_get_current_pid_tgid() >> 32) != collector_tgid)
		return 0;
	__sync_fetch_and_add(&learn_kp_runs, 1);
	task = (struct task_struct *)bpf_get_current_task();
	if (bpf_core_field_exists(task->thread_info.flags))
		learn_kp_tif = BPF_CORE_READ(task, thread_info.flags);
	stack = (__u64)BPF_CORE_READ(task, stack);
	if (stack && (__u64)uregs > stack && (__u64)uregs - stack < (1 << 20)) {
		regs_off = (__u64)uregs - stack;
		learned_by = 2;
	}
	return 0;
}

static __always_inline int is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid && !target_gone;
}

#if defined(__TARGET_ARCH_x86)
static __always_inline long sys_nr(struct pt_regs *regs)
{
	return BPF_CORE_READ(regs, orig_ax);
}
static __always_inline int is_compat(struct pt_regs *regs)
{
	return 0; /* i386 apps on x86_64: not followed (docs/limits.md) */
}
static __always_inline __u64 user_sp(struct pt_regs *regs)
{
	return BPF_CORE_READ(regs, sp);
}
/* The return address is on the stack (in the slice): no link register. */
static __always_inline __u64 user_lr(struct pt_regs *regs)
{
	return 0;
}
#define UPROBE_LR(ctx) 0
#elif defined(__TARGET_ARCH_arm64)
static __always_inline long sys_nr(struct pt_regs *regs)
{
	return BPF_CORE_READ(regs, syscallno);
}
static __always_inline int is_compat(struct pt_regs *regs)
{
	return (BPF_CORE_READ(regs, pstate) & 0x10) != 0; /* PSR_MODE32_BIT */
}
/* an AArch32 task's sp and lr are r13 and r14 (the compat view of x13, x14) */
static __always_inline __u64 user_sp(struct pt_regs *regs)
{
	return is_compat(regs) ? BPF_CORE_READ(regs, regs[13]) & 0xffffffffULL : BPF_CORE_READ(regs, sp);
}
/* x30: the return address of a function that has not saved it yet (libc's
 * syscall wrappers are leaves; a uprobe fires before the prologue). User
 * space strips a pointer-authentication signature from it. */
static __always_inline __u64 user_lr(struct pt_regs *regs)
{
	return is_compat(regs) ? BPF_CORE_READ(regs, regs[14]) & 0xffffffffULL : BPF_CORE_READ(regs, regs[30]);
}
/* a uprobe's own context is the user registers (struct user_pt_regs) */
#define UPROBE_LR(ctx) PT_REGS_RET(ctx)
#else
#error "unsupported architecture"
#endif

static __always_inline __u64 page_up(__u64 len)
{
	return (len + page_size - 1) & ~(page_size - 1);
}

static __always_inline void read_slice(__u64 *slice, __u64 sp)
{
	/* Near the top of a stack a full slice may cross into an unmapped page:
	 * fall back to half. Zero where nothing could be read. */
	if (bpf_probe_read_user(slice, OOMS_SLICE_WORDS * 8, (void *)sp) == 0)
		return;
	__builtin_memset(slice, 0, OOMS_SLICE_WORDS * 8);
	bpf_probe_read_user(slice, OOMS_SLICE_WORDS * 4, (void *)sp);
}

/* Reserve an event and fill the fields every event has. */
static __always_inline struct ooms_event *event_start(__u16 type)
{
	struct ooms_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		__sync_fetch_and_add(&totals.ringbuf_drops, 1);
		return NULL;
	}
	e->type = type;
	e->version = OOMS_EVENT_VERSION;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->ts_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->ret = 0;
	e->arg0 = 0;
	e->arg1 = 0;
	e->live = 0;
	e->nr = 0;
	e->lr = 0;
	e->java_pc = 0;
	e->java_sp = 0;
	e->path[0] = 0;
	return e;
}

/* The signal the shim's handler takes (0: none armed), set by user space. */
__u32 java_signal = 0;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);   /* a place: the native stack's first return addresses, hashed */
	__type(value, struct ooms_java_place);
} java_places SEC(".maps");

/* Asks the creating thread's Java stack of the shim: a signal that its
 * handler takes when the thread returns to user space, at regs' pc and sp
 * (kept in the event: the report is matched by them and the thread). The
 * first creations of each place, then a sample. */
static __always_inline void java_ask(struct ooms_event *e, struct pt_regs *regs)
{
	struct ooms_java_place first = {(OOMS_JAVA_FULL - 1) * OOMS_JAVA_GAP_NS, e->ts_ns}, *p;
	__u64 key, credit;

	if (!java_signal || e->stack_bytes <= 0)
		return;
	/* the place: the frames the kernel walked (JIT-compiled callers differ
	 * there; interpreted ones all look alike) */
	key = 0;
	for (int i = 0; i < 12 && i < OOMS_STACK_DEPTH; i++)
		key = key * 1000003 + e->ustack[i];
	p = bpf_map_lookup_elem(&java_places, &key);
	if (!p) {
		bpf_map_update_elem(&java_places, &key, &first, BPF_ANY);
	} else {
		/* a race between CPUs may give one more or one less: a sample either way */
		credit = p->credit_ns + (e->ts_ns > p->last_ns ? e->ts_ns - p->last_ns : 0);
		if (credit > OOMS_JAVA_FULL * OOMS_JAVA_GAP_NS)
			credit = OOMS_JAVA_FULL * OOMS_JAVA_GAP_NS;
		p->last_ns = e->ts_ns;
		if (credit < OOMS_JAVA_GAP_NS) {
			p->credit_ns = credit;
			e->java_sp = OOMS_JAVA_SAMPLED_OUT;
			__sync_fetch_and_add(&totals.java_sampled_out, 1);
			return;
		}
		p->credit_ns = credit - OOMS_JAVA_GAP_NS;
	}
	if (bpf_send_signal_thread(java_signal) != 0) {
		e->java_sp = OOMS_JAVA_NO_SIGNAL;
		return;
	}
	e->java_pc = PT_REGS_IP_CORE(regs);
	e->java_sp = user_sp(regs);
	__sync_fetch_and_add(&totals.java_asked, 1);
}

static __always_inline void event_stack(void *ctx, struct ooms_event *e, __u64 sp, __u64 lr)
{
	e->stack_bytes = bpf_get_stack(ctx, e->ustack, sizeof(e->ustack), BPF_F_USER_STACK);
	e->sp = sp;
	e->lr = lr;
	read_slice(e->slice, sp);
}

/* Waking the consumer for every event costs the traced thread more than the
 * event itself, and so does asking the ring how full it is (its positions
 * bounce between CPUs): wake it every WAKEUP_EVERY events per CPU; the
 * consumer also polls on its own every few tens of milliseconds. */
#define WAKEUP_EVERY 512

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} since_wakeup SEC(".maps");

static __always_inline void event_send(struct ooms_event *e)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&since_wakeup, &zero);
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (n && ++*n >= WAKEUP_EVERY) {
		*n = 0;
		flags = BPF_RB_FORCE_WAKEUP;
	}
	bpf_ringbuf_submit(e, flags);
	__sync_fetch_and_add(&totals.events_sent, 1);
}

/* Only the call that made fd can set its bit, and only the one that closed it
 * can clear it, so reading the word and adding the bit cannot lose another
 * thread's update (atomic add works on kernels without fetch-or). */
static __always_inline void fd_bit_set(__s64 fd)
{
	__u32 idx = (__u64)fd >> 6;
	__u64 bit = 1ull << (fd & 63), *w;

	__sync_fetch_and_add(&totals.fd_opens, 1);
	w = bpf_map_lookup_elem(&live_fds, &idx);
	if (!w) {
		__sync_fetch_and_add(&totals.set_full_drops, 1);
		return;
	}
	if (!(*w & bit)) {
		__sync_fetch_and_add(w, bit);
		__sync_fetch_and_add(&totals.fds_live, 1);
	}
}

/* An fd made: its bit, and its event with the stack; the path an open
 * was given (cls SC_FD_PATH_A0/A1: arg0/arg1), or a socket's domain and
 * type, so that an fd closed or unlinked before /proc is read keeps them. */
static __always_inline void fd_added_cls(void *ctx, struct pt_regs *regs, long nr, __s64 fd, __s64 fd2, __u8 cls)
{
	struct ooms_event *e;

	fd_bit_set(fd);
	if (fd2 >= 0)
		fd_bit_set(fd2);

	e = event_start(EV_FD_OPEN);
	if (!e)
		return;
	e->ret = fd;
	e->arg0 = fd2;
	e->live = totals.fds_live;
	e->nr = nr;
	if (cls == SC_FD_PATH_A0 || cls == SC_FD_PATH_A1) {
		__u64 at = cls == SC_FD_PATH_A0 ? PT_REGS_PARM1_CORE_SYSCALL(regs) : PT_REGS_PARM2_CORE_SYSCALL(regs);

		/* a page not present (reclaimed since the kernel read it) cannot
		 * be faulted in here: its address goes, user space reads it */
		if (bpf_probe_read_user_str(e->path, sizeof(e->path), (void *)at) <= 0) {
			e->path[0] = 0;
			e->arg1 = OOMS_PATH_PTR_TAG | (at & (OOMS_PATH_PTR_TAG - 1));
		}
	} else if (cls == SC_FD_SOCKET)
		e->arg1 = OOMS_SOCKET_TAG | (PT_REGS_PARM1_CORE_SYSCALL(regs) & 0xffff) << 32 |
			  (PT_REGS_PARM2_CORE_SYSCALL(regs) & 0xffffffff);
	event_stack(ctx, e, user_sp(regs), user_lr(regs));
	java_ask(e, regs);
	event_send(e);
}

static __always_inline void fd_added(void *ctx, struct pt_regs *regs, long nr, __s64 fd, __s64 fd2)
{
	fd_added_cls(ctx, regs, nr, fd, fd2, SC_FD_RET);
}

static __always_inline void fd_pair(void *ctx, struct pt_regs *regs, long nr, __u64 uptr, __u8 cls)
{
	int fds[2] = {-1, -1};

	if (bpf_probe_read_user(fds, sizeof(fds), (void *)uptr) == 0)
		fd_added_cls(ctx, regs, nr, fds[0], fds[1], cls);
}

static __always_inline void fd_closed(__u64 fd)
{
	__u32 idx = fd >> 6;
	__u64 bit = 1ull << (fd & 63), *w;

	__sync_fetch_and_add(&totals.fd_closes, 1);
	w = bpf_map_lookup_elem(&live_fds, &idx);
	if (w && (*w & bit)) {
		__sync_fetch_and_add(w, -bit);
		__sync_fetch_and_add(&totals.fds_live, -1);
	}
}

/* A large range unmapped: sent without a stack. */
static __always_inline void unmap_big(__u64 addr, __u64 len)
{
	struct ooms_event *e;

	if (len < big_map_bytes)
		return;
	e = event_start(EV_MUNMAP_BIG);
	if (!e)
		return;
	e->ret = addr;
	e->arg0 = len;
	e->stack_bytes = 0;
	e->sp = 0;
	e->lr = 0;
	event_send(e);
}

static __always_inline void map_big(void *ctx, struct pt_regs *regs, long nr, __u64 addr,
				    __u64 len, __u64 flags)
{
	struct ooms_event *e;

	if (len < big_map_bytes)
		return;
	e = event_start(EV_MMAP_BIG);
	if (!e)
		return;
	e->ret = addr;
	e->arg0 = len;
	e->arg1 = flags;
	e->nr = nr;
	event_stack(ctx, e, user_sp(regs), user_lr(regs));
	java_ask(e, regs);
	event_send(e);
}

/* The deep stack slice of a big allocation: as much of 4 KiB as is mapped. */
static __always_inline void read_deep(__u64 *deep, __u64 sp)
{
	if (bpf_probe_read_user(deep, OOMS_DEEP_WORDS * 8, (void *)sp) == 0)
		return;
	if (bpf_probe_read_user(deep, OOMS_DEEP_WORDS * 4, (void *)sp) == 0)
		return;
	bpf_probe_read_user(deep, OOMS_DEEP_WORDS * 2, (void *)sp);
}

/* Fills a big allocation event (all but ret). */
static __always_inline void alloc_fill(void *ctx, struct ooms_alloc_event *a, __u64 sp, __u64 lr, __u64 bytes,
				       __u64 fn, __u32 nr)
{
	struct ooms_event *e = &a->ev;
	__u32 size = alloc_stack_bytes;

	e->type = EV_BIG_ALLOC;
	e->version = OOMS_EVENT_VERSION;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->ts_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->ret = 0;
	e->arg0 = bytes;
	e->arg1 = fn;
	e->live = 0;
	e->nr = nr;
	e->path[0] = 0;
	if (size > sizeof(e->ustack))
		size = sizeof(e->ustack);
	e->stack_bytes = bpf_get_stack(ctx, e->ustack, size, BPF_F_USER_STACK);
	e->sp = sp;
	e->lr = lr;
	read_slice(e->slice, sp);
	read_deep(a->deep, sp);
}

/* The last thread stack each thread mapped (MAP_STACK): glibc maps it
 * PROT_NONE and then makes all but the guard read+write with mprotect, which
 * is not memory asked for by the program. */
struct stack_range {
	__u64 start, end;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct stack_range);
} stack_maps SEC(".maps");

static __always_inline int in_new_stack(__u64 addr)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct stack_range *r = bpf_map_lookup_elem(&stack_maps, &tid);

	return r && addr >= r->start && addr < r->end;
}

/* A big allocation seen at a syscall (syscall mode). */
static __always_inline void alloc_syscall(void *ctx, struct pt_regs *regs, long nr, __u64 addr, __u64 bytes,
					  __u64 fn)
{
	struct ooms_alloc_event *a;

	if (big_alloc_mode != ALLOC_SYSCALL || bytes < big_alloc_bytes)
		return;
	__sync_fetch_and_add(&totals.big_allocs, 1);
	a = bpf_ringbuf_reserve(&events, sizeof(*a), 0);
	if (!a) {
		__sync_fetch_and_add(&totals.ringbuf_drops, 1);
		return;
	}
	alloc_fill(ctx, a, user_sp(regs), user_lr(regs), bytes, fn, nr);
	a->ev.ret = addr;
	event_send(&a->ev);
}

/* Calls that failed for want of a resource: their own file. */
#include "collect_fail.bpf.h"

/* New code in the target: the collector reads its maps at once (EV_CODE_MAP). */
static __always_inline void code_mapped(__u64 addr, __u64 len)
{
	struct ooms_event *e = event_start(EV_CODE_MAP);

	if (!e)
		return;
	e->ret = addr;
	e->arg0 = len;
	e->arg1 = hold_code_maps && bpf_send_signal(SIGSTOP_NR) == 0; /* 1: stopped until read */
	e->stack_bytes = 0;
	e->sp = 0;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	__sync_fetch_and_add(&totals.events_sent, 1);
}

static __always_inline void mmap_done(void *ctx, struct pt_regs *regs, long slot, long ret)
{
	__u64 len = page_up(PT_REGS_PARM2_CORE_SYSCALL(regs));
	__u64 flags = PT_REGS_PARM4_CORE_SYSCALL(regs);

	__sync_fetch_and_add(&totals.mmaps, 1);
	__sync_fetch_and_add(&totals.vm_delta_bytes, len);
	map_big(ctx, regs, slot, ret, len, flags);
	if ((PT_REGS_PARM3_CORE_SYSCALL(regs) & 4 /* PROT_EXEC */) && !(flags & 0x20 /* MAP_ANONYMOUS */))
		code_mapped(ret, len);
	/* Anonymous memory, but not a reservation (PROT_NONE: malloc's arena
	 * reserves, a runtime's heap reserves) nor a thread stack (MAP_STACK):
	 * neither is memory asked for at once. */
	if ((flags & (0x20 /* MAP_ANONYMOUS */ | 0x20000 /* MAP_STACK */)) == 0x20 &&
	    PT_REGS_PARM3_CORE_SYSCALL(regs) != 0 /* PROT_NONE */)
		alloc_syscall(ctx, regs, slot, ret, len, AF_MMAP);
	else if (big_alloc_mode == ALLOC_SYSCALL && len >= big_alloc_bytes && (flags & 0x20000 /* MAP_STACK */)) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		struct stack_range r = {ret, ret + len};

		bpf_map_update_elem(&stack_maps, &tid, &r, BPF_ANY);
	}
}

static __always_inline void mremap_done(void *ctx, struct pt_regs *regs, long slot, long ret)
{
	__u64 old_len = page_up(PT_REGS_PARM2_CORE_SYSCALL(regs));
	__u64 new_len = page_up(PT_REGS_PARM3_CORE_SYSCALL(regs));

	__u64 old_addr = PT_REGS_PARM1_CORE_SYSCALL(regs);

	__sync_fetch_and_add(&totals.mremaps, 1);
	__sync_fetch_and_add(&totals.vm_delta_bytes, (__s64)new_len - (__s64)old_len);
	if (ret < 0 && ret > -4096)
		return;
	/* what it no longer maps: all of the old range when it moved, the tail when it shrank */
	if ((__u64)ret != old_addr)
		unmap_big(old_addr, old_len);
	else if (new_len < old_len)
		unmap_big(old_addr + new_len, old_len - new_len);
	if (new_len > old_len) {
		map_big(ctx, regs, slot, ret, new_len, 0);
		alloc_syscall(ctx, regs, slot, ret, new_len - old_len, AF_MREMAP);
	}
}

static __always_inline void brk_done(void *ctx, struct pt_regs *regs, long slot, __u8 cls, long ret)
{
	__u64 prev = totals.brk_cur, want = PT_REGS_PARM1_CORE_SYSCALL(regs);

	__sync_fetch_and_add(&totals.brks, 1);
	totals.brk_cur = ret;
	/* brk(0) asks where the break is: a new baseline, never growth.
	 * After an exec (a launched target's break was its launcher's)
	 * it is the first brk the loader makes. */
	if (!want)
		return;
	if (prev && (__u64)ret != prev)
		__sync_fetch_and_add(&totals.vm_delta_bytes, (__s64)page_up(ret) - (__s64)page_up(prev));
	if (prev && (__u64)ret > prev)
		alloc_syscall(ctx, regs, slot, prev, (__u64)ret - prev, AF_BRK);
	/* brk fails by returning the old break: growth asked for, none given */
	if (capture_fails && (__u64)ret < want && (__u64)ret == prev)
		call_failed(ctx, regs, slot, cls, E_NOMEM, want - ret);
}

/* The current thread bears the name of the shim's fork-dump child (the
 * shim forks under it: user/collector/kernel/collect.h OOMS_DUMP_CHILD_COMM). */
static __always_inline int is_dump_child(void)
{
	static const char dump_child[] = OOMS_DUMP_CHILD_COMM;
	char comm[16];
	int same = 1;

	bpf_get_current_comm(comm, sizeof(comm));
	for (int i = 0; i < (int)sizeof(dump_child) - 1; i++)
		same &= comm[i] == dump_child[i];
	return same;
}

/* The current process, if it is a child of the target waiting to be held:
 * stopped where it stands (the signal is taken on the way back to user
 * space), and said, once. */
static __always_inline void child_hold(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct ooms_event *e;
	long stopped;

	if (!children_pending || !bpf_map_lookup_elem(&pending_children, &tgid))
		return;
	if (bpf_map_delete_elem(&pending_children, &tgid) != 0)
		return; /* another of its threads took it */
	__sync_fetch_and_add(&children_pending, -1);
	if (is_dump_child())
		return; /* the shim's fork-dump child: the heap's copy, not a process to watch */
	stopped = bpf_send_signal(SIGSTOP_NR) == 0;
	e = event_start(EV_CHILD_HELD);
	if (!e)
		return;
	e->ret = tgid;
	e->arg0 = stopped;
	e->stack_bytes = 0;
	e->sp = 0;
	event_send(e);
}

/* A followed syscall's result, with its arguments in the saved user
 * registers: from raw_syscalls:sys_exit or from fexit on its handler. */
static __noinline int on_sys_exit(void *ctx, struct pt_regs *regs, long ret)
{
	long nr, slot;
	__u8 cls;

	if (follow_children)
		child_hold();
	if (!is_target())
		return 0;
	nr = sys_nr(regs);
	if (nr < 0 || nr >= OOMS_COMPAT_BASE)
		return 0;
	slot = is_compat(regs) ? nr + OOMS_COMPAT_BASE : nr;
	if (slot < 0 || slot >= OOMS_NR_SLOTS)
		return 0;
	cls = nr_class[slot];
	if (cls == SC_NONE)
		return 0;
	/* a failed call changes nothing (mmap returns addresses, so check errno range);
	 * one that failed for want of a resource is recorded */
	if (ret < 0 && ret >= -MAX_ERRNO) {
		if (capture_fails && resource_error(cls, -ret, regs))
			call_failed(ctx, regs, slot, cls, -ret, fail_size(cls, regs));
		return 0;
	}

	switch (cls) {
	case SC_FD_RET:
		fd_added(ctx, regs, slot, ret, -1);
		break;
	case SC_FD_PATH_A0:
	case SC_FD_PATH_A1:
	case SC_FD_SOCKET:
		fd_added_cls(ctx, regs, slot, ret, -1, cls);
		break;
	case SC_FD_PAIR_A0:
		fd_pair(ctx, regs, slot, PT_REGS_PARM1_CORE_SYSCALL(regs), SC_FD_RET);
		break;
	case SC_FD_PAIR_A3:
		fd_pair(ctx, regs, slot, PT_REGS_PARM4_CORE_SYSCALL(regs), SC_FD_SOCKET); /* socketpair(domain, type, ..) */
		break;
	case SC_FCNTL: {
		__u64 cmd = PT_REGS_PARM2_CORE_SYSCALL(regs);

		if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
			fd_added(ctx, regs, slot, ret, -1);
		break;
	}
	case SC_CLOSE:
		fd_closed(PT_REGS_PARM1_CORE_SYSCALL(regs));
		break;
	case SC_MMAP:
		mmap_done(ctx, regs, slot, ret);
		break;
	case SC_MUNMAP:
		__sync_fetch_and_add(&totals.munmaps, 1);
		__sync_fetch_and_add(&totals.vm_delta_bytes,
				     -(__s64)page_up(PT_REGS_PARM2_CORE_SYSCALL(regs)));
		if (ret == 0)
			unmap_big(PT_REGS_PARM1_CORE_SYSCALL(regs), page_up(PT_REGS_PARM2_CORE_SYSCALL(regs)));
		break;
	case SC_MREMAP:
		mremap_done(ctx, regs, slot, ret);
		break;
	case SC_MPROTECT:
		/* exactly read+write: a reservation made usable (glibc grows a
		 * thread arena's heap so); not code (exec) nor guards (none) */
		if ((PT_REGS_PARM3_CORE_SYSCALL(regs) & 7) == 3 && !in_new_stack(PT_REGS_PARM1_CORE_SYSCALL(regs)))
			alloc_syscall(ctx, regs, slot, PT_REGS_PARM1_CORE_SYSCALL(regs),
				      page_up(PT_REGS_PARM2_CORE_SYSCALL(regs)), AF_MPROTECT);
		break;
	case SC_BRK:
		brk_done(ctx, regs, slot, cls, ret);
		break;
	case SC_CLONE:
		break; /* its successes: sched_process_fork's (threads, children) */
	default:
		/* a class user space put in nr_class that this program has no
		 * case for: counted (the end record's unknown.syscall_classes) */
		__sync_fetch_and_add(&totals.unknown_class, 1);
		break;
	}
	return 0;
}

/* Every syscall of every process on the machine passes here: the fallback. */
SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	return on_sys_exit(ctx, regs, ret);
}

/* syscalls:sys_exit_<name>, attached by user space to the followed
 * syscalls' events only: other processes still take the kernel's slow
 * syscall path (any syscall event sets it on every task), but run no BPF for
 * their other syscalls. The arguments come from the task's saved registers. */
SEC("tracepoint")
int tp_sys_exit(struct trace_event_raw_sys_exit *args)
{
	struct pt_regs *regs;

	if (follow_children)
		child_hold();
	if (!is_target())
		return 0;
	if (!(regs = current_user_regs())) {
		__sync_fetch_and_add(&totals.no_regs, 1);
		return 0;
	}
	return on_sys_exit(args, regs, args->ret);
}

/* fexit on the handlers of the followed syscalls only (__x64_sys_openat,
 * __arm64_sys_close...): user space names each program's function before
 * load (OOMS_FEXIT_SLOTS of them; those it leaves unnamed are not loaded).
 * Other processes' other syscalls pay nothing. */
#define FX(n)                                                                  \
	SEC("fexit")                                                           \
	int BPF_PROG(fx_##n, struct pt_regs *regs, long ret)                   \
	{                                                                      \
		return on_sys_exit(ctx, regs, ret);                            \
	}
/* ten programs fx_T0..fx_T9 */
#define FX10(t) FX(t##0) FX(t##1) FX(t##2) FX(t##3) FX(t##4) FX(t##5) FX(t##6) FX(t##7) FX(t##8) FX(t##9)
FX(0) FX(1) FX(2) FX(3) FX(4) FX(5) FX(6) FX(7) FX(8) FX(9)
FX10(1) FX10(2) FX10(3)
FX(40) FX(41) FX(42) FX(43) FX(44) FX(45) FX(46) FX(47)
/* the programs above are fx_0..fx_47: the slots user space names */
#if OOMS_FEXIT_SLOTS != 48
#error "OOMS_FEXIT_SLOTS must match the fx_N programs made here"
#endif

/* kretprobes on the same handlers, for kernels with neither trampolines nor
 * syscall events (Android's GKI on arm64): user space makes them in tracefs
 * (kernel/kprobe.c) and attaches this program to each. */
SEC("kretprobe")
int BPF_KRETPROBE(krp_sys_exit, long ret)
{
	struct pt_regs *regs;

	if (follow_children)
		child_hold();
	if (!is_target())
		return 0;
	if (!(regs = current_user_regs())) {
		__sync_fetch_and_add(&totals.no_regs, 1);
		return 0;
	}
	return on_sys_exit(ctx, regs, ret);
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(thread_new, struct task_struct *parent, struct task_struct *child)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct pending_thread *p;
	struct ooms_event *e;
	__u32 child_tid;
	__u8 one = 1;

	if (!is_target())
		return 0;
	if (BPF_CORE_READ(child, tgid) != target_tgid) { /* a child process */
		__u32 child_pid = BPF_CORE_READ(child, tgid);

		if (!follow_children || is_dump_child())
			return 0;
		if (bpf_map_update_elem(&pending_children, &child_pid, &one, BPF_NOEXIST) == 0)
			__sync_fetch_and_add(&children_pending, 1);
		e = event_start(EV_CHILD);
		if (!e)
			return 0;
		e->ret = child_pid;
		event_stack(ctx, e, user_sp(current_user_regs()), user_lr(current_user_regs()));
		event_send(e);
		return 0;
	}
	child_tid = BPF_CORE_READ(child, pid);
	__sync_fetch_and_add(&totals.thread_news, 1);
	if (bpf_map_update_elem(&live_threads, &child_tid, &one, BPF_NOEXIST) == 0)
		__sync_fetch_and_add(&totals.threads_live, 1);
	else if (!bpf_map_lookup_elem(&live_threads, &child_tid))
		__sync_fetch_and_add(&totals.set_full_drops, 1);

	e = event_start(EV_THREAD_NEW);
	if (!e)
		return 0;
	e->ret = child_tid;
	e->live = totals.threads_live;
	p = bpf_map_lookup_elem(&pending_threads, &tid);
	if (p) {
		/* made by pthread_create: the stack at its entry is the caller's */
		e->arg1 = p->start;
		e->stack_bytes = p->stack_bytes;
		e->sp = p->sp;
		e->lr = p->lr;
		__builtin_memcpy(e->ustack, p->ustack, sizeof(e->ustack));
		__builtin_memcpy(e->slice, p->slice, sizeof(e->slice));
		bpf_map_delete_elem(&pending_threads, &tid);
	} else {
		struct pt_regs *regs = current_user_regs();

		event_stack(ctx, e, user_sp(regs), user_lr(regs));
	}
	/* the creator returns from its clone with these registers */
	java_ask(e, current_user_regs());
	event_send(e);
	return 0;
}

/* The target's end: its wait status, the signals sent to it, the OOM
 * killer's choice, exec: their own file. */
#include "collect_death.bpf.h"

SEC("raw_tp/sched_process_exit")
int BPF_PROG(thread_exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct task_struct *task = current_task();

	if (!is_target())
		return 0;
	__sync_fetch_and_add(&totals.thread_exits, 1);
	bpf_map_delete_elem(&pending_threads, &tid);
	if (BPF_CORE_READ(task, signal, flags) & (SIGNAL_GROUP_EXIT | SIGNAL_GROUP_COREDUMP)) {
		/* The whole process is going (exit_group, a fatal signal): the
		 * set keeps the threads as they were at its death, and the name
		 * each had last, for the death record. */
		char comm[OOMS_COMM_LEN];

		bpf_get_current_comm(comm, sizeof(comm));
		bpf_map_update_elem(&dying_names, &tid, comm, BPF_ANY);
	} else if (bpf_map_delete_elem(&live_threads, &tid) == 0) {
		__sync_fetch_and_add(&totals.threads_live, -1);
	}
	target_died(tid);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(pthread_create_entry, void *thread, void *attr, void *start)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct pending_thread *p;
	__u32 zero = 0;

	if (!is_target())
		return 0;
	p = bpf_map_lookup_elem(&pending_scratch, &zero);
	if (!p)
		return 0;
	p->start = (__u64)start;
	p->sp = PT_REGS_SP(ctx);
	p->lr = UPROBE_LR(ctx);
	p->stack_bytes = bpf_get_stack(ctx, p->ustack, sizeof(p->ustack), BPF_F_USER_STACK);
	read_slice(p->slice, p->sp);
	bpf_map_update_elem(&pending_threads, &tid, p, BPF_ANY);
	return 0;
}

/* The allocators' uprobes (--big-alloc-mode uprobe): their own file, one
 * object with this one, since they share its ring buffer and totals. */
#include "collect_allocs.bpf.h"

/* HotSpot's Unsafe.allocateMemory (direct buffers' memory): its own file. */
#include "collect_direct.bpf.h"

/* Sampled page faults (the memory's growth by code): its own file. */
#include "collect_faults.bpf.h"
