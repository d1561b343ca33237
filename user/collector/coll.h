/* The collector's top level: the run's state (struct coll) and what its
 * files offer each other. They tie the rooms together; each room keeps a
 * state of its own, held here and passed in (kernel/kernel_side.h's struct
 * coll_kernel, java/java_watch.h's struct java_watch, tree/children.h's
 * struct coll_tree), and includes this header not at all, but console.c,
 * which draws the whole watch. collector.h is the public entry point.
 *   collector.c      setup, the run directory, the event loop, the end
 *   coll_sampling.c  a sample every interval
 *   coll_sets.c      the kernel side's sets read back, drift checked
 *   coll_resources.c each watched resource's figure and limit
 *   coll_events.c    the ring buffer's events: failures, rules checked on events
 *   coll_crossings.c crossings: their snapshots, records and lines
 *   coll_records.c   the start, death and end records, failures.json, death.json
 *   coll_timeline.c  the timeline writer (and --json's stdout)
 *   coll_common.c    time, the target still ours, own cost
 *   console/console.c the terminal: the table, how it ended */
#ifndef OOMSCOPE_COLLECTOR_COLL_H
#define OOMSCOPE_COLLECTOR_COLL_H

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector/kernel/kernel_side.h"
#include "collector/console/console.h"
#include "collector/collector.h"
#include "collector/attrib/attrib.h"
#include "proc/cgroup.h"
#include "collector/end/end_cause.h"
#include "collector/attrib/failed_calls.h"
#include "collector/kernel/set_snapshot.h"
#include "collector/tree/launch.h"
#include "collector/tree/children.h"
#include "collector/memory/memory_watch.h"
#include "collector/end/killer.h"
#include "proc/procfs.h"
#include "collector/kernel/syscall_table.h"
#include "collector/kernel/tracefs.h"
#include "collector/attrib/big_allocs.h"
#include "collector/java/jheap.h"
#include "collector/java/java_watch.h"
#include "runtime/shim_client.h"
#include "sym/symbolize.h"
#include "util/atomic_file.h"
#include "util/json.h"

struct coll {
	const struct ooms_watch_opts *o;
	pid_t pid;
	int pidfd;                 /* the target pinned from the start (-1 when the kernel has no pidfd) */
	int64_t start_time;        /* its /proc/PID/stat start time: a reused PID has another */
	struct launch launch;
	char *art_args[256];       /* run --shim of ART's launcher: its command with the agent added */
	uint64_t java_heap_lo, java_heap_hi; /* the JVM's heap reservation, once a fault found it */
	struct coll_kernel k;       /* the kernel side (kernel/) */
	int launched;
	struct ooms_symbolizer *sym;
	struct ooms_attrib *attrib;
	struct ooms_allocs *allocs;
	struct ooms_jheap *jheap;
	struct ooms_detector det;
	enum ooms_arch arch;
	char dir[4096];
	FILE *timeline;            /* its fd is written whole records at a time */
	uint64_t timeline_lost;    /* records that could not be written (a full disk) */
	/* what this collector was handed and does not know (an event type, a
	 * snapshot kind): counted, the first of each said at once and at the end */
	struct { uint64_t events, snap_kinds; int event_type, snap_kind; } unknown;
	struct ooms_snapshot last; /* the latest snapshot of a live target */
	struct coll_tree tree;     /* the children watched (tree/) */
	struct coll_memory mem;    /* the system's memory and its pressure (memory/) */
	struct memory_kill kill;   /* why memory killed it (end/killer.c), when it did */
	int has_kill;
	struct java_watch java;    /* Java stacks, the perf map, direct memory's sites (java/) */
	uint64_t start_ns;
	int64_t threads_max;
	int64_t prev_vmsize_kb;
	int64_t prev_vm_delta;
	int drift_fds, drift_threads; /* consecutive samples with a difference */
	int crossings;
	/* the crossing snapshots each rule keeps: its first, its largest and
	 * its last (crossing numbers, 0 none); the others are removed */
	struct { int first, largest, last; int64_t largest_value; } kept[RULE_MAX];
	int is_32bit;
	long samples;
	uint64_t last_sample_ns;
	/* /proc's lists (every thread's name, every fd's target) cost about
	 * 10 us an entry: read whole at most every 20x their cost, else the
	 * counts alone (see coll_take_sample) */
	uint64_t snap_cost_ns, last_full_ns;
	int last_full;  /* c->last's lists were read at its sample */
	/* the large mmaps and munmaps seen, replayed onto the last maps read
	 * when the target is gone before they can be read again (the OOM killer's victim) */
	struct map_change *map_changes;
	size_t nmap_changes, map_changes_cap;
	int map_changes_partial;
	int force_full; /* the next sample reads them whatever the cost */
	/* the mapping calls (and ring buffer losses) counted when the maps were
	 * last read for symbols: a sample reads them again only when these moved */
	uint64_t maps_calls_seen;
	struct ooms_failures *fails;
	int fail_snapped[FAIL_KIND_MAX]; /* the state at the first failure of each kind was written */
	struct ooms_sample last_smp;    /* the last sample: limits for rules checked on events */
	/* sampled faults in mappings made since the maps were read, kept until
	 * the next sample reads them again (coll_memory.c) */
	struct ooms_event *faults_deferred;
	size_t nfaults_deferred;
	const struct ooms_sample *snap_smp; /* the sample crossings are being written for (NULL: last_smp) */
	int have_smp;
	struct ooms_cgroup cg;          /* the target's cgroups at the last sample */
	struct ooms_cgroup cg_prev;     /* ... at the sample before (cg_prev_ns 0: none) */
	uint64_t cg_ns, cg_prev_ns;     /* when they were read */
	int died;                       /* the kernel side saw the last thread exit */
	/* found while events are handled, acted on once the batch is read (so
	 * a snapshot's every member has had its creation event attributed) */
	struct ooms_crossing pending_xs[RULE_MAX];
	struct ooms_sample pending_smp;
	size_t npending;
};


/* ---- the target's end ---- */

struct death_line {
	struct coll *c;
	const struct ooms_death_rec *d;
	const struct ooms_cgroup *cg;
};

int coll_crossings(struct coll *c);
/* 1 while c->pid still names the target (alive or not yet reaped), 0 once
 * the PID is free or another process's: call it after reading /proc/PID
 * to know that what was read was the target's. */
int coll_target_ours(struct coll *c);
uint64_t coll_now_ns(void);
/* oomscope's own cost so far: CPU seconds of all its threads (NAN when
 * unknown) and its peak RSS in kB (0). */
void coll_own_cost(double *cpu_s, uint64_t *peak_rss_kb);
double coll_since(struct coll *c);
void coll_emit(struct coll *c, void (*body)(struct json *j, void *arg), void *arg);
int coll_held_snapshot(struct coll *c, struct ooms_snapshot *s);
void coll_check_drift(struct coll *c, const struct ooms_snapshot *s, const struct ooms_sample *smp);
void coll_consume(struct coll *c);
int coll_handle_event(void *ctx, void *data, size_t size);
/* The tests' way to hand the collector what it does not know
 * (OOMSCOPE_FAULT=unknown_input): at the first sample. */
void coll_fault_unknown(struct coll *c);
/* Crossings (coll_crossings.c): decided on an event and kept pending, the
 * pending ones acted on, a snapshot written as DIR/name or as BASE.json /
 * BASE-SEQ.json, and crossings handled (their files, records and lines). */
void coll_crossings_on_event(struct coll *c, const struct ooms_event *e);
void coll_crossings_pending(struct coll *c);
/* Every resource's figure and limit for sample smp (coll_resources.c):
 * from the lists s (read for this sample when full, else the last
 * reading, with st's counts and fds, /proc/PID/fd's count), the limits
 * lim; st NULL: the limits alone. */
void coll_count_resources(struct coll *c, const struct ooms_snapshot *s, const struct proc_status *st,
			  const struct proc_limits *lim, int full, int64_t fds, struct ooms_sample *smp);
/* The memory snapshot at path (coll_memory.c), and under a crossing's line
 * the code that grew the memory most. */
int coll_write_memory(struct coll *c, const char *path);
/* A sampled page fault, grouped by its stack and what backs its page; one
 * in a mapping made since the maps were read waits for the next reading
 * (coll_faults_flush, after a sample's). */
void coll_fault_event(struct coll *c, const struct ooms_event *e);
void coll_faults_flush(struct coll *c);
void coll_memory_lines(const char *dir, const char *name);
int coll_write_snap(struct coll *c, const struct ooms_snapshot *s, enum ooms_snap kind, const char *name);
int coll_write_file(struct coll *c, const struct ooms_snapshot *s, enum ooms_snap kind, int seq, char *name,
		      size_t name_len);
void coll_handle_crossings(struct coll *c, const struct ooms_snapshot *s, const struct ooms_sample *smp,
			     const struct ooms_crossing *xs, size_t nx, const char *seen_at);
void coll_seed_limits(struct coll *c);
int coll_take_sample(struct coll *c);
/* What the collector was handed and did not know (coll_records.c). */
struct run_end;
void coll_unknown_counts(struct coll *c, struct run_end *e);
void coll_print_header(void);
void coll_print_row(const struct ooms_sample *s);
/* The terminal (console/console.c), the only writer of the collector's
 * lines: coll_say's lead with the time; coll_print's are written as given. */
void coll_say(void *ctx, const char *fmt, ...);
/* A watched child's headline (a crossing, a failure) on the launcher's
 * terminal too (o->headline_fd), "TIME child PID (NAME): WORDS", one write. */
void coll_headline(struct coll *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void coll_progress(void *ctx, const char *what);
void coll_print_death(struct coll *c, const struct ooms_death_rec *d);
void coll_print_end(struct coll *c, const char *why, const struct ooms_death_rec *d, uint64_t skipped, size_t unseen);
void coll_emit_start(struct coll *c);
void coll_death_body(struct json *j, void *arg);
void coll_write_death(struct coll *c, struct death_line *l);
void coll_write_failures(struct coll *c);
/* exit_status: a wait status or -1; death: NULL when none was seen */
void coll_emit_end(struct coll *c, const char *reason, int exit_status, const struct ooms_death_rec *death,
		   uint64_t skipped_runs, uint64_t fds_without_event);

#endif
