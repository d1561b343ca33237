/* `oomscope watch` and `oomscope run`: option parsing and help. */
#define _GNU_SOURCE
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collect.h"
#include "collector/collector.h"
#include "hprof/io.h"
#include "hprof/transform.h"
#include "report/report.h"
#include "runtime/runtime.h"

static const char usage_text[] =
	"usage: oomscope watch -p PID [options]\n"
	"       oomscope run [options] -- CMD [ARGS...]\n"
	"\n"
	"Follows a process's threads, file descriptors and address space with eBPF,\n"
	"samples /proc every interval, and when a threshold is crossed writes who\n"
	"created the threads and fds (creation stacks) into the run directory.\n"
	"`run` starts CMD with the probes already attached and stops it at the end.\n"
	"\n"
	"options:\n"
	"  -p, --pid PID            process to watch (watch)\n"
	"  -i, --interval SECS      sampling interval (default 1)\n"
	"  -d, --duration SECS      stop after SECS (default: until the target exits or Ctrl-C)\n"
	"  -o, --out DIR            run directory, created if missing\n"
	"                           (default ./oomscope-PID-YYYYmmdd-HHMMSS)\n"
	"      --json               JSON lines on stdout instead of the table\n"
	"      --stop-on-crossing   stop at the first threshold crossing\n"
	"      --btf FILE           kernel BTF when /sys/kernel/btf/vmlinux is missing\n"
	"      --big-map BYTES      record the stack of mmaps of at least BYTES (default 1M)\n"
	"      --big-alloc BYTES    report every single allocation of at least BYTES (K/M/G;\n"
	"                           8M is Baidu's threshold), live and in allocs.json/.txt\n"
	"      --big-alloc-mode M   syscall (default: anonymous mmap, mremap and brk growth,\n"
	"                           mprotect commits of reserved memory;\n"
	"                           near zero cost) or uprobe (malloc, calloc, realloc,\n"
	"                           posix_memalign, aligned_alloc, memalign, valloc and\n"
	"                           operator new in the target's libc/libstdc++: exact)\n"
	"      --big-alloc-live     uprobe mode: return probes too, for the address, and a\n"
	"                           probe on free: the report says which blocks are live\n"
	"      --stack-depth N      frames kept per big allocation (default 20, up to 40)\n"
	"      --ringbuf-size BYTES ring buffer for creation events (default 8M; rounded up to\n"
	"                           a power of two pages); drops are counted either way\n"
	"      --no-failures        do not record calls that fail for want of fds, threads or\n"
	"                           memory (EMFILE, EAGAIN, ENOMEM; on by default: for benchmarks)\n"
	"      --no-pthread-probe   no uprobe on pthread_create: cheaper thread creation,\n"
	"                           but thread stacks start inside libc and have no start routine\n"
	"  -v, --verbose            libbpf messages (-vv: verifier log too)\n"
	"  -q, --quiet              no progress lines (attach, dumps, report) on the terminal\n"
	"  -h, --help               this text\n"
	"\n"
	"thresholds (KOOM 2.x and Probe defaults):\n"
	"      --thread-count N     threads over N, not falling by more than --thread-gap,\n"
	"                           for --thread-polls polls in a row (750, 50, 3)\n"
	"      --thread-gap N, --thread-polls N\n"
	"      --fd-count N         fds over N, same rising rule (1000, --fd-gap 50, --fd-polls 3)\n"
	"      --fd-gap N, --fd-polls N\n"
	"      --fd-ratio R         fds at R of RLIMIT_NOFILE (0.95; 0 disables)\n"
	"      --thread-ratio R     threads at R of the tightest thread limit (0.90; 0 disables)\n"
	"      --thread-limit N     a per-process thread limit to add (vendor ROMs use ~500)\n"
	"      --vmsize-limit KB    VmSize limit (3650000, applied to 32-bit targets)\n"
	"      --vmsize-64bit       apply --vmsize-limit to 64-bit targets too\n"
	"\n"
	"Java heap (a JVM or Android app, found from its libjvm.so / libart.so):\n"
	"      --runtime R          auto (default), hotspot, art or native\n"
	"      --shim               load oomscope's shim into the target: `run` passes\n"
	"                           -agentpath in JAVA_TOOL_OPTIONS, `watch` loads it into a\n"
	"                           running HotSpot JVM (attach protocol); heap dumps are then\n"
	"                           fork-dumps: the app pauses for a fork, not the whole dump\n"
	"      --heap-rule V        when to dump: koom2+trend (default), koom2 (ratio of max\n"
	"                           by max heap, 3 polls rising, 5%% tolerance; fast huge:\n"
	"                           over 90%% or +350 MB at once), koom1, probe, trend (the\n"
	"                           live set after each GC: dump when its slope says the heap\n"
	"                           runs out within the horizon), or VARIANT+trend (either)\n"
	"      --heap-horizon SECS  the trend's horizon (10; at least 3x the last dump's time)\n"
	"      --heap-ratio R       a fixed ratio of max instead of the rule's table\n"
	"      --heap-polls N       counted polls in a row that dump (3; probe 1)\n"
	"      --heap-interval SECS poll period of the heap rule (koom2 15, koom1 5, probe 1)\n"
	"      --heap-huge-ratio R, --heap-huge-delta BYTES   koom2's fast rule (0.90, 350M; 0 = off)\n"
	"      --max-dumps N        dumps per run at most (3; 0 = watch only)\n"
	"      --dump-cooldown SECS between dumps at least (300)\n"
	"      --dump-method M      auto (the shim when it answers, else the runtime's own\n"
	"                           dumper), shim, jvm or am\n"
	"      --dump-mode M        app (default) or koom (strip mode, see oomscope hprof)\n"
	"      --dump-codec C       gzip (default, level 1), xz or none\n"
	"      --no-analyze         do not analyze the dumps\n"
	"      --leak-class NAME, --leak-if EXPR   leak rules for the analysis (as analyze)\n"
	"\n"
	"run directory: timeline.jsonl (samples and events), report.html (the run on one\n"
	"page), trace.json (Perfetto), threads.json, fds.json,\n"
	"vmsize.json, allocs.json and allocs.txt with --big-alloc (see docs/run-directory.md for\n"
	"the schemas). `oomscope symbolize` names a saved report's frames later.\n";

#define bad(fmt, arg) cli_usage_error("watch", fmt, arg)

static int parse_num(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end ? -1 : 0;
}

/* BYTES with an optional K/M/G suffix. */
static int parse_bytes(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

enum {
	OPT_JSON = 256, OPT_BTF, OPT_STOP, OPT_BIGMAP, OPT_TCOUNT, OPT_TGAP, OPT_TPOLLS,
	OPT_FCOUNT, OPT_FGAP, OPT_FPOLLS, OPT_FRATIO, OPT_TRATIO, OPT_TLIMIT, OPT_VMLIMIT, OPT_VM64,
	OPT_NOPTHREAD, OPT_RINGBUF, OPT_BIGALLOC, OPT_BIGALLOC_MODE, OPT_BIGALLOC_LIVE, OPT_STACKDEPTH,
	OPT_RUNTIME, OPT_SHIM, OPT_HEAPRULE, OPT_HORIZON, OPT_NOFAIL, OPT_HEAPRATIO, OPT_HEAPPOLLS, OPT_HEAPINT, OPT_HUGERATIO, OPT_HUGEDELTA,
	OPT_MAXDUMPS, OPT_COOLDOWN, OPT_DUMPMETHOD, OPT_DUMPMODE, OPT_DUMPCODEC, OPT_NOANALYZE, OPT_LEAKCLASS,
	OPT_LEAKIF,
};

int cmd_watch_or_run(int argc, char **argv, int is_run)
{
	char dir[4096], rerr[512];
	int rc;
	static const struct option longopts[] = {
		{"pid", required_argument, 0, 'p'}, {"interval", required_argument, 0, 'i'},
		{"duration", required_argument, 0, 'd'}, {"out", required_argument, 0, 'o'},
		{"json", no_argument, 0, OPT_JSON}, {"btf", required_argument, 0, OPT_BTF},
		{"stop-on-crossing", no_argument, 0, OPT_STOP}, {"big-map", required_argument, 0, OPT_BIGMAP},
		{"verbose", no_argument, 0, 'v'}, {"help", no_argument, 0, 'h'}, {"quiet", no_argument, 0, 'q'},
		{"thread-count", required_argument, 0, OPT_TCOUNT}, {"thread-gap", required_argument, 0, OPT_TGAP},
		{"thread-polls", required_argument, 0, OPT_TPOLLS}, {"fd-count", required_argument, 0, OPT_FCOUNT},
		{"fd-gap", required_argument, 0, OPT_FGAP}, {"fd-polls", required_argument, 0, OPT_FPOLLS},
		{"fd-ratio", required_argument, 0, OPT_FRATIO}, {"thread-ratio", required_argument, 0, OPT_TRATIO},
		{"thread-limit", required_argument, 0, OPT_TLIMIT}, {"vmsize-limit", required_argument, 0, OPT_VMLIMIT},
		{"vmsize-64bit", no_argument, 0, OPT_VM64}, {"no-pthread-probe", no_argument, 0, OPT_NOPTHREAD},
		{"no-failures", no_argument, 0, OPT_NOFAIL},
		{"ringbuf-size", required_argument, 0, OPT_RINGBUF},
		{"big-alloc", required_argument, 0, OPT_BIGALLOC}, {"big-alloc-mode", required_argument, 0, OPT_BIGALLOC_MODE},
		{"big-alloc-live", no_argument, 0, OPT_BIGALLOC_LIVE}, {"stack-depth", required_argument, 0, OPT_STACKDEPTH},
		{"runtime", required_argument, 0, OPT_RUNTIME}, {"shim", no_argument, 0, OPT_SHIM},
		{"heap-rule", required_argument, 0, OPT_HEAPRULE},
		{"heap-horizon", required_argument, 0, OPT_HORIZON}, {"heap-ratio", required_argument, 0, OPT_HEAPRATIO},
		{"heap-polls", required_argument, 0, OPT_HEAPPOLLS}, {"heap-interval", required_argument, 0, OPT_HEAPINT},
		{"heap-huge-ratio", required_argument, 0, OPT_HUGERATIO},
		{"heap-huge-delta", required_argument, 0, OPT_HUGEDELTA},
		{"max-dumps", required_argument, 0, OPT_MAXDUMPS}, {"dump-cooldown", required_argument, 0, OPT_COOLDOWN},
		{"dump-method", required_argument, 0, OPT_DUMPMETHOD}, {"dump-mode", required_argument, 0, OPT_DUMPMODE},
		{"dump-codec", required_argument, 0, OPT_DUMPCODEC}, {"no-analyze", no_argument, 0, OPT_NOANALYZE},
		{"leak-class", required_argument, 0, OPT_LEAKCLASS}, {"leak-if", required_argument, 0, OPT_LEAKIF},
		{0, 0, 0, 0},
	};
	/* rule figures given on the command line, applied over the variant's defaults */
	double heap_ratio = -1, heap_interval = -1, huge_ratio = -1, cooldown = -1;
	int heap_polls = -1, max_dumps = -1, trend = 1;
	enum ooms_heap_variant variant = HEAP_RULE_KOOM2;
	double horizon = -1;
	int64_t huge_delta = -1;
	static const char *leak_classes[64], *leak_ifs[64];
	struct ooms_watch_opts o;
	int c;

	memset(&o, 0, sizeof(o));
	o.interval_s = 1;
	o.big_map_bytes = 1 << 20;
	o.big_alloc_mode = ALLOC_SYSCALL;
	o.stack_depth = 20;
	ooms_detect_defaults(&o.detect);
	o.java.runtime = OOMS_RT_AUTO;
	o.java.op = HPROF_OP_STRIP_APP;
	o.java.codec = HPROF_GZIP;
	o.java.level = 1;
	o.java.analyze = 1;
	o.java.leak_classes = leak_classes;
	o.java.leak_ifs = leak_ifs;
	optind = 1;
	/* "+": stop at the first non-option, so `run -- cmd -x` keeps cmd's options */
	while ((c = getopt_long(argc, argv, "+p:i:d:o:vqh", longopts, NULL)) != -1) {
		double v;
		uint64_t b;

		switch (c) {
		case 'p':
			if (parse_num(optarg, &v) || v < 1 || v != (int)v)
				return bad("invalid PID '%s'", optarg);
			o.pid = (pid_t)v;
			break;
		case 'i':
			if (parse_num(optarg, &v) || v < 0.01 || v > 3600)
				return bad("invalid interval '%s' (seconds, 0.01 to 3600)", optarg);
			o.interval_s = v;
			break;
		case 'd':
			if (parse_num(optarg, &v) || v <= 0)
				return bad("invalid duration '%s' (seconds, > 0)", optarg);
			o.duration_s = v;
			break;
		case 'o': o.out_dir = optarg; break;
		case OPT_JSON: o.json = 1; break;
		case OPT_BTF: o.btf_path = optarg; break;
		case OPT_STOP: o.stop_on_crossing = 1; break;
		case OPT_BIGMAP:
			if (parse_bytes(optarg, &b) || b == 0)
				return bad("invalid size '%s' (bytes, K/M/G suffixes)", optarg);
			o.big_map_bytes = b;
			break;
		case OPT_BIGALLOC:
			if (parse_bytes(optarg, &b) || b == 0)
				return bad("invalid size '%s' (bytes, K/M/G suffixes)", optarg);
			o.big_alloc_bytes = b;
			break;
		case OPT_BIGALLOC_MODE:
			if (!strcmp(optarg, "syscall"))
				o.big_alloc_mode = ALLOC_SYSCALL;
			else if (!strcmp(optarg, "uprobe"))
				o.big_alloc_mode = ALLOC_UPROBE;
			else
				return bad("invalid --big-alloc-mode '%s' (syscall or uprobe)", optarg);
			if (!o.big_alloc_bytes)
				o.big_alloc_bytes = 8 << 20; /* Baidu's threshold */
			break;
		case OPT_BIGALLOC_LIVE: o.big_alloc_live = 1; break;
		case OPT_STACKDEPTH:
			if (parse_num(optarg, &v) || v < 1 || v > OOMS_STACK_DEPTH || v != (int)v)
				return bad("invalid --stack-depth '%s' (1 to 40)", optarg);
			o.stack_depth = (unsigned)v;
			break;
		case 'v': o.verbose++; break;
		case 'q': o.quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		case OPT_TCOUNT: case OPT_TGAP: case OPT_TPOLLS: case OPT_FCOUNT: case OPT_FGAP:
		case OPT_FPOLLS: case OPT_TLIMIT: case OPT_VMLIMIT:
			if (parse_num(optarg, &v) || v < 0 || v != (int64_t)v)
				return bad("invalid count '%s'", optarg);
			if (c == OPT_TCOUNT) o.detect.thread_count_limit = (int64_t)v;
			if (c == OPT_TGAP) o.detect.thread_count_gap = (int64_t)v;
			if (c == OPT_TPOLLS) o.detect.thread_count_polls = (int)v;
			if (c == OPT_FCOUNT) o.detect.fd_count_limit = (int64_t)v;
			if (c == OPT_FGAP) o.detect.fd_count_gap = (int64_t)v;
			if (c == OPT_FPOLLS) o.detect.fd_count_polls = (int)v;
			if (c == OPT_TLIMIT) o.thread_limit = (int64_t)v;
			if (c == OPT_VMLIMIT) o.detect.vmsize_limit_kb = (int64_t)v;
			break;
		case OPT_FRATIO: case OPT_TRATIO:
			if (parse_num(optarg, &v) || v < 0 || v > 1)
				return bad("invalid ratio '%s' (0 to 1)", optarg);
			if (c == OPT_FRATIO) o.detect.fd_ratio = v;
			else o.detect.thread_ratio = v;
			break;
		case OPT_VM64: o.detect.vmsize_limit_64bit = 1; break;
		case OPT_NOPTHREAD: o.no_pthread_probe = 1; break;
		case OPT_NOFAIL: o.no_failures = 1; break;
		case OPT_RUNTIME:
			if ((c = ooms_rt_parse(optarg)) < -1)
				return bad("invalid --runtime '%s' (auto, hotspot, art or native)", optarg);
			o.java.runtime = c;
			break;
		case OPT_SHIM: o.java.shim = 1; break;
		case OPT_HEAPRULE:
			if (ooms_heap_rule_parse(optarg, &variant, &trend) < 0)
				return bad("invalid --heap-rule '%s' (koom2, koom1, probe, trend, or VARIANT+trend)", optarg);
			break;
		case OPT_HEAPRATIO: case OPT_HUGERATIO:
			if (parse_num(optarg, &v) || v < 0 || v > 1)
				return bad("invalid ratio '%s' (0 to 1)", optarg);
			*(c == OPT_HEAPRATIO ? &heap_ratio : &huge_ratio) = v;
			break;
		case OPT_HEAPINT: case OPT_COOLDOWN:
			if (parse_num(optarg, &v) || v < 0 || (c == OPT_HEAPINT && v < 0.1))
				return bad("invalid seconds '%s'", optarg);
			*(c == OPT_HEAPINT ? &heap_interval : &cooldown) = v;
			break;
		case OPT_HORIZON:
			if (parse_num(optarg, &v) || !(v > 0))
				return bad("invalid --heap-horizon '%s' (seconds, over 0)", optarg);
			horizon = v;
			break;
		case OPT_HEAPPOLLS: case OPT_MAXDUMPS:
			if (parse_num(optarg, &v) || v < 0 || v != (int)v || v > 1000000 || (c == OPT_HEAPPOLLS && v < 1))
				return bad("invalid count '%s'", optarg);
			*(c == OPT_HEAPPOLLS ? &heap_polls : &max_dumps) = (int)v;
			break;
		case OPT_HUGEDELTA:
			if (parse_bytes(optarg, &b))
				return bad("invalid size '%s' (bytes, K/M/G suffixes)", optarg);
			huge_delta = (int64_t)b;
			break;
		case OPT_DUMPMETHOD:
			if ((c = ooms_dump_method_parse(optarg)) < 0)
				return bad("invalid --dump-method '%s' (auto, shim, jvm or am)", optarg);
			o.java.method = c;
			break;
		case OPT_DUMPMODE:
			if (!strcmp(optarg, "app") || !strcmp(optarg, "koom"))
				o.java.op = !strcmp(optarg, "app") ? HPROF_OP_STRIP_APP : HPROF_OP_STRIP_KOOM;
			else
				return bad("invalid --dump-mode '%s' (app or koom)", optarg);
			break;
		case OPT_DUMPCODEC:
			if (!strcmp(optarg, "gzip"))
				o.java.codec = HPROF_GZIP, o.java.level = 1;
			else if (!strcmp(optarg, "xz"))
				o.java.codec = HPROF_XZ, o.java.level = 0;
			else if (!strcmp(optarg, "none"))
				o.java.codec = HPROF_PLAIN, o.java.level = 0;
			else
				return bad("invalid --dump-codec '%s' (gzip, xz or none)", optarg);
			break;
		case OPT_NOANALYZE: o.java.analyze = 0; break;
		case OPT_LEAKCLASS: case OPT_LEAKIF:
			if ((c == OPT_LEAKCLASS ? o.java.nleak_classes : o.java.nleak_ifs) == 64)
				return bad("%s", "at most 64 --leak-class and 64 --leak-if");
			if (c == OPT_LEAKCLASS)
				leak_classes[o.java.nleak_classes++] = optarg;
			else
				leak_ifs[o.java.nleak_ifs++] = optarg;
			break;
		case OPT_RINGBUF:
			if (parse_bytes(optarg, &b) || b == 0 || b > (1ull << 30))
				return bad("invalid ring buffer size '%s' (bytes, K/M/G, at most 1G)", optarg);
			o.ringbuf_bytes = b;
			break;
		default:
			fprintf(stderr, "oomscope: see 'oomscope %s --help'\n", is_run ? "run" : "watch");
			return 2;
		}
	}
	if (is_run) {
		if (o.pid)
			return bad("%s", "run launches its own target; use watch -p PID for a running one");
		if (optind >= argc)
			return bad("%s", "run needs a command: oomscope run [options] -- CMD [ARGS]");
		o.argv = argv + optind;
	} else {
		if (optind < argc)
			return bad("unexpected argument '%s'", argv[optind]);
		if (!o.pid)
			return bad("%s", "watch needs -p PID");
	}
	ooms_heap_rule_defaults(&o.java.rule, variant);
	o.java.rule.trend = trend;
	if (horizon > 0)
		o.java.rule.horizon_s = horizon;
	if (heap_ratio >= 0)
		o.java.rule.ratio = heap_ratio;
	if (heap_polls >= 0)
		o.java.rule.polls = heap_polls;
	if (heap_interval >= 0)
		o.java.rule.interval_s = heap_interval;
	if (huge_ratio >= 0)
		o.java.rule.huge_ratio = huge_ratio;
	if (huge_delta >= 0)
		o.java.rule.huge_delta = huge_delta;
	if (max_dumps >= 0)
		o.java.rule.max_dumps = max_dumps;
	if (cooldown >= 0)
		o.java.rule.cooldown_s = cooldown;
	o.java.btf_path = o.btf_path;
	o.java.verbose = o.verbose;
	if (o.big_alloc_live && o.big_alloc_mode != ALLOC_UPROBE)
		return bad("%s", "--big-alloc-live needs --big-alloc-mode uprobe (return probes on the allocator)");
	if (o.big_alloc_live && !o.big_alloc_bytes)
		o.big_alloc_bytes = 8 << 20;
	dir[0] = 0;
	rc = ooms_collect(&o, dir, sizeof(dir));
	if (dir[0]) {
		/* the page and the exports of the run (report.html, trace.json, allocs.pb.gz) */
		if (!o.quiet && !o.json && isatty(2))
			fprintf(stderr, "oomscope: writing the report ...\n");
		if (ooms_report_write(dir, NULL, NULL, rerr, sizeof(rerr)))
			fprintf(stderr, "oomscope: report: %s\n", rerr);
		else if (!o.json)
			fprintf(stderr, "oomscope: report: %s/report.html\n", dir);
		if (!o.json)
			fprintf(stderr, "oomscope: run directory: %s\n", dir);
	}
	return rc;
}
