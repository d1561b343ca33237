/* How the target ended: its wait status as the kernel set it when the last
 * thread exited, the signal that ended it and who sent that, the OOM
 * killer's choice (global, or a memory cgroup's limit). Pure: built from the
 * kernel side's records and the cgroup counters, so it is unit-tested
 * without a dying process. */
#ifndef OOMSCOPE_COLLECTOR_DEATH_H
#define OOMSCOPE_COLLECTOR_DEATH_H

#include <stdint.h>
#include <sys/types.h>
#include "collector/kernel/collect.h"
#include "proc/cgroup.h"

enum ooms_death_cause {
	DEATH_UNKNOWN = 0, /* gone, but the kernel side did not see its end */
	DEATH_EXIT,        /* exited (exit code in code) */
	DEATH_SELF_SIGNAL, /* a signal it sent itself: abort(), raise(), kill(getpid()) */
	DEATH_FAULT,       /* a fault the kernel turned into a signal (SIGSEGV, SIGBUS, ...) */
	DEATH_OOM_GLOBAL,  /* the kernel's OOM killer, the machine out of memory */
	DEATH_OOM_CGROUP,  /* the kernel's OOM killer, its memory cgroup at its limit */
	DEATH_LMKD,        /* Android's low memory killer daemon */
	DEATH_MEM_KILLER,  /* another userspace memory killer: earlyoom, systemd-oomd, oomd by name, or a
			    * root process's SIGKILL or SIGTERM while memory was short (end/killer.c) */
	DEATH_KERNEL,      /* another signal from the kernel */
	DEATH_OTHER,       /* a signal sent by another process */
};

struct ooms_death_rec {
	enum ooms_death_cause cause;
	uint64_t ts_ns;     /* when the last thread exited (0: unknown) */
	int status;         /* wait status, -1 unknown */
	int code;           /* exit code, or -1 */
	int signal;         /* terminating signal, or 0 */
	int core;           /* a core dump was written */
	uint32_t sender_pid;
	char sender_comm[OOMS_COMM_LEN];
	int si_code;
	struct ooms_oom_victim oom; /* ts_ns 0 unless the OOM killer chose it */
	char sentence[768]; /* "killed by SIGABRT that it sent itself (abort())" */
};

/* Classifies. cg_before: the cgroup at attach (or the last sample);
 * cg_after: read again after the end; wait_status: from waitpid for a
 * launched target, else -1. */
void ooms_death_classify(const struct ooms_death *d, const struct ooms_sig_rec *sigs, size_t nsigs,
			 const struct ooms_oom_victim *oom, pid_t pid, const struct ooms_cgroup *cg_before,
			 const struct ooms_cgroup *cg_after, int wait_status, struct ooms_death_rec *out);

const char *ooms_death_cause_name(enum ooms_death_cause c); /* "exit", "oom-cgroup", ... */
/* The userspace memory killers known by their thread's name ("earlyoom",
 * "systemd-oomd", "oomd", lmkd's): its name, or NULL. */
const char *ooms_memory_killer_name(const char *comm);
const char *ooms_signal_name(int sig);                      /* "SIGABRT" */

#endif
