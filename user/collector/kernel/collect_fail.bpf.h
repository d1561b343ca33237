/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Part of collect.bpf.c (included before sys_exit, which calls it): calls
 * that failed for want of a resource, with their stack, rate-limited per
 * place and counted exactly. */
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
	case SC_FD_PATH_A0:
	case SC_FD_PATH_A1:
	case SC_FD_SOCKET:
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
		/* the add's result unused: a plain atomic add (BPF_XADD, every
		 * kernel); a fetch-add is BPF_FETCH, which 5.10 refuses ("BPF_STX
		 * uses reserved fields"). The count sent is read after it: racing
		 * threads may send the same, the map's stays exact */
		__sync_fetch_and_add(&n->count, 1);
		count = n->count;
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
	event_stack(ctx, e, user_sp(regs), user_lr(regs));
	e->java_pc = 0;
	e->java_sp = 0;
	java_ask(e, regs);
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

