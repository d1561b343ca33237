/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Event ABI between appwait.bpf.c (an app's process appearing under its
 * name) and user space (user/collector/appwait.c).
 */
#ifndef OOMSCOPE_BPF_APPWAIT_H
#define OOMSCOPE_BPF_APPWAIT_H

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
