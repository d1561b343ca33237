/* The timeline's records as C structs, written (collector, Java heap watch)
 * and read back (report) by this one module, so both sides name each field
 * once. Each record is one JSON object on a line of timeline.jsonl; the
 * fields are described in docs/run-directory.md.
 *
 * The death, failure and big_alloc records are not here: they nest the
 * failure groups and allocation stacks that failures.c and allocs.c own
 * and also write to death.json, failures.json and allocs.json, which the
 * report reads by key. */
#ifndef OOMSCOPE_RUN_TIMELINE_H
#define OOMSCOPE_RUN_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include "run/records.h"
#include "detect/resource.h"
#include "detect/sample.h"

struct json;
struct json_object;

/* A figure the record does not have reads back as RUN_NONE (integers) or
 * NAN (doubles); strings read back as NULL and point into the parsed
 * object, valid while it lives. */
#define RUN_NONE INT64_MIN

struct run_settings {          /* the rules' settings, drawn by the report */
	/* each resource's rules ("rules", by the resource's name; older runs:
	 * thread_count, fd_ratio, vmsize_limit_kb, ...); a rule a run did not
	 * say reads back as 0 (off) */
	struct ooms_res_rules res[RES_MAX];
	int vmsize_64bit;
	uint64_t big_alloc_bytes;
	const char *big_alloc_mode;  /* NULL: large allocations not watched */
	const char *heap_rule;
	double heap_ratio, heap_interval_s;
	int64_t heap_polls, max_dumps;
	int shim;
};

#define RUN_MAX_LABELS 32u

struct run_start {
	double t;
	const char *run_id;          /* 32 hex digits, random: the run's identity across machines */
	const char *host;            /* the machine's name */
	size_t nlabels;              /* --label KEY=VALUE, in the order given */
	const char *label_key[RUN_MAX_LABELS], *label_value[RUN_MAX_LABELS];
	int64_t pid;
	const char *command, *mode, *kernel, *arch, *libc, *wall_time;
	int target_32bit;
	double interval_s, duration_s;
	int64_t page_size;
	uint64_t ringbuf_bytes;
	const char *syscall_hook;    /* where syscall results come from ("fexit", "raw_syscalls") */
	/* what this kernel's BPF lacks that oomscope would use, and how it
	 * does without (NULL: nothing): "bpf_task_pt_regs: ..." */
	const char *bpf_fallbacks;
	struct run_settings settings;
};

struct run_syscalls {          /* the kernel side's counts since the start */
	uint64_t fd_opens, fd_closes, thread_news, thread_exits, mmaps, munmaps, mremaps, brks;
};

struct run_sample {
	double t;
	int64_t rss_kb, vmpeak_kb, vmsize_bpf_kb;
	int64_t threads_bpf, fds_bpf;
	/* the watched resources: the figure under the row's name ("fds"), its
	 * limit under the row's limit key ("fd_limit") and the limit's source
	 * under that key + "_src"; RUN_NONE when the record has none */
	struct ooms_res_fig res[RES_MAX];
	uint64_t ringbuf_drops, set_full_drops, events;
	const char *heap_src;        /* NULL: no heap figures */
	int64_t heap_used, heap_committed, heap_max;
	int64_t heap_limit;          /* where the heap rule lies, bytes; RUN_NONE when heap_max is unknown */
	int has_gc;                  /* a Java runtime: gcs and gc_pause_ms */
	uint64_t gcs;
	double gc_pause_ms;
	/* a JVM's other pools ("java_pools"), bytes: RUN_NONE when unknown; a
	 * max of RUN_NONE with a used figure: no limit set */
	struct run_pool_fig { int64_t used, committed, max; } metaspace, class_space, direct;
	struct run_syscalls syscalls;
	/* "memory": the target's RSS by kind and swap, the system's memory and
	 * pressure, the target's oom_score_adj and oom_score; RUN_NONE (PSI:
	 * NAN) where the record has none */
	struct ooms_memfig mem;
};

struct run_crossing {
	double t;
	const char *rule, *reason;
	int64_t value, limit;
	const char *seen_at;         /* "sample" or "event"; NULL for the heap rule's */
	const char *wrote;           /* the snapshot or dump it wrote, NULL for none */
	const char *allocs;          /* the large allocations' snapshot, NULL for none */
	const char *sites;           /* a direct-memory crossing's allocating call sites (direct-N.json), NULL for none */
};

struct run_drift {
	double t;
	const char *what;            /* "fds" or "threads" */
	int64_t proc, bpf;
};

struct run_runtime {
	double t;
	const char *runtime, *lib, *heap_rule;
	int64_t probes, max_dumps;
	double heap_horizon_s, heap_interval_s;
};

struct run_pool {
	const char *name;
	int64_t used, committed, max;
};

struct run_gc {
	double t;
	int full;
	double pause_ms;
	int64_t used_after;          /* RUN_NONE when no pool is known */
	const struct run_pool *pools; /* written only; reading leaves it NULL */
	int npools;
};

struct run_oom {
	double t;
	const char *source, *message;
	int64_t bytes;               /* RUN_NONE: unknown */
	uint64_t tid;                /* 0: unknown */
	const char *thread, *kind;
	const char *stack;           /* written: "Class.method:line;..." innermost first; reading leaves it NULL */
	const char *hint;            /* what would have caught more, NULL for none */
};

struct run_dump_start {
	double t;
	int64_t seq;
	const char *reason;
};

struct run_dump {
	double t;
	int64_t seq, attempts;
	int ok, target_exited;
	const char *method, *when, *file, *error;
	const char *ran_out;         /* what the analysis looks for: "heap", "direct", "metaspace" (NULL: heap) */
	double pause_ms, dump_ms;
	uint64_t bytes_in, bytes_out, objects;
	int has_analysis;            /* the fields below were written */
	const char *analysis, *top_leak, *analysis_error;
	double analyze_ms;
	uint64_t leak_groups, leak_objects;
};

struct run_end {
	double t;
	const char *reason;
	int64_t target_exit_code, target_signal; /* RUN_NONE when not known */
	uint64_t ringbuf_drops, set_full_drops, events_sent, events_received;
	uint64_t timeline_lost; /* earlier records the collector could not write (a full disk) */
	/* runs of oomscope's programs the kernel skipped (another BPF program
	 * was running on that CPU): events possibly never sent, of any process */
	uint64_t skipped_runs;
	/* fds open at the end, made while watched, whose creation event never
	 * came (the syscall hook did not run for them, or the event was lost) */
	uint64_t fds_without_event;
	int64_t crossings;
	/* rules that held again after their crossing without re-arming (a
	 * count oscillating at a limit): each rule's name and how often */
	struct { const char *rule; uint64_t times; } recurred[8];
	int nrecurred;
	uint64_t call_fails, call_fails_sent;
	/* followed syscall returns lost for want of their registers (a kernel
	 * before 5.15 whose registers' place was not learned) */
	uint64_t syscalls_without_regs;
	/* --syscall-hook kprobe: syscall returns the kernel's kretprobes missed
	 * (all their instances taken); -1 with another hook */
	int64_t probe_misses;
	const char *death, *how;     /* NULL: no death recorded */
	const char *runtime;         /* NULL: no Java runtime watched */
	uint64_t runtime_events, runtime_ringbuf_drops;
	int64_t unsafe_untracked;    /* Unsafe.allocateMemory blocks past the kernel side's table (-1: not followed) */
	int64_t dumps;
	/* Java stacks at native events (the shim's): asked (signals sent), sampled
	 * out (over a place's limit), reported, and asked but never joined with
	 * their event; written when any was asked or sampled out */
	uint64_t java_asked, java_sampled_out, java_reported, java_unmatched;
	/* what the collector was handed and does not know, dropped but counted:
	 * events of a type or version it has no case for (both ring buffers),
	 * syscall returns of a class the BPF object has no case for, snapshots
	 * of a kind it has no writer for, failures of an errno it does not name;
	 * with the first type, kind and errno seen */
	uint64_t unknown_events, unknown_classes, unknown_snap_kinds, unknown_errnos;
	int64_t unknown_event_type, unknown_snap_kind, unknown_errno;
	/* oomscope's own cost over the run (getrusage): NAN / 0 when not known */
	double collector_cpu_s;
	uint64_t collector_peak_rss_kb;
};

struct run_record {
	enum run_rec type;
	union {
		struct run_start start;
		struct run_sample sample;
		struct run_crossing crossing;
		struct run_drift drift;
		struct run_runtime runtime;
		struct run_gc gc;
		struct run_oom oom;
		struct run_dump_start dump_start;
		struct run_dump dump;
		struct run_end end;
	} u;
};

/* The start record's settings, each key with its value as text ("-" for
 * none), in the record's order: fn(ctx, key, value) (the report's table of
 * every setting, whatever a run's version wrote). */
void run_settings_each(struct json_object *start, void (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* Writes r as one JSON object (the caller ends the line). A type this
 * module does not hold writes nothing. */
void run_record_write(struct json *j, const struct run_record *r);
/* The same, shaped as the collector's emit callbacks want (arg: a
 * const struct run_record *). */
void run_record_body(struct json *j, void *arg);
/* Reads a parsed timeline line into r and returns its type: REC_UNKNOWN
 * for a line that is not an object or has no known "type"; death, failure
 * and big_alloc lines come back with their type and nothing in r.u. */
enum run_rec run_record_read(struct json_object *o, struct run_record *r);
/* The last record of type type in the timeline file path, read into *r
 * (its strings point into *o: json_object_put(*o) after; NULL when none);
 * tail: only the file's last tail bytes are read (0: all of it). 0, or -1
 * when the file holds none (or cannot be read). */
int run_timeline_last(const char *path, enum run_rec type, size_t tail, struct json_object **o, struct run_record *r);

/* A sample's (or death.json's) memory figures: made the files' way
 * (unknown figures RUN_NONE, unknown PSI NAN), written under key, read. */
void run_memfig_from(struct ooms_memfig *out, const struct ooms_memfig *in);
void run_memfig_write(struct json *j, const char *key, const struct ooms_memfig *m);
void run_memfig_read(struct json_object *o, struct ooms_memfig *m);

#endif
