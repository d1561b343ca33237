/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Part of collect.bpf.c (included at its end, for its maps and helpers):
 * HotSpot's Unsafe.allocateMemory blocks, the memory of direct buffers, each
 * with the stack that made it and (with the shim) its Java stack, so a
 * direct-memory crossing names the code that holds the memory. Attached by
 * user space to libjvm.so's Unsafe_AllocateMemory0, Unsafe_ReallocateMemory0
 * and Unsafe_FreeMemory0 once the target is known to run HotSpot. */

struct direct_call {
	__u64 bytes;
	__u64 old; /* reallocateMemory: the block it replaces */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct direct_call);
} direct_calls SEC(".maps");

static __always_inline int direct_enter(__u64 old, __s64 bytes)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct direct_call c = {bytes > 0 ? (__u64)bytes : 0, old};

	if (!is_target())
		return 0;
	if (bpf_map_update_elem(&direct_calls, &tid, &c, BPF_ANY))
		__sync_fetch_and_add(&totals.set_full_drops, 1);
	return 0;
}

/* Unsafe_AllocateMemory0(JNIEnv*, jobject, jlong size) -> address */
SEC("uprobe")
int BPF_KPROBE(direct_alloc, void *env, void *unsafe, __s64 bytes) { return direct_enter(0, bytes); }

/* Unsafe_ReallocateMemory0(JNIEnv*, jobject, jlong addr, jlong size) -> address */
SEC("uprobe")
int BPF_KPROBE(direct_realloc, void *env, void *unsafe, __u64 addr, __s64 bytes) { return direct_enter(addr, bytes); }

/* Their return: the caller's stack is whole here (the uretprobe runs at the
 * return address, in the caller's frame), and the shim's handler, asked now,
 * runs as the thread goes on in it. */
SEC("uretprobe")
int BPF_KRETPROBE(direct_alloc_ret, __u64 addr)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct direct_call *c = bpf_map_lookup_elem(&direct_calls, &tid);
	struct ooms_event *e;

	if (!c)
		return 0;
	if (addr) {
		__sync_fetch_and_add(&totals.direct_allocs, 1);
		e = event_start(EV_DIRECT_ALLOC);
		if (e) {
			e->ret = (__s64)addr;
			e->arg0 = c->bytes;
			e->arg1 = c->old;
			e->nr = 0;
			event_stack(ctx, e, PT_REGS_SP(ctx), 0);
			java_ask(e, ctx);
			event_send(e);
		}
	}
	bpf_map_delete_elem(&direct_calls, &tid);
	return 0;
}

/* Unsafe_FreeMemory0(JNIEnv*, jobject, jlong addr) */
SEC("uprobe")
int BPF_KPROBE(direct_free, void *env, void *unsafe, __u64 addr)
{
	struct ooms_event *e;

	if (!addr || !is_target())
		return 0;
	__sync_fetch_and_add(&totals.direct_frees, 1);
	e = event_start(EV_DIRECT_FREE);
	if (!e)
		return 0;
	e->ret = (__s64)addr;
	e->nr = 0;
	e->stack_bytes = 0;
	e->sp = 0;
	e->lr = 0;
	event_send(e);
	return 0;
}
