/* `oomscope watch` and `oomscope run`: the target found (a PID, an app by
 * its package, a command started), watched until it ends, the report
 * written. The options are watch_opts.c's. */
#define _GNU_SOURCE
#include "cli/commands.h"
#include "cli/watch_opts.h"

#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "collector/tree/app_find.h"
#include "report/report.h"

static const char *cmd_name = "watch"; /* or "run": the usage errors name it */
#define bad(fmt, arg) cli_usage_error(cmd_name, fmt, arg)
static const char *app_waiting_pkg;

static void app_waiting(const char *what)
{
	fprintf(stderr, "oomscope: %s: %s (Ctrl-C to give up)\n", app_waiting_pkg, what);
}

/* The page and the exports of the run (report.html, trace.json, allocs.pb.gz). */
static void write_report(const struct ooms_watch_opts *o, const char *dir)
{
	struct ooms_err err = {0};

	if (!o->quiet && !o->json && isatty(2))
		fprintf(stderr, "oomscope: writing the report ...\n");
	if (ooms_report_write(dir, NULL, NULL, &err))
		fprintf(stderr, "oomscope: report: %s\n", err.msg);
	else if (!o->json)
		fprintf(stderr, "oomscope: report: %s/report.html\n", dir);
	if (!o->json)
		fprintf(stderr, "oomscope: run directory: %s\n", dir);
}


int cmd_watch_or_run(int argc, char **argv, int is_run)
{
	static struct watch_args a; /* what it holds outlives the parse */
	const char *app_pkg;
	char dir[4096];
	int r;

	cmd_name = is_run ? "run" : "watch";
	if ((r = watch_args_parse(argc, argv, is_run, &a)))
		return r < 0 ? 0 : r;
	app_pkg = app_waiting_pkg = a.app_pkg;
	if (is_run) {
		if (a.o.pid)
			return bad("%s", "run launches its own target; use watch -p PID for a running one");
		if (optind >= argc)
			return bad("%s", "run needs a command: oomscope run [options] -- CMD [ARGS]");
		a.o.argv = argv + optind;
	} else {
		if (optind < argc)
			return bad("unexpected argument '%s'", argv[optind]);
		if (a.o.pid && app_pkg)
			return bad("%s", "-p and --app name the target twice: one of them");
		if (!a.o.pid && !app_pkg)
			return bad("%s", "watch needs -p PID or --app PACKAGE");
	}
	if (a.app_user >= 0 && !app_pkg)
		return bad("%s", "--user chooses among the processes of --app PACKAGE: give --app too");
	if (app_pkg && !is_run) {
		struct ooms_err err = {0};
		int e = ooms_app_find(app_pkg, a.app_user, a.app_timeout_s, &a.o.pid, &a.o.resume_target, app_waiting, &err);

		if (e) {
			fprintf(stderr, "oomscope %s: %s\n", cmd_name, err.msg);
			return 1;
		}
		a.o.app = app_pkg;
		if (!a.o.json)
			fprintf(stderr, "oomscope: %s is PID %d%s\n", app_pkg, (int)a.o.pid,
				a.o.resume_target ? " (held from its start until attached)" : "");
	}
	dir[0] = 0;
	r = ooms_collect(&a.o, dir, sizeof(dir));
	if (a.o.resume_target) /* attached or not, it must not stay stopped */
		kill(a.o.pid, SIGCONT);
	if (dir[0])
		write_report(&a.o, dir);
	return r;
}
