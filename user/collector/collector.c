#define _GNU_SOURCE
#include "collector/collector.h"
#include "run/files.h"
#include "collector/coll.h"
#include "util/tmpdir.h"
#include <poll.h>

static int make_dir(const char *path)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static void default_dir(struct coll *c)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(c->dir, sizeof(c->dir), "%soomscope-%d-%s", ooms_default_out_dir(), (int)c->pid, stamp);
}

static int setup(struct coll *c)
{
	struct ooms_snapshot s;
	int e, *keys;

	if (coll_k_check(&c->k))
		return -1;
	if (c->o->fault_sample_bytes) {
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

		c->k.fault_period = c->o->fault_sample_bytes / page ? c->o->fault_sample_bytes / page : 1;
	}
	if (coll_k_load(&c->k))
		return -1;
	c->sym = ooms_sym_new(c->pid);
	if (!c->sym) {
		coll_err("cannot read /proc/%d/maps: %s%s", (int)c->pid, strerror(errno),
			 errno == EACCES ? " (a process outside this container's reach, or protected: run oomscope "
					   "where the target is)" : "");
		return -1;
	}
	c->attrib = ooms_attrib_new(c->pid, c->arch, c->sym);
	if (!c->attrib) {
		coll_err("out of memory");
		return -1;
	}
	if (c->o->java_platform)
		ooms_attrib_java_platform(c->attrib, c->o->java_platform, c->o->java_platform_add);
	c->fails = ooms_failures_new(c->attrib, c->arch);
	if (!c->fails) {
		coll_err("out of memory");
		return -1;
	}
	if (ooms_cgroup_find(c->pid, &c->cg) == 0)
		c->cg_ns = coll_now_ns();
	if ((e = coll_k_ring_open(&c->k, coll_handle_event, c))) {
		coll_explain_bpf_error("opening the ring buffer", e);
		return -1;
	}
	/* reading /proc's lists of 30,000 threads takes 0.3 s: the events keep
	 * being read meanwhile, so a burst does not overflow the ring buffer */
	ooms_snapshot_set_tick(coll_k_tick, &c->k);
	/* Seed after attaching: anything made in between is in the sets already. */
	e = ooms_snapshot_take(c->pid, &s);
	if (e || !coll_target_ours(c)) { /* gone, or its PID another process's since */
		if (!e)
			ooms_snapshot_free(&s);
		coll_err("process %d exited while attaching", (int)c->pid);
		return -1;
	}
	__atomic_fetch_add(&coll_k_totals(&c->k)->fds_live, coll_k_sync_fd_bits(&c->k, &s, 1, NULL), __ATOMIC_SEQ_CST);
	keys = coll_snapshot_keys(&s, 0);
	if (keys)
		__atomic_fetch_add(&coll_k_totals(&c->k)->threads_live,
				   coll_seed_set(c->pid, coll_k_live_threads_fd(&c->k), keys, s.nthreads),
				   __ATOMIC_SEQ_CST);
	free(keys);
	ooms_attrib_mark_preexisting(c->attrib, &s);
	/* the program break so far (the end of [heap]), so the first brk after
	 * attach is measured too; unless a brk since attach set it already */
	for (size_t i = 0; i < s.nmaps; i++)
		if (!strcmp(s.maps[i].path, "[heap]")) {
			uint64_t zero = 0;

			__atomic_compare_exchange_n(&coll_k_totals(&c->k)->brk_cur, &zero, s.maps[i].end, 0, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
		}
	c->prev_vmsize_kb = s.vmsize_kb;
	c->last = s; /* what was there at attach, until the first sample */
	coll_k_attach_libc(&c->k);
	if (c->k.fault_period && (e = coll_k_faults_attach(&c->k)))
		coll_err("memory's growth by code is not followed: the page faults' perf events: %s", strerror(-e));
	if (c->o->big_alloc_bytes && c->k.alloc_mode == ALLOC_UPROBE && coll_k_attach_allocs(&c->k))
		return -1;
	if (c->o->big_alloc_bytes) {
		c->allocs = ooms_allocs_new(c->attrib, c->o->big_alloc_bytes, c->k.alloc_mode,
					    c->o->big_alloc_live, c->o->stack_depth ? c->o->stack_depth : 20);
		if (!c->allocs) {
			coll_err("out of memory");
			return -1;
		}
		if (c->k.memalign_is_aligned_alloc)
			ooms_allocs_alias(c->allocs, AF_ALIGNED_ALLOC, "aligned_alloc/memalign");
	}
	return 0;
}

static int open_run_dir(struct coll *c)
{
	char path[4200];
	int e, fd;

	if (c->o->out_dir)
		snprintf(c->dir, sizeof(c->dir), "%s", c->o->out_dir);
	else
		default_dir(c);
	e = make_dir(c->dir);
	if (e) {
		coll_err("cannot create run directory %s: %s", c->dir, strerror(-e));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/" RUN_TIMELINE, c->dir);
	/* never through a symlink planted in the run directory: oomscope is root */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	c->timeline = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!c->timeline) {
		coll_err("cannot write %s: %s%s", path, strerror(errno),
			 errno == ELOOP ? " (a symbolic link: refused)" : "");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return 0;
}

/* The Java heap watch speaks through these. */
static void jheap_emit(void *ctx, void (*body)(struct json *j, void *arg), void *arg)
{
	coll_emit(ctx, body, arg);
}

static void jheap_thread_name(void *ctx, uint32_t tid, const char *name)
{
	struct coll *c = ctx;

	ooms_attrib_thread_name(c->attrib, tid, name);
}

/* The runtime found: the collector's own probes on it (before its record). */
static void jheap_found(void *ctx)
{
	coll_direct_try(&((struct coll *)ctx)->java);
}

/* A direct-memory crossing: its allocating call sites as they stand. */
static int jheap_pool_snapshot(void *ctx, const char *rule, int64_t limit, char *name, size_t len)
{
	struct coll *c = ctx;

	(void)rule;
	coll_k_read_ring(&c->k); /* the blocks made up to now attributed, with their Java stacks: */
	coll_java_read(&c->java);
	/* asked of the shim, which answers from the JVM's thread: a loaded
	 * machine delays it (CI's with the arm64 VM beside it split the site) */
	coll_java_settle_until(&c->java, coll_now_ns(), 2000);
	return coll_direct_snapshot(&c->java, coll_crossings(c) + 1, coll_since(c), coll_target_ours(c) && !c->died, limit,
				    name, len);
}

static double jheap_now(void *ctx)
{
	struct coll *c = ctx;

	return c->start_ns ? coll_since(c) : 0;
}

static int add_fd(int ep, int fd, uint32_t tag)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = tag};

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

enum { TAG_RB, TAG_TIMER, TAG_SIGNAL, TAG_TARGET, TAG_DUMP, TAG_PSI };

#define RB_POLL_MS 50

/* The event loop; returns why it ended. */
static const char *loop(struct coll *c)
{
	struct itimerspec its = {0};
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int pidfd = c->pidfd; /* readable when the target exits */
	int sfd;
	sigset_t mask;
	const char *why = NULL;
	uint64_t deadline = c->o->duration_s > 0 ? c->start_ns + (uint64_t)(c->o->duration_s * 1e9) : 0;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	its.it_value.tv_sec = (time_t)c->o->interval_s;
	its.it_value.tv_nsec = (long)((c->o->interval_s - (time_t)c->o->interval_s) * 1e9);
	its.it_interval = its.it_value;
	if (ep < 0 || tfd < 0 || sfd < 0 || timerfd_settime(tfd, 0, &its, NULL) != 0 ||
	    add_fd(ep, coll_k_ring_fd(&c->k), TAG_RB) || add_fd(ep, tfd, TAG_TIMER) ||
	    add_fd(ep, sfd, TAG_SIGNAL) || (pidfd >= 0 && add_fd(ep, pidfd, TAG_TARGET)) ||
	    (c->jheap && add_fd(ep, ooms_jheap_fd(c->jheap), TAG_DUMP)) ||
	    (c->mem.psi_fd >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, c->mem.psi_fd,
					     &(struct epoll_event){.events = EPOLLPRI, .data.u32 = TAG_PSI}))) {
		coll_err("event loop setup failed: %s", strerror(errno));
		why = "error";
	}
	while (!why) {
		struct epoll_event evs[8];
		int timeout = RB_POLL_MS, n;

		if (deadline) {
			uint64_t now = coll_now_ns();

			if (now >= deadline) {
				why = "duration";
				break;
			}
			if ((deadline - now) / 1000000 + 1 < (uint64_t)timeout)
				timeout = (int)((deadline - now) / 1000000) + 1;
		}
		n = epoll_wait(ep, evs, 8, timeout);
		if (n < 0 && errno != EINTR) {
			why = "error";
			break;
		}
		if (n == 0)
			coll_consume(c); /* the BPF side wakes us only every few hundred events */
		for (int i = 0; i < n && !why; i++) {
			uint64_t ticks;
			struct signalfd_siginfo si;

			switch (evs[i].data.u32) {
			case TAG_RB:
				coll_consume(c);
				break;
			case TAG_TIMER:
				if (read(tfd, &ticks, sizeof(ticks)) < 0)
					break;
				if (coll_take_sample(c))
					why = "target exited";
				else if (c->o->stop_on_crossing && coll_crossings(c) && !ooms_jheap_busy(c->jheap))
					why = "threshold crossed"; /* once a dump it asked for is written */
				break;
			case TAG_SIGNAL:
				if (read(sfd, &si, sizeof(si)) == sizeof(si))
					why = si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM";
				break;
			case TAG_TARGET:
				why = "target exited";
				break;
			case TAG_PSI: /* tasks stalled on memory: a sample now, its rules checked */
				coll_memory_fired(&c->mem);
				if (coll_take_sample(c))
					why = "target exited";
				break;
			case TAG_DUMP:
				ooms_jheap_done(c->jheap);
				if (c->o->stop_on_crossing && coll_crossings(c))
					why = "threshold crossed";
				break;
			}
		}
	}
	close(sfd);
	close(tfd);
	close(ep);
	return why;
}

/* run's command with the shim as an agent when it starts ART's launcher
 * (dalvikvm, dalvikvm64...: -Xplugin:libopenjdkjvmti.so -agentpath:SHIM
 * after its name), else as it is; NULL when it does not fit in out[n]. */
static char *const *art_argv(char *const *argv, const char *shim, char **out, size_t n)
{
	static char plugin[] = "-Xplugin:libopenjdkjvmti.so", agent[4200];
	const char *base = strrchr(argv[0], '/');
	size_t i = 0;

	base = base ? base + 1 : argv[0];
	if (strncmp(base, "dalvikvm", 8))
		return argv;
	snprintf(agent, sizeof(agent), "-agentpath:%s", shim);
	out[i++] = argv[0];
	out[i++] = plugin;
	out[i++] = agent;
	for (char *const *a = argv + 1; *a; a++) {
		if (i + 1 >= n)
			return NULL;
		out[i++] = *a;
	}
	out[i] = NULL;
	return out;
}

/* Before anything is attached: root, the signals, the shim for `run`, the
 * target (launched and held before its exec, or an existing PID). 0 or 1. */
static int prepare(struct coll *c)
{
	const struct ooms_watch_opts *o = c->o;
	sigset_t mask;
	int e;

	if (geteuid() != 0) {
		coll_err("must run as root (loading BPF programs and reading another process's /proc need it)");
		return 1;
	}
	/* Signals arrive through the signalfd in the loop; the launched child resets its mask. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	char *const *argv = o->argv;

	if (o->argv && o->java.shim) {
		/* the JVM loads the shim as an agent at start (-agentpath) */
		const char *shim = shim_client_library(), *old = getenv("JAVA_TOOL_OPTIONS");
		char opt[8192];

		if (!shim) {
			coll_err("--shim: liboomscope_shim.so not found beside oomscope (make builds it; or set OOMSCOPE_SHIM)");
			return 1;
		}
		snprintf(opt, sizeof(opt), "%s%s-agentpath:%s", old ? old : "", old ? " " : "", shim);
		setenv("JAVA_TOOL_OPTIONS", opt, 1);
		/* ART reads no JAVA_TOOL_OPTIONS: its launcher (dalvikvm) takes the
		 * agent and ART's JVMTI plugin on its command line */
		if (!(argv = art_argv(o->argv, shim, c->art_args, sizeof(c->art_args) / sizeof(c->art_args[0])))) {
			coll_err("--shim: the command line is too long to add the agent to");
			return 1;
		}
	}
	if (o->argv) {
		e = launch_prepare(&c->launch, argv);
		if (e) {
			coll_err("cannot start %s: %s", o->argv[0], strerror(-e));
			return 1;
		}
		c->launched = 1;
		c->pid = c->launch.pid;
	} else {
		c->pid = o->pid;
		if (!proc_exists(c->pid)) {
			coll_err("no process with PID %d", (int)c->pid);
			return 1;
		}
	}
	/* pinned: what is read of /proc/PID from now on is checked to be this
	 * process's, not a newcomer's that was given its PID after it ended */
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	c->start_time = proc_start_time(c->pid);
	if (c->start_time < 0 || (c->pidfd >= 0 && !coll_target_ours(c))) {
		coll_err("no process with PID %d", (int)c->pid);
		return 1;
	}
	c->k.pid = c->pid;
	c->k.launched = c->launched;
	return 0;
}

/* Attached: the Java heap watch, the launched target let go, the start
 * record. 0 or -1 (said). */
static int start(struct coll *c)
{
	struct ooms_jheap_io io = {.ctx = c, .emit = jheap_emit, .say = coll_say, .note = coll_note, .now = jheap_now,
				   .thread_name = jheap_thread_name, .progress = coll_progress,
				   .pool_snapshot = jheap_pool_snapshot, .found = jheap_found};
	int e;

	c->jheap = ooms_jheap_new(c->pid, &c->o->java, c->dir, &io);
	if (!c->jheap) {
		coll_err("out of memory");
		return -1;
	}
	c->tree.o = c->o;
	c->tree.dir = c->dir;
	c->java = (struct java_watch){.o = c->o, .pid = c->pid, .launched = c->launched, .dir = c->dir, .k = &c->k,
				      .attrib = c->attrib, .sym = c->sym, .jheap = c->jheap, .conn = -1};
	if (c->launched && c->o->java.shim) /* it was given -agentpath (prepare) */
		ooms_jheap_shim_preloaded(c->jheap);
	if (ooms_jheap_attach(c->jheap, coll_k_ring(&c->k)))
		return -1;
	coll_direct_try(&c->java);
	if (c->launched && (e = launch_go(&c->launch))) {
		coll_err("cannot run %s: %s", c->o->argv[0], strerror(-e));
		return -1;
	}
	c->is_32bit = proc_exe_is_32bit(c->pid) == 1;
	ooms_detect_init(&c->det, &c->o->detect);
	if ((e = coll_memory_start(&c->mem, c->pid, c->o->detect.res[RES_MEMSTALL].count_limit)) && coll_verbose)
		coll_err("no PSI trigger on memory stalls (%s): the samples' averages serve", strerror(-e));
	c->start_ns = coll_now_ns();
	c->tree.start_ns = c->start_ns;
	coll_seed_limits(c);
	coll_emit_start(c);
	/* watch --app: held stopped since it took its name, it goes on now */
	if (c->o->resume_target)
		kill(c->pid, SIGCONT);
	if (!c->o->json) {
		coll_err("watching PID %d, run directory %s (Ctrl-C to stop)", (int)c->pid, c->dir);
		coll_print_header();
	}
	return 0;
}

/* The kernel side has the target's exit: its event read, or its record in
 * .bss (kept even when the ring buffer had no room for the event). */
static int death_seen(struct coll *c)
{
	return c->died || coll_k_death_seen(&c->k);
}

/* 1 when pid runs as root, 0 when not, -1 when it cannot be told (gone). */
static int runs_as_root(pid_t pid)
{
	char path[64], buf[2048], *uid;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!pid || (n = proc_read_file(path, buf, sizeof(buf) - 1)) <= 0)
		return -1;
	buf[n] = 0;
	if (!(uid = strstr(buf, "\nUid:")))
		return -1;
	return strtol(uid + 5, NULL, 10) == 0;
}

/* A memory killer's or the kernel's OOM kill: what it saw (c->kill). */
static void explain_memory_kill(struct coll *c, struct ooms_death_rec *d)
{
	struct mem_moment hist[MEM_HISTORY];
	size_t nkills;
	double t = coll_since(c);
	struct killer_input in = {
		.death = d, .pid = c->pid, .sender_root = runs_as_root((pid_t)d->sender_pid),
		.last = c->have_smp ? &c->last_smp : NULL, .hist = hist,
		.nhist = coll_memory_history(&c->mem, t - 60, hist), .rank = &c->mem.rank,
		.kills = coll_k_kills(&c->k, &nkills), .start_ns = c->start_ns, .death_t = t,
	};

	in.nkills = nkills;
	c->has_kill = ooms_memory_kill_explain(&in, &c->kill);
}

/* The target is gone: how it ended (death.json, the death record), and the
 * end's groups as it had them, not as /proc shows a process the kernel has
 * torn down. Fills d. */
static void target_ended(struct coll *c, int status, struct ooms_death_rec *d)
{
	struct ooms_cgroup after = c->cg;
	const struct ooms_cgroup *before = &c->cg;
	uint64_t oom_ns = coll_k_oom_ns(&c->k);
	const struct ooms_death *kdeath;
	const struct ooms_sig_rec *sigs;
	const struct ooms_oom_victim *oom;
	struct ooms_snapshot held;
	struct death_line dl = {c, d, &after};

	/* the cgroup's counters as they were before the OOM kill: a sample
	 * taken while the kernel tore the victim down (long, for a large one)
	 * has them counted already */
	if (oom_ns && c->cg_ns + 100000000ull > oom_ns && c->cg_prev_ns)
		before = &c->cg_prev;
	ooms_cgroup_refresh(&after);
	coll_k_end_records(&c->k, &kdeath, &sigs, &oom);
	ooms_death_classify(death_seen(c) ? kdeath : NULL, sigs, OOMS_NSIG, oom, c->pid, before, &after, status, d);
	explain_memory_kill(c, d);
	if (coll_held_snapshot(c, &held) == 0) {
		ooms_snapshot_free(&c->last);
		c->last = held;
		c->last.alive = 0;
	}
	coll_emit(c, coll_death_body, &dl);
	coll_write_death(c, &dl);
}

/* The files every run ends with: failures.json, the groups, the large
 * allocations. */
static void write_end_files(struct coll *c)
{
	char path[4200];
	int e;

	/* gone before its maps could be read again: they are the last reading
	 * with the large mappings made and undone since */
	if (!c->last.alive && c->nmap_changes) {
		c->last.maps_replay_partial = c->map_changes_partial && c->map_changes[0].ts_ns > c->last.maps_ns;
		ooms_snapshot_replay_maps(&c->last, c->map_changes, c->nmap_changes);
	}
	coll_write_failures(c);
	for (enum ooms_snap k = 0; k < SNAP_MAX; k++) {
		char name[64];

		coll_write_file(c, &c->last, k, 0, name, sizeof(name));
	}
	coll_direct_write_end(&c->java, coll_since(c));
	if (!c->allocs)
		return;
	snprintf(path, sizeof(path), "%s/" RUN_ALLOCS, c->dir);
	if ((e = ooms_allocs_write(c->allocs, path, c->start_ns)))
		coll_err("writing %s: %s", path, strerror(-e));
	snprintf(path, sizeof(path), "%s/" RUN_ALLOCS_TEXT, c->dir);
	if ((e = ooms_allocs_write_text(c->allocs, path)))
		coll_err("writing %s: %s", path, strerror(-e));
}

/* The end record, and the end's lines on the terminal. */
static void finish(struct coll *c, const char *why, int status, const struct ooms_death_rec *d)
{
	uint64_t skipped = coll_k_skipped_runs(&c->k);
	/* the end's fds with no creation event: only where the end's lists were read */
	size_t unseen = c->last_full ? ooms_attrib_fds_without_event(c->attrib, &c->last) : 0;

	coll_emit_end(c, why, status, d, skipped, unseen);
	if (!c->o->json)
		coll_print_end(c, why, d, skipped, unseen);
}

static void teardown(struct coll *c)
{
	/* a target held at a code mapping is never left stopped */
	if (coll_k_hold_code_maps(&c->k) && c->pid > 0 && coll_target_ours(c))
		kill(c->pid, SIGCONT);
	coll_java_close(&c->java); /* while the BPF side is there to be told */
	coll_memory_stop(&c->mem);
	ooms_snapshot_set_tick(NULL, NULL);
	if (c->timeline)
		fclose(c->timeline);
	if (c->launched && c->launch.pid > 0)
		launch_stop(&c->launch, 2000);
	coll_direct_detach(&c->java);
	ooms_allocs_free(c->allocs);
	ooms_failures_free(c->fails);
	ooms_jheap_free(c->jheap);
	coll_k_close(&c->k);
	ooms_attrib_free(c->attrib);
	ooms_sym_free(c->sym);
	free(c->map_changes);
	free(c->faults_deferred);
	coll_children_free(&c->tree);
	ooms_snapshot_free(&c->last);
	if (c->pidfd >= 0)
		close(c->pidfd);
}

/* The target looks gone (a sample failed, its pidfd woke us): its last
 * thread may still be on its way out (a JVM's threads leave one by one,
 * slowly under emulation), and the death record is sent by the last one.
 * Wait, up to timeout_ms, for the record or for the pidfd to say the whole
 * group has left (its last thread passed the exit tracepoint before that). */
static void await_death(struct coll *c, int timeout_ms)
{
	uint64_t until = coll_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct pollfd p = {.fd = c->pidfd, .events = POLLIN};

	coll_consume(c);
	while (!death_seen(c) && coll_now_ns() < until) {
		if (c->pidfd < 0 || poll(&p, 1, 20) != 0 || !proc_dying(c->pid))
			break; /* gone whole (its record, if any, is in the ring buffer now), or not leaving at all */
		coll_consume(c);
	}
	coll_consume(c);
}

/* An fd is in /proc's list from the moment the kernel installs it; its
 * creation event is sent when the call returns, a moment later. The end's
 * lists may so hold an fd whose event is on its way (a target making fds
 * as the run ends; a moment longer when its CPU is taken from it): the ring
 * is read until every fd listed, made while watched, has its event, for at
 * most 200 ms (an fd the syscall hook never sees, one passed over a socket,
 * keeps none, and is said as such). */
static void await_creation_events(struct coll *c)
{
	uint64_t until = coll_now_ns() + 200 * 1000000ull;

	coll_consume(c);
	while (c->last_full && ooms_attrib_fds_without_event(c->attrib, &c->last) && coll_now_ns() < until) {
		poll(NULL, 0, 10);
		coll_consume(c);
	}
}

int ooms_collect(const struct ooms_watch_opts *o, char *dir, size_t dir_len)
{
	struct coll c;
	struct ooms_death_rec death;
	const char *why;
	int status = -1, ended, fresh;

	memset(&c, 0, sizeof(c));
	c.pidfd = -1;
	c.java.conn = -1;
	c.mem.psi_fd = -1;
	c.o = o;
	c.arch = ooms_host_arch();
	c.k.o = o;
	c.k.arch = c.arch;
	c.threads_max = proc_threads_max();
	coll_verbose = o->verbose;
	libbpf_set_print(coll_libbpf_log);
	if (prepare(&c))
		return 1;
	coll_progress(&c, "attaching: loading and attaching the BPF programs");
	if (setup(&c) || open_run_dir(&c) || start(&c)) {
		teardown(&c);
		return 1;
	}
	why = loop(&c);
	coll_consume(&c);
	coll_java_settle(&c.java, 2000); /* the Java stacks asked for, before the files are written */
	/* --perf-map: asked for now, before the last sample (the JVM may start
	 * its Attach Listener thread for it: seen like any other); at a
	 * crossing the one loaded is used, never asked (the attach can take a
	 * second, while a storm fills the ring buffer) */
	coll_java_perfmap(&c.java, 1, coll_target_ours(&c) && !c.died);
	ooms_jheap_finish(c.jheap, 600);
	/* a last sample at the end, with /proc's lists read whole, unless one
	 * was just taken, whole, with no event since, or the target is gone */
	c.force_full = 1;
	fresh = c.have_smp && c.last_full && coll_now_ns() - c.last_sample_ns <= 100 * 1000 * 1000ull &&
		ooms_attrib_events(c.attrib) == c.last_smp.events;
	ended = !strcmp(why, "target exited") || !coll_target_ours(&c) ||
		(!fresh && coll_take_sample(&c) != 0);
	if (ended) {
		why = "target exited";
		c.last.alive = 0;
		if (c.launched)
			status = launch_stop(&c.launch, 0);
	}
	if (ended)
		await_death(&c, 10000);
	await_creation_events(&c);
	ended = ended || death_seen(&c);
	if (ended) {
		why = "target exited";
		target_ended(&c, status, &death);
	}
	write_end_files(&c);
	coll_children_finish(&c.tree, ended);
	finish(&c, why, status, ended ? &death : NULL);
	snprintf(dir, dir_len, "%s", c.dir); /* the caller writes the report from it */
	teardown(&c);
	return 0;
}
