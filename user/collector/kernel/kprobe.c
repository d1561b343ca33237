/* --syscall-hook kprobe: kretprobes on the handlers of the followed syscalls
 * (__arm64_sys_openat, __x64_sys_close...), for kernels with neither BPF
 * trampolines (fexit) nor syscall events: Android's GKI on arm64 has kprobes
 * and no FTRACE_SYSCALLS. Only the processes that make those calls run a
 * probe, where raw_syscalls runs a program on every syscall of every process.
 *
 * The probes are made in tracefs (kprobe_events: "r4096:oomscope/pPID_NAME
 * FUNC"), not through the perf kprobe PMU: a return probe keeps a fixed
 * number of instances for the calls in flight, two a CPU by default, and a
 * call made while they are all taken (threads blocked in accept, say) has
 * its return missed. tracefs allows 4096; what is still missed is read from
 * kprobe_profile and counted as lost. The events are removed at the end, and
 * those of an oomscope that died without removing them at the next start. */
#define _GNU_SOURCE
#include "collector/kernel/kernel_side.h"
#include "collector/console/console.h"
#include "collect.skel.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "proc/procfs.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/syscall.h>

#define KRP_GROUP "oomscope"
#define KRP_MAXACTIVE 4096

static int kprobe_events_write(const struct coll_kernel *ks, const char *line)
{
	char path[300];
	int fd, e = 0;

	snprintf(path, sizeof(path), "%s/kprobe_events", ks->tracefs);
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0)
		return -errno;
	if (write(fd, line, strlen(line)) < 0)
		e = -errno;
	close(fd);
	return e;
}

/* Events of oomscopes that are gone ("pPID_..." whose PID runs no oomscope). */
static void remove_stale(struct coll_kernel *ks)
{
	char path[300], line[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_events", ks->tracefs);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char event[128], comm[32] = "", cpath[64];
		int pid;

		/* "r4096:oomscope/p123_openat __arm64_sys_openat" */
		if (!(p = strstr(line, ":" KRP_GROUP "/p")) || sscanf(p + strlen(":" KRP_GROUP "/"), "%127s", event) != 1 ||
		    sscanf(event, "p%d_", &pid) != 1)
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/comm", pid);
		if (proc_read_file(cpath, comm, sizeof(comm) - 1) > 0 && !strncmp(comm, "oomscope", 8))
			continue;
		snprintf(line, sizeof(line), "-:" KRP_GROUP "/%s", event);
		kprobe_events_write(ks, line);
	}
	fclose(f);
}

static int event_id(const struct coll_kernel *ks, const char *event)
{
	char path[400], buf[32];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/events/" KRP_GROUP "/%s/id", ks->tracefs, event);
	n = proc_read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -ENOENT;
	buf[n] = 0;
	return atoi(buf);
}

int coll_k_kretprobes_attach(struct coll_kernel *ks, char *failed, size_t failed_len)
{
	const char *name;
	char fn[96], line[256];

	remove_stale(ks);
	for (unsigned i = 0; (name = ooms_syscall_nth(ks->arch, i)) && ks->nsc_links < OOMS_FEXIT_SLOTS; i++) {
		struct perf_event_attr attr = {.type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr), .sample_period = 1,
					       .wakeup_events = 1};
		char *event = ks->kp_events[ks->nsc_links];
		struct bpf_link *l;
		int id, pfd, e;

		ooms_syscall_handler(ks->arch, name, fn, sizeof(fn));
		snprintf(event, sizeof(ks->kp_events[0]), "p%d_%s", (int)getpid(), name);
		snprintf(line, sizeof(line), "r%d:" KRP_GROUP "/%s %s\n", KRP_MAXACTIVE, event, fn);
		if ((e = kprobe_events_write(ks, line))) {
			if (e == -ENOENT || e == -EINVAL)
				continue; /* no such handler in this kernel (memfd_secret, ...) */
			snprintf(failed, failed_len, "the kretprobe on %s (%s/kprobe_events)", fn, ks->tracefs);
			return e;
		}
		ks->kp_made = ks->nsc_links + 1;
		if ((id = event_id(ks, event)) < 0) {
			snprintf(failed, failed_len, "the kretprobe event %s", event);
			return id;
		}
		attr.config = (uint64_t)id;
		pfd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
		if (pfd < 0 || !(l = bpf_program__attach_perf_event(ks->skel->progs.krp_sys_exit, pfd))) {
			e = -errno;
			if (pfd >= 0)
				close(pfd);
			snprintf(failed, failed_len, "the kretprobe on %s", fn);
			return e;
		}
		ks->sc_links[ks->nsc_links++] = l;
	}
	if (!ks->nsc_links)
		return -ENOENT;
	snprintf(ks->syscall_hook, sizeof(ks->syscall_hook), "kretprobes on %d syscall handlers", ks->nsc_links);
	return ks->nsc_links;
}

void coll_k_kretprobes_detach(struct coll_kernel *ks)
{
	char line[128];

	for (int i = 0; i < ks->nsc_links; i++)
		bpf_link__destroy(ks->sc_links[i]);
	ks->nsc_links = 0;
	for (int i = 0; i < ks->kp_made; i++) {
		snprintf(line, sizeof(line), "-:" KRP_GROUP "/%s\n", ks->kp_events[i]);
		kprobe_events_write(ks, line);
	}
	ks->kp_made = 0;
}

uint64_t coll_k_kretprobes_missed(struct coll_kernel *ks)
{
	char path[300], line[512];
	uint64_t missed = 0;
	FILE *f;

	if (!ks->kp_made)
		return 0;
	snprintf(path, sizeof(path), "%s/kprobe_profile", ks->tracefs);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char event[128];
		unsigned long long hits, miss;

		if (sscanf(line, " %127s %llu %llu", event, &hits, &miss) != 3)
			continue;
		for (int i = 0; i < ks->kp_made; i++)
			if (!strcmp(event, ks->kp_events[i]))
				missed += miss;
	}
	fclose(f);
	return missed;
}
