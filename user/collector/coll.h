/* The collector's rooms share this: the run's state (struct coll) and what
 * each file offers the others. Private to user/collector/collector*.c and
 * the files named below; collector.h is the public entry point.
 *   coll_common.c    time, the target still ours, the kernel side's totals, own cost
 *   coll_timeline.c  the timeline writer (and --json's stdout)
 *   kernel/collect.c    loading and attaching the BPF programs
 *   kernel/sets.c      the kernel side's fd and thread sets: seeding, drift, repair,
 *                    and snapshots built from them
 *   coll_events.c    the ring buffer's events: failures, rules checked on events
 *   coll_sampling.c  a sample every interval, the rules, crossings and snapshots
 *   coll_records.c   the start, death and end records, failures.json, death.json
 *   console/console.c   the terminal: the table, progress, how it ended
 *   java/direct_sites.c    HotSpot's direct buffers' memory by call site
 *   tree/children.c  process trees: a collector of its own for each child
 *   collector.c      setup, the run directory, the event loop */
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

#include "collector/kernel/collect.h"
#include "collect.skel.h"
#include "collector/collector.h"
#include "collector/attrib/attrib.h"
#include "collector/cgroup.h"
#include "collector/end_cause.h"
#include "collector/attrib/failed_calls.h"
#include "collector/kernel/set_snapshot.h"
#include "collector/tree/launch.h"
#include "proc/procfs.h"
#include "collector/kernel/syscall_table.h"
#include "collector/kernel/tracefs.h"
#include "collector/attrib/big_allocs.h"
#include "collector/java/jheap.h"
#include "runtime/shim_client.h"
#include "sym/symbolize.h"
#include "util/atomic_file.h"
#include "util/json.h"

/* A child process watched by a collector of its own (tree/children.c). */
struct coll_kid {
	pid_t target, collector;
	int ended;
	char name[64];
	char dir[4400];
};

struct coll {
	const struct ooms_watch_opts *o;
	pid_t pid;
	int pidfd;                 /* the target pinned from the start (-1 when the kernel has no pidfd) */
	int64_t start_time;        /* its /proc/PID/stat start time: a reused PID has another */
	struct launch launch;
	int launched;
	int aarch32;               /* a 32-bit ARM process on an arm64 kernel: no uprobe fires in it */
	int alloc_mode;            /* --big-alloc-mode as used: syscall when uprobes cannot be */
	struct collect_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *libc_link;
	char libc_path[512];
	char syscall_hook[96];     /* the hook that was chosen, for the start record */
	int hook;                  /* OOMS_HOOK_FEXIT, _SYSCALLS or _RAW once loaded */
	int fexit_err;             /* why this kernel refused a probe fexit program (0: it did not) */
	struct bpf_link *sc_links[OOMS_FEXIT_SLOTS]; /* syscalls:sys_exit_* or kretprobe links */
	int nsc_links;
	char kp_events[OOMS_FEXIT_SLOTS][48];      /* the kretprobe events made (kernel/kprobe.c) */
	int kp_made;
	struct ooms_symbolizer *sym;
	struct ooms_attrib *attrib;
	struct ooms_allocs *allocs;
	struct ooms_jheap *jheap;
	struct bpf_link *alloc_links[24];
	int memalign_is_aligned_alloc;
	int nalloc_links;
	struct bpf_link *direct_links[5]; /* Unsafe.allocateMemory's probes (java/direct_sites.c) */
	struct coll_kid *kids;     /* child processes watched (tree/children.c) */
	size_t nkids, kids_cap;
	uint64_t kids_skipped, kids_forked;
	int ndirect_links;
	int direct_tried;
	struct ooms_detector det;
	enum ooms_arch arch;
	char dir[4096];
	FILE *timeline;            /* its fd is written whole records at a time */
	uint64_t timeline_lost;    /* records that could not be written (a full disk) */
	char tracefs[256];
	int tracefs_mounted;
	struct ooms_snapshot last; /* the latest snapshot of a live target */
	/* Java stacks at native events (the shim, HotSpot): its connection and
	 * what came on it not yet a whole line (java/java_stacks.c) */
	int js_conn;
	char js_buf[32768];
	size_t js_len;
	uint64_t js_next_try_ns;
	uint64_t js_reports;
	/* HotSpot's perf map (java/java_stacks.c): when last asked for, the loaded one's mtime */
	uint64_t pm_asked_ns;
	int64_t pm_mtime_ns;
	int pm_said;
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
	uint64_t *fd_bits;     /* the BPF fd bitmap, mmap-ed */
	size_t fd_words;
	struct ooms_failures *fails;
	int fail_snapped[FAIL_KIND_MAX]; /* the state at the first failure of each kind was written */
	struct ooms_sample last_smp;    /* the last sample: limits for rules checked on events */
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
	int ring_busy;             /* the ring buffer is being read (kernel/ring.c) */
};


/* ---- the target's end ---- */

struct death_line {
	struct coll *c;
	const struct ooms_death_rec *d;
	const struct ooms_cgroup *cg;
};

extern int coll_verbose;
int coll_crossings(struct coll *c);
/* 1 while c->pid still names the target (alive or not yet reaped), 0 once
 * the PID is free or another process's: call it after reading /proc/PID
 * to know that what was read was the target's. */
int coll_target_ours(struct coll *c);
/* The kernel side's BPF object, as the rest of the collector may see it
 * (kernel/kernel_side.c: the skeleton is touched in kernel/ alone): its
 * totals; when the OOM killer chose the target (0: not yet); whether it saw
 * the target's last thread leave; its records of the end (death, the last
 * signals, the OOM victim); the kernel's count of a failure key (0, or -1)
 * and the map holding them; the Java stacks' signal; the direct-memory
 * programs (UNSAFE_PROBES of them); whether it holds code maps; the event
 * ring buffer's map and the live threads' set; its end. */
volatile struct ooms_totals *coll_totals(struct coll *c);
uint64_t coll_k_oom_ns(struct coll *c);
int coll_k_death_seen(struct coll *c);
void coll_k_end_records(struct coll *c, const struct ooms_death **death, const struct ooms_sig_rec **sigs,
			const struct ooms_oom_victim **oom);
int coll_k_fail_count(struct coll *c, const struct ooms_fail_key *key, struct ooms_fail_count *n);
int coll_k_fail_counts_fd(struct coll *c);
void coll_k_java_signal(struct coll *c, int sig);
void coll_k_direct_progs(struct coll *c, struct bpf_program **progs);
int coll_k_hold_code_maps(struct coll *c);
int coll_k_events_fd(struct coll *c);
int coll_k_live_threads_fd(struct coll *c);
void coll_k_destroy(struct coll *c);
uint64_t coll_now_ns(void);
/* oomscope's own cost so far: CPU seconds of all its threads (NAN when
 * unknown) and its peak RSS in kB (0). */
void coll_own_cost(double *cpu_s, uint64_t *peak_rss_kb);
uint64_t coll_skipped_runs(struct coll *c);
double coll_since(struct coll *c);
/* The terminal's stderr lines about the watch itself (console/console.c):
 * "oomscope: " and the words; coll_note is the same for the io callbacks
 * of the rooms (a ctx first). */
void coll_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void coll_note(void *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int coll_libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap);
void coll_emit(struct coll *c, void (*body)(struct json *j, void *arg), void *arg);
int coll_check_kernel(struct coll *c);
void coll_explain_bpf_error(const char *what, int e);
int coll_load_bpf(struct coll *c);
void coll_attach_libc(struct coll *c);
int coll_attach_allocs(struct coll *c);
uint32_t coll_ringbuf_bytes(const struct ooms_watch_opts *o);
int64_t coll_seed_set(pid_t pid, int map_fd, const int *keys, size_t n);
int *coll_snapshot_keys(const struct ooms_snapshot *s, int fds);
int64_t coll_sync_fd_bits(struct coll *c, const struct ooms_snapshot *s, int add_only, int64_t *corrected);
int coll_held_snapshot(struct coll *c, struct ooms_snapshot *s);
void coll_check_drift(struct coll *c, const struct ooms_snapshot *s, const struct ooms_sample *smp);
void coll_consume(struct coll *c);
/* Java stacks (java/java_stacks.c): asked of the shim once it answers (each sample
 * tries), read as they come, and at the end waited for (at most ms). */
void coll_java_try(struct coll *c);
void coll_java_read(struct coll *c);
void coll_java_settle(struct coll *c, int ms);
/* The same for the events up to until_ns alone (a crossing's snapshot), without a word. */
void coll_java_settle_until(struct coll *c, uint64_t until_ns, int ms);
void coll_java_close(struct coll *c);
/* Before groups are written: the runtime told to the attribution, and
 * HotSpot's perf map loaded if there is one (ask: --perf-map asks the JVM
 * to write it first, when not asked in the last 2 s). */
void coll_java_perfmap(struct coll *c, int ask);
/* --syscall-hook kprobe (kernel/kprobe.c): the kretprobes made in tracefs and
 * attached (their count, or a negative errno with failed naming it), undone,
 * and the returns they missed so far. */
int coll_kretprobes_attach(struct coll *c, char *failed, size_t failed_len);
void coll_kretprobes_detach(struct coll *c);
uint64_t coll_kretprobes_missed(struct coll *c);
/* Direct buffers' memory by call site (java/direct_sites.c): the probes on
 * libjvm.so's Unsafe_*Memory0 once the target runs HotSpot (each sample
 * tries until it is known), taken off at the end; a direct-memory
 * crossing's snapshot direct-SEQ.json (its name in name) with its largest
 * sites said; direct.json at the end when any block was seen. */
void coll_direct_try(struct coll *c);
void coll_direct_detach(struct coll *c);
int coll_direct_snapshot(struct coll *c, int seq, int64_t limit, char *name, size_t len);
void coll_direct_write_end(struct coll *c);
/* Process trees (tree/children.c): EV_CHILD and EV_CHILD_HELD; the
 * children's collectors that ended, said (each sample); at the end, those
 * left: waited for when the target ended (until Ctrl-C or the duration),
 * else stopped, each ending as a watch does. */
void coll_children_event(struct coll *c, const struct ooms_event *e);
void coll_children_reap(struct coll *c);
void coll_children_finish(struct coll *c, int target_ended);
/* Under the target's row of the table: a row for each child watched (its
 * last sample, from its timeline), the CHILD_ROWS with most fds, and a
 * count of the rest. */
void coll_children_rows(struct coll *c);
/* The ring buffer (kernel/ring.c), alone (no crossings acted on): a long
 * /proc read's tick; coll_read_ring is -1 when it is being read already. */
void coll_consume_ring(void *ctx);
int coll_read_ring(struct coll *c);
int coll_handle_event(void *ctx, void *data, size_t size);
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
int coll_write_snap(struct coll *c, const struct ooms_snapshot *s, enum ooms_snap kind, const char *name);
int coll_write_file(struct coll *c, const struct ooms_snapshot *s, enum ooms_snap kind, int seq, char *name,
		      size_t name_len);
void coll_handle_crossings(struct coll *c, const struct ooms_snapshot *s, const struct ooms_sample *smp,
			     const struct ooms_crossing *xs, size_t nx, const char *seen_at);
void coll_seed_limits(struct coll *c);
int coll_take_sample(struct coll *c);
void coll_print_header(void);
void coll_print_row(const struct ooms_sample *s);
/* The terminal (console/console.c), the only writer of the collector's
 * lines: coll_say's lead with the time; coll_print's are written as given. */
void coll_say(void *ctx, const char *fmt, ...);
void coll_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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
