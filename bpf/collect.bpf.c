// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The collector's kernel side: threads, file descriptors and address space of
 * one target process (tgid), filtered in the kernel.
 *
 * - raw_syscalls:sys_exit (raw tracepoint) sees every syscall's result. The
 *   arguments are still in the saved user registers at exit, so one program per
 *   syscall is enough (no sys_enter). The syscall number is mapped to a class
 *   through nr_class[], filled by user space from its per-architecture tables.
 * - sched:sched_process_fork / sched_process_exit (raw tracepoints) keep the
 *   thread set exact, whichever way a thread was made or died.
 * - a uprobe on the target libc's pthread_create remembers the start routine and
 *   the caller's stack for the clone that follows.
 *
 * Running totals live in `totals` (.bss, read by user space through mmap); the
 * fd and thread sets are hash maps, so a dup2 over an open fd or a double close
 * does not skew the counts. Attribution events go through one ring buffer;
 * every failed reservation is counted.
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
#define F_DUPFD_CLOEXEC 1030
#define MAX_ERRNO 4095

static __always_inline int is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
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
#elif defined(__TARGET_ARCH_arm64)
static __always_inline long sys_nr(struct pt_regs *regs)
{
	return BPF_CORE_READ(regs, syscallno);
}
static __always_inline int is_compat(struct pt_regs *regs)
{
	return (BPF_CORE_READ(regs, pstate) & 0x10) != 0; /* PSR_MODE32_BIT */
}
static __always_inline __u64 user_sp(struct pt_regs *regs)
{
	return BPF_CORE_READ(regs, sp);
}
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
	return e;
}

static __always_inline void event_stack(void *ctx, struct ooms_event *e, __u64 sp)
{
	e->stack_bytes = bpf_get_stack(ctx, e->ustack, sizeof(e->ustack), BPF_F_USER_STACK);
	e->sp = sp;
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

static __always_inline void fd_added(void *ctx, struct pt_regs *regs, long nr, __s64 fd, __s64 fd2)
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
	event_stack(ctx, e, user_sp(regs));
	event_send(e);
}

static __always_inline void fd_pair(void *ctx, struct pt_regs *regs, long nr, __u64 uptr)
{
	int fds[2] = {-1, -1};

	if (bpf_probe_read_user(fds, sizeof(fds), (void *)uptr) == 0)
		fd_added(ctx, regs, nr, fds[0], fds[1]);
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
	event_stack(ctx, e, user_sp(regs));
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
static __always_inline void alloc_fill(void *ctx, struct ooms_alloc_event *a, __u64 sp, __u64 bytes, __u64 fn,
				       __u32 nr)
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
	if (size > sizeof(e->ustack))
		size = sizeof(e->ustack);
	e->stack_bytes = bpf_get_stack(ctx, e->ustack, size, BPF_F_USER_STACK);
	e->sp = sp;
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
	alloc_fill(ctx, a, user_sp(regs), bytes, fn, nr);
	a->ev.ret = addr;
	event_send(&a->ev);
}

/* ---- calls that failed for want of a resource ----
 * Seen on the same sys_exit program, after the success path has returned:
 * nothing is added to a call that succeeds. */

#define E_AGAIN 11
#define E_NOMEM 12
#define E_NFILE 23
#define E_MFILE 24

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1024);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OOMS_STACK_DEPTH * sizeof(__u64));
} fail_stacks SEC(".maps");

/* failures per (stack, syscall, errno): exact counts, read by user space */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct ooms_fail_key);
	__type(value, struct ooms_fail_count);
} fail_counts SEC(".maps");

/* Is err, from a call of class cls, a resource running out? */
static __always_inline int resource_error(__u8 cls, long err, struct pt_regs *regs)
{
	switch (cls) {
	case SC_FD_RET:
	case SC_FD_PAIR_A0:
	case SC_FD_PAIR_A3:
		return err == E_MFILE || err == E_NFILE;
	case SC_FCNTL: {
		__u64 cmd = PT_REGS_PARM2_CORE_SYSCALL(regs);

		return (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && (err == E_MFILE || err == E_NFILE);
	}
	case SC_CLONE:
		return err == E_AGAIN || err == E_NOMEM;
	case SC_MMAP:
	case SC_MREMAP:
		return err == E_NOMEM;
	case SC_MPROTECT: /* committing reserved memory, not a bad address range */
		return err == E_NOMEM && (PT_REGS_PARM3_CORE_SYSCALL(regs) & 7) == 3;
	}
	return 0;
}

static __always_inline void call_failed(void *ctx, struct pt_regs *regs, long slot, __u8 cls, long err,
					__u64 bytes)
{
	struct ooms_fail_key key = {};
	struct ooms_fail_count first = {1, 0, 1}, *n;
	struct ooms_alloc_event *a;
	struct ooms_event *e;
	__u64 count = 1, now = bpf_ktime_get_ns();

	__sync_fetch_and_add(&totals.call_fails, 1);
	key.stack_id = bpf_get_stackid(ctx, &fail_stacks, BPF_F_USER_STACK);
	if (key.stack_id < 0)
		key.stack_id = -1;
	key.nr = slot;
	key.err = err;
	first.last_sent_ns = now;
	n = bpf_map_lookup_elem(&fail_counts, &key);
	if (n) {
		count = __sync_fetch_and_add(&n->count, 1) + 1;
		/* racing threads may both pass: a few more sent, never fewer counted */
		if (n->sent >= OOMS_FAIL_FULL && now - n->last_sent_ns < OOMS_FAIL_REFILL_NS)
			return;
		n->last_sent_ns = now;
		__sync_fetch_and_add(&n->sent, 1);
	} else if (bpf_map_update_elem(&fail_counts, &key, &first, BPF_NOEXIST)) {
		__sync_fetch_and_add(&totals.set_full_drops, 1); /* table full: counted in totals only */
	}
	/* with the deep slice of a big allocation: the failing call is deep in
	 * libc (clone3 under pthread_create), built without frame pointers */
	a = bpf_ringbuf_reserve(&events, sizeof(*a), 0);
	if (!a) {
		__sync_fetch_and_add(&totals.ringbuf_drops, 1);
		return;
	}
	e = &a->ev;
	e->type = EV_CALL_FAIL;
	e->version = OOMS_EVENT_VERSION;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->ts_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->ret = -err;
	e->arg0 = bytes;
	e->arg1 = (__u64)(__u32)key.stack_id << 32 | (__u32)count;
	e->live = cls == SC_CLONE ? totals.threads_live : totals.fds_live;
	e->nr = slot;
	event_stack(ctx, e, user_sp(regs));
	read_deep(a->deep, e->sp);
	/* a failure is what the collector must see before the process dies */
	bpf_ringbuf_submit(a, BPF_RB_FORCE_WAKEUP);
	__sync_fetch_and_add(&totals.events_sent, 1);
	__sync_fetch_and_add(&totals.call_fails_sent, 1);
}

/* What a failed call asked for: bytes for memory calls, flags for clone. */
static __always_inline __u64 fail_size(__u8 cls, struct pt_regs *regs)
{
	switch (cls) {
	case SC_MMAP:
		return page_up(PT_REGS_PARM2_CORE_SYSCALL(regs));
	case SC_MREMAP:
		return page_up(PT_REGS_PARM3_CORE_SYSCALL(regs));
	case SC_MPROTECT:
		return page_up(PT_REGS_PARM2_CORE_SYSCALL(regs));
	case SC_CLONE:
		return PT_REGS_PARM1_CORE_SYSCALL(regs); /* clone flags; clone3: its args pointer */
	}
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	long nr, slot;
	__u8 cls;

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
	case SC_FD_PAIR_A0:
		fd_pair(ctx, regs, slot, PT_REGS_PARM1_CORE_SYSCALL(regs));
		break;
	case SC_FD_PAIR_A3:
		fd_pair(ctx, regs, slot, PT_REGS_PARM4_CORE_SYSCALL(regs));
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
	case SC_MMAP: {
		__u64 len = page_up(PT_REGS_PARM2_CORE_SYSCALL(regs));

		__sync_fetch_and_add(&totals.mmaps, 1);
		__sync_fetch_and_add(&totals.vm_delta_bytes, len);
		map_big(ctx, regs, slot, ret, len, PT_REGS_PARM4_CORE_SYSCALL(regs));
		/* Anonymous memory, but not a reservation (PROT_NONE: malloc's arena
		 * reserves, a runtime's heap reserves) nor a thread stack (MAP_STACK):
		 * neither is memory asked for at once. */
		if ((PT_REGS_PARM4_CORE_SYSCALL(regs) & (0x20 /* MAP_ANONYMOUS */ | 0x20000 /* MAP_STACK */)) == 0x20 &&
		    PT_REGS_PARM3_CORE_SYSCALL(regs) != 0 /* PROT_NONE */)
			alloc_syscall(ctx, regs, slot, ret, len, AF_MMAP);
		else if (big_alloc_mode == ALLOC_SYSCALL && len >= big_alloc_bytes &&
			 (PT_REGS_PARM4_CORE_SYSCALL(regs) & 0x20000 /* MAP_STACK */)) {
			__u32 tid = (__u32)bpf_get_current_pid_tgid();
			struct stack_range r = {ret, ret + len};

			bpf_map_update_elem(&stack_maps, &tid, &r, BPF_ANY);
		}
		break;
	}
	case SC_MUNMAP:
		__sync_fetch_and_add(&totals.munmaps, 1);
		__sync_fetch_and_add(&totals.vm_delta_bytes,
				     -(__s64)page_up(PT_REGS_PARM2_CORE_SYSCALL(regs)));
		break;
	case SC_MREMAP: {
		__u64 old_len = page_up(PT_REGS_PARM2_CORE_SYSCALL(regs));
		__u64 new_len = page_up(PT_REGS_PARM3_CORE_SYSCALL(regs));

		__sync_fetch_and_add(&totals.mremaps, 1);
		__sync_fetch_and_add(&totals.vm_delta_bytes, (__s64)new_len - (__s64)old_len);
		if (new_len > old_len) {
			map_big(ctx, regs, slot, ret, new_len, 0);
			alloc_syscall(ctx, regs, slot, ret, new_len - old_len, AF_MREMAP);
		}
		break;
	}
	case SC_MPROTECT: {
		/* exactly read+write: a reservation made usable (glibc grows a
		 * thread arena's heap so); not code (exec) nor guards (none) */
		if ((PT_REGS_PARM3_CORE_SYSCALL(regs) & 7) == 3 && !in_new_stack(PT_REGS_PARM1_CORE_SYSCALL(regs)))
			alloc_syscall(ctx, regs, slot, PT_REGS_PARM1_CORE_SYSCALL(regs),
				      page_up(PT_REGS_PARM2_CORE_SYSCALL(regs)), AF_MPROTECT);
		break;
	}
	case SC_BRK: {
		__u64 prev = totals.brk_cur;

		__sync_fetch_and_add(&totals.brks, 1);
		totals.brk_cur = ret;
		/* brk(0) asks where the break is: a new baseline, never growth.
		 * After an exec (a launched target's break was its launcher's)
		 * it is the first brk the loader makes. */
		if (!PT_REGS_PARM1_CORE_SYSCALL(regs))
			break;
		if (prev && (__u64)ret != prev)
			__sync_fetch_and_add(&totals.vm_delta_bytes,
					     (__s64)page_up(ret) - (__s64)page_up(prev));
		if (prev && (__u64)ret > prev)
			alloc_syscall(ctx, regs, slot, prev, (__u64)ret - prev, AF_BRK);
		/* brk fails by returning the old break: growth asked for, none given */
		if (capture_fails && (__u64)ret < PT_REGS_PARM1_CORE_SYSCALL(regs) && (__u64)ret == prev)
			call_failed(ctx, regs, slot, cls, E_NOMEM, PT_REGS_PARM1_CORE_SYSCALL(regs) - ret);
		break;
	}
	}
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(thread_new, struct task_struct *parent, struct task_struct *child)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct pending_thread *p;
	struct ooms_event *e;
	__u32 child_tid;
	__u8 one = 1;

	if (!is_target() || BPF_CORE_READ(child, tgid) != target_tgid)
		return 0; /* not ours, or a child process rather than a thread */
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
		__builtin_memcpy(e->ustack, p->ustack, sizeof(e->ustack));
		__builtin_memcpy(e->slice, p->slice, sizeof(e->slice));
		bpf_map_delete_elem(&pending_threads, &tid);
	} else {
		struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

		event_stack(ctx, e, BPF_CORE_READ(regs, sp));
	}
	event_send(e);
	return 0;
}

struct ooms_sig_rec last_sig[OOMS_NSIG] = {};
struct ooms_oom_victim oom = {};
struct ooms_death death = {};

/* The last thread of the target is leaving (signal->live was decremented
 * before this tracepoint): keep its wait status, and wake the collector. */
static __always_inline void target_died(__u32 tid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct ooms_event *e;

	if (BPF_CORE_READ(task, signal, live.counter) != 0)
		return;
	death.exit_code = BPF_CORE_READ(task, exit_code);
	death.last_tid = tid;
	bpf_get_current_comm(death.last_comm, sizeof(death.last_comm));
	death.ts_ns = bpf_ktime_get_ns();
	e = event_start(EV_DEATH);
	if (!e)
		return;
	e->ret = death.exit_code;
	e->stack_bytes = 0;
	e->sp = 0;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	__sync_fetch_and_add(&totals.events_sent, 1);
}

/* include/linux/sched/signal.h (defines, not in BTF); COREDUMP is 5.x's */
#define SIGNAL_GROUP_EXIT 0x4
#define SIGNAL_GROUP_COREDUMP 0x8

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, char[OOMS_COMM_LEN]);
} dying_names SEC(".maps");

SEC("raw_tp/sched_process_exit")
int BPF_PROG(thread_exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct task_struct *task = bpf_get_current_task_btf();

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

/* Every signal generated for the target, by number: the last one's sender.
 * Signals are few; the record stays in .bss, nothing is sent. */
SEC("raw_tp/signal_generate")
int BPF_PROG(signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *task, int group,
	     int result)
{
	struct ooms_sig_rec *r;
	__u32 idx;
	__u64 id;

	if (BPF_CORE_READ(task, tgid) != target_tgid || sig <= 0 || sig >= OOMS_NSIG)
		return 0;
	idx = sig;
	asm volatile("" : "+r"(idx)); /* the compiler must not drop the mask: the verifier needs it */
	r = &last_sig[idx & (OOMS_NSIG - 1)];
	id = bpf_get_current_pid_tgid();
	r->ts_ns = bpf_ktime_get_ns();
	__sync_fetch_and_add(&r->count, 1);
	r->sender_tgid = id >> 32;
	r->sender_tid = (__u32)id;
	/* SEND_SIG_NOINFO (0) and SEND_SIG_PRIV (1) are not pointers */
	if ((unsigned long)info > 1)
		r->code = BPF_CORE_READ(info, si_code);
	else
		r->code = (unsigned long)info ? 0x80 /* SI_KERNEL */ : 0 /* SI_USER */;
	r->result = result;
	bpf_get_current_comm(r->sender_comm, sizeof(r->sender_comm));
	return 0;
}

/* The kernel's OOM killer chose the target (global, or its memory cgroup's
 * limit): what it had, as the kernel counted it. */
SEC("tp/oom/mark_victim")
int oom_victim(struct trace_event_raw_mark_victim *tp)
{
	struct ooms_event *e;

	if ((__u32)BPF_CORE_READ(tp, pid) != target_tgid)
		return 0;
	oom.ts_ns = bpf_ktime_get_ns();
	if (bpf_core_field_exists(tp->anon_rss)) { /* kernels before 6.2 give only the pid */
		oom.total_vm_kb = BPF_CORE_READ(tp, total_vm);
		oom.anon_rss_kb = BPF_CORE_READ(tp, anon_rss);
		oom.file_rss_kb = BPF_CORE_READ(tp, file_rss);
		oom.shmem_rss_kb = BPF_CORE_READ(tp, shmem_rss);
		oom.pgtables_kb = BPF_CORE_READ(tp, pgtables);
		oom.oom_score_adj = BPF_CORE_READ(tp, oom_score_adj);
	}
	oom.killer_tgid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(oom.killer_comm, sizeof(oom.killer_comm));
	e = event_start(EV_OOM_VICTIM);
	if (!e)
		return 0;
	e->stack_bytes = 0;
	e->sp = 0;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	__sync_fetch_and_add(&totals.events_sent, 1);
	return 0;
}

/* exec closes the close-on-exec fds without a close call: the set drops
 * what the new program no longer has (a launched target execs right after
 * attach, with whatever its launcher had open). The first 4096 fds are
 * checked, bit by bit against the kernel's open_fds. */
#define EXEC_FD_WORDS 64

SEC("raw_tp/sched_process_exec")
int BPF_PROG(target_exec, struct task_struct *p)
{
	struct fdtable *fdt;
	unsigned long *open;
	__u32 max;

	if (!is_target())
		return 0;
	fdt = BPF_CORE_READ(p, files, fdt);
	open = BPF_CORE_READ(fdt, open_fds);
	max = BPF_CORE_READ(fdt, max_fds);
	for (__u32 w = 0; w < EXEC_FD_WORDS; w++) {
		__u64 bits = 0, gone, *have;
		__u32 idx = w;

		if (w * 64 >= max || bpf_probe_read_kernel(&bits, sizeof(bits), &open[w]))
			break;
		have = bpf_map_lookup_elem(&live_fds, &idx);
		if (!have)
			break;
		gone = *have & ~bits;
		if (gone) {
			__sync_fetch_and_add(have, -gone); /* gone is a subset of *have */
			__sync_fetch_and_add(&totals.fds_live, -(__s64)__builtin_popcountll(gone));
		}
	}
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
	p->stack_bytes = bpf_get_stack(ctx, p->ustack, sizeof(p->ustack), BPF_F_USER_STACK);
	read_slice(p->slice, p->sp);
	bpf_map_update_elem(&pending_threads, &tid, p, BPF_ANY);
	return 0;
}

/* ---- big allocations, uprobe mode ----
 * Entry probes on the target's allocator see the size; only calls at or over
 * big_alloc_bytes go further. Without return probes the event leaves at once
 * (address unknown). With them (--big-alloc-live) it waits per thread for
 * the return, which gives the address; the address is then remembered so a
 * later free() or realloc() of it reports the block freed. */

struct pending_alloc {
	struct ooms_alloc_event a;
	__u64 memptr; /* posix_memalign: where the address is stored */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct pending_alloc);
} pending_allocs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pending_alloc);
} alloc_scratch SEC(".maps");

/* address -> bytes << 8 | fn of the live big blocks */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u64);
} live_allocs SEC(".maps");

/* A reported call that calls another probed allocator with the same size
 * (operator new[] -> operator new -> malloc, realloc(NULL, n) -> malloc):
 * its size and stack pointer per thread, so the inner calls are not
 * reported again. Inner calls run at or below the outer's sp (a tail call
 * keeps it), within a few frames. */
struct outer_call {
	__u64 bytes;
	__u64 sp;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct outer_call);
} outer_alloc SEC(".maps");

#define NESTED_SP_WINDOW 4096

const volatile __u8 alloc_live = 0;

static __always_inline int alloc_enter(struct pt_regs *ctx, __u64 fn, __u64 bytes, __u64 memptr)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct pending_alloc *p;
	struct ooms_alloc_event *a;

	struct outer_call *outer, call;
	__u64 sp = PT_REGS_SP(ctx);

	if (bytes < big_alloc_bytes || !is_target())
		return 0;
	outer = bpf_map_lookup_elem(&outer_alloc, &tid);
	if (outer && outer->bytes == bytes && sp <= outer->sp && outer->sp - sp < NESTED_SP_WINDOW) {
		if (fn == AF_MALLOC) /* the innermost: the outer call is done with */
			bpf_map_delete_elem(&outer_alloc, &tid);
		return 0; /* reported by the call that made it */
	}
	if (fn == AF_NEW || fn == AF_NEW_ARRAY || (fn == AF_REALLOC && !memptr)) {
		call.bytes = bytes;
		call.sp = sp;
		bpf_map_update_elem(&outer_alloc, &tid, &call, BPF_ANY);
	}
	__sync_fetch_and_add(&totals.big_allocs, 1);
	if (!alloc_live) {
		a = bpf_ringbuf_reserve(&events, sizeof(*a), 0);
		if (!a) {
			__sync_fetch_and_add(&totals.ringbuf_drops, 1);
			return 0;
		}
		alloc_fill(ctx, a, sp, bytes, fn, 0);
		event_send(&a->ev);
		return 0;
	}
	p = bpf_map_lookup_elem(&alloc_scratch, &zero);
	if (!p)
		return 0;
	alloc_fill(ctx, &p->a, sp, bytes, fn, 0);
	p->memptr = fn == AF_POSIX_MEMALIGN ? memptr : 0;
	if (bpf_map_update_elem(&pending_allocs, &tid, p, BPF_ANY))
		__sync_fetch_and_add(&totals.set_full_drops, 1); /* over 1024 threads in a big call */
	return 0;
}

/* Heap pointers on Android 11+ (arm64) carry a tag in the top byte, and a
 * block may be freed through a pointer with another tag than malloc returned
 * (KOOM's native-leak monitor matched nothing there): compare untagged. */
static __always_inline __u64 untag(__u64 ptr)
{
#if defined(__TARGET_ARCH_arm64)
	return ptr & 0x00ffffffffffffffULL;
#else
	return ptr;
#endif
}

/* free(ptr), or the old block of realloc(ptr, n): a live big block is gone. */
static __always_inline void alloc_gone(__u64 ptr, __u64 fn)
{
	__u64 *v, bytes;
	struct ooms_event *e;

	ptr = untag(ptr);
	if (!ptr || !alloc_live)
		return;
	v = bpf_map_lookup_elem(&live_allocs, &ptr);
	if (!v)
		return;
	bytes = *v >> 8;
	bpf_map_delete_elem(&live_allocs, &ptr);
	__sync_fetch_and_add(&totals.big_frees, 1);
	e = event_start(EV_ALLOC_FREE);
	if (!e)
		return;
	e->ret = ptr;
	e->arg0 = bytes;
	e->arg1 = fn;
	e->stack_bytes = 0;
	e->sp = 0;
	event_send(e);
}

SEC("uprobe")
int BPF_KPROBE(malloc_entry, __u64 bytes) { return alloc_enter(ctx, AF_MALLOC, bytes, 0); }

SEC("uprobe")
int BPF_KPROBE(calloc_entry, __u64 n, __u64 each)
{
	if ((n >> 32) || (each >> 32))
		return 0; /* would overflow or exceed any heap: calloc fails */
	return alloc_enter(ctx, AF_CALLOC, n * each, 0);
}

SEC("uprobe")
int BPF_KPROBE(realloc_entry, __u64 ptr, __u64 bytes)
{
	if (!is_target())
		return 0;
	alloc_gone(ptr, AF_REALLOC);
	/* realloc(NULL, n) calls malloc: mark it outer with memptr 0 */
	return alloc_enter(ctx, AF_REALLOC, bytes, ptr ? 1 : 0);
}

SEC("uprobe")
int BPF_KPROBE(posix_memalign_entry, __u64 memptr, __u64 align, __u64 bytes)
{
	return alloc_enter(ctx, AF_POSIX_MEMALIGN, bytes, memptr);
}

SEC("uprobe")
int BPF_KPROBE(aligned_alloc_entry, __u64 align, __u64 bytes) { return alloc_enter(ctx, AF_ALIGNED_ALLOC, bytes, 0); }

SEC("uprobe")
int BPF_KPROBE(memalign_entry, __u64 align, __u64 bytes) { return alloc_enter(ctx, AF_MEMALIGN, bytes, 0); }

SEC("uprobe")
int BPF_KPROBE(valloc_entry, __u64 bytes) { return alloc_enter(ctx, AF_VALLOC, bytes, 0); }

SEC("uprobe")
int BPF_KPROBE(new_entry, __u64 bytes) { return alloc_enter(ctx, AF_NEW, bytes, 0); }

SEC("uprobe")
int BPF_KPROBE(new_array_entry, __u64 bytes) { return alloc_enter(ctx, AF_NEW_ARRAY, bytes, 0); }

SEC("uprobe")
int BPF_KPROBE(free_entry, __u64 ptr)
{
	if (is_target())
		alloc_gone(ptr, AF_FREE);
	return 0;
}

/* The return of any probed allocator: the address of the block. */
SEC("uretprobe")
int BPF_KRETPROBE(alloc_return, __u64 rc)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct pending_alloc *p;
	struct ooms_alloc_event *a;
	struct ooms_event *e;
	__u64 addr = rc, v;

	if (!is_target())
		return 0;
	p = bpf_map_lookup_elem(&pending_allocs, &tid);
	if (!p)
		return 0;
	if (p->a.ev.arg1 == AF_POSIX_MEMALIGN) {
		addr = 0;
		if (rc == 0) /* success: the address is in *memptr */
			bpf_probe_read_user(&addr, sizeof(addr), (void *)p->memptr);
	}
	a = bpf_ringbuf_reserve(&events, sizeof(*a), 0);
	if (!a) {
		__sync_fetch_and_add(&totals.ringbuf_drops, 1);
		bpf_map_delete_elem(&pending_allocs, &tid);
		return 0;
	}
	bpf_probe_read_kernel(a, sizeof(*a), &p->a);
	e = &a->ev;
	addr = untag(addr);
	e->ret = addr;
	if (addr) {
		v = p->a.ev.arg0 << 8 | (p->a.ev.arg1 & 0xff);
		/* a full table: this block's free goes unseen; counted, never silent */
		if (bpf_map_update_elem(&live_allocs, &addr, &v, BPF_ANY))
			__sync_fetch_and_add(&totals.set_full_drops, 1);
	}
	bpf_map_delete_elem(&pending_allocs, &tid);
	event_send(e);
	return 0;
}
