/* oomscope: kernel-assisted OOM investigator. Subcommand dispatch. */
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"

#define OOMSCOPE_VERSION "0.1.0"

static void usage(FILE *f)
{
	fputs("usage: oomscope COMMAND [options]\n"
	      "\n"
	      "Tells why a process is heading for an out-of-memory crash: threads, file\n"
	      "descriptors, address space and large allocations followed from the kernel\n"
	      "with eBPF, with the code that created them; the Java heap watched, dumped\n"
	      "by a fork when it fills, and analyzed for leaks. Runs as root.\n"
	      "\n"
	      "commands:\n"
	      "  watch -p PID [options]        follow a running process\n"
	      "  run [options] -- CMD [ARGS]   start CMD and follow it from its first instruction\n"
	      "  dump -p PID [options]         a heap dump of a running JVM/Android app now,\n"
	      "                                stripped, compressed and analyzed\n"
	      "  jcmd -p PID COMMAND           a diagnostic command in a running JVM (attach protocol)\n"
	      "  hprof check|strip|restore     heap dumps: validate, strip for analysis, restore\n"
	      "  analyze [options] DUMP        leaks, paths to GC roots, retained sizes of a heap dump\n"
	      "  symbolize REPORT DIR...       names and source lines for a saved report's frames\n"
	      "  report DIR                    the run's page (report.html) and exports (trace.json, pprof)\n"
	      "  aggregate [--db F] DIR...     many runs' leaks in one table, by signature (SQLite)\n"
	      "  help                          this text\n"
	      "  version                       print the version\n"
	      "\n"
	      "'oomscope COMMAND --help' explains each command's options.\n",
	      f);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "watch"))
		return cmd_watch_or_run(argc - 1, argv + 1, 0);
	if (!strcmp(cmd, "run"))
		return cmd_watch_or_run(argc - 1, argv + 1, 1);
	if (!strcmp(cmd, "symbolize"))
		return cmd_symbolize(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "aggregate"))
		return cmd_aggregate(argc - 1, argv + 1);
	if (!strcmp(cmd, "jcmd"))
		return cmd_jcmd(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(cmd, "analyze"))
		return cmd_analyze(argc - 1, argv + 1);
	if (!strcmp(cmd, "hprof"))
		return cmd_hprof(argc - 1, argv + 1);
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("oomscope %s\n", OOMSCOPE_VERSION);
		return 0;
	}
	fprintf(stderr, "oomscope: unknown command '%s' (see 'oomscope help')\n", cmd);
	return 2;
}
