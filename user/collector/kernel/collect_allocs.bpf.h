/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Part of collect.bpf.c (included at its end, for its maps and helpers):
 * large allocations caught by uprobes on the target's allocator. */
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
	__u64 sp = PT_REGS_SP(ctx), lr = UPROBE_LR(ctx);

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
		alloc_fill(ctx, a, sp, lr, bytes, fn, 0);
		event_send(&a->ev);
		return 0;
	}
	p = bpf_map_lookup_elem(&alloc_scratch, &zero);
	if (!p)
		return 0;
	alloc_fill(ctx, &p->a, sp, lr, bytes, fn, 0);
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
	e->lr = 0;
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
