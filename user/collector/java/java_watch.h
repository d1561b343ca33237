/* The collector's Java side beside the heap watch (jheap.h): the shim's
 * Java stacks at native events (java_stacks.c) and direct buffers' memory
 * by call site (direct_sites.c). Its state is its own; what it needs of the
 * rest (the kernel side, the attribution, the symbolizer, the heap watch)
 * is given before its first call. */
#ifndef OOMSCOPE_COLLECTOR_JAVA_JAVA_WATCH_H
#define OOMSCOPE_COLLECTOR_JAVA_JAVA_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/attrib/attrib.h"
#include "collector/collector.h"
#include "collector/java/jheap.h"
#include "collector/kernel/kernel_side.h"
#include "sym/symbolize.h"

struct bpf_link;

struct java_watch {
	/* given */
	const struct ooms_watch_opts *o;
	pid_t pid;
	int launched;                /* ours: its perf map is ours to read once it has exited */
	const char *dir;             /* the run directory */
	struct coll_kernel *k;
	struct ooms_attrib *attrib;
	struct ooms_symbolizer *sym;
	struct ooms_jheap *jheap;    /* NULL: no Java watch */
	/* the shim's connection and what came on it not yet a whole line */
	int conn;                    /* -1: none */
	char buf[32768];
	size_t len;
	uint64_t next_try_ns;
	uint64_t reports;
	/* the threads started before the connection ("jt" lines): in this
	 * connection's handover, taken; the ring read before the first */
	uint64_t started_seen, started_taken, opened_seen, opened_taken;
	int started_synced;
	/* HotSpot's perf map: when last asked for, the loaded one's mtime */
	uint64_t pm_asked_ns;
	int64_t pm_mtime_ns;
	int pm_said;
	/* Unsafe.allocateMemory's probes */
	struct bpf_link *direct_links[5];
	int ndirect_links;
	int direct_tried;
};

/* Java stacks (java_stacks.c): asked of the shim once it answers (each
 * sample tries), read as they come, at the end waited for (at most ms, with
 * a line saying what came); the same for the events up to until_ns alone (a
 * crossing's snapshot), without a word; the connection closed. */
void coll_java_try(struct java_watch *jw);
void coll_java_read(struct java_watch *jw);
void coll_java_settle(struct java_watch *jw, int ms);
void coll_java_settle_until(struct java_watch *jw, uint64_t until_ns, int ms);
void coll_java_close(struct java_watch *jw);
/* Before groups are written: the runtime told to the attribution, and
 * HotSpot's perf map loaded if there is one (ask: --perf-map asks the JVM
 * to write it first, when not asked in the last 2 s; alive: the target is
 * still there to be asked and read). */
void coll_java_perfmap(struct java_watch *jw, int ask, int alive);

/* Direct buffers' memory by call site (direct_sites.c): the probes on
 * libjvm.so's Unsafe_*Memory0 once the target runs HotSpot (each sample
 * tries until it is known), taken off at the end; a direct-memory
 * crossing's snapshot direct-SEQ.json at t seconds (its name in name; alive:
 * the target still there) with
 * its largest sites said; direct.json at the end when any block was seen. */
void coll_direct_try(struct java_watch *jw);
void coll_direct_detach(struct java_watch *jw);
int coll_direct_snapshot(struct java_watch *jw, int seq, double t, int alive, int64_t limit, char *name,
			 size_t len);
void coll_direct_write_end(struct java_watch *jw, double t);

#endif
