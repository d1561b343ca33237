/* What the shim has instead of a libc, beyond the standard names it
 * defines itself (user/shim/libc/: system calls, strings, an allocator,
 * snprintf, all hidden): so one build loads into a process on glibc, bionic
 * or musl, with no DT_NEEDED and no undefined symbol. */
#ifndef OOMSCOPE_SHIM_LIBC_H
#define OOMSCOPE_SHIM_LIBC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shim/libc/lock.h"

/* A raw thread running fn(arg) (see thread.c: shim code only). 0 or -errno. */
int shim_thread_start(void (*fn)(void *), void *arg);

/* The value of NAME in the process's initial environment (/proc/self/environ),
 * or NULL. */
const char *shim_getenv(const char *name);

/* Up to len - 1 bytes of a small file, NUL-terminated: bytes read, or -errno. */
ssize_t shim_read_file(const char *path, char *buf, size_t len);

/* fork() as the process's own libc does it (its atfork handlers reset the
 * allocator locks the runtime's code needs in the child), found in the libc
 * mapped in the process; a plain clone when none is found. */
/* fork() (the C library's, else the raw call); the child is named
 * SHIM_CHILD_NAME from its start (the forking thread bears the name for
 * the moment of the fork). */
#define SHIM_CHILD_NAME "oomscope-dump" /* = OOMS_DUMP_CHILD_COMM (user/collector/kernel/collect.h) */
pid_t shim_fork(void);

/* A handler for sig (SA_SIGINFO, SA_RESTART), on the kernel's sigaction:
 * 0 or -errno; -EBUSY when another handler (not the default, not ignored)
 * is there already: the signal is someone else's. */
int shim_signal_handler(int sig, void (*fn)(int, void *, void *));

/* After a fork, in the child: the shim's locks as free (no other thread is left). */
void shim_malloc_after_fork(void);

/* One line where the app's logs go: stderr, and on Android the log daemon
 * (logcat shows it under the tag oomscope-shim), written without liblog. */
void shim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
