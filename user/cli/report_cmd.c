/* oomscope report DIR: the run's page and exports. oomscope aggregate: many
 * runs' leaks in one table (SQLite). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "util/clock.h"
#include "cli/opts.h"
#include "report/aggregate.h"
#include "report/report.h"

static const char report_usage[] =
	"usage: oomscope report [-q] DIR\n"
	"\n"
	"Writes, from a run directory (what oomscope run/watch write; they also do this\n"
	"at the end of every run):\n"
	"  DIR/report.html   one self-contained page, readable offline: memory, Java heap,\n"
	"                    threads and fds over time with their thresholds, crossings,\n"
	"                    dumps and GC pauses marked; the leaks and their paths, top\n"
	"                    retainers, large allocations, thread and fd groups with the\n"
	"                    stacks that created them\n"
	"  DIR/trace.json    Chrome trace event format: Perfetto (ui.perfetto.dev) and\n"
	"                    chrome://tracing open it\n"
	"  DIR/allocs.pb.gz  the large allocations as a pprof profile (with --big-alloc)\n"
	"\n"
	"options:\n";

static const struct cli_opt report_options[] = {
	{"quiet", 'q', no_argument, 'q', NULL, "no progress on the terminal"},
	{"help", 'h', no_argument, 'h', NULL, "this text"},
	CLI_END,
};

static const char aggregate_usage[] =
	"usage: oomscope aggregate [--db FILE] [--json] [DIR...]\n"
	"\n"
	"Adds the heap dump analyses of each run directory to a table keyed by leak\n"
	"signature (the same bug in many runs is one row): how many runs saw it, when\n"
	"first and last, its largest retained size, an example path. With --db the\n"
	"table lives in an SQLite file, so a lab can add runs over weeks (a run added\n"
	"again replaces its rows); without DIRs it prints what the database holds.\n"
	"\n"
	"options:\n";

static const char aggregate_example[] =
	"\n"
	"example:\n"
	"  oomscope aggregate --db lab.sqlite runs/*/\n";

static const struct cli_opt aggregate_options[] = {
	{"db", 0, required_argument, 'd', "FILE", "the SQLite database (created if missing); default: memory only"},
	{"json", 0, no_argument, 'j', NULL, "the table as JSON (schema oomscope-aggregate/1)"},
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

int cmd_report(int argc, char **argv)
{
	struct option longopts[sizeof(report_options) / sizeof(report_options[0])];
	struct progress p = {isatty(2), mono_s()};
	char err[512], shortopts[8];
	int c;

	optind = 1;
	if (cli_opts_getopt(report_options, longopts, sizeof(longopts) / sizeof(longopts[0]), "", shortopts,
			    sizeof(shortopts)))
		return 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'q') {
			p.on = 0;
		} else if (c == 'h') {
			fputs(report_usage, stdout);
			cli_opts_help(report_options, stdout);
			return 0;
		} else {
			return cli_opts_error("report", c, argv);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("report", "%s", "give one run directory");
	if (ooms_report_write(argv[optind], show, &p, err, sizeof(err))) {
		if (p.on)
			fprintf(stderr, "\r%50s\r", "");
		fprintf(stderr, "oomscope report: %s\n", err);
		return 1;
	}
	if (p.on)
		fprintf(stderr, "\r%50s\r", "");
	printf("%s/report.html\n", argv[optind]);
	return 0;
}

int cmd_aggregate(int argc, char **argv)
{
	struct option longopts[sizeof(aggregate_options) / sizeof(aggregate_options[0])];
	const char *db = NULL;
	char err[512], shortopts[8];
	size_t added;
	int c, json = 0;

	optind = 1;
	if (cli_opts_getopt(aggregate_options, longopts, sizeof(longopts) / sizeof(longopts[0]), "", shortopts,
			    sizeof(shortopts)))
		return 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'd') {
			db = optarg;
		} else if (c == 'j') {
			json = 1;
		} else if (c == 'h') {
			fputs(aggregate_usage, stdout);
			cli_opts_help(aggregate_options, stdout);
			fputs(aggregate_example, stdout);
			return 0;
		} else {
			return cli_opts_error("aggregate", c, argv);
		}
	}
	if (optind == argc && !db)
		return cli_usage_error("aggregate", "%s", "give run directories, or --db FILE to list a database");
	if (ooms_aggregate(db, argv + optind, (size_t)(argc - optind), json, stdout, &added, err, sizeof(err))) {
		fprintf(stderr, "oomscope aggregate: %s\n", err);
		return 1;
	}
	return 0;
}
