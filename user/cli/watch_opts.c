/* `oomscope watch` and `oomscope run`: their options (one table, which is
 * also their --help), parsed into the collector's settings, and the ones a
 * child's collector is given. */
#define _GNU_SOURCE
#include "cli/commands.h"
#include "cli/opts.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collector/kernel/collect.h"
#include "collector/collector.h"
#include "hprof/io.h"
#include "hprof/transform.h"
#include "runtime/runtime.h"
#include "util/vec.h"
#include "cli/watch_opts.h"

static const char usage_head[] =
	"usage: oomscope watch -p PID [options]\n"
	"       oomscope watch --app PACKAGE [options]\n"
	"       oomscope run [options] -- CMD [ARGS...]\n"
	"\n"
	"Follows a process's threads, file descriptors and address space with eBPF,\n"
	"samples /proc every interval, and when a threshold is crossed writes who\n"
	"created the threads and fds (creation stacks) into the run directory. Calls\n"
	"that fail for want of fds, threads or memory are recorded with their stacks,\n"
	"and when the target ends, how it ended and who ended it.\n"
	"`run` starts CMD with the probes already attached and stops it at the end.\n"
	"\n"
	"options:\n";

static const char usage_tail[] =
	"\n"
	"run directory: timeline.jsonl (samples and events), report.html (the run on one\n"
	"page), trace.json (Perfetto), threads.json, fds.json, vmsize.json, failures.json,\n"
	"death.json, allocs.json and allocs.txt with --big-alloc (see docs/run-directory.md\n"
	"for the schemas). `oomscope symbolize` names a saved report's frames later.\n";

/* Each command's own; tests/bats/help_examples.bats runs every one as written. */
static const char watch_examples[] =
	"\n"
	"examples:\n"
	"  oomscope watch -p 4242 -o runs/app-4242\n"
	"  oomscope watch -p 4242 -i 5 -d 3600 --json\n"
	"  oomscope watch -p 4242 --fd-count 500 --stop-on-crossing\n"
	"  oomscope watch -p 4242 --shim --max-dumps 1\n";

static const char run_examples[] =
	"\n"
	"examples:\n"
	"  oomscope run -o runs/svc -- ./server --port 8080\n"
	"  oomscope run --fd-count 500 --stop-on-crossing -- ./server --port 8080\n"
	"  oomscope run --shim -o runs/svc -- java -Xmx256m -jar service.jar\n";

static const char *cmd_name = "watch"; /* or "run": the usage errors name it */
#define bad(fmt, arg) cli_usage_error(cmd_name, fmt, arg)

static int parse_num(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end ? -1 : 0;
}

enum {
	OPT_JSON = 256, OPT_BTF, OPT_STOP, OPT_BIGMAP, OPT_TCOUNT, OPT_TGAP, OPT_TPOLLS,
	OPT_FCOUNT, OPT_FGAP, OPT_FPOLLS, OPT_FRATIO, OPT_TRATIO, OPT_TLIMIT, OPT_VMLIMIT, OPT_VM64, OPT_RULE,
	OPT_NOPTHREAD, OPT_RINGBUF, OPT_BIGALLOC, OPT_BIGALLOC_MODE, OPT_BIGALLOC_LIVE, OPT_STACKDEPTH,
	OPT_RUNTIME, OPT_SHIM, OPT_HEAPRULE, OPT_HORIZON, OPT_NOFAIL, OPT_HEAPRATIO, OPT_HEAPPOLLS, OPT_HEAPINT, OPT_HUGERATIO, OPT_HUGEDELTA,
	OPT_MAXDUMPS, OPT_COOLDOWN, OPT_DUMPMETHOD, OPT_DUMPMODE, OPT_DUMPCODEC, OPT_NOSTRINGS, OPT_NOANALYZE, OPT_LEAKCLASS,
	OPT_LEAKIF, OPT_SYSHOOK, OPT_APPTIMEOUT, OPT_NOJSTACKS, OPT_JPLATFORM, OPT_PERFMAP, OPT_NOPOOLRULES,
	OPT_CHILDREN, OPT_NOCHILDREN, OPT_MAXCHILDREN, OPT_HELD, OPT_LABEL, OPT_FAULTSAMPLE, OPT_APPUSER, OPT_HEADLINES,
	OPT_MAXMEMORY,
};

static const char *app_pkg;  /* --app */
static int app_timeout_s;
static int app_user = -1;    /* --user */

static const struct cli_opt options[] = {
	{"pid", 'p', required_argument, 'p', "PID", "process to watch (watch)"},
	{"app", 'a', required_argument, 'a', "PACKAGE",
	 "the process of an Android app by its package (or any\nprocess by its command line's first word): the one\n"
	 "running, else the next to start, held from the\nmoment it takes the name until the probes are\n"
	 "attached, so nothing of its start is missed; one of\nan app's processes by its process name,\n"
	 "com.example.app:remote (watch)"},
	{"user", 0, required_argument, OPT_APPUSER, "N",
	 "--app: the Android user's process (0: the device's\nowner; 10 and up: a work profile, a second user),\n"
	 "needed when several users run the app"},
	{"app-timeout", 0, required_argument, OPT_APPTIMEOUT, "SECS", "--app: wait at most this long (default: no limit)"},
	{"interval", 'i', required_argument, 'i', "SECS", "sampling interval (default 1)"},
	{"duration", 'd', required_argument, 'd', "SECS", "stop after SECS (default: until the target exits or Ctrl-C)"},
	{"out", 'o', required_argument, 'o', "DIR", "run directory, created if missing\n(default ./oomscope-PID-YYYYmmdd-HHMMSS)"},
	{"json", 0, no_argument, OPT_JSON, NULL, "JSON lines on stdout instead of the table"},
	{"children", 0, no_argument, OPT_CHILDREN, NULL,
	 "watch: also watch the processes the target starts from now on,\neach as a target of its own (run does so by default)"},
	{"no-children", 0, no_argument, OPT_NOCHILDREN, NULL, "run: watch only the command, not the processes it starts"},
	{"max-children", 0, required_argument, OPT_MAXCHILDREN, "N", "processes watched at once beside the target (8)"},
	{"held", 0, no_argument, OPT_HELD, NULL, "the target is stopped (SIGSTOP) until attached: SIGCONT then\n(how a process tree's children are watched)"},
	{"headlines", 0, required_argument, OPT_HEADLINES, "FD:T0",
	 "crossings and failures also to fd FD, timed from T0 (how a\nwatched child's reach the launcher's terminal)"},
	{"label", 0, required_argument, OPT_LABEL, "KEY=VALUE",
	 "what the run is of, kept in its start record beside its id\n(repeatable: app version, build, device, test;\n"
	 "KEY of letters, digits, '_', '.', '-'; at most 32)"},
	{"stop-on-crossing", 0, no_argument, OPT_STOP, NULL, "stop at the first threshold crossing"},
	{"btf", 0, required_argument, OPT_BTF, "FILE", "kernel BTF when /sys/kernel/btf/vmlinux is missing"},
	{"big-map", 0, required_argument, OPT_BIGMAP, "BYTES", "record the stack of mmaps of at least BYTES (default 1M)"},
	{"big-alloc", 0, required_argument, OPT_BIGALLOC, "BYTES",
	 "report every single allocation of at least BYTES (K/M/G;\n8M is Baidu's threshold), live and in allocs.json/.txt"},
	{"big-alloc-mode", 0, required_argument, OPT_BIGALLOC_MODE, "M",
	 "syscall (default: anonymous mmap, mremap and brk growth,\nmprotect commits of reserved memory;\n"
	 "near zero cost) or uprobe (malloc, calloc, realloc,\nposix_memalign, aligned_alloc, memalign, valloc and\n"
	 "operator new in the target's libc/libstdc++: exact)"},
	{"big-alloc-live", 0, no_argument, OPT_BIGALLOC_LIVE, NULL,
	 "uprobe mode: return probes too, for the address, and a\nprobe on free: the report says which blocks are live"},
	{"fault-sample", 0, required_argument, OPT_FAULTSAMPLE, "BYTES",
	 "memory's growth by code: the stack of one page fault in\nevery BYTES of the machine's faults, kept when it is the\n"
	 "target's (default 2M; 0: none; memory-N.json, memory.json)"},
	{"stack-depth", 0, required_argument, OPT_STACKDEPTH, "N", "frames kept per big allocation (default 20, up to 40)"},
	{"ringbuf-size", 0, required_argument, OPT_RINGBUF, "BYTES",
	 "ring buffer for creation events (default 16M; rounded up to\na power of two pages); drops are counted either way"},
	{"syscall-hook", 0, required_argument, OPT_SYSHOOK, "H",
	 "where syscall results come from, cheapest for other\nprocesses first: fexit (on the followed syscalls' handlers),\n"
	 "syscalls (their syscalls:sys_exit_* tracepoints), kprobe\n(kretprobes on their handlers: Android's GKI kernels),\n"
	 "raw (raw_syscalls:sys_exit) or auto (default: the first\nthat loads; the start record says which)"},
	{"no-failures", 0, no_argument, OPT_NOFAIL, NULL,
	 "do not record calls that fail for want of fds, threads or\nmemory (EMFILE, EAGAIN, ENOMEM; on by default: for benchmarks)"},
	{"no-pthread-probe", 0, no_argument, OPT_NOPTHREAD, NULL,
	 "no uprobe on pthread_create: cheaper thread creation,\nbut thread stacks start inside libc and have no start routine"},
	{"verbose", 'v', no_argument, 'v', NULL, "libbpf messages (-vv: verifier log too)"},
	{"quiet", 'q', no_argument, 'q', NULL, "no progress lines (attach, dumps, report) on the terminal"},
	{"help", 'h', no_argument, 'h', NULL, "this text"},
	CLI_HEADING("thresholds (KOOM 2.x and Probe defaults; the ratios are also checked on every event):"),
	{"thread-count", 0, required_argument, OPT_TCOUNT, "N",
	 "threads over N, not falling by more than --thread-gap,\nfor --thread-polls polls in a row (750, 50, 3)"},
	{"thread-gap", 0, required_argument, OPT_TGAP, "N", "see --thread-count (50)"},
	{"thread-polls", 0, required_argument, OPT_TPOLLS, "N", "see --thread-count (3)"},
	{"fd-count", 0, required_argument, OPT_FCOUNT, "N", "fds over N, same rising rule (1000, --fd-gap 50, --fd-polls 3)"},
	{"fd-gap", 0, required_argument, OPT_FGAP, "N", "see --fd-count (50)"},
	{"fd-polls", 0, required_argument, OPT_FPOLLS, "N", "see --fd-count (3)"},
	{"fd-ratio", 0, required_argument, OPT_FRATIO, "R", "fds at R of RLIMIT_NOFILE (0.95; 0 disables)"},
	{"thread-ratio", 0, required_argument, OPT_TRATIO, "R", "threads at R of the tightest thread limit (0.90; 0 disables)"},
	{"thread-limit", 0, required_argument, OPT_TLIMIT, "N", "a per-process thread limit to add (vendor ROMs use ~500)"},
	{"vmsize-limit", 0, required_argument, OPT_VMLIMIT, "KB", "VmSize limit (3650000, applied to 32-bit targets)"},
	{"vmsize-64bit", 0, no_argument, OPT_VM64, NULL, "apply --vmsize-limit to 64-bit targets too"},
	{"rule", 0, required_argument, OPT_RULE, "NAME=N",
	 "a watched resource's rule by its name (docs/rules.md:\nfd_count, fd_ratio, fd_trend, ...): the count rule's\n"
	 "limit, the ratio of the limit, or the trend's horizon in\ns (60: rising, at half of the limit, exhausted within\n"
	 "N s); 0 turns it off. A count rule's NAME_gap, NAME_polls"},
	CLI_HEADING("Java heap (a JVM or Android app, found from its libjvm.so / libart.so):"),
	{"runtime", 0, required_argument, OPT_RUNTIME, "R", "auto (default), hotspot, art or native"},
	{"shim", 0, no_argument, OPT_SHIM, NULL,
	 "load oomscope's shim into the target: `run` passes\n-agentpath in JAVA_TOOL_OPTIONS, `watch` loads it into a\n"
	 "running HotSpot JVM (attach protocol); heap dumps are then\nfork-dumps: the app pauses for a fork, not the whole dump;\n"
	 "the first OutOfMemoryError of the heap is dumped at its throw"},
	{"heap-rule", 0, required_argument, OPT_HEAPRULE, "V",
	 "when to dump: koom2+trend (default), koom2 (ratio of max\nby max heap, 3 polls rising, 5% tolerance; fast huge:\n"
	 "over 90% or +350 MB at once), koom1, probe, trend (the\nlive set after each GC: dump when its slope says the heap\n"
	 "runs out within the horizon), or VARIANT+trend (either)"},
	{"heap-horizon", 0, required_argument, OPT_HORIZON, "SECS", "the trend's horizon (10; at least 3x the last dump's time)"},
	{"heap-ratio", 0, required_argument, OPT_HEAPRATIO, "R", "a fixed ratio of max instead of the rule's table"},
	{"heap-polls", 0, required_argument, OPT_HEAPPOLLS, "N", "counted polls in a row that dump (3; probe 1)"},
	{"heap-interval", 0, required_argument, OPT_HEAPINT, "SECS", "poll period of the heap rule (koom2 15, koom1 5, probe 1)"},
	{"heap-huge-ratio", 0, required_argument, OPT_HUGERATIO, "R", "koom2's fast rule: over this ratio (0.90; 0 = off)"},
	{"heap-huge-delta", 0, required_argument, OPT_HUGEDELTA, "BYTES", "koom2's fast rule: up this much since the last poll (350M; 0 = off)"},
	{"no-pool-rules", 0, no_argument, OPT_NOPOOLRULES, NULL,
	 "HotSpot: no dumps for the other ways a JVM runs out (on by\ndefault: Metaspace under -XX:MaxMetaspaceSize, the\n"
	 "compressed class space, direct buffer memory (--shim) at\n90% of their max or exhausted within 10 s; GC distress:\n"
	 "50 GCs, 30% of the time paused or 3 full GCs in a second\nwith the heap still 40% full after them)"},
	{"max-dumps", 0, required_argument, OPT_MAXDUMPS, "N", "dumps per run at most (3; 0 = watch only)"},
	{"dump-cooldown", 0, required_argument, OPT_COOLDOWN, "SECS", "between dumps at least (300)"},
	{"dump-method", 0, required_argument, OPT_DUMPMETHOD, "M",
	 "auto (the shim when it answers, else the runtime's own\ndumper), shim, jvm or am"},
	{"dump-mode", 0, required_argument, OPT_DUMPMODE, "M", "app (default) or koom (strip mode, see oomscope hprof)"},
	{"dump-codec", 0, required_argument, OPT_DUMPCODEC, "C", "gzip (default, level 1), xz or none"},
	{"no-strings", 0, no_argument, OPT_NOSTRINGS, NULL,
	 "dumps keep no char/byte array contents at all (by\ndefault those up to 1 KiB, String contents, stay)"},
	{"no-java-stacks", 0, no_argument, OPT_NOJSTACKS, NULL,
	 "with --shim on HotSpot: do not take the Java frames of the\nthreads that make threads, fds and large mappings (on by\n"
	 "default: a signal to the thread; the first 256 of each\nnative place, then 100 a second)"},
	{"perf-map", 0, no_argument, OPT_PERFMAP, NULL,
	 "HotSpot without the shim's Java stacks: at the end, ask the\nJVM to write its perf map (jcmd Compiler.perfmap, JDK 17+;\n"
	 "it may start its Attach Listener thread for it) and name\nthe JIT-compiled frames of the creation stacks by it\n"
	 "(-XX:+PreserveFramePointer keeps them walkable); a map\nthe JVM wrote itself is read either way"},
	{"java-platform", 0, required_argument, OPT_JPLATFORM, "LIST",
	 "comma-separated class prefixes that are the platform's,\nnot the app's: a group is named by the first Java frame\n"
	 "outside them (default java.,jdk.,sun.,com.sun.,android.,\nandroidx.,kotlin.,kotlinx.,com.android.internal.,dalvik.,\n"
	 "libcore.); +LIST adds to the default"},
	{"no-analyze", 0, no_argument, OPT_NOANALYZE, NULL,
	 "do not analyze the dumps (`oomscope report --analyze DIR`\nanalyzes them later, elsewhere)"},
	{"max-memory", 0, required_argument, OPT_MAXMEMORY, "BYTES",
	 "each dump's analysis refuses, in one line, a dump that\nwould need more memory (K, M, G; as analyze's): on a\ndevice short of memory"},
	{"leak-class", 0, required_argument, OPT_LEAKCLASS, "NAME", "a leak rule for the analysis (as analyze)"},
	{"leak-if", 0, required_argument, OPT_LEAKIF, "EXPR", "a leak rule for the analysis (as analyze)"},
	CLI_END,
};

static void usage(void)
{
	fputs(usage_head, stdout);
	cli_opts_help(options, stdout);
	fputs(usage_tail, stdout);
	fputs(strcmp(cmd_name, "run") ? watch_examples : run_examples, stdout);
}

/* The heap rule's figures given on the command line, laid over the
 * variant's defaults once every option is read; the leak rules. */
struct heap_flags {
	enum ooms_heap_variant variant;
	int trend, polls, max_dumps;
	double ratio, interval, huge_ratio, cooldown, horizon;
	int64_t huge_delta;
	const char *leak_classes[64], *leak_ifs[64];
};

static void defaults(struct ooms_watch_opts *o, struct heap_flags *hf)
{
	memset(o, 0, sizeof(*o));
	o->interval_s = 1;
	o->max_children = 8;
	o->headline_fd = -1;
	o->big_map_bytes = 1 << 20;
	o->fault_sample_bytes = 2 << 20;
	o->big_alloc_mode = ALLOC_SYSCALL;
	o->stack_depth = 20;
	ooms_detect_defaults(&o->detect);
	o->java.runtime = OOMS_RT_AUTO;
	o->java.op = HPROF_OP_STRIP_APP;
	o->java.codec = HPROF_GZIP;
	o->java.level = 1;
	o->java.analyze = 1;
	o->java.leak_classes = hf->leak_classes;
	o->java.leak_ifs = hf->leak_ifs;
	hf->variant = HEAP_RULE_KOOM2;
	hf->trend = 1;
	hf->polls = hf->max_dumps = -1;
	hf->ratio = hf->interval = hf->huge_ratio = hf->cooldown = hf->horizon = -1;
	hf->huge_delta = -1;
}

/* The collector's options: 0 taken, 1 not one of them, -1 --help shown,
 * else the exit code of a usage error (said). */
static int opt_collector(int c, struct ooms_watch_opts *o)
{
	double v;
	uint64_t b;

	switch (c) {
		case 'p':
			if (parse_num(optarg, &v) || v < 1 || v != (int)v)
				return bad("invalid PID '%s'", optarg);
			o->pid = (pid_t)v;
			break;
		case 'a':
			app_pkg = optarg;
			break;
		case OPT_APPUSER:
			if (parse_num(optarg, &v) || v < 0 || v > 21474)
				return bad("invalid --user '%s' (an Android user number: 0, 10, 11...)", optarg);
			app_user = (int)v;
			break;
		case OPT_APPTIMEOUT:
			if (parse_num(optarg, &v) || v < 1 || v > 86400)
				return bad("invalid --app-timeout '%s' (1 to 86400 s)", optarg);
			app_timeout_s = (int)v;
			break;
		case 'i':
			if (parse_num(optarg, &v) || v < 0.01 || v > 3600)
				return bad("invalid interval '%s' (seconds, 0.01 to 3600)", optarg);
			o->interval_s = v;
			break;
		case 'd':
			if (parse_num(optarg, &v) || v <= 0)
				return bad("invalid duration '%s' (seconds, > 0)", optarg);
			o->duration_s = v;
			break;
		case 'o': o->out_dir = optarg; break;
		case OPT_JSON: o->json = 1; break;
		case OPT_CHILDREN: o->follow_children = 1; break;
		case OPT_NOCHILDREN: o->follow_children = 0; break;
		case OPT_HELD: o->resume_target = 1; break;
		case OPT_HEADLINES: {
			int fd;
			long long t0;
			char end;

			if (sscanf(optarg, "%d:%lld%c", &fd, &t0, &end) != 2 || fd < 0 || t0 < 0 || fcntl(fd, F_GETFD) < 0)
				return bad("invalid --headlines '%s' (FD:T0, FD open)", optarg);
			fcntl(fd, F_SETFD, 0); /* passed on to the grandchildren's collectors */
			o->headline_fd = fd;
			o->headline_t0_ns = t0;
			break;
		}
		case OPT_LABEL: {
			char key[65];
			const char *value;

			if (cli_parse_label(optarg, key, &value) || strlen(value) > 256)
				return bad("invalid --label '%s' (KEY=VALUE: KEY of 1 to 64 letters, digits, '_', '.', '-'; "
					   "VALUE of at most 256 bytes)", optarg);
			for (const char *v = value; *v; v++)
				if ((unsigned char)*v < 0x20 || *v == 0x7f)
					return bad("invalid --label '%s' (a control character in its value)", optarg);
			for (size_t i = 0; i < o->nlabels; i++)
				if (!strcmp(o->label_key[i], key))
					return bad("--label '%s': its KEY given twice", optarg);
			if (o->nlabels == OOMS_MAX_LABELS)
				return bad("--label '%s': more than 32 labels", optarg);
			memcpy(o->label_key[o->nlabels], key, sizeof(key));
			o->label_value[o->nlabels++] = value;
			break;
		}
		case OPT_MAXCHILDREN: {
			double v;

			if (parse_num(optarg, &v) || v < 0 || v != (int)v || v > 256)
				return bad("invalid --max-children '%s' (0 to 256)", optarg);
			o->max_children = (int)v;
			break;
		}
		case OPT_BTF: o->btf_path = optarg; break;
		case OPT_STOP: o->stop_on_crossing = 1; break;
		case OPT_BIGMAP:
			if (cli_parse_bytes(optarg, &b) || b == 0)
				return bad("invalid size '%s' (bytes, K/M/G suffixes)", optarg);
			o->big_map_bytes = b;
			break;
		case OPT_FAULTSAMPLE:
			if (cli_parse_bytes(optarg, &b))
				return bad("invalid --fault-sample '%s' (bytes, K/M/G suffixes; 0: none)", optarg);
			o->fault_sample_bytes = b;
			break;
		case OPT_BIGALLOC:
			if (cli_parse_bytes(optarg, &b) || b == 0)
				return bad("invalid size '%s' (bytes, K/M/G suffixes)", optarg);
			o->big_alloc_bytes = b;
			break;
		case OPT_BIGALLOC_MODE:
			if (!strcmp(optarg, "syscall"))
				o->big_alloc_mode = ALLOC_SYSCALL;
			else if (!strcmp(optarg, "uprobe"))
				o->big_alloc_mode = ALLOC_UPROBE;
			else
				return bad("invalid --big-alloc-mode '%s' (syscall or uprobe)", optarg);
			if (!o->big_alloc_bytes)
				o->big_alloc_bytes = 8 << 20; /* Baidu's threshold */
			break;
		case OPT_BIGALLOC_LIVE: o->big_alloc_live = 1; break;
		case OPT_STACKDEPTH:
			if (parse_num(optarg, &v) || v < 1 || v > OOMS_STACK_DEPTH || v != (int)v)
				return bad("invalid --stack-depth '%s' (1 to 40)", optarg);
			o->stack_depth = (unsigned)v;
			break;
		case 'v': o->verbose++; break;
		case 'q': o->quiet = 1; break;
		case 'h':
			usage();
			return -1;
		case OPT_TCOUNT: case OPT_TGAP: case OPT_TPOLLS: case OPT_FCOUNT: case OPT_FGAP:
		case OPT_FPOLLS: case OPT_TLIMIT: case OPT_VMLIMIT:
			if (parse_num(optarg, &v) || v < 0 || v != (int64_t)v)
				return bad("invalid count '%s'", optarg);
			if (c == OPT_TCOUNT) o->detect.res[RES_THREADS].count_limit = (int64_t)v;
			if (c == OPT_TGAP) o->detect.res[RES_THREADS].count_gap = (int64_t)v;
			if (c == OPT_TPOLLS) o->detect.res[RES_THREADS].count_polls = (int)v;
			if (c == OPT_FCOUNT) o->detect.res[RES_FDS].count_limit = (int64_t)v;
			if (c == OPT_FGAP) o->detect.res[RES_FDS].count_gap = (int64_t)v;
			if (c == OPT_FPOLLS) o->detect.res[RES_FDS].count_polls = (int)v;
			if (c == OPT_TLIMIT) o->thread_limit = (int64_t)v;
			if (c == OPT_VMLIMIT) o->detect.res[RES_VMSIZE].count_limit = (int64_t)v;
			break;
		case OPT_FRATIO: case OPT_TRATIO:
			if (parse_num(optarg, &v) || v < 0 || v > 1)
				return bad("invalid ratio '%s' (0 to 1)", optarg);
			o->detect.res[c == OPT_FRATIO ? RES_FDS : RES_THREADS].ratio = v;
			break;
		case OPT_RULE:
			if (ooms_detect_set(&o->detect, optarg)) {
				char names[1024];

				ooms_rule_names(names, sizeof(names));
				return cli_usage_error(cmd_name, "invalid --rule '%s' (NAME=N, a ratio at most 1; NAME one of: %s; "
						       "or a count rule's NAME_gap, NAME_polls)", optarg, names);
			}
			break;
		case OPT_VM64: o->detect.vmsize_limit_64bit = 1; break;
		case OPT_NOPTHREAD: o->no_pthread_probe = 1; break;
		case OPT_NOFAIL: o->no_failures = 1; break;
		case OPT_SYSHOOK:
			if (!strcmp(optarg, "auto"))
				o->syscall_hook = OOMS_HOOK_AUTO;
			else if (!strcmp(optarg, "fexit"))
				o->syscall_hook = OOMS_HOOK_FEXIT;
			else if (!strcmp(optarg, "syscalls"))
				o->syscall_hook = OOMS_HOOK_SYSCALLS;
			else if (!strcmp(optarg, "kprobe"))
				o->syscall_hook = OOMS_HOOK_KPROBE;
			else if (!strcmp(optarg, "raw"))
				o->syscall_hook = OOMS_HOOK_RAW;
			else
				return bad("--syscall-hook takes auto, fexit, syscalls, kprobe or raw, not '%s'", optarg);
			break;
		case OPT_RINGBUF:
			if (cli_parse_bytes(optarg, &b) || b == 0 || b > (1ull << 30))
				return bad("invalid ring buffer size '%s' (bytes, K/M/G, at most 1G)", optarg);
			o->ringbuf_bytes = b;
			break;
	default:
		return 1;
	}
	return 0;
}

/* The Java heap's options, as opt_collector. */
static int opt_java(int c, struct ooms_watch_opts *o, struct heap_flags *hf)
{
	double v;
	uint64_t b;
	int k;

	switch (c) {
		case OPT_RUNTIME:
			if ((k = ooms_rt_parse(optarg)) < -1)
				return bad("invalid --runtime '%s' (auto, hotspot, art or native)", optarg);
			o->java.runtime = k;
			break;
		case OPT_SHIM: o->java.shim = 1; break;
		case OPT_HEAPRULE:
			if (ooms_heap_rule_parse(optarg, &hf->variant, &hf->trend) < 0)
				return bad("invalid --heap-rule '%s' (koom2, koom1, probe, trend, or VARIANT+trend)", optarg);
			break;
		case OPT_HEAPRATIO: case OPT_HUGERATIO:
			if (parse_num(optarg, &v) || v < 0 || v > 1)
				return bad("invalid ratio '%s' (0 to 1)", optarg);
			*(c == OPT_HEAPRATIO ? &hf->ratio : &hf->huge_ratio) = v;
			break;
		case OPT_HEAPINT: case OPT_COOLDOWN:
			if (parse_num(optarg, &v) || v < 0 || (c == OPT_HEAPINT && v < 0.1))
				return bad("invalid seconds '%s'", optarg);
			*(c == OPT_HEAPINT ? &hf->interval : &hf->cooldown) = v;
			break;
		case OPT_HORIZON:
			if (parse_num(optarg, &v) || !(v > 0))
				return bad("invalid --heap-horizon '%s' (seconds, over 0)", optarg);
			hf->horizon = v;
			break;
		case OPT_HEAPPOLLS: case OPT_MAXDUMPS:
			if (parse_num(optarg, &v) || v < 0 || v != (int)v || v > 1000000 || (c == OPT_HEAPPOLLS && v < 1))
				return bad("invalid count '%s'", optarg);
			*(c == OPT_HEAPPOLLS ? &hf->polls : &hf->max_dumps) = (int)v;
			break;
		case OPT_HUGEDELTA:
			if (cli_parse_bytes(optarg, &b))
				return bad("invalid size '%s' (bytes, K/M/G suffixes)", optarg);
			hf->huge_delta = (int64_t)b;
			break;
		case OPT_DUMPMETHOD:
			if ((k = ooms_dump_method_parse(optarg)) < 0)
				return bad("invalid --dump-method '%s' (auto, shim, jvm or am)", optarg);
			o->java.method = k;
			break;
		case OPT_DUMPMODE:
			if (!strcmp(optarg, "app") || !strcmp(optarg, "koom"))
				o->java.op = !strcmp(optarg, "app") ? HPROF_OP_STRIP_APP : HPROF_OP_STRIP_KOOM;
			else
				return bad("invalid --dump-mode '%s' (app or koom)", optarg);
			break;
		case OPT_DUMPCODEC:
			if (!strcmp(optarg, "gzip"))
				o->java.codec = HPROF_GZIP, o->java.level = 1;
			else if (!strcmp(optarg, "xz"))
				o->java.codec = HPROF_XZ, o->java.level = 0;
			else if (!strcmp(optarg, "none"))
				o->java.codec = HPROF_PLAIN, o->java.level = 0;
			else
				return bad("invalid --dump-codec '%s' (gzip, xz or none)", optarg);
			break;
		case OPT_NOANALYZE: o->java.analyze = 0; break;
		case OPT_MAXMEMORY:
			if (cli_parse_bytes(optarg, &o->java.max_memory) || !o->java.max_memory)
				return bad("invalid --max-memory '%s' (bytes, K/M/G suffixes)", optarg);
			break;
		case OPT_NOSTRINGS: o->java.no_strings = 1; break;
		case OPT_NOJSTACKS: o->no_java_stacks = 1; break;
		case OPT_NOPOOLRULES: o->java.no_pool_rules = 1; break;
		case OPT_PERFMAP: o->java_perf_map = 1; break;
		case OPT_JPLATFORM: {
			static char *copy;
			static const char *list[65];
			size_t n = 0;
			char *save = NULL;

			free(copy);
			o->java_platform_add = optarg[0] == '+';
			if (!(copy = strdup(optarg + o->java_platform_add)))
				return bad("%s", "out of memory");
			for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				if (n == 64)
					return bad("%s", "at most 64 --java-platform prefixes");
				list[n++] = t;
			}
			if (!n)
				return bad("invalid --java-platform '%s' (class prefixes, comma-separated)", optarg);
			list[n] = NULL;
			o->java_platform = list;
			break;
		}
		case OPT_LEAKCLASS: case OPT_LEAKIF:
			if ((c == OPT_LEAKCLASS ? o->java.nleak_classes : o->java.nleak_ifs) == 64)
				return bad("%s", "at most 64 --leak-class and 64 --leak-if");
			if (c == OPT_LEAKCLASS)
				hf->leak_classes[o->java.nleak_classes++] = optarg;
			else
				hf->leak_ifs[o->java.nleak_ifs++] = optarg;
			break;
	default:
		return 1;
	}
	return 0;
}

static void apply_heap_flags(struct ooms_watch_opts *o, const struct heap_flags *hf)
{
	struct ooms_heap_rule_config *r = &o->java.rule;

	ooms_heap_rule_defaults(r, hf->variant);
	r->trend = hf->trend;
	if (hf->horizon > 0)
		r->horizon_s = hf->horizon;
	if (hf->ratio >= 0)
		r->ratio = hf->ratio;
	if (hf->polls >= 0)
		r->polls = hf->polls;
	if (hf->interval >= 0)
		r->interval_s = hf->interval;
	if (hf->huge_ratio >= 0)
		r->huge_ratio = hf->huge_ratio;
	if (hf->huge_delta >= 0)
		r->huge_delta = hf->huge_delta;
	if (hf->max_dumps >= 0)
		r->max_dumps = hf->max_dumps;
	if (hf->cooldown >= 0)
		r->cooldown_s = hf->cooldown;
	o->java.btf_path = o->btf_path;
	o->java.verbose = o->verbose;
}

/* The options a child's collector is given: all but those naming the
 * target, the run directory and the terminal's form, as --NAME[=ARG]. */
static char **fwd;
static size_t nfwd, fwd_cap;

static int forward(int c, const char *arg)
{
	static const int own[] = {'p', 'a', OPT_APPTIMEOUT, OPT_APPUSER, 'o', OPT_JSON, 'q', OPT_HELD, OPT_CHILDREN,
				  OPT_NOCHILDREN, 'd'};
	char buf[4200];
	char **slot;

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (own[i] == c)
			return 0;
	for (size_t i = 0; options[i].name || options[i].help; i++) {
		if (!options[i].name || options[i].id != c)
			continue;
		if (options[i].has_arg == no_argument || !arg)
			snprintf(buf, sizeof(buf), "--%s", options[i].name);
		else
			snprintf(buf, sizeof(buf), "--%s=%s", options[i].name, arg);
		if (vec_reserve((void **)&fwd, &fwd_cap, nfwd + 2, sizeof(*fwd)) || !(slot = &fwd[nfwd]) ||
		    !(*slot = strdup(buf)))
			return -1;
		fwd[++nfwd] = NULL;
		return 0;
	}
	return 0;
}

int watch_args_parse(int argc, char **argv, int is_run, struct watch_args *a)
{
	static struct heap_flags hf; /* its leak rules outlive the parse */
	struct option longopts[sizeof(options) / sizeof(options[0])];
	char shortopts[32];
	int c, r;

	cmd_name = is_run ? "run" : "watch";
	if (cli_opts_getopt(options, longopts, sizeof(longopts) / sizeof(longopts[0]), "+", shortopts,
			    sizeof(shortopts)))
		return 2; /* the table is wrong: a bug */
	defaults(&a->o, &hf);
	a->o.follow_children = is_run;
	optind = 1;
	/* "+": stop at the first non-option, so `run -- cmd -x` keeps cmd's options */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if ((r = opt_collector(c, &a->o)) == 1)
			r = opt_java(c, &a->o, &hf);
		if (r == 1)
			return cli_opts_error(cmd_name, c, argv);
		if (r)
			return r;
		if (forward(c, optarg))
			return bad("%s", "out of memory");
	}
	a->o.child_args = (const char *const *)fwd;
	a->app_pkg = app_pkg;
	a->app_user = app_user;
	a->app_timeout_s = app_timeout_s;
	apply_heap_flags(&a->o, &hf);
	if (a->o.big_alloc_live && a->o.big_alloc_mode != ALLOC_UPROBE)
		return bad("%s", "--big-alloc-live needs --big-alloc-mode uprobe (return probes on the allocator)");
	if (a->o.big_alloc_live && !a->o.big_alloc_bytes)
		a->o.big_alloc_bytes = 8 << 20;
	return 0;
}
