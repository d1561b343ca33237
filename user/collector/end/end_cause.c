#define _GNU_SOURCE
#include "collector/end/end_cause.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

const char *ooms_death_cause_name(enum ooms_death_cause c)
{
	static const char *const names[] = {
		[DEATH_UNKNOWN] = "unknown", [DEATH_EXIT] = "exit", [DEATH_SELF_SIGNAL] = "self-signal",
		[DEATH_FAULT] = "fault", [DEATH_OOM_GLOBAL] = "oom-killer", [DEATH_OOM_CGROUP] = "oom-cgroup",
		[DEATH_LMKD] = "lmkd", [DEATH_MEM_KILLER] = "memory-killer", [DEATH_KERNEL] = "kernel-signal",
		[DEATH_OTHER] = "signal",
	};

	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "unknown";
}

const char *ooms_signal_name(int sig)
{
	/* a table rather than sigabbrev_np(): bionic has none */
	static const char *const names[] = {
		[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
		[SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE",
		[SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
		[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM", [SIGSTKFLT] = "SIGSTKFLT",
		[SIGXCPU] = "SIGXCPU", [SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
		[SIGIO] = "SIGIO", [SIGPWR] = "SIGPWR", [SIGSYS] = "SIGSYS",
	};
	static __thread char buf[16];

	if (sig > 0 && (size_t)sig < sizeof(names) / sizeof(names[0]) && names[sig])
		return names[sig];
	snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}

static const char *fault_what(int sig)
{
	return sig == SIGSEGV ? "a bad memory access" : sig == SIGBUS ? "a bus error" : sig == SIGFPE ? "an arithmetic fault"
		: sig == SIGILL ? "an illegal instruction" : "a fault";
}

const char *ooms_memory_killer_name(const char *comm)
{
	/* lmkd kills from its main thread, its reaper threads (lmkd_reaper0...)
	 * and its watchdog (lmkd_watchdog: a kill when lmkd's main loop hangs) */
	if (!strcmp(comm, "lmkd") || !strncmp(comm, "lmkd_reaper", 11) || !strcmp(comm, "lmkd_watchdog"))
		return "lmkd";
	if (!strcmp(comm, "earlyoom"))
		return "earlyoom";
	if (!strcmp(comm, "systemd-oomd"))
		return "systemd-oomd";
	if (!strcmp(comm, "oomd") || !strncmp(comm, "oomd-", 5))
		return "oomd";
	return NULL;
}

static void sender_of(struct ooms_death_rec *r, const struct ooms_sig_rec *s, pid_t pid)
{
	const char *killer;

	r->sender_pid = s->sender_tgid;
	memcpy(r->sender_comm, s->sender_comm, sizeof(r->sender_comm));
	r->sender_comm[sizeof(r->sender_comm) - 1] = 0;
	r->si_code = s->code;
	killer = s->sender_tgid != (uint32_t)pid ? ooms_memory_killer_name(r->sender_comm) : NULL;
	if (killer && !strcmp(killer, "lmkd"))
		r->cause = DEATH_LMKD;
	else if (killer)
		r->cause = DEATH_MEM_KILLER;
	else if (s->code == 0x80 /* SI_KERNEL: the kernel, whichever task it ran in */)
		r->cause = DEATH_KERNEL;
	else if (s->sender_tgid == (uint32_t)pid)
		/* positive codes come from a fault the kernel raised for the thread */
		r->cause = s->code > 0 ? DEATH_FAULT : DEATH_SELF_SIGNAL;
	else
		r->cause = DEATH_OTHER;
}

static void memcg_words(const struct ooms_cgroup *cg, char *buf, size_t len)
{
	if (cg->mem_limit > 0)
		snprintf(buf, len, "memory cgroup %s at its limit of %.1f MB", cg->mem_name[0] ? cg->mem_name : "?",
			 cg->mem_limit / 1048576.0);
	else
		snprintf(buf, len, "memory cgroup %s at its limit", cg->mem_name[0] ? cg->mem_name : "?");
}

void ooms_death_classify(const struct ooms_death *d, const struct ooms_sig_rec *sigs, size_t nsigs,
			 const struct ooms_oom_victim *oom, pid_t pid, const struct ooms_cgroup *cg_before,
			 const struct ooms_cgroup *cg_after, int wait_status, struct ooms_death_rec *r)
{
	char cgw[300];
	int status = d && d->ts_ns ? d->exit_code : wait_status;

	memset(r, 0, sizeof(*r));
	r->status = status;
	r->code = -1;
	r->ts_ns = d ? d->ts_ns : 0;
	if (oom)
		r->oom = *oom;
	if (status < 0) {
		r->cause = DEATH_UNKNOWN;
		snprintf(r->sentence, sizeof(r->sentence), "ended, but how was not seen (it may have exec'd into "
			 "another program or ended before oomscope attached)");
		return;
	}
	if ((status & 0x7f) == 0) {
		const struct ooms_sig_rec *term = nsigs > SIGTERM ? &sigs[SIGTERM] : NULL;

		r->cause = DEATH_EXIT;
		r->code = (status >> 8) & 0xff;
		snprintf(r->sentence, sizeof(r->sentence), "exited with code %d", r->code);
		/* it ended itself, but on a memory killer's SIGTERM (within 10 s of
		 * its end): the killer's death, said as an exit */
		if (term && term->count && r->ts_ns && term->ts_ns <= r->ts_ns && r->ts_ns - term->ts_ns < 10000000000ull &&
		    term->sender_tgid != (uint32_t)pid && ooms_memory_killer_name(term->sender_comm)) {
			sender_of(r, term, pid);
			r->signal = 0;
			snprintf(r->sentence, sizeof(r->sentence), "exited with code %d after SIGTERM from %s (PID %u), a "
				 "userspace memory killer", r->code, ooms_memory_killer_name(r->sender_comm), r->sender_pid);
		}
		return;
	}
	r->signal = status & 0x7f;
	r->core = (status & 0x80) != 0;
	if (r->signal > 0 && (size_t)r->signal < nsigs && sigs[r->signal].count)
		sender_of(r, &sigs[r->signal], pid);
	else
		r->cause = DEATH_KERNEL;
	if (oom && oom->ts_ns && r->signal == SIGKILL) {
		int memcg = cg_before && cg_after && cg_before->mem_dir[0] && cg_after->mem_hits > cg_before->mem_hits;

		r->cause = memcg ? DEATH_OOM_CGROUP : DEATH_OOM_GLOBAL;
		if (memcg)
			memcg_words(cg_after, cgw, sizeof(cgw));
		snprintf(r->sentence, sizeof(r->sentence),
			 "killed by the kernel's OOM killer (%s): anon RSS %.1f MB, file RSS %.1f MB, total VM %.1f MB, "
			 "oom_score_adj %d; the allocation that ran out was made by %s (PID %u)",
			 memcg ? cgw : "the machine was out of memory", oom->anon_rss_kb / 1024.0,
			 oom->file_rss_kb / 1024.0, oom->total_vm_kb / 1024.0, oom->oom_score_adj, oom->killer_comm,
			 oom->killer_tgid);
		return;
	}
	switch (r->cause) {
	case DEATH_SELF_SIGNAL:
		snprintf(r->sentence, sizeof(r->sentence), "killed by %s that it sent itself%s%s",
			 ooms_signal_name(r->signal), r->signal == SIGABRT ? " (abort())" : "",
			 r->core ? ", core dumped" : "");
		break;
	case DEATH_FAULT:
		snprintf(r->sentence, sizeof(r->sentence), "killed by %s after %s in thread %s (si_code %d)%s",
			 ooms_signal_name(r->signal), fault_what(r->signal), r->sender_comm, r->si_code,
			 r->core ? ", core dumped" : "");
		break;
	case DEATH_LMKD:
		snprintf(r->sentence, sizeof(r->sentence), "killed by %s from Android's low memory killer (lmkd, PID %u)",
			 ooms_signal_name(r->signal), r->sender_pid);
		break;
	case DEATH_MEM_KILLER:
		snprintf(r->sentence, sizeof(r->sentence), "killed by %s from %s (PID %u), a userspace memory killer",
			 ooms_signal_name(r->signal), ooms_memory_killer_name(r->sender_comm), r->sender_pid);
		break;
	case DEATH_OTHER:
		snprintf(r->sentence, sizeof(r->sentence), "killed by %s sent by PID %u (%s)", ooms_signal_name(r->signal),
			 r->sender_pid, r->sender_comm);
		break;
	case DEATH_KERNEL:
		snprintf(r->sentence, sizeof(r->sentence), "killed by %s from the kernel%s", ooms_signal_name(r->signal),
			 r->core ? ", core dumped" : "");
		break;
	/* each cause named, no default: a cause added to end_cause.h does not
	 * build until its sentence is written here */
	case DEATH_UNKNOWN:
	case DEATH_EXIT:
	case DEATH_OOM_GLOBAL:
	case DEATH_OOM_CGROUP:
		snprintf(r->sentence, sizeof(r->sentence), "killed by %s (cause %s, which has no sentence here)",
			 ooms_signal_name(r->signal), ooms_death_cause_name(r->cause));
		break;
	}
}
