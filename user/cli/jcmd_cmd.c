/* oomscope jcmd: a diagnostic command in a running HotSpot JVM through the
 * attach protocol, as `jcmd` sends it, without a JDK on the machine (a
 * container, a device with only a JRE). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "proc/procfs.h"
#include "runtime/hs_attach.h"
#include "runtime/runtime.h"

static const char usage_text[] =
	"usage: oomscope jcmd -p PID COMMAND [ARGS...]\n"
	"\n"
	"Runs a diagnostic command in a running HotSpot JVM through its attach\n"
	"protocol (the `.attach_pid` file, SIGQUIT, the /tmp/.java_pid socket), the way\n"
	"the JDK's jcmd does, and prints its output. Needs root or the JVM's user.\n"
	"\n"
	"examples:\n"
	"  oomscope jcmd -p 4242 VM.version\n"
	"  oomscope jcmd -p 4242 GC.heap_info\n"
	"  oomscope jcmd -p 4242 GC.class_histogram\n";

int cmd_jcmd(int argc, char **argv)
{
	struct hs_attach_result *r;
	struct ooms_rt_target rt;
	struct ooms_err err = {0};
	char line[1024] = "";
	long pid = 0;
	int i = 1, e;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc > 2 && (!strcmp(argv[1], "-p") || !strcmp(argv[1], "--pid"))) {
		pid = strtol(argv[2], NULL, 10);
		i = 3;
	}
	if (pid <= 0 || i >= argc)
		return cli_usage_error("jcmd", "%s", "give -p PID and a command (e.g. VM.version)");
	for (; i < argc; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", line[0] ? " " : "", argv[i]);
	if (!proc_exists((pid_t)pid)) {
		fprintf(stderr, "oomscope jcmd: no process with PID %ld\n", pid);
		return 1;
	}
	if (ooms_rt_detect((pid_t)pid, OOMS_RT_AUTO, &rt) != 0 || rt.kind != OOMS_RT_HOTSPOT) {
		fprintf(stderr, "oomscope jcmd: PID %ld is not a HotSpot JVM (no libjvm.so mapped)\n", pid);
		return 1;
	}
	r = malloc(sizeof(*r));
	if (!r)
		return 1;
	e = hs_attach_command((pid_t)pid, "jcmd", line, NULL, NULL, 60000, r, &err);
	if (e) {
		fprintf(stderr, "oomscope jcmd: %s\n", err.msg);
		free(r);
		return 1;
	}
	fwrite(r->out, 1, r->out_len, stdout);
	e = r->code;
	free(r);
	return e ? 1 : 0;
}
