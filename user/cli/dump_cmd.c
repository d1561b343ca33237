/* oomscope dump: one heap dump of a running Java process now, stripped and
 * compressed on the way, then analyzed. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/opts.h"
#include "dump/fresh.h"
#include "dump/dumper.h"
#include "util/atomic_file.h"
#include "util/clock.h"
#include "util/tmpdir.h"
#include "proc/freezer.h"
#include "proc/procfs.h"
#include "hprof/io.h"
#include "hprof/transform.h"
#include "runtime/art_agent.h"
#include "runtime/runtime.h"
#include "runtime/shim_client.h"

static const char usage_head[] =
	"usage: oomscope dump -p PID [options]\n"
	"\n"
	"Takes a heap dump of a running Java process (HotSpot JVM or Android app),\n"
	"stripped of primitive array contents and compressed while it is written,\n"
	"then analyzes it (leaks, paths to GC roots, retained sizes).\n"
	"\n"
	"How (--method):\n"
	"  shim   the shim's fork-dump: the app pauses only for a fork (tens of ms);\n"
	"         the shim must be loaded (oomscope run --shim, --load-shim here, or\n"
	"         -agentpath:build/liboomscope_shim.so)\n"
	"  jvm    HotSpot's own dumper through the attach protocol into a FIFO that\n"
	"         is stripped as it streams: no shim needed, but the app pauses for\n"
	"         the whole dump (seconds per GB)\n"
	"  am     Android's `am dumpheap`, stripped afterwards (untested here)\n"
	"  auto   (default) the shim when it answers, else the runtime's own dumper\n"
	"\n"
	"options:\n";

static const char usage_tail[] =
	"\n"
	"examples:\n"
	"  oomscope dump -p 4242 --load-shim -o app.hprof.gz\n"
	"  oomscope dump -p 4242 --method jvm --leak-if 'com.example.Screen.destroyed==true'\n";

static int bad(const char *msg, const char *arg)
{
	return cli_usage_error("dump", "%s%s%s", msg, arg ? ": " : "", arg ? arg : "");
}

static void show_status(void *ctx, const char *what)
{
	if (*(int *)ctx)
		fprintf(stderr, "\rdump: %-40s", what);
}

enum { O_METHOD = 256, O_LOAD, O_MODE, O_GZIP, O_XZ, O_PLAIN, O_LEVEL, O_NOAN, O_LCLASS, O_LIF, O_NOSTR };

static const struct cli_opt options[] = {
	{"pid", 'p', required_argument, 'p', "PID", "the target"},
	{"out", 'o', required_argument, 'o', "FILE",
	 "the dump (default oomscope-dump-PID-TIME.hprof.gz);\nthe analysis goes beside it as FILE.analysis.json/.txt"},
	{"method", 0, required_argument, O_METHOD, "M", "auto, shim, jvm or am (see above)"},
	{"load-shim", 0, no_argument, O_LOAD, NULL, "load the shim first, then fork-dump: into a HotSpot JVM\nby the attach protocol's `load`; into an Android app by a\ncopy in its code_cache and `cmd activity attach-agent`\n(a debuggable app, or any on a userdebug build)"},
	{"mode", 0, required_argument, O_MODE, "M",
	 "app (default: every object, primitive array contents\ndropped) or koom (also drops Android's zygote/image heaps)"},
	{"no-strings", 0, no_argument, O_NOSTR, NULL,
	 "no char/byte array contents at all (by default those\nup to 1 KiB, where Strings keep their text, stay)"},
	{"gzip", 0, no_argument, O_GZIP, NULL, "output codec gzip (the default)"},
	{"xz", 0, no_argument, O_XZ, NULL, "output codec xz"},
	{"plain", 0, no_argument, O_PLAIN, NULL, "no compression"},
	{"level", 0, required_argument, O_LEVEL, "N", "codec level (gzip 1..9, default 1; xz 0..9, default 0)"},
	{"no-analyze", 0, no_argument, O_NOAN, NULL, "only the dump"},
	{"leak-class", 0, required_argument, O_LCLASS, "NAME", "an analysis rule, as `oomscope analyze`"},
	{"leak-if", 0, required_argument, O_LIF, "EXPR", "an analysis rule, as `oomscope analyze`"},
	{"quiet", 'q', no_argument, 'q', NULL, "no progress"},
	{"help", 'h', no_argument, 'h', NULL, "this text"},
	CLI_END,
};

/* What the command line asked for. */
struct dump_args {
	struct ooms_dump_request rq;
	struct ooms_fresh_request arq; /* the analysis (arq.json NULL: none) */
	const char *classes[64], *ifs[64];
	size_t nclasses, nifs;
	char out[4096];
	int load, analyze, quiet, level;
	int thawed_for_load; /* the target was frozen: thawed for the shim's load */
	long pid;
};

/* One option: 0 taken, -1 --help shown, else a usage error's exit code. */
static int dump_opt(int c, struct dump_args *a, char **argv)
{
	int k;

	switch (c) {
	case 'p':
		a->pid = strtol(optarg, NULL, 10);
		if (a->pid <= 0)
			return bad("-p takes a process id", optarg);
		break;
	case 'o': snprintf(a->out, sizeof(a->out), "%s", optarg); break;
	case O_METHOD:
		if ((k = ooms_dump_method_parse(optarg)) < 0)
			return bad("--method is auto, shim, jvm or am", optarg);
		a->rq.method = k;
		break;
	case O_LOAD: a->load = 1; break;
	case O_MODE:
		if (!strcmp(optarg, "app"))
			a->rq.op = HPROF_OP_STRIP_APP;
		else if (!strcmp(optarg, "koom"))
			a->rq.op = HPROF_OP_STRIP_KOOM;
		else
			return bad("--mode is app or koom", optarg);
		break;
	case O_NOSTR: a->rq.text_bytes = 0; break;
	case O_GZIP: a->rq.codec = HPROF_GZIP; break;
	case O_XZ: a->rq.codec = HPROF_XZ; break;
	case O_PLAIN: a->rq.codec = HPROF_PLAIN; break;
	case O_LEVEL:
		a->level = atoi(optarg);
		if (a->level < 0 || a->level > 9)
			return bad("--level is 0..9", optarg);
		break;
	case O_NOAN: a->analyze = 0; break;
	case O_LCLASS:
		if (a->nclasses == 64)
			return bad("at most 64 --leak-class", NULL);
		a->classes[a->nclasses++] = optarg;
		break;
	case O_LIF:
		if (a->nifs == 64)
			return bad("at most 64 --leak-if", NULL);
		a->ifs[a->nifs++] = optarg;
		break;
	case 'q': a->quiet = 1; break;
	case 'h':
		fputs(usage_head, stdout);
		cli_opts_help(options, stdout);
		fputs(usage_tail, stdout);
		return -1;
	default:
		return cli_opts_error("dump", c, argv);
	}
	return 0;
}

/* The target: a process running a Java runtime, with the shim loaded first
 * when asked. 0, or 1 after saying why not. */
static int check_target(struct dump_args *a, struct ooms_rt_target *rt)
{
	struct ooms_err err = {0};

	if (!proc_exists((pid_t)a->pid)) {
		fprintf(stderr, "oomscope dump: no process with PID %ld\n", a->pid);
		return 1;
	}
	if (ooms_rt_detect((pid_t)a->pid, OOMS_RT_AUTO, rt) == 0 && rt->kind == OOMS_RT_NATIVE) {
		fprintf(stderr, "oomscope dump: PID %ld runs no Java runtime (no libjvm.so or libart.so mapped); "
				"for native memory use `oomscope watch --big-alloc`\n", a->pid);
		return 1;
	}
	if (!a->load)
		return 0;
	if (rt->kind == OOMS_RT_ART) {
		/* an app: the shim put in its code_cache, attached by the activity manager */
		struct ooms_art_loader l;
		enum ooms_art_load_state st;

		ooms_art_loader_init(&l, (pid_t)a->pid, rt->lib, shim_client_library(), (int64_t)mono_ns());
		while ((st = ooms_art_loader_step(&l, (int64_t)mono_ns(), &err)) != ART_LOAD_DONE && st != ART_LOAD_FAILED)
			usleep(500 * 1000);
		if (st == ART_LOAD_FAILED) {
			fprintf(stderr, "oomscope dump: %s\n", err.msg);
			return 1;
		}
		a->thawed_for_load = l.thawed;
	} else if (shim_client_load_hotspot((pid_t)a->pid, shim_client_library(), &a->thawed_for_load, &err)) {
		fprintf(stderr, "oomscope dump: %s\n", err.msg);
		return 1;
	}
	if (a->rq.method == DUMP_AUTO)
		a->rq.method = DUMP_SHIM;
	return 0;
}

/* The request's output and analysis, from the arguments. */
static void fill_request(struct dump_args *a, const struct ooms_rt_target *rt, char *json, char *txt, size_t len)
{
	struct ooms_dump_request *rq = &a->rq;

	if (!a->out[0]) {
		char stamp[32];
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		snprintf(a->out, sizeof(a->out), "%soomscope-dump-%ld-%s.hprof%s", ooms_default_out_dir(), a->pid, stamp,
			 rq->codec == HPROF_GZIP ? ".gz" : rq->codec == HPROF_XZ ? ".xz" : "");
	}
	rq->level = a->level >= 0 ? a->level : rq->codec == HPROF_GZIP ? 1 : 0;
	rq->pid = (pid_t)a->pid;
	rq->runtime = rt->kind;
	rq->out_path = a->out;
	if (a->analyze && path_is_stream(a->out)) {
		a->analyze = 0; /* a device or pipe cannot be read back, nor have files beside it */
		if (!a->quiet)
			fprintf(stderr, "oomscope dump: %s is not a regular file: no analysis\n", a->out);
	}
	if (!a->analyze)
		return;
	snprintf(json, len, "%s.analysis.json", a->out);
	snprintf(txt, len, "%s.analysis.txt", a->out);
	a->arq.json = json;
	a->arq.txt = txt;
	a->arq.aopts.runtime = RUNTIME_AUTO;
	a->arq.aopts.bitmap_w = 768;
	a->arq.aopts.bitmap_h = 1366;
	a->arq.aopts.leak_classes = a->classes;
	a->arq.aopts.nleak_classes = a->nclasses;
	a->arq.aopts.leak_ifs = a->ifs;
	a->arq.aopts.nleak_ifs = a->nifs;
}

static void print_result(const struct dump_args *a, const struct ooms_dump_result *res,
			 const struct ooms_fresh_result *ares, const char *json)
{
	printf("dump      %s (%s): %.1f MB of hprof -> %.1f MB", a->out, res->method, res->bytes_in / 1048576.0,
	       res->bytes_out / 1048576.0);
	if (res->objects) /* the fork-dump counts them; the JVM's dumper does not say */
		printf(", %" PRIu64 " objects", res->objects);
	if (res->target_exited) /* a fork-dump's child finishes its copy of the heap */
		printf(" (the target has exited since)");
	printf("\n");
	printf("pause     %.0f ms (the app's), %.1f s in all", res->pause_ms, res->dump_ms / 1000);
	if (res->attempts > 1) /* a fork that caught a lock held: its walk stalled, the next fork did not */
		printf("; %d forks, the walk of the first %s stalled", res->attempts, res->attempts == 2 ? "one" : "two");
	printf("\n");
	if (res->child_ms > 0 && res->objects) /* the forked copy's speed, and how it walked */
		printf("copy      %.0f objects/s for %.1f s%s%s\n", res->objects / (res->child_ms / 1000),
		       res->child_ms / 1000,
		       !strcmp(res->walk, "hotspot") ? ", HotSpot's own dumper"
		       : !strcmp(res->walk, "jvmti") ? ", JVMTI walk"
						      : "",
		       !strcmp(res->forked_at, "gc_end") ? ", forked at a GC pause's end" : "");
	if (res->thawed) /* a cached app, frozen: the dump needed it running */
		printf("frozen    PID %ld was frozen (%s): thawed for %sthe dump, %s\n", a->pid, res->thaw_where,
		       a->thawed_for_load ? "the shim's load and " : "",
		       res->refrozen ? "frozen again after" : res->refreeze_note[0] ? res->refreeze_note : "not frozen again");
	if (res->child_moved_err) /* it shares the app's cgroups: killed or frozen with it */
		printf("cgroups   the dump's child could not leave the app's cgroups (%s): a kill of the app's whole "
		       "cgroup (Android's activity manager) or its freezing stops the dump too\n",
		       strerror(-res->child_moved_err));
	if (!a->analyze)
		return;
	if (ares->analyzed)
		printf("analysis  %s: %zu leak group(s), %" PRIu64 " object(s)%s%s\n", json, ares->leak_groups,
		       ares->leak_objects, ares->top_leak[0] ? "; first: " : "", ares->top_leak);
	else
		printf("analysis  failed: %s\n", ares->error);
}

/* The dump's path may not be a symbolic link (but for one to a stream:
 * /dev/stdout). 1 after saying so. */
static int refused_link(const char *path)
{
	if (!path_is_refused_link(path))
		return 0;
	fprintf(stderr, "oomscope dump: %s: a symbolic link: refused (name the file it points to, or remove it)\n", path);
	return 1;
}

int cmd_dump(int argc, char **argv)
{
	static struct dump_args a; /* the leak rules' strings are argv's */
	struct option longopts[sizeof(options) / sizeof(options[0])];
	struct ooms_dump_result res;
	struct ooms_fresh_result ares = {0};
	struct ooms_rt_target rt;
	char shortopts[16], json[4200], txt[4200];
	struct ooms_thaw thaw = {0};
	struct ooms_err terr = {0};
	int c, r, shown, thawed;

	memset(&a, 0, sizeof(a));
	a.rq.op = HPROF_OP_STRIP_APP;
	a.rq.text_bytes = HPROF_TEXT_BYTES;
	a.rq.codec = HPROF_GZIP;
	a.analyze = 1;
	a.level = -1;
	optind = 1;
	if (cli_opts_getopt(options, longopts, sizeof(longopts) / sizeof(longopts[0]), "+", shortopts, sizeof(shortopts)))
		return 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1)
		if ((r = dump_opt(c, &a, argv)))
			return r < 0 ? 0 : r;
	if (!a.pid)
		return bad("which process? give -p PID", NULL);
	if (optind < argc)
		return bad("unexpected argument", argv[optind]);
	if (a.out[0] && refused_link(a.out)) /* before the target is touched */
		return 1;
	/* a frozen target (a cached app) thawed once for the shim's load and
	 * the dump both, frozen again at the end (the load and the dump thaw
	 * what is frozen themselves, so nothing freezes it between them) */
	if (a.load && (r = ooms_thaw((pid_t)a.pid, &thaw, &terr)) < 0) {
		ooms_refreeze(&thaw, NULL, 0);
		fprintf(stderr, "oomscope dump: %s\n", terr.msg);
		return 1;
	}
	thawed = a.load && r == 1;
	if (check_target(&a, &rt) || (fill_request(&a, &rt, json, txt, sizeof(json)), refused_link(a.out))) {
		ooms_refreeze(&thaw, NULL, 0);
		return 1;
	}
	shown = !a.quiet && isatty(2);
	a.rq.status = a.arq.status = show_status;
	a.rq.sctx = a.arq.sctx = &shown;
	r = ooms_dump_take(&a.rq, &res);
	if (thawed) { /* said as the dump's own thaw is */
		res.thawed = 1;
		a.thawed_for_load = 1;
		ooms_thaw_where(&thaw, res.thaw_where, sizeof(res.thaw_where));
		res.refrozen = ooms_refreeze(&thaw, res.refreeze_note, sizeof(res.refreeze_note)) == 1;
	}
	if (!r && a.analyze) /* the analysis failing does not fail the dump */
		ooms_fresh_analyze(a.out, NULL, &a.arq, &ares);
	if (shown)
		fprintf(stderr, "\r%50s\r", "");
	if (r) {
		fprintf(stderr, "oomscope dump: %s\n", res.error);
		return 1;
	}
	print_result(&a, &res, &ares, json);
	return 0;
}
