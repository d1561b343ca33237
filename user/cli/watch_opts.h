/* `oomscope watch` and `oomscope run`'s options (watch_opts.c): parsed into
 * the collector's settings and the Android app's choice. */
#ifndef OOMSCOPE_CLI_WATCH_OPTS_H
#define OOMSCOPE_CLI_WATCH_OPTS_H

#include "collector/collector.h"

struct watch_args {
	struct ooms_watch_opts o;   /* child_args: the options a child's collector is given */
	const char *app_pkg;        /* --app, or NULL */
	int app_timeout_s, app_user; /* --app-timeout (0: none), --user (-1: none) */
};

/* argv's options for watch or run (is_run): 0 parsed (optind at the first
 * argument that is not one), -1 --help shown, else the exit code of a
 * usage error (said). */
int watch_args_parse(int argc, char **argv, int is_run, struct watch_args *a);

#endif
