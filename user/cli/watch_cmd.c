/* `oomscope watch` and `oomscope run`: option parsing and help. */
#define _GNU_SOURCE
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collect.h"
#include "collector/collector.h"

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
	"      --no-pthread-probe   no uprobe on pthread_create: cheaper thread creation,\n"
	"                           but thread stacks start inside libc and have no start routine\n"
	"  -v, --verbose            libbpf messages (-vv: verifier log too)\n"
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
	"run directory: timeline.jsonl (samples and events), threads.json, fds.json,\n"
	"vmsize.json, allocs.json and allocs.txt with --big-alloc (see README.md for\n"
	"the schemas). `oomscope symbolize` names a saved report's frames later.\n";

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "oomscope: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see oomscope %s --help)\n", "watch");
	return 2;
}

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
};

int cmd_watch_or_run(int argc, char **argv, int is_run)
{
	static const struct option longopts[] = {
		{"pid", required_argument, 0, 'p'}, {"interval", required_argument, 0, 'i'},
		{"duration", required_argument, 0, 'd'}, {"out", required_argument, 0, 'o'},
		{"json", no_argument, 0, OPT_JSON}, {"btf", required_argument, 0, OPT_BTF},
		{"stop-on-crossing", no_argument, 0, OPT_STOP}, {"big-map", required_argument, 0, OPT_BIGMAP},
		{"verbose", no_argument, 0, 'v'}, {"help", no_argument, 0, 'h'},
		{"thread-count", required_argument, 0, OPT_TCOUNT}, {"thread-gap", required_argument, 0, OPT_TGAP},
		{"thread-polls", required_argument, 0, OPT_TPOLLS}, {"fd-count", required_argument, 0, OPT_FCOUNT},
		{"fd-gap", required_argument, 0, OPT_FGAP}, {"fd-polls", required_argument, 0, OPT_FPOLLS},
		{"fd-ratio", required_argument, 0, OPT_FRATIO}, {"thread-ratio", required_argument, 0, OPT_TRATIO},
		{"thread-limit", required_argument, 0, OPT_TLIMIT}, {"vmsize-limit", required_argument, 0, OPT_VMLIMIT},
		{"vmsize-64bit", no_argument, 0, OPT_VM64}, {"no-pthread-probe", no_argument, 0, OPT_NOPTHREAD},
		{"ringbuf-size", required_argument, 0, OPT_RINGBUF},
		{"big-alloc", required_argument, 0, OPT_BIGALLOC}, {"big-alloc-mode", required_argument, 0, OPT_BIGALLOC_MODE},
		{"big-alloc-live", no_argument, 0, OPT_BIGALLOC_LIVE}, {"stack-depth", required_argument, 0, OPT_STACKDEPTH},
		{0, 0, 0, 0},
	};
	struct ooms_watch_opts o;
	int c;

	memset(&o, 0, sizeof(o));
	o.interval_s = 1;
	o.big_map_bytes = 1 << 20;
	o.big_alloc_mode = ALLOC_SYSCALL;
	o.stack_depth = 20;
	ooms_detect_defaults(&o.detect);
	optind = 1;
	/* "+": stop at the first non-option, so `run -- cmd -x` keeps cmd's options */
	while ((c = getopt_long(argc, argv, "+p:i:d:o:vh", longopts, NULL)) != -1) {
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
	if (o.big_alloc_live && o.big_alloc_mode != ALLOC_UPROBE)
		return bad("%s", "--big-alloc-live needs --big-alloc-mode uprobe (return probes on the allocator)");
	if (o.big_alloc_live && !o.big_alloc_bytes)
		o.big_alloc_bytes = 8 << 20;
	return ooms_collect(&o);
}
