// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * watch --app PKG: the moment a process takes the app's name. Android's
 * zygote forks an app's process, which names itself after its package
 * (ART keeps the last 15 characters as the thread name) before it runs any
 * of the app's code; at that rename this program stops the process
 * (SIGSTOP, sent from its own context, so nothing of it runs after) and
 * says which, so that oomscope attaches and lets it go on: nothing the app
 * does is missed. Two names are looked for: the package's first and last
 * 15 characters.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "app_find_events.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define SIGSTOP 19

const volatile char want_head[OOMS_APPWAIT_COMM] = {};
const volatile char want_tail[OOMS_APPWAIT_COMM] = {};
const volatile __u32 stop_it = 1;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
} app_events SEC(".maps");

static __always_inline int same(const char *a, const volatile char *b)
{
	for (int i = 0; i < OOMS_APPWAIT_COMM; i++) {
		if (a[i] != b[i])
			return 0;
		if (!a[i])
			return 1;
	}
	return 1;
}

SEC("tp/task/task_rename")
int app_rename(struct trace_event_raw_task_rename *tp)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ooms_appwait_event *e;
	char comm[OOMS_APPWAIT_COMM];

	bpf_probe_read_kernel(comm, sizeof(comm), tp->newcomm);
	comm[OOMS_APPWAIT_COMM - 1] = 0;
	if (!same(comm, want_head) && !same(comm, want_tail))
		return 0;
	/* the task renamed is the current one (not a write to another's
	 * /proc/PID/comm): only then can the signal stop it before it goes on */
	if (bpf_core_field_exists(tp->pid) && (__u32)BPF_CORE_READ(tp, pid) != (__u32)id)
		return 0;
	e = bpf_ringbuf_reserve(&app_events, sizeof(*e), 0);
	if (!e)
		return 0;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->stopped = stop_it && bpf_send_signal(SIGSTOP) == 0;
	__builtin_memcpy(e->comm, comm, sizeof(comm));
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}
