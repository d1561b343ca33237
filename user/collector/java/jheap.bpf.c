// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Java runtimes' kernel side: GC begin/end, memory pools after each GC,
 * Java threads, and OOM throws, from one target process.
 *
 * - HotSpot (libjvm.so): its USDT probes, provider "hotspot" (no semaphores,
 *   always on): gc__begin(full), gc__end, mem__pool__gc__end(manager ptr,
 *   len, pool ptr, len, init, used, committed, max), thread__start/stop(name
 *   ptr, len, java tid, native tid, daemon).
 * - ART (libart.so): uprobes on GarbageCollector::Run (entry and return),
 *   Heap::ThrowOutOfMemoryError (the allocation's size) and
 *   Thread::ThrowOutOfMemoryError (the message).
 * USDT probes and uprobes are attached for the target's pid only; the tgid is
 * checked again here because a forked child shares the probed code.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include "jheap_events.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 target_tgid = 0;

struct ooms_rt_totals rt_totals = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 18); /* resized from the page size at load */
} rt_events SEC(".maps");

static __always_inline struct ooms_rt_event *rt_start(__u16 type)
{
	struct ooms_rt_event *e;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return NULL;
	e = bpf_ringbuf_reserve(&rt_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&rt_totals.ringbuf_drops, 1);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->type = type;
	e->version = OOMS_RT_VERSION;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->ts_ns = bpf_ktime_get_ns();
	return e;
}

static __always_inline void rt_send(struct ooms_rt_event *e)
{
	bpf_ringbuf_submit(e, 0);
	__sync_fetch_and_add(&rt_totals.events_sent, 1);
}

/* A (pointer, length) string argument, not NUL-terminated in the JVM. */
static __always_inline void copy_str(char *dst, __u32 cap, const char *src, long len)
{
	if (len < 0)
		len = 0;
	if (len > cap - 1)
		len = cap - 1;
	bpf_probe_read_user(dst, len & (OOMS_RT_NAME_LEN - 1), src);
}

/* ---- HotSpot ---- */

SEC("usdt")
int BPF_USDT(hs_gc_begin, int full)
{
	struct ooms_rt_event *e = rt_start(RT_GC_BEGIN);

	if (!e)
		return 0;
	__sync_fetch_and_add(&rt_totals.gcs, 1);
	e->a0 = full & 1;
	rt_send(e);
	return 0;
}

SEC("usdt")
int BPF_USDT(hs_gc_end)
{
	struct ooms_rt_event *e = rt_start(RT_GC_END);

	if (e)
		rt_send(e);
	return 0;
}

SEC("usdt")
int BPF_USDT(hs_pool_gc_end, const char *mgr, long mgr_len, const char *pool, long pool_len, long init, long used,
	     long committed, long max)
{
	struct ooms_rt_event *e = rt_start(RT_POOL);

	if (!e)
		return 0;
	copy_str(e->name, OOMS_RT_NAME_LEN, pool, pool_len);
	copy_str(e->name2, OOMS_RT_NAME_LEN, mgr, mgr_len);
	e->a0 = init;
	e->a1 = used;
	e->a2 = committed;
	e->a3 = max;
	rt_send(e);
	return 0;
}

/* thread__start/stop(name ptr, len, java tid, native tid, daemon) */
static __always_inline int thread_event(__u16 type, const char *name, long len, long java_tid, long native_tid,
					int daemon)
{
	struct ooms_rt_event *e = rt_start(type);

	if (!e)
		return 0;
	copy_str(e->name, OOMS_RT_NAME_LEN, name, len);
	e->a0 = java_tid;
	e->a1 = native_tid;
	e->a2 = daemon & 1;
	rt_send(e);
	return 0;
}

SEC("usdt")
int BPF_USDT(hs_thread_start, const char *name, long len, long java_tid, long native_tid, int daemon)
{
	return thread_event(RT_THREAD_START, name, len, java_tid, native_tid, daemon);
}

SEC("usdt")
int BPF_USDT(hs_thread_stop, const char *name, long len, long java_tid, long native_tid, int daemon)
{
	return thread_event(RT_THREAD_STOP, name, len, java_tid, native_tid, daemon);
}

/* ---- ART ---- */

/* art::gc::collector::GarbageCollector::Run(GcCause, bool): this, cause, clear_soft */
SEC("uprobe")
int BPF_KPROBE(art_gc_run, void *self, int cause)
{
	struct ooms_rt_event *e = rt_start(RT_GC_BEGIN);

	if (!e)
		return 0;
	__sync_fetch_and_add(&rt_totals.gcs, 1);
	e->a0 = cause;
	rt_send(e);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(art_gc_run_ret)
{
	struct ooms_rt_event *e = rt_start(RT_GC_END);

	if (e)
		rt_send(e);
	return 0;
}

/* art::gc::Heap::ThrowOutOfMemoryError(Thread*, size_t byte_count, AllocatorType) */
SEC("uprobe")
int BPF_KPROBE(art_oom_heap, void *heap, void *self, __u64 bytes)
{
	struct ooms_rt_event *e = rt_start(RT_OOM_SIZE);

	if (!e)
		return 0;
	e->a0 = (__s64)bytes;
	rt_send(e);
	return 0;
}

/* An OutOfMemoryError's message, from the thread that raises it. */
static __always_inline int oom_msg(const char *msg)
{
	struct ooms_rt_event *e = rt_start(RT_OOM_MSG);

	if (!e)
		return 0;
	bpf_probe_read_user_str(e->msg, sizeof(e->msg), msg);
	bpf_get_current_comm(e->name, sizeof(e->name));
	rt_send(e);
	return 0;
}

/* art::Thread::ThrowOutOfMemoryError(const char* msg) */
SEC("uprobe")
int BPF_KPROBE(art_oom_thread, void *self, const char *msg)
{
	return oom_msg(msg);
}

/* HotSpot: report_java_out_of_memory(const char* message), called on every
 * OutOfMemoryError the VM raises ("Java heap space", "Metaspace", "unable to
 * create native thread: ...", "GC overhead limit exceeded"), in the thread
 * that raises it. A local symbol of libjvm.so's .symtab. */
SEC("uprobe")
int BPF_KPROBE(hs_oom, const char *msg)
{
	return oom_msg(msg);
}

/* HotSpot: Exceptions::_throw_msg(JavaThread*, const char* file, int line,
 * Symbol* name, const char* message): the VM throwing an exception with a
 * message. Only "unable to create native thread..." is kept: that
 * OutOfMemoryError does not go through report_java_out_of_memory. */
SEC("uprobe")
int BPF_KPROBE(hs_throw_msg, void *thread, const char *file, int line, void *name, const char *msg)
{
	static const char want[] = "unable to create native thread";
	char head[sizeof(want)];

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid || !msg)
		return 0;
	if (bpf_probe_read_user_str(head, sizeof(head), msg) < (long)sizeof(head))
		return 0;
	for (int i = 0; i < (int)sizeof(want) - 1; i++)
		if (head[i] != want[i])
			return 0;
	return oom_msg(msg);
}

/* ---- any runtime: the OutOfMemoryErrors it prints ---- */

#define RT_SCAN 256 /* a power of two: indexes masked by RT_SCAN - 1 */
#define RT_WORD "OutOfMemoryError"

/* write(2, ...) by the target naming an OutOfMemoryError: the default
 * handler prints an uncaught one ("Exception in thread "main"
 * java.lang.OutOfMemoryError: Cannot reserve ... direct buffer memory"),
 * the one that ends the app, whether the VM or Java code threw it. Only the
 * first RT_SCAN bytes of each write are looked at. */
SEC("tp/syscalls/sys_enter_write")
int rt_stderr(struct trace_event_raw_sys_enter *ctx)
{
	const char *ubuf = (const char *)ctx->args[1];
	__u64 count = ctx->args[2];
	char buf[RT_SCAN];
	struct ooms_rt_event *e;
	__u32 n, len;
	int at = -1;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid || ctx->args[0] != 2 || count < sizeof(RT_WORD) - 1)
		return 0;
	n = count > RT_SCAN ? RT_SCAN : (__u32)count;
	__builtin_memset(buf, 0, sizeof(buf));
	if (bpf_probe_read_user(buf, n, ubuf))
		return 0;
	for (int i = 0; i <= RT_SCAN - (int)sizeof(RT_WORD) + 1 && at < 0; i++) {
		int k;

		if (buf[i & (RT_SCAN - 1)] != 'O')
			continue;
		for (k = 1; k < (int)sizeof(RT_WORD) - 1; k++)
			if (buf[(i + k) & (RT_SCAN - 1)] != RT_WORD[k])
				break;
		if (k == (int)sizeof(RT_WORD) - 1)
			at = i;
	}
	if (at < 0 || (__u32)at >= n || !(e = rt_start(RT_OOM_PRINTED)))
		return 0;
	len = n - (__u32)at;
	if (len > 127)
		len = 127;
	/* masked in the program itself: the compiler drops a clamp it can prove,
	 * which the verifier, merging paths, cannot */
	__asm__ volatile("%[l] &= 127" : [l] "+r"(len));
	bpf_probe_read_user(e->msg, len, ubuf + at);
	bpf_get_current_comm(e->name, sizeof(e->name));
	rt_send(e);
	return 0;
}

/* ---- HotSpot: Unsafe.allocateMemory, the memory of direct buffers ---- */

#define UNSAFE_BLOCKS 65536

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UNSAFE_BLOCKS);
	__type(key, __u64);   /* address */
	__type(value, __u64); /* bytes */
} unsafe_blocks SEC(".maps");

struct unsafe_call {
	__u64 addr;           /* realloc: the block it replaces */
	__u64 size;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);   /* thread */
	__type(value, struct unsafe_call);
} unsafe_calls SEC(".maps");

static __always_inline int unsafe_enter(__u64 addr, __u64 size)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct unsafe_call c = {addr, size};

	if ((id >> 32) != target_tgid)
		return 0;
	bpf_map_update_elem(&unsafe_calls, &tid, &c, BPF_ANY);
	return 0;
}

static __always_inline void unsafe_forget(__u64 addr)
{
	__u64 *size;

	if (!addr || !(size = bpf_map_lookup_elem(&unsafe_blocks, &addr)))
		return; /* made before the probes went in: never counted */
	__sync_fetch_and_add(&rt_totals.unsafe_bytes, -(__s64)*size);
	__sync_fetch_and_add(&rt_totals.unsafe_blocks, -1);
	bpf_map_delete_elem(&unsafe_blocks, &addr);
}

static __always_inline int unsafe_exit(__u64 ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct unsafe_call *c;

	if ((id >> 32) != target_tgid || !(c = bpf_map_lookup_elem(&unsafe_calls, &tid)))
		return 0;
	if (ret) {
		__u64 size = c->size;

		unsafe_forget(c->addr); /* realloc: the old block is gone */
		if (bpf_map_update_elem(&unsafe_blocks, &ret, &size, BPF_NOEXIST) == 0) {
			__sync_fetch_and_add(&rt_totals.unsafe_bytes, (__s64)size);
			__sync_fetch_and_add(&rt_totals.unsafe_blocks, 1);
		} else {
			__sync_fetch_and_add(&rt_totals.unsafe_untracked, 1);
		}
	}
	bpf_map_delete_elem(&unsafe_calls, &tid);
	return 0;
}

/* Unsafe_AllocateMemory0(JNIEnv*, jobject, jlong size) -> address */
SEC("uprobe")
int BPF_KPROBE(hs_unsafe_alloc, void *env, void *unsafe, __s64 size)
{
	return unsafe_enter(0, size > 0 ? (__u64)size : 0);
}

SEC("uretprobe")
int BPF_KRETPROBE(hs_unsafe_alloc_ret, __u64 ret)
{
	return unsafe_exit(ret);
}

/* Unsafe_ReallocateMemory0(JNIEnv*, jobject, jlong addr, jlong size) -> address */
SEC("uprobe")
int BPF_KPROBE(hs_unsafe_realloc, void *env, void *unsafe, __u64 addr, __s64 size)
{
	return unsafe_enter(addr, size > 0 ? (__u64)size : 0);
}

SEC("uretprobe")
int BPF_KRETPROBE(hs_unsafe_realloc_ret, __u64 ret)
{
	return unsafe_exit(ret);
}

/* Unsafe_FreeMemory0(JNIEnv*, jobject, jlong addr) */
SEC("uprobe")
int BPF_KPROBE(hs_unsafe_free, void *env, void *unsafe, __u64 addr)
{
	if ((bpf_get_current_pid_tgid() >> 32) == target_tgid)
		unsafe_forget(addr);
	return 0;
}
