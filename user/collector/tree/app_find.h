/* watch --app PKG: the process of an Android app (or any program) by its
 * name: the one running, or the next to take that name, stopped by the
 * kernel side at the moment it takes it (user/collector/tree/app_find.bpf.c), before it runs
 * any of its own code, so the watch misses nothing of its start. */
#ifndef OOMSCOPE_COLLECTOR_APP_FIND_H
#define OOMSCOPE_COLLECTOR_APP_FIND_H

#include <stddef.h>
#include <sys/types.h>
#include "util/err.h"

/* The process for PKG: one whose command line is PKG (its first word) or
 * whose name is PKG's first or last 15 characters, now; else the next that
 * takes such a name, waited for up to timeout_s (0: for ever), then held
 * stopped (*stopped 1: the caller sends SIGCONT once attached). PKG may name
 * one of an app's processes, "com.foo:remote" (its process name). user >= 0:
 * only that Android user's (uid / 100000); -1: any, but when several users
 * run it now, -EEXIST with them listed in err. progress (may be NULL) is
 * told once that it waits. 0, or -errno with err set (-ETIMEDOUT: none
 * came). */
int ooms_app_find(const char *pkg, int user, int timeout_s, pid_t *pid, int *stopped,
		  void (*progress)(const char *what), struct ooms_err *err);

#endif
