/* oomscope: kernel-assisted OOM investigator. Subcommand dispatch, from one
 * table that also gives `oomscope help` its lines. */
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"

#define OOMSCOPE_VERSION "0.1.0"

static int cmd_watch(int argc, char **argv) { return cmd_watch_or_run(argc, argv, 0); }
static int cmd_run(int argc, char **argv) { return cmd_watch_or_run(argc, argv, 1); }

static const struct {
	const char *name, *synopsis, *what;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{"watch", "watch -p PID [options]", "follow a running process", cmd_watch},
	{"run", "run [options] -- CMD [ARGS]", "start CMD and follow it from its first instruction", cmd_run},
	{"dump", "dump -p PID [options]", "a heap dump of a running JVM/Android app now,\nstripped, compressed and analyzed",
	 cmd_dump},
	{"jcmd", "jcmd -p PID COMMAND", "a diagnostic command in a running JVM (attach protocol)", cmd_jcmd},
	{"hprof", "hprof check|strip|restore", "heap dumps: validate, strip for analysis, restore", cmd_hprof},
	{"analyze", "analyze [options] DUMP", "leaks, paths to GC roots, retained sizes of a heap dump", cmd_analyze},
	{"symbolize", "symbolize REPORT DIR...", "names and source lines for a saved report's frames", cmd_symbolize},
	{"report", "report DIR", "the run's story on the terminal, its page (report.html)\nand exports (trace.json, pprof)",
	 cmd_report},
	{"aggregate", "aggregate [--db F] DIR...",
	 "many runs' findings in one table, by signature\n(SQLite file or PostgreSQL)", cmd_aggregate},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fputs("usage: oomscope COMMAND [options]\n"
	      "\n"
	      "Tells why a process is heading for an out-of-memory crash: threads, file\n"
	      "descriptors, address space and large allocations followed from the kernel\n"
	      "with eBPF, with the code that created them; calls that fail for want of\n"
	      "them, and how the process ended; the Java heap watched, dumped by a fork\n"
	      "when it fills or at its OutOfMemoryError, and analyzed for leaks. Runs as root.\n"
	      "\n"
	      "commands:\n",
	      f);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		fprintf(f, "  %-30s", commands[i].synopsis);
		for (const char *p = commands[i].what; *p; p++) {
			fputc(*p, f);
			if (*p == '\n')
				fprintf(f, "  %-30s", "");
		}
		fputc('\n', f);
	}
	fputs("  help                          this text\n"
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
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
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
