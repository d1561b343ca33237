/* oomscope report DIR: the run's page and exports. oomscope aggregate: many
 * runs' leaks in one table (SQLite). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <stdarg.h>
#include <stdint.h>

#include "cli/commands.h"
#include "dump/run_dumps.h"
#include "util/clock.h"
#include "cli/opts.h"
#include "report/aggregate.h"
#include "report/store_query.h"
#include "report/report.h"

static const char report_usage[] =
	"usage: oomscope report [-q] [--analyze [--leak-class NAME] [--leak-if EXPR]] [--db FILE|CONNINFO] DIR\n"
	"\n"
	"Prints the run's story (at most 40 lines: how it ended and who ended it, each\n"
	"rule's crossing with what held the resource then, failing calls, memory growth\n"
	"by code, large allocations, the Java heap's leaks and suspects, the groups at\n"
	"the end, what was lost) and writes, from a run directory (what oomscope run/watch write; they also do this\n"
	"at the end of every run):\n"
	"  DIR/report.html   one self-contained page, readable offline: memory, Java heap,\n"
	"                    threads and fds over time with their thresholds, crossings,\n"
	"                    dumps and GC pauses marked; the leaks and their paths, top\n"
	"                    retainers, large allocations, thread and fd groups with the\n"
	"                    stacks that created them\n"
	"  DIR/trace.json    Chrome trace event format: Perfetto (ui.perfetto.dev) and\n"
	"                    chrome://tracing open it\n"
	"  DIR/allocs.pb.gz  the large allocations as a pprof profile (with --big-alloc)\n"
	"With --db, the run is added to the lab's store first (as oomscope aggregate\n"
	"does) and the page says of each finding how many other runs there saw it.\n"
	"With --analyze, the run's heap dumps that were not analyzed where they were\n"
	"taken (watch --no-analyze; a phone's run, pulled by scripts/oomscope-android)\n"
	"are analyzed first, as the watch would have, so the page holds their findings.\n"
	"\n"
	"options:\n";

enum { RP_ANALYZE = 256, RP_LEAKCLASS, RP_LEAKIF, RP_MAXMEMORY };

static const struct cli_opt report_options[] = {
	{"quiet", 'q', no_argument, 'q', NULL, "no story and no progress on the terminal: the page's path only"},
	{"analyze", 0, no_argument, RP_ANALYZE, NULL,
	 "analyze the run's dumps that have no analysis yet, first\n(each said in a line)"},
	{"leak-class", 0, required_argument, RP_LEAKCLASS, "NAME",
	 "--analyze: instances of NAME are leaks (as watch's); repeatable"},
	{"leak-if", 0, required_argument, RP_LEAKIF, "EXPR",
	 "--analyze: Class.field==value leaks (as watch's); repeatable"},
	{"max-memory", 0, required_argument, RP_MAXMEMORY, "BYTES",
	 "--analyze: refuse a dump whose analysis would need more"},
	{"db", 0, required_argument, 'd', "FILE|CONNINFO",
	 "the lab's store (SQLite file or PostgreSQL connection string):\nthe run added, its findings seen across runs"},
	{"help", 'h', no_argument, 'h', NULL, "this text"},
	CLI_END,
};

static const char aggregate_usage[] =
	"usage: oomscope aggregate [--db FILE|CONNINFO] [--json] [QUERY] [DIR...]\n"
	"\n"
	"Adds each run directory to the lab's store (--db: an SQLite file, or a\n"
	"PostgreSQL connection string for a store many machines share), kept over\n"
	"weeks: everything each run found, keyed by its run id, so a run added again\n"
	"is stored once. Then answers a question of it. Without a\n"
	"QUERY: every finding by signature, as --signatures (Java leaks, fd and thread\n"
	"groups, failing calls, large allocations, memory growth; the same bug in many\n"
	"runs is one row): how many runs saw it, when first and last, its largest\n"
	"figure; with --json, the Java leaks with an example path each (schema\n"
	"oomscope-aggregate/1). Without DIRs it asks what the store holds.\n"
	"\n"
	"options:\n";

static const char report_example[] =
	"\n"
	"examples:\n"
	"  oomscope report runs/svc\n"
	"  oomscope report --db lab.sqlite runs/svc\n"
	"  oomscope report --analyze runs/svc\n";

static const char aggregate_example[] =
	"\n"
	"examples:\n"
	"  oomscope aggregate --db lab.sqlite runs/*/\n"
	"  oomscope aggregate --db lab.sqlite --signatures --where device=pixel7\n"
	"  oomscope aggregate --db lab.sqlite --new-in build=4312 --since build=4311\n"
	"  oomscope aggregate --db lab.sqlite --history 42d7bacc254e7927 --across build\n"
	"  oomscope aggregate --db lab.sqlite --deaths --across device\n";

enum { AG_SIGNATURES = 256, AG_WHERE, AG_NEWIN, AG_SINCE, AG_HISTORY, AG_ACROSS, AG_DEATHS };

static const struct cli_opt aggregate_options[] = {
	{"db", 0, required_argument, 'd', "FILE|CONNINFO",
	 "the lab's store: an SQLite file (created if missing) or a\nPostgreSQL connection string (\"host=... dbname=...\",\n\"postgresql://...\"); default: memory only"},
	{"json", 0, no_argument, 'j', NULL, "JSON (schema oomscope-aggregate/1; a QUERY's: oomscope-query/1)"},
	{"signatures", 0, no_argument, AG_SIGNATURES, NULL,
	 "QUERY: every finding (leaks, fd and thread groups, failing calls,\nlarge allocations, memory growth) by signature, most runs first"},
	{"where", 0, required_argument, AG_WHERE, "KEY=VALUE", "--signatures, --deaths: only runs with this label"},
	{"new-in", 0, required_argument, AG_NEWIN, "KEY=VALUE",
	 "QUERY: the signatures in runs with this label and in none\nwith --since's value"},
	{"since", 0, required_argument, AG_SINCE, "KEY=VALUE", "--new-in: the label value set against (the same KEY)"},
	{"history", 0, required_argument, AG_HISTORY, "SIGNATURE",
	 "QUERY: one signature across the values of --across's label"},
	{"across", 0, required_argument, AG_ACROSS, "KEY", "--history, --deaths: a row per value of this label"},
	{"deaths", 0, no_argument, AG_DEATHS, NULL, "QUERY: how the runs ended, by cause"},
	{"help", 'h', no_argument, 'h', NULL, "this text"},
	CLI_END,
};

struct progress {
	int on;
	double t0;
};


static void show(void *ctx, const char *what)
{
	struct progress *p = ctx;

	/* only once a second has passed: short work stays silent */
	if (p->on && mono_s() - p->t0 > 1)
		fprintf(stderr, "\rreport: %-40s", what);
}

static void say_line(void *ctx, const char *fmt, ...)
{
	va_list ap;

	(void)ctx;
	fputs("oomscope report: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cmd_report(int argc, char **argv)
{
	static const char *leak_classes[64], *leak_ifs[64];
	struct ooms_run_dumps_opts ao = {.leak_classes = leak_classes, .leak_ifs = leak_ifs, .say = say_line};
	int analyze = 0;
	struct option longopts[sizeof(report_options) / sizeof(report_options[0])];
	struct progress p = {isatty(2), mono_s()};
	struct ooms_err err = {0};
	char shortopts[8];
	const char *db = NULL;
	int c, story = 1;

	optind = 1;
	if (cli_opts_getopt(report_options, longopts, sizeof(longopts) / sizeof(longopts[0]), "", shortopts,
			    sizeof(shortopts)))
		return 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'q') {
			p.on = 0;
			story = 0;
		} else if (c == 'd') {
			db = optarg;
		} else if (c == RP_ANALYZE) {
			analyze = 1;
		} else if (c == RP_LEAKCLASS || c == RP_LEAKIF) {
			if ((c == RP_LEAKCLASS ? ao.nleak_classes : ao.nleak_ifs) >= 64)
				return cli_usage_error("report", "%s", "at most 64 --leak-class and 64 --leak-if");
			if (c == RP_LEAKCLASS)
				leak_classes[ao.nleak_classes++] = optarg;
			else
				leak_ifs[ao.nleak_ifs++] = optarg;
		} else if (c == RP_MAXMEMORY) {
			if (cli_parse_bytes(optarg, &ao.max_memory) || !ao.max_memory)
				return cli_usage_error("report", "invalid --max-memory '%s' (bytes, K/M/G suffixes)", optarg);
		} else if (c == 'h') {
			fputs(report_usage, stdout);
			cli_opts_help(report_options, stdout);
			fputs(report_example, stdout);
			return 0;
		} else {
			return cli_opts_error("report", c, argv);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("report", "%s", "give one run directory");
	if ((ao.nleak_classes || ao.nleak_ifs || ao.max_memory) && !analyze)
		return cli_usage_error("report", "%s", "--leak-class, --leak-if and --max-memory are --analyze's: give it too");
	if (analyze && ooms_run_dumps_analyze(argv[optind], &ao, &err) < 0) {
		fprintf(stderr, "oomscope report: %s\n", err.msg);
		return 1;
	}
	if (ooms_report_write_db(argv[optind], db, show, &p, &err)) {
		if (p.on)
			fprintf(stderr, "\r%50s\r", "");
		fprintf(stderr, "oomscope report: %s\n", err.msg);
		return 1;
	}
	if (p.on)
		fprintf(stderr, "\r%50s\r", "");
	if (story) {
		struct rundata rd;

		if (rundata_load(&rd, argv[optind], &err) == 0) {
			ooms_report_story(&rd, stdout);
			rundata_free(&rd);
		}
	}
	printf("%s/report.html\n", argv[optind]);
	return 0;
}

int cmd_aggregate(int argc, char **argv)
{
	struct option longopts[sizeof(aggregate_options) / sizeof(aggregate_options[0])];
	struct store_query q = {0};
	const char *db = NULL;
	char key[65] = "", since_key[65] = "";
	struct ooms_err err = {0};
	char shortopts[8];
	size_t added;
	int c, json = 0, queries = 0;

	optind = 1;
	if (cli_opts_getopt(aggregate_options, longopts, sizeof(longopts) / sizeof(longopts[0]), "", shortopts,
			    sizeof(shortopts)))
		return 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'j': json = 1; break;
		case AG_SIGNATURES: q.kind = SQ_SIGNATURES; queries++; break;
		case AG_DEATHS: q.kind = SQ_DEATHS; queries++; break;
		case AG_HISTORY: q.kind = SQ_HISTORY; q.signature = optarg; queries++; break;
		case AG_ACROSS: q.across = optarg; break;
		case AG_WHERE:
		case AG_NEWIN:
			if (cli_parse_label(optarg, key, &q.value))
				return cli_usage_error("aggregate", "invalid label '%s' (KEY=VALUE)", optarg);
			q.key = key;
			if (c == AG_NEWIN) {
				q.kind = SQ_NEW_IN;
				queries++;
			}
			break;
		case AG_SINCE:
			if (cli_parse_label(optarg, since_key, &q.since_value))
				return cli_usage_error("aggregate", "invalid label '%s' (KEY=VALUE)", optarg);
			break;
		case 'h':
			fputs(aggregate_usage, stdout);
			cli_opts_help(aggregate_options, stdout);
			fputs(aggregate_example, stdout);
			return 0;
		default: return cli_opts_error("aggregate", c, argv);
		}
	}
	if (queries > 1)
		return cli_usage_error("aggregate", "%s", "one QUERY at a time (--signatures, --new-in, --history, --deaths)");
	if (q.kind == SQ_NEW_IN && (!since_key[0] || strcmp(since_key, q.key)))
		return cli_usage_error("aggregate", "%s", "--new-in KEY=VALUE needs --since KEY=OTHER (the same KEY)");
	if (since_key[0] && q.kind != SQ_NEW_IN)
		return cli_usage_error("aggregate", "%s", "--since goes with --new-in");
	if (q.kind == SQ_HISTORY && !q.across)
		return cli_usage_error("aggregate", "%s", "--history SIGNATURE needs --across KEY");
	if (q.across && q.kind != SQ_HISTORY && q.kind != SQ_DEATHS)
		return cli_usage_error("aggregate", "%s", "--across goes with --history or --deaths");
	if (q.key && !queries)
		return cli_usage_error("aggregate", "%s", "--where goes with --signatures or --deaths");
	if (q.key && q.kind == SQ_DEATHS && q.across)
		return cli_usage_error("aggregate", "%s", "--deaths takes --where or --across, not both");
	if (optind == argc && !db)
		return cli_usage_error("aggregate", "%s", "give run directories, or --db FILE to list a database");
	if (ooms_aggregate(db, argv + optind, (size_t)(argc - optind), queries ? &q : NULL, json, stdout, &added,
			   &err)) {
		fprintf(stderr, "oomscope aggregate: %s\n", err.msg);
		return 1;
	}
	return 0;
}
