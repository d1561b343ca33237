/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Part of collect.bpf.c (included before sched_process_exit, which calls
 * target_died): how the target ends. The records stay in .bss for user space
 * to read; EV_DEATH and EV_OOM_VICTIM wake the collector. */
struct ooms_sig_rec last_sig[OOMS_NSIG] = {};
struct ooms_oom_victim oom = {};
struct ooms_death death = {};
struct ooms_kill_rec kills[OOMS_KILLS] = {};
__u64 kills_next = 0;

/* Any process's SIGKILL or SIGTERM to another process's group: the ring of
 * the last OOMS_KILLS (a memory killer's round around the target's end). */
static __always_inline void note_kill(int sig, struct task_struct *task)
{
	__u64 id = bpf_get_current_pid_tgid(), n;
	__u32 victim = BPF_CORE_READ(task, tgid);
	struct ooms_kill_rec *k;

	if ((sig != 9 && sig != 15) || (__u32)(id >> 32) == victim)
		return;
	/* not an atomic fetch-add, whose result needs 5.12's BPF_FETCH: two
	 * kills on two CPUs at once may share a slot (one is lost) */
	n = kills_next;
	kills_next = n + 1;
	k = &kills[n & (OOMS_KILLS - 1)];
	k->ts_ns = bpf_ktime_get_ns();
	k->sender_tgid = id >> 32;
	k->victim_tgid = victim;
	k->sig = sig;
	bpf_get_current_comm(k->sender_comm, sizeof(k->sender_comm));
	BPF_CORE_READ_STR_INTO(&k->victim_comm, task, group_leader, comm);
}

/* The last thread of the target is leaving (signal->live was decremented
 * before this tracepoint): keep its wait status, and wake the collector. */
static __always_inline void target_died(__u32 tid)
{
	struct task_struct *task = current_task();
	struct ooms_event *e;

	if (BPF_CORE_READ(task, signal, live.counter) != 0)
		return;
	target_gone = 1;
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

/* Every signal generated for the target, by number: the last one's sender.
 * Signals are few; the record stays in .bss, nothing is sent. */
SEC("raw_tp/signal_generate")
int BPF_PROG(signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *task, int group,
	     int result)
{
	struct ooms_sig_rec *r;
	__u32 idx;
	__u64 id;

	note_kill(sig, task);
	if (BPF_CORE_READ(task, tgid) != target_tgid || target_gone || sig <= 0 || sig >= OOMS_NSIG)
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

/* Kernels before 6.2 count a process's pages in an array of atomics (then
 * in per-CPU counters, which the tracepoint reads for us) */
struct mm_rss_stat___atomic {
	atomic_long_t count[4];
} __attribute__((preserve_access_index));
struct mm_struct___atomic {
	unsigned long total_vm;
	struct mm_rss_stat___atomic rss_stat;
} __attribute__((preserve_access_index));
enum { MM_FILEPAGES_ = 0, MM_ANONPAGES_ = 1, MM_SHMEMPAGES_ = 3 };

/* Before 6.2 the tracepoint gives only the pid: the victim's pages are read
 * from its mm, when the victim is the task that ran out (a memory cgroup's
 * only process, as a rule), before its exit tears the mm down. */
static __always_inline void oom_pages_from_mm(void)
{
	struct mm_struct___atomic *mm;
	__u64 kb = page_size / 1024;

	if (!bpf_core_type_exists(struct mm_rss_stat___atomic) || (bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return;
	mm = (void *)BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), mm);
	if (!mm)
		return;
	oom.total_vm_kb = BPF_CORE_READ(mm, total_vm) * kb;
	oom.anon_rss_kb = (__u64)BPF_CORE_READ(mm, rss_stat.count[MM_ANONPAGES_].counter) * kb;
	oom.file_rss_kb = (__u64)BPF_CORE_READ(mm, rss_stat.count[MM_FILEPAGES_].counter) * kb;
	oom.shmem_rss_kb = (__u64)BPF_CORE_READ(mm, rss_stat.count[MM_SHMEMPAGES_].counter) * kb;
}

/* The kernel's OOM killer chose the target (global, or its memory cgroup's
 * limit): what it had, as the kernel counted it. */
SEC("tp/oom/mark_victim")
int oom_victim(struct trace_event_raw_mark_victim *tp)
{
	struct ooms_event *e;

	if ((__u32)BPF_CORE_READ(tp, pid) != target_tgid || target_gone)
		return 0;
	oom.ts_ns = bpf_ktime_get_ns();
	if (bpf_core_field_exists(tp->anon_rss)) { /* kernels before 6.2 give only the pid */
		oom.total_vm_kb = BPF_CORE_READ(tp, total_vm);
		oom.anon_rss_kb = BPF_CORE_READ(tp, anon_rss);
		oom.file_rss_kb = BPF_CORE_READ(tp, file_rss);
		oom.shmem_rss_kb = BPF_CORE_READ(tp, shmem_rss);
		oom.pgtables_kb = BPF_CORE_READ(tp, pgtables);
		oom.oom_score_adj = BPF_CORE_READ(tp, oom_score_adj);
	} else {
		oom_pages_from_mm();
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
	code_mapped(0, 0); /* a new program: its executable is mapped */
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

