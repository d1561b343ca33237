/* The collector: loads and attaches the BPF programs for one target, seeds
 * and reconciles the totals from /proc, consumes attribution events, runs the
 * detectors every interval and writes the run directory. */
#ifndef OOMSCOPE_COLLECTOR_H
#define OOMSCOPE_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "collector/java/jheap.h"
#include "detect/detect.h"

/* Where syscall results come from, cheapest for other processes first:
 * fexit on the followed syscalls' handlers (their other syscalls pay
 * nothing), the followed syscalls' own tracepoints (syscalls:sys_exit_*:
 * every task takes the slow syscall path, but runs no BPF), or
 * raw_syscalls:sys_exit (every syscall on the machine runs the program);
 * auto: the first that loads. */
enum { OOMS_HOOK_AUTO, OOMS_HOOK_FEXIT, OOMS_HOOK_SYSCALLS, OOMS_HOOK_KPROBE, OOMS_HOOK_RAW };

#define OOMS_MAX_LABELS 32

struct ooms_watch_opts {
	pid_t pid;               /* watch: the target */
	const char *app;         /* watch --app: the package named */
	int resume_target;       /* watch --app: the target is held stopped; SIGCONT once attached */
	char *const *argv;       /* run: the command to launch (NULL for watch) */
	double interval_s;       /* -i, default 1 */
	double duration_s;       /* -d, 0 = until the target exits or a signal */
	const char *out_dir;     /* -o, run directory */
	const char *btf_path;    /* --btf */
	int json;                /* --json: JSON lines on stdout */
	int verbose;             /* -v */
	int quiet;               /* -q: no progress lines on the terminal */
	int stop_on_crossing;    /* --stop-on-crossing */
	int no_pthread_probe;    /* --no-pthread-probe: no uprobe on pthread_create */
	int no_failures;         /* --no-failures: failing calls are not recorded */
	uint64_t ringbuf_bytes;  /* --ringbuf-size, 0 = default */
	int syscall_hook;        /* --syscall-hook: OOMS_HOOK_* */
	uint64_t big_map_bytes;  /* --big-map: mmaps at least this big get a stack */
	uint64_t fault_sample_bytes; /* --fault-sample: a page fault's stack every this many bytes faulted in (0: none) */
	uint64_t big_alloc_bytes; /* --big-alloc: report single allocations this big (0: off) */
	int big_alloc_mode;      /* --big-alloc-mode: enum ooms_alloc_mode */
	int big_alloc_live;      /* --big-alloc-live: return probes (addresses, frees) */
	unsigned stack_depth;    /* --stack-depth for big allocations */
	int64_t thread_limit;    /* --thread-limit: a per-process limit (vendor ROMs) */
	int no_java_stacks;      /* --no-java-stacks: the shim takes no Java stacks at native events */
	const char *const *java_platform; /* --java-platform: class prefixes (NULL: attrib's default) */
	int java_platform_add;   /* --java-platform +LIST: in addition to the default */
	int java_perf_map;       /* --perf-map: ask HotSpot for its perf map before groups are written */
	struct ooms_detect_config detect;
	struct ooms_jheap_opts java; /* the Java heap watch: runtime, shim, heap rule, dumps */
	/* Process trees (run by default, watch --children): each process the
	 * target forks is held at its first followed syscall and watched by a
	 * collector of its own (`oomscope watch --held -p CHILD` with
	 * child_args, the options to pass on), at most max_children at once;
	 * their run directories under DIR/children/. */
	int follow_children;
	int max_children;
	const char *const *child_args;
	/* a watched child's headlines (crossings, failures) also on the
	 * launcher's terminal, as they happen: written to this fd (-1: none;
	 * the launcher's stdout, inherited as fd 3), their time counted from
	 * the launcher's start (CLOCK_MONOTONIC ns) */
	int headline_fd;
	int64_t headline_t0_ns;
	/* --label KEY=VALUE: what the run is of (app version, build, device,
	 * test), kept in the start record beside the run's id */
	char label_key[OOMS_MAX_LABELS][65];
	const char *label_value[OOMS_MAX_LABELS];
	size_t nlabels;
};

/* Returns the process exit code: 0 ok, 1 runtime failure (message printed). */
/* Watches until the target ends, the duration passes or a signal comes.
 * dir gets the run directory once it has been made ("" if it never was):
 * the caller writes the report from it. 0, or 1 after saying why. */
int ooms_collect(const struct ooms_watch_opts *o, char *dir, size_t dir_len);

#endif
