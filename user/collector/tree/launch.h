/* `oomscope run`: start the command stopped before exec, so the collector can
 * attach before its first instruction, then let it go. */
#ifndef OOMSCOPE_LAUNCH_H
#define OOMSCOPE_LAUNCH_H

#include <sys/types.h>

struct launch {
	pid_t pid;
	int go_fd;   /* write end: one byte lets the child exec */
	int err_fd;  /* read end: the child's errno if exec failed (close-on-exec pipe) */
};

/* 1 when the program argv[0] names (found on PATH as execvp finds it) is a
 * 32-bit ELF, 0 when it is not, -errno when it cannot be read. */
int launch_program_is_32bit(const char *argv0);
/* Forks; the child waits for launch_go. 0 or -errno. */
int launch_prepare(struct launch *l, char *const argv[]);
/* Lets the child exec; returns 0, or the child's exec errno (negative). */
int launch_go(struct launch *l);
/* Ends the child if still running: SIGTERM, then SIGKILL after grace_ms; reaps it.
 * Returns the wait status, or -1 if it was already reaped. */
int launch_stop(struct launch *l, int grace_ms);

#endif
