/* A command run for its words (Android's `cmd`, `getprop`): found on PATH,
 * its stdout and stderr read together, bounded in time. */
#ifndef OOMSCOPE_UTIL_RUN_CMD_H
#define OOMSCOPE_UTIL_RUN_CMD_H

#include <stddef.h>

/* Runs argv (argv[0] looked up on PATH, stdin /dev/null) and keeps what it
 * writes in out (NUL-ended, cut at len - 1). 0 when it ran to its end, its
 * wait status in *status; -ENOENT when argv[0] is not on PATH; -ETIMEDOUT
 * when it did not end within timeout_ms (it is killed then); -errno
 * otherwise. */
int run_capture(char *const argv[], char *out, size_t len, int timeout_ms, int *status);

#endif
