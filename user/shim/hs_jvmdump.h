/* The fork-dump's child running HotSpot's own heap dumper (the one behind
 * jcmd GC.heap_dump), in the child's copy of the VM thread, at the
 * safepoint the fork was made in: HotSpot's speed and HotSpot's records
 * (every thread's trace with its frames, the locals of each frame as roots),
 * ids the objects' addresses, no JVMTI tag. Its output goes through a pipe
 * to a reader thread of the child that strips it (the strip mode, the
 * Strings' contents kept) onto the request's output.
 *
 * What it needs from libjvm.so's .symtab: HeapDumper::dump, the heap
 * (Universe::_collectedHeap) and its GC's safepoint_workers(), which the
 * child's copy of the heap's vtable answers with none: the GC's worker
 * threads did not survive the fork, so the dumper runs alone, as it does
 * under SerialGC. */
#ifndef OOMSCOPE_SHIM_HS_JVMDUMP_H
#define OOMSCOPE_SHIM_HS_JVMDUMP_H

#include <stddef.h>
#include "shim/shim.h"

/* Fault injection, as OOMSCOPE_SHIM_FAULT gives it (hs_forkdump.c). */
struct hs_jvmdump_faults {
	int stall;           /* the child's VM thread blocks before the dump */
	int stall_ms;        /* no byte for that long, the VM thread blocked: a stall */
	const char *hold;    /* the reader pauses after the first bytes until this path exists */
};

/* Before the fork: 0 when this JVM's dumper can run in the child, else -1
 * with why (a stripped libjvm.so, a GC not known). */
int hs_jvmdump_ready(char *why, size_t why_len);
/* At the safepoint, just before the fork: G1's free space (each region
 * above its top, whole free regions) marked MADV_WIPEONFORK, so the copy
 * gets none of it and the app writes there after the fork (every new
 * object, every GC's evacuation) without a copy-on-write fault: the copy
 * reads no byte above a region's top. Bytes kept from the copy (0: not
 * G1, or the table lacks a field). */
size_t hs_jvmdump_unshare_free(void);
/* The heap is G1's and its collections are counted (hs_jvmdump_ready said
 * yes first). */
int hs_jvmdump_is_g1(void);
/* Young and full collections so far (G1's remark and cleanup pauses are
 * not counted). */
unsigned hs_jvmdump_collections(void);
/* The parent, after the fork: the same ranges back to plain (a later fork
 * of the app's own keeps them). */
void hs_jvmdump_share_again(void);
/* The parent, after the fork, off the safepoint (the app running): the
 * survivor regions G1 had at the fork made the app's own again, page by
 * page (MADV_POPULATE_WRITE: copy-on-write taken now, no byte changed),
 * so that the next young GC, which evacuates them and writes a forwarding
 * pointer into every object it copies, pays no fault. The memory is what
 * that GC would have copied anyway. Linux 5.14 and later; before, nothing.
 * Bytes made own. */
size_t hs_jvmdump_own_survivors(void);
/* In the child's VM thread, right after the fork (at_gc_end: made at the
 * end of a GC pause): writes the dump, answers the request and ends the
 * child. */
void hs_jvmdump_child(const struct shim_dump_req *req, const struct hs_jvmdump_faults *f, int at_gc_end)
	__attribute__((noreturn));

#endif
