/* Subcommands of the oomscope CLI; each returns the process exit code. */
#ifndef OOMSCOPE_COMMANDS_H
#define OOMSCOPE_COMMANDS_H

int cmd_watch_or_run(int argc, char **argv, int is_run);
int cmd_hprof(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_jcmd(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_aggregate(int argc, char **argv);

/* A usage error of command cmd ("analyze", "hprof", ...): one line on
 * stderr, "oomscope CMD: <message> (see `oomscope CMD --help`)". Returns 2,
 * the exit code for bad usage. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
