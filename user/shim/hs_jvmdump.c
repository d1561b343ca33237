/* HotSpot's heap dumper in the fork-dump's child (hs_jvmdump.h). */
#define _GNU_SOURCE
#include "shim/hs_jvmdump.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hprof/stream.h"
#include "shim/elfsym.h"
#include "shim/hs_vmstructs.h"
#include "shim/libc/shim_libc.h"
#include <sys/mman.h>

#define CHILD_ALARM_S 1800
#define VTABLE_SLOTS 512 /* searched for safepoint_workers(); HotSpot's heaps have fewer */

/* HeapDumper::dump(path, out, compression, overwrite) on JDK 17;
 * JDK 21 and later add num_dump_threads, which JDK 17 does not read. */
typedef int (*heapdumper_dump_fn)(void *self, const char *path, void *out, int compression, bool overwrite,
				  unsigned threads);

static struct {
	int resolved, ready;
	char why[160];
	heapdumper_dump_fn dump;
	void **heap_slot;       /* &Universe::_collectedHeap */
	uintptr_t workers[3];   /* the GCs' safepoint_workers() that have workers */
	uintptr_t no_workers;   /* CollectedHeap's own, which has none (Serial) */
	int g1;                 /* the heap is G1's */
	/* G1's regions, from gHotSpotVMStructs: G1CollectedHeap::_hrm,
	 * HeapRegionManager::_regions, G1HeapRegionTable::_base and _length,
	 * HeapRegion::_top and _end (-1: unknown) */
	long hrm, regions, table_base, table_length, region_top, region_end;
	long total_collections; /* CollectedHeap::_total_collections: young and full GCs */
	long region_bottom, region_type; /* HeapRegion::_bottom, _type (its _tag first) */
	int surv_tag;           /* HeapRegionType::SurvTag (-1: unknown) */
} H;

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#define MADV_KEEPONFORK 19
#endif

/* Address ranges: the heap's free space at the fork, kept from the copy
 * (see hs_jvmdump_unshare_free); its survivor regions, made the app's own
 * after it (hs_jvmdump_own_survivors). */
struct ranges {
	uintptr_t (*r)[2];
	size_t n, cap;
	uint64_t bytes;
};
static struct ranges U, S;

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static void resolve(void)
{
	static const char *const with_workers[3] = {
		"_ZN15G1CollectedHeap17safepoint_workersEv",
		"_ZN20ParallelScavengeHeap17safepoint_workersEv",
		"_ZN14ShenandoahHeap17safepoint_workersEv",
	};
	struct elfsym_lib lib;
	int segmented;

	if (H.resolved)
		return;
	H.resolved = 1;
	if (elfsym_open_loaded(&lib, "libjvm.so")) {
		snprintf(H.why, sizeof(H.why), "libjvm.so is not mapped");
		return;
	}
	H.dump = (heapdumper_dump_fn)elfsym_find(&lib, "_ZN10HeapDumper4dumpEPKcP12outputStreamib", NULL);
	if (!H.dump)
		H.dump = (heapdumper_dump_fn)elfsym_find(&lib, "_ZN10HeapDumper4dumpEPKcP12outputStreamibj", NULL);
	H.heap_slot = (void **)elfsym_find(&lib, "_ZN8Universe14_collectedHeapE", NULL);
	for (int i = 0; i < 3; i++)
		H.workers[i] = elfsym_find(&lib, with_workers[i], NULL);
	H.no_workers = elfsym_find(&lib, "_ZN13CollectedHeap17safepoint_workersEv", NULL);
	/* JDK 22 and later: the dump goes to segment files beside the path
	 * (path.p0, ...) that the caller merges after the VM operation */
	segmented = elfsym_find(&lib, "_ZN10DumpMerger15get_writer_pathEPKci", NULL) != 0;
	elfsym_close(&lib);
	if (segmented) {
		snprintf(H.why, sizeof(H.why),
			 "this JVM (22 or later) writes its heap dump in segment files merged after the safepoint, which the copy does not do yet");
		return;
	}
	H.hrm = hs_vmstruct_offset("G1CollectedHeap", "_hrm");
	H.regions = hs_vmstruct_offset("HeapRegionManager", "_regions");
	H.table_base = hs_vmstruct_offset("G1HeapRegionTable", "_base");
	H.table_length = hs_vmstruct_offset("G1HeapRegionTable", "_length");
	H.region_top = hs_vmstruct_offset("HeapRegion", "_top");
	H.region_end = hs_vmstruct_offset("HeapRegion", "_end");
	H.total_collections = hs_vmstruct_offset("CollectedHeap", "_total_collections");
	H.region_bottom = hs_vmstruct_offset("HeapRegion", "_bottom");
	H.region_type = hs_vmstruct_offset("HeapRegion", "_type");
	if (hs_vmstruct_offset("HeapRegionType", "_tag") != 0 || hs_vmconstant_int("HeapRegionType::SurvTag", &H.surv_tag))
		H.surv_tag = -1;
	if (!H.dump || !H.heap_slot || !H.no_workers)
		snprintf(H.why, sizeof(H.why), "libjvm.so's .symtab lacks %s",
			 !H.dump ? "HeapDumper::dump" : !H.heap_slot ? "Universe::_collectedHeap"
								       : "CollectedHeap::safepoint_workers");
	else
		H.ready = 1;
}

/* The slot of the heap's vtable holding its safepoint_workers(), and
 * whether that one has workers: -1 when none of the known ones is there. */
static int workers_slot(void **vtable, int *has_workers)
{
	for (int k = 0; k < VTABLE_SLOTS; k++) {
		uintptr_t f = (uintptr_t)vtable[k];

		if (f == H.no_workers) {
			*has_workers = 0;
			return k;
		}
		for (int i = 0; i < 3; i++)
			if (H.workers[i] && f == H.workers[i]) {
				*has_workers = 1;
				H.g1 = i == 0;
				return k;
			}
	}
	return -1;
}

int hs_jvmdump_ready(char *why, size_t why_len)
{
	void *heap;
	int has;

	resolve();
	if (!H.ready) {
		snprintf(why, why_len, "%s", H.why);
		return -1;
	}
	heap = *H.heap_slot;
	if (!heap || workers_slot(*(void ***)heap, &has) < 0) {
		snprintf(why, why_len, "the heap's vtable has no safepoint_workers() known to oomscope");
		return -1;
	}
	return 0;
}

/* The child's copy of safepoint_workers(): no worker thread survived the fork. */
static void *none(void *self)
{
	(void)self;
	return NULL;
}

/* The heap object points at a copy of its vtable answering none(). Only
 * the child's memory changes. 0, or -1. */
static int without_workers(void)
{
	void *heap = *H.heap_slot, **vt = *(void ***)heap, **copy;
	int has, k = workers_slot(vt, &has);

	if (k < 0)
		return -1;
	if (!has)
		return 0;
	/* the two words before the address point are the offset to top and the type info */
	copy = malloc((VTABLE_SLOTS + 2) * sizeof(*copy));
	if (!copy)
		return -1;
	memcpy(copy, vt - 2, (VTABLE_SLOTS + 2) * sizeof(*copy));
	copy[2 + k] = (void *)none;
	*(void ***)heap = copy + 2;
	return 0;
}

/* Adds [lo, hi) to rs, joined to the last range when they touch. */
static void ranges_add(struct ranges *rs, uintptr_t lo, uintptr_t hi)
{
	rs->bytes += hi - lo;
	if (rs->n && rs->r[rs->n - 1][1] == lo) {
		rs->r[rs->n - 1][1] = hi;
		return;
	}
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 256;
		void *q = realloc(rs->r, cap * sizeof(*rs->r));

		if (!q)
			return;
		rs->r = q;
		rs->cap = cap;
	}
	rs->r[rs->n][0] = lo;
	rs->r[rs->n][1] = hi;
	rs->n++;
}

/* madvise(advice) on each range; one that fails (a file-backed archive
 * region beside it, huge pages) is left shared. */
static void unshare_advise(int advice)
{
	for (size_t i = 0; i < U.n; i++)
		if (madvise((void *)U.r[i][0], U.r[i][1] - U.r[i][0], advice) != 0 && advice == MADV_WIPEONFORK)
			U.bytes -= U.r[i][1] - U.r[i][0];
}

size_t hs_jvmdump_unshare_free(void)
{
	const uint8_t *table;
	uint8_t *const *region;
	size_t n;
	/* the largest page size there is (4, 16 and 64 KiB kernels): a region's
	 * first free bytes up to it stay shared */
	const uintptr_t page = 64 * 1024;

	U.n = S.n = 0;
	U.bytes = S.bytes = 0;
	if (!H.ready || !H.g1 || H.hrm < 0 || H.regions < 0 || H.table_base < 0 || H.table_length < 0 ||
	    H.region_top < 0 || H.region_end < 0)
		return 0;
	table = (const uint8_t *)*H.heap_slot + H.hrm + H.regions;
	region = *(uint8_t *const *const *)(table + H.table_base);
	n = *(const size_t *)(table + H.table_length);
	for (size_t i = 0; region && i < n; i++) {
		uintptr_t top, end;

		if (!region[i]) /* not committed */
			continue;
		top = (*(const uintptr_t *)(region[i] + H.region_top) + page - 1) & ~(page - 1);
		end = *(const uintptr_t *)(region[i] + H.region_end);
		if (top < end)
			ranges_add(&U, top, end);
		if (H.surv_tag >= 0 && H.region_bottom >= 0 && H.region_type >= 0 &&
		    *(const volatile uint32_t *)(region[i] + H.region_type) == (uint32_t)H.surv_tag) {
			uintptr_t bottom = *(const uintptr_t *)(region[i] + H.region_bottom) & ~(page - 1);

			if (bottom < top)
				ranges_add(&S, bottom, top);
		}
	}
	unshare_advise(MADV_WIPEONFORK);
	return (size_t)U.bytes;
}

int hs_jvmdump_is_g1(void)
{
	return H.ready && H.g1 && H.total_collections >= 0;
}

unsigned hs_jvmdump_collections(void)
{
	return H.ready && H.total_collections >= 0
		       ? *(const volatile unsigned *)((const uint8_t *)*H.heap_slot + H.total_collections)
		       : 0;
}

void hs_jvmdump_share_again(void)
{
	unshare_advise(MADV_KEEPONFORK);
	U.n = 0;
}

size_t hs_jvmdump_own_survivors(void)
{
	uint64_t done = 0;

	for (size_t i = 0; i < S.n; i++) {
		uintptr_t lo = S.r[i][0], hi = S.r[i][1];

		/* before Linux 5.14 (EINVAL) nothing: a write of our own to the
		 * heap could race with G1 uncommitting a region and fault */
		if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0)
			done += hi - lo;
	}
	S.n = 0;
	return (size_t)done;
}

/* ---- the child ---- */

static struct {
	const struct shim_dump_req *req;
	struct shim_dump_req req_copy;
	struct hs_jvmdump_faults f;
	struct hprof_strip_stream strip;
	int rd;
	pid_t vm_tid;
	double start_ms;
	volatile int dumped;   /* HeapDumper::dump returned */
	int dump_rc;
	char dump_error[200];
	char hold[256];
	int at_gc_end;
	volatile int holding;  /* a test's hold: no byte comes, and none is due */
} C;

static void park(void) __attribute__((noreturn));
static void park(void)
{
	static int never;

	for (;;)
		syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

static void hold_until_released(void)
{
	for (int i = 0; i < 12000 && access(C.hold, F_OK) != 0; i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};

		nanosleep(&ts, NULL);
	}
}

/* The child's end, once, from whichever of its threads gets there first. */
static void finish(int err, const char *why, uint64_t bytes_in, uint64_t bytes_out, uint64_t objects)
	__attribute__((noreturn));
static void finish(int err, const char *why, uint64_t bytes_in, uint64_t bytes_out, uint64_t objects)
{
	static int once;

	if (__sync_lock_test_and_set(&once, 1))
		park();
	snprintf(shim_child_note, sizeof(shim_child_note), "walk=hotspot forked_at=%s unshared_mb=%llu",
		 C.at_gc_end ? "gc_end" : "heap_walk", (unsigned long long)(U.bytes >> 20));
	shim_child_finish(C.req, err, why, bytes_in, bytes_out, objects, C.start_ms);
}

/* What the VM thread has written so far (its task's wchar: the child's
 * count starts at the fork). */
static uint64_t vm_bytes_written(void)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/io", (int)C.vm_tid);
	if (shim_read_file(path, buf, sizeof(buf)) <= 0 || !(p = strstr(buf, "wchar: ")))
		return 0;
	return strtoull(p + 7, NULL, 10);
}

static int vm_in_futex(void)
{
	char sc[96];

	shim_task_syscall(C.vm_tid, sc, sizeof(sc));
	return atol(sc) == SYS_futex;
}

/* A stall: the VM thread blocked (not in a write, which would be bytes to
 * come) for stall_ms with nothing written meanwhile. */
static void stalled(char *why, size_t len, uint64_t bytes)
{
	char sc[96];

	shim_task_syscall(C.vm_tid, sc, sizeof(sc));
	sc[strcspn(sc, " ")] = 0;
	snprintf(why, len,
		 "the heap walk stalled after %llu bytes (a lock held at fork time; the VM thread waits in syscall %.20s%s)",
		 (unsigned long long)bytes, sc, atol(sc) == SYS_futex ? ", futex" : "");
}

/* The whole dump straight to the output (the reader strips): this thread
 * only watches the VM thread's writes for a stall. */
static void watchdog(void *arg)
{
	uint64_t last = 0;
	double since = shim_now_ms();

	(void)arg;
	for (;;) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		uint64_t now;
		char why[200];

		nanosleep(&ts, NULL);
		now = vm_bytes_written();
		if (now != last || C.holding || C.dumped) {
			last = now;
			since = shim_now_ms();
			continue;
		}
		/* blocked in a futex, not in the output's write (a slow reader) */
		if (shim_now_ms() - since > C.f.stall_ms && shim_task_state(C.vm_tid) == SHIM_TASK_BLOCKED &&
		    vm_in_futex()) {
			stalled(why, sizeof(why), now);
			finish(-EDEADLK, why, now, 0, 0);
		}
	}
}

/* The reader thread: HotSpot's bytes through the stripper onto the
 * output; the end of the pipe is the end of the dump. No byte for
 * stall_ms while the VM thread is blocked (not in the pipe's write, which
 * would have given bytes) is a stall: an error, never a partial file. */
static void reader(void *arg)
{
	static uint8_t buf[1 << 20];
	uint64_t bytes = 0;
	double idle_since = shim_now_ms();
	int err = 0, held = 0;
	char why[200] = "";

	(void)arg;
	for (;;) {
		struct pollfd p = {C.rd, POLLIN, 0};
		ssize_t n;

		if (poll(&p, 1, 100) == 0) {
			double idle = shim_now_ms() - idle_since;

			if (!C.dumped && idle > C.f.stall_ms && shim_task_state(C.vm_tid) == SHIM_TASK_BLOCKED) {
				stalled(why, sizeof(why), bytes);
				err = -EDEADLK;
				break;
			}
			continue;
		}
		n = read(C.rd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			snprintf(why, sizeof(why), "reading HotSpot's dump");
			break;
		}
		if (n == 0)
			break;
		idle_since = shim_now_ms();
		bytes += (uint64_t)n;
		if (!err && (err = hprof_strip_stream_feed(&C.strip, buf, (size_t)n)))
			snprintf(why, sizeof(why), "%.150s", C.strip.msg[0] ? C.strip.msg : "writing the dump");
		if (C.hold[0] && !held) { /* a test's hold: HotSpot then waits in the pipe's write */
			held = 1;
			hold_until_released();
			idle_since = shim_now_ms();
		}
	}
	if (!err && C.dumped && C.dump_rc != 0) {
		err = -EIO;
		snprintf(why, sizeof(why), "HotSpot's heap dumper: %.150s", C.dump_error[0] ? C.dump_error : "failed");
	}
	if (!err && (err = hprof_strip_stream_finish(&C.strip)))
		snprintf(why, sizeof(why), "%.150s", C.strip.msg[0] ? C.strip.msg : "finishing the dump");
	finish(err, why, bytes, C.strip.sink.bytes_out, C.strip.t.objects);
}

/* HotSpot's dumper into path; its error, if any, in C. */
static void run_dumper(const char *path)
{
	/* HotSpot's HeapDumper: its error string first, then two flags and a
	 * timer, all zero for a dump without a GC that no one prints */
	_Alignas(16) unsigned char dumper[128];

	memset(dumper, 0, sizeof(dumper));
	C.dump_rc = H.dump(dumper, path, NULL, -1, true, 1);
	if (*(char **)dumper)
		snprintf(C.dump_error, sizeof(C.dump_error), "%s", *(char **)dumper);
	C.dumped = 1;
}

/* The reader strips (the request said whole): HotSpot writes straight to
 * the output, from this thread alone; a watchdog looks on. */
static void whole_to_output(void) __attribute__((noreturn));
static void whole_to_output(void)
{
	char path[64], why[200] = "";
	int e;

	if ((e = shim_thread_start(watchdog, NULL)) != 0)
		finish(e, "starting the watchdog", 0, 0, 0);
	if (C.f.stall) /* a test's stall: as a lock a vanished thread held */
		park();
	if (C.hold[0]) { /* a test's hold: the copy alive, its dump not yet written */
		C.holding = 1;
		hold_until_released();
		C.holding = 0;
	}
	/* HotSpot opens the output itself, by /proc: its own descriptor of it */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", C.req->fd);
	run_dumper(path);
	e = C.dump_rc ? -EIO : 0;
	if (e)
		snprintf(why, sizeof(why), "HotSpot's heap dumper: %.150s", C.dump_error[0] ? C.dump_error : "failed");
	finish(e, why, vm_bytes_written(), 0, 0);
}

void hs_jvmdump_child(const struct shim_dump_req *req, const struct hs_jvmdump_faults *f, int at_gc_end)
{
	char path[64];
	int pipefd[2], e;

	C.start_ms = shim_now_ms();
	C.req_copy = *req; /* glibc reuses the vanished threads' stacks */
	C.req = &C.req_copy;
	C.f = *f;
	C.at_gc_end = at_gc_end;
	if (C.f.hold)
		snprintf(C.hold, sizeof(C.hold), "%s", C.f.hold);
	C.vm_tid = (pid_t)syscall(SYS_gettid);
	shim_child_setup(CHILD_ALARM_S);
	if (without_workers() != 0)
		finish(-ENOTSUP, "the heap's safepoint_workers() not found in the child", 0, 0, 0);
	if (C.req->whole)
		whole_to_output();
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		finish(-errno, "a pipe for HotSpot's dump", 0, 0, 0);
	fcntl(pipefd[1], F_SETPIPE_SZ, 1 << 20); /* fewer switches between writer and reader */
	C.rd = pipefd[0];
	if ((e = hprof_strip_stream_open(&C.strip, C.req->fd, C.req->op, HPROF_PLAIN, 0)))
		finish(e, "opening the output", 0, 0, 0);
	C.strip.t.text_bytes = C.req->text_bytes;
	if ((e = shim_thread_start(reader, NULL)) != 0)
		finish(e, "starting the reader", 0, 0, 0);
	if (C.f.stall) /* a test's stall: as a lock a vanished thread held */
		park();
	/* HotSpot opens the path itself: the pipe's write end, by /proc */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pipefd[1]);
	run_dumper(path);
	close(pipefd[1]); /* HotSpot closed its own: the reader sees the end */
	park();           /* the reader ends the child */
}
