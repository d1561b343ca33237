/* oomscope analyze: leaks, their shortest paths to GC roots, dominators and
 * retained sizes of one heap dump (whole or stripped, plain, gzip or xz). */
#include <errno.h>
#include <malloc.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "analyze/analyzer.h"
#include "util/clock.h"
#include "analyze/findings.h"
#include "cli/commands.h"
#include "cli/opts.h"
#include "util/atomic_file.h"

static const char usage_head[] =
	"usage: oomscope analyze [options] DUMP\n"
	"\n"
	"Indexes a heap dump (hprof: JVM or Android; whole or `oomscope hprof strip`ped;\n"
	"plain, gzip or xz) and reports what holds the memory:\n"
	"  - leaks found by the runtime's rules (Android: destroyed Activities, detached\n"
	"    Fragments, Windows and ViewRootImpls, large Bitmaps) and by yours, each\n"
	"    with its shortest strong path from a GC root, merged by path signature;\n"
	"  - retained sizes from the dominator tree: the top retainers, each leak's;\n"
	"  - a class histogram by count, shallow and retained size.\n"
	"\n"
	"options:\n";

static const char usage_tail[] =
	"\n"
	"examples:\n"
	"  oomscope analyze app.hprof\n"
	"  oomscope analyze --json -o analysis.json --leak-if 'com.example.Screen.destroyed==true' app.hprof.xz\n";

static const struct cli_opt options[] = {
	{"json", 0, no_argument, 'j', NULL, "the report as one JSON object (KOOM's field names:\nanalysisDone, runningInfo, classInfos, gcPaths)"},
	{"out", 'o', required_argument, 'o', "FILE", "write the report to FILE (whole or not at all)"},
	{"top", 0, required_argument, 't', "N", "rows per table and leak groups shown (default 10)"},
	{"runtime", 0, required_argument, 'r', "R", "android, jvm or auto (default: android for\nJAVA PROFILE 1.0.3 dumps, else jvm)"},
	{"leak-class", 0, required_argument, 'c', "NAME",
	 "instances of NAME (or a subclass) are leaks;\nrepeatable. NAME is dotted: com.example.Screen"},
	{"leak-if", 0, required_argument, 'i', "EXPR",
	 "Class.field==value or Class.field!=value, value\ntrue, false, null or an integer; repeatable\n"
	 "(e.g. 'com.example.Screen.destroyed==true')"},
	{"ran-out", 0, required_argument, 'R', "KIND",
	 "what ran out, when the dump was taken for it: heap\n(default), direct (every DirectByteBuffer by path, its\n"
	 "memory counted as native) or metaspace (every class\nloader by path: the ones that leak hold their classes)"},
	{"bitmap", 0, required_argument, 'b', "WxH", "Android: Bitmaps over W x H pixels are reported\n(default 768x1366, as KOOM)"},
	{"retained-tsv", 0, required_argument, 'T', "FILE",
	 "also write id, shallow and retained size of every\nobject (for comparing with other tools; then\n"
	 "\"class\" for a class object, \"unreachable\" for one\nthe model leaves out)"},
	{"retained-model", 0, required_argument, 'M', "M",
	 "mat (default): as Eclipse MAT counts them: the objects\nno GC root reaches are left out (and listed apart),\n"
	 "referents count as references; visualvm: as VisualVM's\nheap library counts them, object by object (garbage's\n"
	 "references count as GC roots'); dominated: VisualVM's\ngraph, every object's shallow size in each of its\n"
	 "dominators (docs/commands.md)"},
	{"max-memory", 0, required_argument, 'X', "BYTES",
	 "refuse, in one line with the estimate, a dump whose\nanalysis would need more memory (K, M, G suffixes):\nbefore the second pass (about 24 B per object and 6 B\nper reference), and again before the dominators when\nmuch of the heap reaches a cycle (28 B per such object)"},
	{"library-leak", 0, required_argument, 'L', "CLASS#FIELD",
	 "a reference known to leak through no fault of the app:\ncrossed last; a leak only through it is a library\nleak (beside the built-in Android table); CLASS alone:\nGC roots that are its instances; repeatable"},
	{"ignore", 0, required_argument, 'I', "CLASS#FIELD",
	 "leave this reference out of the paths to GC roots\n(an instance field of CLASS, or a static; CLASS alone:\nGC roots that are its instances); repeatable"},
	{"baseline", 0, required_argument, 'B', "OLD",
	 "an older dump of the same process: what grew since\n(classes by name, suspects by path signature)"},
	{"suspect-share", 0, required_argument, 'S', "R",
	 "leak suspects: objects and classes retaining over R of\nthe reachable heap (default 0.10, as MAT)"},
	{"threads", 0, required_argument, 'P', "N",
	 "1: everything in turn on one thread; 2: the index's\nsecond pass in two halves (a plain file) and the\n"
	 "dominator search beside the shortest paths (default:\n2 when the machine has more than one CPU)"},
	{"quiet", 'q', no_argument, 'q', NULL, "no progress on the terminal"},
	{"help", 'h', no_argument, 'h', NULL, "this text"},
	CLI_END,
};

struct progress {
	int on;
	double last;
	int pass;
};


static void show_progress(void *ctx, int pass, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	double t = mono_s();

	static const char *const phases[] = {"shortest paths", "naming the paths' references (one more pass)",
					     "dominators and retained sizes", "class histogram"};

	if (!p->on || (t - p->last < 0.5 && pass == p->pass))
		return;
	p->last = t;
	p->pass = pass;
	if (pass >= OOMS_PHASE_PATHS && pass <= OOMS_PHASE_HISTOGRAM)
		fprintf(stderr, "\ranalyze: %-60s", phases[pass - OOMS_PHASE_PATHS]);
	else if (pass >= OOMS_PHASE_PATHS)
		return;
	else if (total)
		fprintf(stderr, "\ranalyze: index pass %d: %" PRIu64 " / %" PRIu64 " MB (%.0f%%)   ", pass, done >> 20,
			total >> 20, 100.0 * done / total);
	else
		fprintf(stderr, "\ranalyze: index pass %d: %" PRIu64 " MB   ", pass, done >> 20);
}

static int bad(const char *msg, const char *arg)
{
	return cli_usage_error("analyze", "%s%s%s", msg, arg ? ": " : "", arg ? arg : "");
}

/* The older dump analyzed with the same options, and what growth needs
 * of it kept. 0, or -errno (said on stderr). */
static int take_baseline(const char *path, const struct ooms_analyze_opts *o, struct progress *pr,
			 struct ooms_baseline *b)
{
	struct ooms_analysis old;
	struct ooms_err err = {0};
	int e;

	if (pr->on)
		fprintf(stderr, "analyze: the baseline, %s\n", path);
	e = ooms_analyze(&old, path, o, &err);
	if (pr->on && pr->last)
		fprintf(stderr, "\r%72s\r", "");
	if (e) {
		fprintf(stderr, "oomscope analyze: the baseline: %s\n", err.msg);
		return e;
	}
	if ((e = ooms_baseline_take(&old, b)))
		fprintf(stderr, "oomscope analyze: out of memory keeping the baseline\n");
	ooms_analysis_free(&old);
	return e;
}

/* The report (text or JSON) to out or stdout, and the TSV: each file
 * whole or not at all. 0 or -1 (said on stderr). */
static int write_reports(struct ooms_analysis *a, const char *out, const char *tsv, int json, unsigned top)
{
	struct atomic_file af;
	FILE *f = stdout;
	int e;

	if (out) {
		if ((e = atomic_open(&af, out))) {
			fprintf(stderr, "oomscope analyze: %s: %s\n", out, strerror(-e));
			return -1;
		}
		f = af.f;
	}
	if (json)
		ooms_analysis_json(a, top, f);
	else
		ooms_analysis_text(a, top, f);
	if (out && (e = atomic_commit(&af))) {
		fprintf(stderr, "oomscope analyze: %s: %s\n", out, strerror(-e));
		return -1;
	}
	if (!tsv)
		return 0;
	if ((e = ooms_index_load_ids(&a->ix))) { /* every id, for every row */
		fprintf(stderr, "oomscope analyze: %s: reading the ids back: %s\n", tsv, strerror(-e));
		return -1;
	}
	if ((e = atomic_open(&af, tsv))) {
		fprintf(stderr, "oomscope analyze: %s: %s\n", tsv, strerror(-e));
		return -1;
	}
	if (ooms_analysis_retained_tsv(a, af.f)) {
		atomic_abort(&af);
		fprintf(stderr, "oomscope analyze: %s: write failed\n", tsv);
		return -1;
	}
	if ((e = atomic_commit(&af))) {
		fprintf(stderr, "oomscope analyze: %s: %s\n", tsv, strerror(-e));
		return -1;
	}
	return 0;
}

static int analyze_with(int argc, char **argv, const char **classes, const char **ifs, const char **ignores,
			const char **library);

/* The lists the options fill (each as long as the command line), freed
 * whichever way the command ends. */
int cmd_analyze(int argc, char **argv)
{
	const char **lists = calloc(4 * ((size_t)argc + 1), sizeof(char *));
	int rc;

	if (!lists)
		return 1;
	rc = analyze_with(argc, argv, lists, lists + argc + 1, lists + 2 * (argc + 1), lists + 3 * (argc + 1));
	free(lists);
	return rc;
}

/* About 100 lines: the options, then the analysis and its outputs. */
static int analyze_with(int argc, char **argv, const char **classes, const char **ifs, const char **ignores,
			const char **library)
{
	struct option longopts[sizeof(options) / sizeof(options[0])];
	char shortopts[16];
	struct ooms_analyze_opts o = {.runtime = RUNTIME_AUTO, .bitmap_w = 768, .bitmap_h = 1366};
	const char *out = NULL, *tsv = NULL, *baseline = NULL;
	struct ooms_baseline base;
	struct ooms_growth growth;
	struct progress pr = {isatty(2), 0, 0};
	struct ooms_analysis a;
	unsigned top = 10;
	int json = 0, c, rc = 1, e;
	struct ooms_err err = {0};
	char *end;
	struct stat st;

	if (cli_opts_getopt(options, longopts, sizeof(longopts) / sizeof(longopts[0]), "", shortopts, sizeof(shortopts)))
		return 1;
	o.leak_classes = classes;
	o.leak_ifs = ifs;
	o.ignores = ignores;
	o.library = library;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'o': out = optarg; break;
		case 'q': pr.on = 0; break;
		case 'T': tsv = optarg; break;
		case 'P':
			if (strcmp(optarg, "1") && strcmp(optarg, "2"))
				return bad("--threads takes 1 or 2", optarg);
			o.threads = (unsigned)(optarg[0] - '0');
			break;
		case 'X':
			if (cli_parse_bytes(optarg, &o.max_memory) || !o.max_memory)
				return bad("--max-memory wants BYTES with an optional K, M or G", optarg);
			break;
		case 'M':
			if (!strcmp(optarg, "mat"))
				o.retained_model = OOMS_RETAINED_MAT;
			else if (!strcmp(optarg, "visualvm"))
				o.retained_model = OOMS_RETAINED_VISUALVM;
			else if (!strcmp(optarg, "dominated"))
				o.retained_model = OOMS_RETAINED_DOMINATED;
			else
				return bad("--retained-model takes mat, visualvm or dominated", optarg);
			break;
		case 'c': classes[o.nleak_classes++] = optarg; break;
		case 'R':
			if (ooms_ran_out_parse(optarg, &o.ran_out))
				return bad("--ran-out is heap, direct or metaspace", optarg);
			break;
		case 'i': ifs[o.nleak_ifs++] = optarg; break;
		case 't': {
			long v = strtol(optarg, &end, 10);

			if (*end || v < 1 || v > 1000000)
				return bad("--top wants a number from 1 to 1000000", optarg);
			top = (unsigned)v;
			break;
		}
		case 'r':
			if (!strcmp(optarg, "android"))
				o.runtime = RUNTIME_ANDROID;
			else if (!strcmp(optarg, "jvm"))
				o.runtime = RUNTIME_JVM;
			else if (!strcmp(optarg, "auto"))
				o.runtime = RUNTIME_AUTO;
			else
				return bad("--runtime is android, jvm or auto", optarg);
			break;
		case 'B': baseline = optarg; break;
		case 'I': ignores[o.nignores++] = optarg; break;
		case 'L': library[o.nlibrary++] = optarg; break;
		case 'S':
			o.suspect_share = strtod(optarg, &end);
			if (*end || end == optarg || !(o.suspect_share > 0 && o.suspect_share <= 1))
				return bad("--suspect-share wants a share above 0 and at most 1, e.g. 0.1", optarg);
			break;
		case 'b':
			if (sscanf(optarg, "%ux%u", &o.bitmap_w, &o.bitmap_h) != 2 || !o.bitmap_w || !o.bitmap_h)
				return bad("--bitmap wants WIDTHxHEIGHT, e.g. 768x1366", optarg);
			break;
		case 'h':
			fputs(usage_head, stdout);
			cli_opts_help(options, stdout);
			fputs(usage_tail, stdout);
			return 0;
		default:
			return cli_opts_error("analyze", c, argv);
		}
	}
	if (optind + 1 != argc)
		return bad(optind >= argc ? "which dump? give one file" : "one dump at a time", NULL);
	if (stat(argv[optind], &st) || !S_ISREG(st.st_mode))
		return bad(errno == ENOENT || !errno ? "no such file" : strerror(errno), argv[optind]);
	if (baseline && (stat(baseline, &st) || !S_ISREG(st.st_mode)))
		return bad(errno == ENOENT || !errno ? "no such baseline file" : strerror(errno), baseline);
	for (int i = 0; i < 2; i++) {
		const char *o_path = i ? tsv : out;

		if (o_path && path_is_refused_link(o_path)) {
			fprintf(stderr, "oomscope analyze: %s: a symbolic link: refused (name the file it points to, or remove it)\n",
				o_path);
			return 1;
		}
	}
	o.progress = show_progress;
	o.pctx = &pr;
	if (baseline && (e = take_baseline(baseline, &o, &pr, &base))) {
		return e == -EINVAL ? 2 : 1;
	}
	/* arrays of a MiB and more straight from the kernel and back to it when
	 * freed: glibc would otherwise raise this threshold after the first big
	 * free and keep later arrays in its heaps, resident after they go */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	e = ooms_analyze(&a, argv[optind], &o, &err);
	if (pr.on && pr.last)
		fprintf(stderr, "\r%72s\r", "");
	if (!e && baseline && (e = ooms_growth_compute(&base, &a, &growth)))
		ooms_err_set(&err, e, "out of memory comparing with the baseline");
	if (e) {
		fprintf(stderr, "oomscope analyze: %s\n", err.msg);
		if (baseline)
			ooms_baseline_free(&base);
		return e == -EINVAL ? 2 : 1;
	}
	a.growth = baseline ? &growth : NULL;
	if (write_reports(&a, out, tsv, json, top) == 0)
		rc = 0;
	if (baseline) {
		ooms_growth_free(&growth);
		ooms_baseline_free(&base);
	}
	ooms_analysis_free(&a);
	return rc;
}
