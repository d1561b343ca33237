/* The HotSpot dynamic attach protocol (Linux), in C, as `jcmd` speaks it:
 * a `.attach_pid<PID>` file in the JVM's working directory (or /tmp) and a
 * SIGQUIT make the JVM open the UNIX socket /tmp/.java_pid<PID>; a request is
 * "1\0<command>\0<arg0>\0<arg1>\0<arg2>\0"; the answer is a result code line
 * and the command's output. Paths are taken through /proc/PID/root and the
 * PID as the JVM sees it (its pid namespace), so containers work.
 *
 * Commands used here: `load` (an agent: path, "true" for an absolute path,
 * options) and `jcmd` (one string: a diagnostic command line such as
 * "GC.heap_dump -overwrite /tmp/x.hprof"). */
#ifndef OOMSCOPE_HS_ATTACH_H
#define OOMSCOPE_HS_ATTACH_H

#include <stddef.h>
#include <sys/types.h>
#include "util/err.h"

struct hs_attach_result {
	int code;            /* the JVM's result code line (0: ok) */
	char out[8192];      /* the output that followed it (cut to fit) */
	size_t out_len;
};

/* Sends one command with up to three arguments (NULL = empty) and reads the
 * whole answer. timeout_ms bounds the attach and the answer. 0 or -errno;
 * on failure err (if given) holds one line saying what to do. */
int hs_attach_command(pid_t pid, const char *cmd, const char *arg0, const char *arg1, const char *arg2,
		      int timeout_ms, struct hs_attach_result *res, struct ooms_err *err);

/* The JVM's answer (len bytes of reply, read up to a NUL) into res: the
 * result code line, then the output after it (cut to fit). 0, or -EPROTO
 * when the answer does not start with a result code (res->code -1). */
int hs_attach_parse_reply(const char *reply, size_t len, struct hs_attach_result *res);

/* The pid of process pid in its own pid namespace (NSpid's last field). */
pid_t hs_ns_pid(pid_t pid);

#endif
