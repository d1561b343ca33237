/* tracefs: find it, mount it when it is not mounted, check that a
 * tracepoint exists (so a missing one is named, not a cryptic attach error). */
#ifndef OOMSCOPE_TRACEFS_H
#define OOMSCOPE_TRACEFS_H

#include <stddef.h>

/* Finds a mounted tracefs (/sys/kernel/tracing, then /sys/kernel/debug/tracing),
 * mounting it at /sys/kernel/tracing when none is. *mounted_by_us is set when
 * we mounted it. Path in buf. 0 or -errno. Each call is a use of it, to be
 * ended by tracefs_release (also after a failure). */
int tracefs_ensure(char *buf, size_t len, int *mounted_by_us);
/* 1 if events/<group>/<name> exists under the tracefs root, else 0. */
int tracefs_has_event(const char *root, const char *group, const char *name);
/* Ends a use. The last oomscope on the machine to end its use unmounts a
 * tracefs an oomscope mounted (its mount source says so), never one
 * another oomscope still uses (a shared flock held while in use) nor one
 * mounted by someone else. */
void tracefs_release(const char *root, int mounted_by_us);

#endif
