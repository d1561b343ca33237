/* HotSpot's performance counters: the memory-mapped file
 * /tmp/hsperfdata_<user>/<pid> that `jstat` reads. No attach, no safepoint,
 * no code in the JVM: a read of 32 KB. The parser is pure (a buffer in, the
 * counters out); the reader takes the file through /proc/PID/root.
 *
 * Layout (version 2): a 32-byte prologue (magic 0xcafec0c0 big-endian, byte
 * order, major/minor, accessible, used, overflow, mod time, entry offset,
 * entry count) then entries (length, name offset, vector length, type,
 * flags, units, variability, data offset), names NUL-terminated. */
#ifndef OOMSCOPE_HSPERF_H
#define OOMSCOPE_HSPERF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Called for each counter: a long ('J') gives value; a string ('B' vector)
 * gives str (NUL-terminated within the buffer, or NULL). Return nonzero to stop. */
typedef int (*hsperf_visit_fn)(void *ctx, const char *name, char type, int64_t value, const char *str);

/* Walks the counters of buf. 0, -EINVAL (not hsperfdata, damaged), or
 * -EAGAIN (the JVM has not finished writing it: accessible flag 0). */
int hsperf_parse(const void *buf, size_t len, hsperf_visit_fn fn, void *ctx);

/* The Java heap as the counters say: used (all spaces), committed
 * (capacities) and max (the maximum the heap may grow to), in bytes; GC
 * collections and their total time (ms) so far. */
struct hsperf_heap {
	int64_t used, committed, max;
	int64_t gc_count, gc_time_ms; /* all collectors */
	int64_t full_gc_count;        /* the old-generation collector's */
	/* class metadata (sun.gc.metaspace.*, sun.gc.compressedclassspace.*; HotSpot
	 * updates them at GCs): used and capacity, -1 when absent. Metaspace is
	 * bounded only when -XX:MaxMetaspaceSize was given: meta_limit, its value
	 * from java.rt.vmArgs (the counter's maxCapacity is what is reserved:
	 * 112 MB under a 48 MB limit), else -1; the compressed class space's
	 * capacity is its limit. */
	int64_t meta_used, meta_max, class_used, class_max;
	int64_t meta_committed, class_committed; /* .capacity: what the limits count */
	int64_t meta_limit;
	int64_t direct_limit;         /* -XX:MaxDirectMemorySize, or -1 (then the heap's max) */
};

/* Sums the heap figures from a parsed buffer. 0 or -errno. */
int hsperf_heap_from(const void *buf, size_t len, struct hsperf_heap *h);
/* 1 when one of the collectors' names (sun.gc.collector.N.name) starts
 * with prefix ("Z ": ZGC's "Z concurrent cycle ..."), 0 when none does,
 * -errno when buf is not hsperfdata. */
int hsperf_collector_is(const void *buf, size_t len, const char *prefix);
/* Reads the file of JVM pid (user: the JVM's user name; NULL to look it up
 * from the process's uid) into buf (at least 32 KiB). Bytes read or -errno. */
ssize_t hsperf_read(pid_t pid, void *buf, size_t len);

#endif
