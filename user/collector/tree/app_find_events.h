/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Event ABI between app_find.bpf.c (an app's process appearing under its
 * name) and the user code that loads it (app_find.c).
 */
#ifndef OOMSCOPE_COLLECTOR_TREE_APP_FIND_EVENTS_H
#define OOMSCOPE_COLLECTOR_TREE_APP_FIND_EVENTS_H

#ifndef __VMLINUX_H__
#include <stdint.h>
#endif

#define OOMS_APPWAIT_COMM 16

struct ooms_appwait_event {
	uint32_t pid;      /* the process (thread group) that took the name */
	uint32_t tid;      /* the thread that renamed itself */
	uint32_t stopped;  /* 1: SIGSTOP was sent to it from the rename */
	char comm[OOMS_APPWAIT_COMM];
};

#endif
