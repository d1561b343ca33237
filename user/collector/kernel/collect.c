/* Loading the BPF programs and attaching them: the syscall hooks (fexit,
 * tracepoints, kprobes) and the other tracepoints; the uprobes in the
 * target's libraries are uprobes.c's. */
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
#include "collector/kernel/tracefs.h"
#include "collector/tree/launch.h"
#include "proc/procfs.h"
#include <sys/mman.h>

#include <bpf/btf.h>
#include "proc/maps.h"
#include "util/clock.h"

int coll_k_check(struct coll_kernel *ks)
{
	static const char *const needed[][2] = {
		{"raw_syscalls", "sys_exit"},
		{"sched", "sched_process_fork"},
		{"sched", "sched_process_exit"},
	};
	int e = tracefs_ensure(ks->tracefs, sizeof(ks->tracefs), &ks->tracefs_mounted);

	if (e) {
		coll_err("tracefs is not mounted and mounting it at /sys/kernel/tracing failed: %s", strerror(-e));
		return -1;
	}
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (i == 0 && (ks->o->syscall_hook == OOMS_HOOK_FEXIT || ks->o->syscall_hook == OOMS_HOOK_SYSCALLS ||
			       ks->o->syscall_hook == OOMS_HOOK_KPROBE))
			continue; /* not used */
		if (!tracefs_has_event(ks->tracefs, needed[i][0], needed[i][1])) {
			coll_err("this kernel has no tracepoint %s:%s (looked in %s/events); it is needed to follow %s",
			    needed[i][0], needed[i][1], ks->tracefs,
			    i == 0 ? "syscalls (CONFIG_HAVE_SYSCALL_TRACEPOINTS)" : "threads");
			return -1;
		}
	}
	coll_kcompat_probe(&ks->compat);
	/* the tests' way to take 5.10's paths on a newer kernel */
	if (getenv("OOMSCOPE_FAULT") && strstr(getenv("OOMSCOPE_FAULT"), "bpf_5_10"))
		ks->compat.task_btf = ks->compat.task_pt_regs = false;
	if (!ks->compat.ringbuf) {
		coll_err("this kernel has no BPF ring buffer (BPF_MAP_TYPE_RINGBUF, Linux 5.8; Android 11's 4.19 and 5.4 "
			 "kernels lack it): oomscope needs it (docs/limits.md)");
		return -1;
	}
	if (!ks->o->btf_path && access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		coll_err("this kernel has no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF); pass --btf FILE "
		    "with the BTF of this exact kernel");
		return -1;
	}
	if (ks->o->btf_path && access(ks->o->btf_path, R_OK) != 0) {
		coll_err("cannot read BTF file %s: %s", ks->o->btf_path, strerror(errno));
		return -1;
	}
	if (ks->o->btf_path) {
		/* raw BTF (what /sys/kernel/btf/vmlinux holds) or an ELF with a .BTF section */
		struct btf *b = btf__parse(ks->o->btf_path, NULL);

		if (!b) {
			char why[128];

			libbpf_strerror(errno, why, sizeof(why)); /* libbpf's own errnos too */
			coll_err("%s is not a kernel's BTF (%s): pass a copy of this kernel's /sys/kernel/btf/vmlinux, or "
			    "a vmlinux with .BTF", ks->o->btf_path, why);
			return -1;
		}
		btf__free(b);
	}
	return 0;
}

void coll_explain_bpf_error(const char *what, int e)
{
	if (e == -EPERM || e == -EACCES)
		coll_err("%s: permission denied (%s). Run as root; on Android user builds SELinux denies bpf() "
		    "and perf_event_open() to shells, use a userdebug/eng build", what, strerror(-e));
	else
		coll_err("%s: %s (rerun with -v for the BPF verifier and libbpf log)", what, strerror(-e));
}

uint32_t coll_ringbuf_bytes(const struct ooms_watch_opts *o)
{
	long page = sysconf(_SC_PAGESIZE);
	/* 16 MiB: about 20,000 events (each carries an open's path) */
	uint32_t size = o->ringbuf_bytes ? (uint32_t)page : 16u << 20;

	/* a power of two and a multiple of the page size (16 KiB pages exist) */
	while (size < (o->ringbuf_bytes ? o->ringbuf_bytes : (uint64_t)page * 64))
		size <<= 1;
	return size;
}

static void autoload(struct coll_kernel *ks, const char *name, bool on)
{
	bpf_program__set_autoload(bpf_object__find_program_by_name(ks->skel->obj, name), on);
}

/* The fexit programs from slot `from` on are not loaded. */
static void fexit_off(struct coll_kernel *ks, unsigned from)
{
	char prog[16];

	for (unsigned k = from; k < OOMS_FEXIT_SLOTS; k++) {
		snprintf(prog, sizeof(prog), "fx_%u", k);
		autoload(ks, prog, false);
	}
}

/* Names each fexit program's function: the handlers of the followed
 * syscalls that this kernel's BTF has; the programs left over, and the
 * raw_syscalls one, are not loaded. The count named, or -1. */
/* Whether this kernel attaches an fexit program to fn at all: a two-
 * instruction program loaded and linked, in milliseconds, before the 40
 * real ones (seconds of verifier time on a slow machine) are tried. Kernels
 * refuse at load (no trampolines: EPERM, EINVAL) or at attach (arm64 before
 * 6.4: ENOTSUPP). 0 or a negative errno. */
static int fexit_attachable(struct btf *vm, const char *fn)
{
	const struct bpf_insn ret0[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int id = btf__find_by_name_kind(vm, fn, BTF_KIND_FUNC), prog, link, e = 0;
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_TRACE_FEXIT);

	if (id < 0)
		return -ENOENT;
	po.attach_btf_id = (unsigned)id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ooms_fx_probe", "GPL", ret0, 2, &po);
	if (prog < 0)
		return -errno;
	link = bpf_link_create(prog, 0, BPF_TRACE_FEXIT, NULL);
	if (link < 0)
		e = -errno;
	else
		close(link);
	close(prog);
	return e;
}

static int name_fexit(struct coll_kernel *ks)
{
	struct btf *vm = ks->o->btf_path ? btf__parse(ks->o->btf_path, NULL) : btf__load_vmlinux_btf();
	unsigned slot = 0;
	const char *name;
	char fn[96], prog[16];

	if (!vm)
		return -1;
	for (unsigned i = 0; (name = ooms_syscall_nth(ks->arch, i)) && slot < OOMS_FEXIT_SLOTS; i++) {
		struct bpf_program *p;

		ooms_syscall_handler(ks->arch, name, fn, sizeof(fn));
		if (btf__find_by_name_kind(vm, fn, BTF_KIND_FUNC) < 0)
			continue; /* not in this kernel (memfd_secret, ...) */
		if (slot == 0 && (ks->fexit_err = fexit_attachable(vm, fn))) {
			btf__free(vm);
			return -1;
		}
		snprintf(prog, sizeof(prog), "fx_%u", slot++);
		p = bpf_object__find_program_by_name(ks->skel->obj, prog);
		if (!p || bpf_program__set_attach_target(p, 0, fn)) {
			btf__free(vm);
			return -1;
		}
	}
	btf__free(vm);
	fexit_off(ks, slot);
	return (int)slot;
}

/* A number from a /proc/sys file, or def. */
static uint64_t sysctl_num(const char *path, uint64_t def)
{
	char buf[32];
	ssize_t n = proc_read_file(path, buf, sizeof(buf) - 1);

	if (n <= 0)
		return def;
	buf[n] = 0;
	return strtoull(buf, NULL, 10) ? strtoull(buf, NULL, 10) : def;
}

static const char *const hook_names[] = {"auto", "fexit", "syscalls", "kprobe", "raw"};

/* Opens and loads the programs, syscall results from the hook asked for.
 * 0, or a negative errno (said unless quiet). */
static int open_load(struct coll_kernel *ks, int hook, int quiet)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = ks->o->btf_path);
	struct proc_limits lim;
	uint64_t fd_entries = 65536, nr_open = sysctl_num("/proc/sys/fs/nr_open", 1u << 20);
	uint64_t threads = sysctl_num("/proc/sys/kernel/threads-max", 32768);
	int64_t pid_max = sysctl_num("/proc/sys/kernel/pid_max", 32768);
	int e, named = 0;

	/* The fd bitmap holds every fd the target can have: fs.nr_open, past
	 * which no hard RLIMIT_NOFILE goes (a root target may raise its own
	 * after attach), 128 KiB of bitmap for the default 2^20; up to 2^24
	 * fds, what attribution follows */
	if (proc_read_limits(ks->pid, &lim) == 0 && lim.nofile_hard > 0)
		fd_entries = (uint64_t)lim.nofile_hard;
	if (nr_open > fd_entries)
		fd_entries = nr_open;
	fd_entries += 64;
	if (fd_entries < 4096)
		fd_entries = 4096;
	if (fd_entries > (1u << 24))
		fd_entries = 1u << 24;
	/* The thread set (and the names of the threads of a dying process)
	 * holds every thread the target can have: no more than threads-max
	 * and pid_max allow, from 32768 up to 2^20 entries (hash maps are
	 * preallocated: about 64 bytes of kernel memory an entry) */
	if (pid_max > 0 && (uint64_t)pid_max < threads)
		threads = (uint64_t)pid_max;
	threads += 64;
	if (threads < 32768)
		threads = 32768;
	if (threads > (1u << 20))
		threads = 1u << 20;

	ks->skel = collect_bpf__open_opts(&oo);
	if (!ks->skel) {
		e = -errno;
		coll_explain_bpf_error("opening the BPF object", e);
		return e;
	}
	ks->skel->rodata->target_tgid = ks->pid;
	ks->skel->rodata->page_size = sysconf(_SC_PAGESIZE);
	ks->skel->rodata->big_map_bytes = ks->o->big_map_bytes;
	ks->skel->rodata->big_alloc_bytes = ks->o->big_alloc_bytes ? ks->o->big_alloc_bytes : UINT64_MAX;
	ks->skel->rodata->big_alloc_mode = ks->o->big_alloc_bytes ? ks->alloc_mode : ALLOC_OFF;
	ks->skel->rodata->alloc_live = ks->o->big_alloc_live;
	ks->skel->rodata->capture_fails = !ks->o->no_failures;
	ks->skel->rodata->follow_children = ks->o->follow_children && ks->o->max_children > 0;
	/* ours (run's, a process tree's child): held at each code mapping until its maps are read */
	ks->skel->rodata->hold_code_maps = ks->launched || (ks->o->resume_target && !ks->o->app);
	ks->skel->rodata->fault_period = ks->fault_period;
	ks->skel->rodata->alloc_stack_bytes = (ks->o->stack_depth ? ks->o->stack_depth : 20) * 8;
	ooms_syscall_classes(ks->arch, (uint8_t *)ks->skel->rodata->nr_class);
	ks->skel->rodata->have_task_btf = ks->compat.task_btf;
	ks->skel->rodata->have_task_pt_regs = ks->compat.task_pt_regs;
	ks->skel->rodata->collector_tgid = (uint32_t)getpid();
	autoload(ks, "regs_learn", !ks->compat.task_pt_regs);
	autoload(ks, "regs_learn_kp", !ks->compat.task_pt_regs);
	bpf_map__set_max_entries(ks->skel->maps.events, coll_ringbuf_bytes(ks->o));
	ks->fd_words = (fd_entries + 63) / 64;
	bpf_map__set_max_entries(ks->skel->maps.live_fds, ks->fd_words);
	bpf_map__set_max_entries(ks->skel->maps.live_threads, threads);
	bpf_map__set_max_entries(ks->skel->maps.dying_names, threads);
	autoload(ks, "tp_sys_exit", hook == OOMS_HOOK_SYSCALLS);
	autoload(ks, "krp_sys_exit", hook == OOMS_HOOK_KPROBE);
	autoload(ks, "sys_exit", hook == OOMS_HOOK_RAW);
	if (hook == OOMS_HOOK_FEXIT) {
		ks->fexit_err = 0;
		named = name_fexit(ks);
		if (named <= 0) {
			e = ks->fexit_err ? ks->fexit_err : -ENOENT;
			collect_bpf__destroy(ks->skel);
			ks->skel = NULL;
			if (quiet)
				return e;
			if (e == -524 /* ENOTSUPP */)
				coll_err("--syscall-hook fexit: this kernel refuses fexit programs (it loads them but cannot "
					 "attach them: BPF trampolines without ftrace direct calls, as on arm64 before 6.4); "
					 "use --syscall-hook syscalls or auto");
			else if (ks->fexit_err)
				coll_err("--syscall-hook fexit: this kernel refuses fexit programs (%s: no BPF trampolines "
					 "here, or they are forbidden; bpftool feature probe says whether 'tracing' is "
					 "available); use --syscall-hook syscalls or auto", strerror(-e));
			else
				coll_err("--syscall-hook fexit: this kernel's BTF names none of the syscall handlers "
					 "(%s...)", ks->arch == ARCH_X86_64 ? "__x64_sys_openat" : "__arm64_sys_openat");
			return e;
		}
	} else {
		fexit_off(ks, 0);
	}
	e = collect_bpf__load(ks->skel);
	if (e) {
		if (!quiet && hook == OOMS_HOOK_FEXIT && e == -EPERM && geteuid() == 0) {
			/* root, and the rest of the object loads: the kernel has no
			 * BPF trampolines for tracing programs (or forbids them) */
			coll_err("--syscall-hook fexit: this kernel refuses fexit programs (no BPF trampolines here: "
				 "bpftool feature probe says 'tracing is NOT available'); use --syscall-hook syscalls or auto");
		} else if (!quiet) {
			char what[96];

			snprintf(what, sizeof(what), "loading the BPF programs (--syscall-hook %s)", hook_names[hook]);
			coll_explain_bpf_error(what, e);
		}
		collect_bpf__destroy(ks->skel);
		ks->skel = NULL;
		return e;
	}
	ks->hook = hook;
	if (hook == OOMS_HOOK_FEXIT)
		snprintf(ks->syscall_hook, sizeof(ks->syscall_hook), "fexit on %d syscall handlers", named);
	else if (hook == OOMS_HOOK_RAW)
		snprintf(ks->syscall_hook, sizeof(ks->syscall_hook), "raw_syscalls:sys_exit");
	return 0;
}

/* syscalls:sys_exit_<name> for each followed syscall this kernel has an
 * event for. The count attached, or a negative errno: an event that exists
 * and still refuses its program after a few tries fails the whole hook (a
 * missing openat would silently leave every fd without its stack; its name
 * goes to failed). */
static int attach_syscall_events(struct coll_kernel *ks, char *failed, size_t failed_len)
{
	const char *name;
	char event[96], path[512];

	for (unsigned i = 0; (name = ooms_syscall_nth(ks->arch, i)) && ks->nsc_links < OOMS_FEXIT_SLOTS; i++) {
		struct bpf_link *l = NULL;
		int e = 0;

		snprintf(event, sizeof(event), "sys_exit_%s", name);
		snprintf(path, sizeof(path), "%s/events/syscalls/%s", ks->tracefs, event);
		if (access(path, F_OK))
			continue; /* no such syscall here */
		for (int try = 0; try < 3 && !l; try++) {
			if (try)
				usleep(20000);
			l = bpf_program__attach_tracepoint(ks->skel->progs.tp_sys_exit, "syscalls", event);
			if (!l) {
				e = -errno;
				if (ks->o->verbose)
					coll_err("attaching syscalls:%s failed (%s)%s", event, strerror(-e),
						 try < 2 ? ", trying again" : "");
			}
		}
		if (!l) {
			snprintf(failed, failed_len, "syscalls:%s", event);
			return e;
		}
		ks->sc_links[ks->nsc_links++] = l;
	}
	if (!ks->nsc_links)
		return -ENOENT;
	snprintf(ks->syscall_hook, sizeof(ks->syscall_hook), "syscalls:sys_exit_* (%d events)", ks->nsc_links);
	return ks->nsc_links;
}

/* Everything undone that load_attach did (a hook that loads may still fail to
 * attach: arm64 6.1 has BPF trampolines but no ftrace direct calls, so
 * fexit loads and its attach says ENOTSUPP). */
static void unload(struct coll_kernel *ks)
{
	coll_k_kretprobes_detach(ks); /* the syscall events' links too */
	if (ks->fd_bits)
		munmap(ks->fd_bits, ks->fd_words * 8);
	ks->fd_bits = NULL;
	collect_bpf__destroy(ks->skel);
	ks->skel = NULL;
}

/* No bpf_task_pt_regs (before 5.15): where a task's saved user registers
 * sit past its kernel stack's base is learned from this process's own
 * getppid calls, by two programs at once: regs_learn on raw_syscalls:sys_exit
 * (attached with the rest) and regs_learn_kp, a kprobe on the
 * architecture's getppid handler (its argument is the user registers). On
 * 5.10 in the VM, under load, the tracepoint alone was in about one attach
 * of 40 never run on the collector's returns for seconds (its cause not
 * found: the kprobe's record of the thread's flags, learn_kp_tif, says
 * whether TIF_SYSCALL_TRACEPOINT was set); the kprobe does not go through
 * it. Unlearned after a second: -EAGAIN, and the caller takes the raw hook,
 * which the tracepoint hands the registers; said. */
#define LEARN_MS 1000

static int learn_regs(struct coll_kernel *ks)
{
	char sym[64];
	struct bpf_link *kp;
	double t0 = mono_ms();
	const char *by;

	snprintf(sym, sizeof(sym), "%s", ks->arch == ARCH_X86_64 ? "__x64_sys_getppid" : "__arm64_sys_getppid");
	kp = bpf_program__attach_kprobe(ks->skel->progs.regs_learn_kp, false, sym);
	while (!ks->skel->bss->regs_off && mono_ms() - t0 < LEARN_MS) {
		for (int i = 0; i < 20 && !ks->skel->bss->regs_off; i++)
			(void)getppid();
		if (!ks->skel->bss->regs_off)
			usleep(1000);
	}
	bpf_link__destroy(kp);
	ks->regs_off = ks->skel->bss->regs_off;
	bpf_link__destroy(ks->skel->links.regs_learn);
	ks->skel->links.regs_learn = NULL;
	by = ks->skel->bss->learned_by == 1 ? "the sys_exit tracepoint" : "a kprobe on getppid";
	snprintf(ks->fallbacks, sizeof(ks->fallbacks), "%sbpf_task_pt_regs (5.15): %s%s%s",
		 ks->compat.task_btf ? "" : "bpf_get_current_task_btf (5.11): bpf_get_current_task; ",
		 ks->regs_off ? "the user registers found at the kernel stack's base + a learned offset (by "
			      : "none: the registers' place not learned within 1 s",
		 ks->regs_off ? by : "", ks->regs_off ? ")" : "");
	if (ks->o->verbose)
		coll_err("this kernel has no bpf_task_pt_regs: a task's user registers are at its kernel stack + %llu, "
			 "learned by %s (sys_exit tracepoint runs %u, getppid kprobe runs %u%s, its thread flags 0x%llx)",
			 (unsigned long long)ks->regs_off, ks->regs_off ? by : "neither", ks->skel->bss->learn_tp_runs,
			 ks->skel->bss->learn_kp_runs, kp ? "" : ": not attached", (unsigned long long)ks->skel->bss->learn_kp_tif);
	if (!ks->regs_off && ks->hook != OOMS_HOOK_RAW && ks->hook != OOMS_HOOK_FEXIT) {
		coll_err("this kernel has no bpf_task_pt_regs (5.15) and where a task's registers sit was not learned "
			 "within 1 s (%s: sys_exit tracepoint runs %u, getppid kprobe runs %u): --syscall-hook %s needs "
			 "it; taking raw, which the tracepoint hands the registers",
			 sym, ks->skel->bss->learn_tp_runs, ks->skel->bss->learn_kp_runs, hook_names[ks->hook]);
		return -EAGAIN;
	}
	if (!ks->regs_off)
		coll_err("this kernel has no bpf_task_pt_regs (5.15) and where a task's registers sit was not learned "
			 "within 1 s: threads made without pthread_create have no stack");
	return 0;
}

/* Loads with one hook and attaches. 0, or a negative errno (said unless
 * quiet), with nothing left loaded. */
static int load_attach(struct coll_kernel *ks, int hook, int quiet)
{
	char failed[128] = "";
	void *bits;
	int e = open_load(ks, hook, quiet);

	if (e)
		return e;
	bits = mmap(NULL, ks->fd_words * 8, PROT_READ | PROT_WRITE, MAP_SHARED,
		    bpf_map__fd(ks->skel->maps.live_fds), 0);
	if (bits == MAP_FAILED) {
		e = -errno;
		coll_explain_bpf_error("mapping the fd bitmap", e);
		unload(ks);
		return e;
	}
	ks->fd_bits = bits;
	e = collect_bpf__attach(ks->skel);
	if (!e && !ks->compat.task_pt_regs && (e = learn_regs(ks)) == -EAGAIN) {
		unload(ks);
		return e;
	}
	if (!e && ks->hook == OOMS_HOOK_SYSCALLS && (e = attach_syscall_events(ks, failed, sizeof(failed))) > 0)
		e = 0;
	if (!e && ks->hook == OOMS_HOOK_KPROBE && (e = coll_k_kretprobes_attach(ks, failed, sizeof(failed))) > 0)
		e = 0;
	if (e) {
		if (!quiet && ks->hook == OOMS_HOOK_FEXIT && e == -524 /* ENOTSUPP */) {
			coll_err("--syscall-hook fexit: this kernel refuses fexit programs (it loads them but cannot "
				 "attach them: BPF trampolines without ftrace direct calls, as on arm64 before 6.4); "
				 "use --syscall-hook syscalls or auto");
		} else if (!quiet) {
			char what[96];

			if (failed[0])
				snprintf(what, sizeof(what), "attaching %.80s", failed);
			else
				snprintf(what, sizeof(what), "attaching the programs (syscall results from %s)",
					 hook_names[ks->hook]);
			coll_explain_bpf_error(what, e);
		}
		unload(ks);
		return e;
	}
	return 0;
}

int coll_k_load(struct coll_kernel *ks)
{
	/* fexit needs BPF trampolines and ftrace direct calls (x86_64; arm64
	 * from 6.4) open to root; it and the syscall events see native calls
	 * only: a 32-bit target on arm64 takes raw_syscalls */
	int asked = ks->o->syscall_hook, e = -ENOENT;

	/* The arm64 kernel never fires a uprobe in an AArch32 task (a probe
	 * attaches and stays silent): what needs one says so once and the
	 * syscall side stands in, rather than nothing being reported. */
	ks->alloc_mode = ks->o->big_alloc_mode;
	ks->aarch32 = ks->arch == ARCH_ARM64 &&
		     (ks->launched ? launch_program_is_32bit(ks->o->argv[0]) : proc_exe_is_32bit(ks->pid)) == 1;
	if (ks->aarch32) {
		int big_uprobe = ks->o->big_alloc_bytes && ks->o->big_alloc_mode == ALLOC_UPROBE;

		if (big_uprobe)
			ks->alloc_mode = ALLOC_SYSCALL;
		if (big_uprobe || !ks->o->no_pthread_probe)
			coll_err("PID %d is a 32-bit ARM process: uprobes do not fire in 32-bit processes on an arm64 kernel, so %s",
			    (int)ks->pid, big_uprobe ? "--big-alloc-mode uprobe falls back to the syscall side (mmap, brk) and thread start routines are not shown"
						    : "thread start routines are not shown");
	}

	if (asked != OOMS_HOOK_AUTO) {
		e = load_attach(ks, asked, 0);
		if (e == -EAGAIN) /* the registers' place unlearned: said; the hook that needs none */
			e = load_attach(ks, OOMS_HOOK_RAW, 0);
	} else {
		for (int h = ks->aarch32 ? OOMS_HOOK_RAW : OOMS_HOOK_FEXIT; h <= OOMS_HOOK_RAW && e; h++)
			e = load_attach(ks, h, h != OOMS_HOOK_RAW);
	}
	return e ? -1 : 0;
}

/* Runs of the loaded programs that the kernel skipped: a tracepoint, uprobe
 * or kprobe program does not run on a CPU where another BPF program of those
 * kinds is running (or a bpf() call from user space is updating a map); the
 * kernel counts each (recursion_misses, 5.12+). Each may be an event never
 * sent, the target's or another process's (the check comes first). */
uint64_t coll_k_skipped_runs(struct coll_kernel *ks)
{
	struct bpf_program *prog;
	uint64_t n = 0;

	if (!ks->skel)
		return 0;
	bpf_object__for_each_program(prog, ks->skel->obj) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
			n += info.recursion_misses;
	}
	return n;
}
