#define _GNU_SOURCE
#include "collector/collector.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "collect.skel.h"
#include "collector/attrib.h"
#include "collector/cgroup.h"
#include "collector/death.h"
#include "collector/failures.h"
#include "collector/held.h"
#include "collector/launch.h"
#include "collector/procfs.h"
#include "collector/syscall_table.h"
#include "collector/tracefs.h"
#include "collector/allocs.h"
#include "collector/jheap.h"
#include "report/report.h"
#include "runtime/shim_client.h"
#include "sym/symbolize.h"
#include "util/atomic_file.h"
#include "util/json.h"

struct coll {
	const struct ooms_watch_opts *o;
	pid_t pid;
	struct launch launch;
	int launched;
	struct collect_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *libc_link;
	char libc_path[512];
	struct ooms_symbolizer *sym;
	struct ooms_attrib *attrib;
	struct ooms_allocs *allocs;
	struct ooms_jheap *jheap;
	struct bpf_link *alloc_links[24];
	int memalign_is_aligned_alloc;
	int nalloc_links;
	struct ooms_detector det;
	enum ooms_arch arch;
	char dir[4096];
	FILE *timeline;
	char tracefs[256];
	int tracefs_mounted;
	struct ooms_snapshot last; /* the latest snapshot of a live target */
	uint64_t start_ns;
	int64_t threads_max;
	int64_t prev_vmsize_kb;
	int64_t prev_vm_delta;
	int drift_fds, drift_threads; /* consecutive samples with a difference */
	int crossings;
	int is_32bit;
	long samples;
	uint64_t last_sample_ns;
	uint64_t *fd_bits;     /* the BPF fd bitmap, mmap-ed */
	size_t fd_words;
	struct ooms_failures *fails;
	int fail_snapped[FAIL_KIND_MAX]; /* the state at the first failure of each kind was written */
	struct ooms_sample last_smp;    /* the last sample: limits for rules checked on events */
	int have_smp;
	struct ooms_cgroup cg;          /* the target's cgroups at the last sample */
	int died;                       /* the kernel side saw the last thread exit */
	uint64_t sym_refresh_ns;        /* when the symbolizer last read the maps */
	uint64_t sym_refresh_region;    /* and for an address in which page */
	/* found while events are handled, acted on once the batch is read (so
	 * a snapshot's every member has had its creation event attributed) */
	struct ooms_crossing pending_xs[RULE_MAX];
	struct ooms_sample pending_smp;
	size_t npending;
	struct ooms_fail_group pending_fail[FAIL_KIND_MAX]; /* copies: the groups' array may move */
	int has_pending_fail[FAIL_KIND_MAX];
};

/* The snapshots a run writes: threads, fds, vmsize. */
enum snap_kind { SNAP_THREADS, SNAP_FDS, SNAP_VMSIZE };

static const char *const snap_base[] = {"threads", "fds", "vmsize"};

/* Crossings of every rule: the detectors' and the heap rule's. */
static int crossings(struct coll *c)
{
	return c->crossings + (c->jheap ? ooms_jheap_crossings(c->jheap) : 0);
}

static volatile struct ooms_totals *totals(struct coll *c)
{
	return &c->skel->bss->totals;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static double since_start(struct coll *c)
{
	return (now_ns() - c->start_ns) / 1e9;
}

static void err(const char *fmt, ...)
{
	va_list ap;

	fputs("oomscope: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int verbose_level;

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && verbose_level < 2)
		return 0;
	if (!verbose_level)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* One JSON object per line to the timeline, and to stdout with --json. */
static void emit(struct coll *c, void (*body)(struct json *j, void *arg), void *arg)
{
	struct json j;

	if (c->timeline) {
		json_init(&j, c->timeline, 0);
		body(&j, arg);
		json_end_line(&j);
		fflush(c->timeline);
	}
	if (c->o->json) {
		json_init(&j, stdout, 0);
		body(&j, arg);
		json_end_line(&j);
		fflush(stdout);
	}
}

/* ---- setup ---- */

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

static int check_kernel(struct coll *c)
{
	static const char *const needed[][2] = {
		{"raw_syscalls", "sys_exit"},
		{"sched", "sched_process_fork"},
		{"sched", "sched_process_exit"},
	};
	int e = tracefs_ensure(c->tracefs, sizeof(c->tracefs), &c->tracefs_mounted);

	if (e) {
		err("tracefs is not mounted and mounting it at /sys/kernel/tracing failed: %s", strerror(-e));
		return -1;
	}
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (!tracefs_has_event(c->tracefs, needed[i][0], needed[i][1])) {
			err("this kernel has no tracepoint %s:%s (looked in %s/events); it is needed to follow %s",
			    needed[i][0], needed[i][1], c->tracefs,
			    i == 0 ? "syscalls (CONFIG_HAVE_SYSCALL_TRACEPOINTS)" : "threads");
			return -1;
		}
	}
	if (!c->o->btf_path && access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		err("this kernel has no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF); pass --btf FILE "
		    "with the BTF of this exact kernel");
		return -1;
	}
	if (c->o->btf_path && access(c->o->btf_path, R_OK) != 0) {
		err("cannot read BTF file %s: %s", c->o->btf_path, strerror(errno));
		return -1;
	}
	return 0;
}

static void explain_bpf_error(const char *what, int e)
{
	if (e == -EPERM || e == -EACCES)
		err("%s: permission denied (%s). Run as root; on Android user builds SELinux denies bpf() "
		    "and perf_event_open() to shells, use a userdebug/eng build", what, strerror(-e));
	else
		err("%s: %s (rerun with -v for the BPF verifier and libbpf log)", what, strerror(-e));
}

static uint32_t ringbuf_bytes(const struct ooms_watch_opts *o)
{
	long page = sysconf(_SC_PAGESIZE);
	uint32_t size = o->ringbuf_bytes ? (uint32_t)page : 8u << 20;

	/* a power of two and a multiple of the page size (16 KiB pages exist) */
	while (size < (o->ringbuf_bytes ? o->ringbuf_bytes : (uint64_t)page * 64))
		size <<= 1;
	return size;
}

static int load_bpf(struct coll *c)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = c->o->btf_path);
	struct proc_limits lim;
	uint32_t fd_entries = 65536;
	int e;
	void *bits;

	if (proc_read_limits(c->pid, &lim) == 0 && lim.nofile_hard > 0)
		fd_entries = lim.nofile_hard + 64;
	if (fd_entries < 4096)
		fd_entries = 4096;
	if (fd_entries > (1u << 18))
		fd_entries = 1u << 18;

	c->skel = collect_bpf__open_opts(&oo);
	if (!c->skel) {
		explain_bpf_error("opening the BPF object", -errno);
		return -1;
	}
	c->skel->rodata->target_tgid = c->pid;
	c->skel->rodata->page_size = sysconf(_SC_PAGESIZE);
	c->skel->rodata->big_map_bytes = c->o->big_map_bytes;
	c->skel->rodata->big_alloc_bytes = c->o->big_alloc_bytes ? c->o->big_alloc_bytes : UINT64_MAX;
	c->skel->rodata->big_alloc_mode = c->o->big_alloc_bytes ? c->o->big_alloc_mode : ALLOC_OFF;
	c->skel->rodata->alloc_live = c->o->big_alloc_live;
	c->skel->rodata->capture_fails = !c->o->no_failures;
	c->skel->rodata->alloc_stack_bytes = (c->o->stack_depth ? c->o->stack_depth : 20) * 8;
	ooms_syscall_classes(c->arch, (uint8_t *)c->skel->rodata->nr_class);
	bpf_map__set_max_entries(c->skel->maps.events, ringbuf_bytes(c->o));
	c->fd_words = (fd_entries + 63) / 64;
	bpf_map__set_max_entries(c->skel->maps.live_fds, c->fd_words);
	e = collect_bpf__load(c->skel);
	if (e) {
		explain_bpf_error("loading the BPF programs", e);
		return -1;
	}
	bits = mmap(NULL, c->fd_words * 8, PROT_READ | PROT_WRITE, MAP_SHARED,
		    bpf_map__fd(c->skel->maps.live_fds), 0);
	if (bits == MAP_FAILED) {
		explain_bpf_error("mapping the fd bitmap", -errno);
		return -1;
	}
	c->fd_bits = bits;
	e = collect_bpf__attach(c->skel);
	if (e) {
		explain_bpf_error("attaching to the raw_syscalls and sched tracepoints", e);
		return -1;
	}
	return 0;
}

/* The libc mapped by the target, as a path that resolves in its mount namespace. */
static int find_libc(pid_t pid, char *out, size_t len)
{
	struct ooms_snapshot s;
	int found = 0;

	memset(&s, 0, sizeof(s));
	if (ooms_snapshot_take(pid, &s) != 0)
		return 0;
	for (size_t i = 0; i < s.nmaps && !found; i++) {
		const char *base = strrchr(s.maps[i].path, '/');

		if (!base || s.maps[i].perms[2] != 'x')
			continue;
		base++;
		if (!strncmp(base, "libc.so", 7) || !strncmp(base, "libc-2.", 7)) {
			snprintf(out, len, "%s", s.maps[i].path);
			found = 1;
		}
	}
	ooms_snapshot_free(&s);
	return found;
}

/* pthread_create uprobe on the target's libc; again if the target's libc changed (exec). */
static void attach_libc(struct coll *c)
{
	char libc[512], path[600];
	uint64_t off;
	int e;

	if (c->o->no_pthread_probe || !find_libc(c->pid, libc, sizeof(libc)) ||
	    !strcmp(libc, c->libc_path))
		return;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)c->pid, libc);
	bpf_link__destroy(c->libc_link);
	c->libc_link = NULL;
	/* libbpf 1.1 refuses glibc's two versions of pthread_create: resolve it here */
	e = ooms_sym_elf_find(path, "pthread_create", &off);
	if (!e) {
		c->libc_link = bpf_program__attach_uprobe(c->skel->progs.pthread_create_entry, false,
							   c->pid, path, off);
		e = c->libc_link ? 0 : -errno;
	}
	if (e) {
		if (c->o->verbose)
			err("no pthread_create uprobe on %s: %s (thread start routines not shown)", libc,
			    strerror(-e));
		c->libc_path[0] = 0;
		return;
	}
	snprintf(c->libc_path, sizeof(c->libc_path), "%s", libc);
}

/* The first executable mapping whose file name starts with one of prefixes. */
static int find_lib(pid_t pid, const char *const *prefixes, char *out, size_t len)
{
	struct ooms_snapshot s;
	int found = 0;

	memset(&s, 0, sizeof(s));
	if (ooms_snapshot_take(pid, &s) != 0)
		return 0;
	for (size_t i = 0; i < s.nmaps && !found; i++) {
		const char *base = strrchr(s.maps[i].path, '/');

		if (!base || s.maps[i].perms[2] != 'x')
			continue;
		for (const char *const *p = prefixes; *p && !found; p++)
			if (!strncmp(base + 1, *p, strlen(*p))) {
				snprintf(out, len, "%s", s.maps[i].path);
				found = 1;
			}
	}
	ooms_snapshot_free(&s);
	return found;
}

/* An entry (or return) probe on sym. An alias of a symbol probed already
 * (glibc's aligned_alloc is memalign) is skipped: one call, one report, under
 * the first name. */
static int attach_one(struct coll *c, struct bpf_program *prog, const char *path, const char *sym, int ret,
		      int required, uint64_t *seen, int *nseen)
{
	uint64_t off;
	struct bpf_link *l;
	int e = ooms_sym_elf_find(path, sym, &off);

	if (e) {
		if (required)
			err("--big-alloc-mode uprobe: no %s in %s: %s", sym, path, strerror(-e));
		return required ? -1 : 0;
	}
	for (int i = 0; seen && i < *nseen; i++)
		if (seen[i] == off)
			return 0;
	if (seen && *nseen < 16)
		seen[(*nseen)++] = off;
	if (c->nalloc_links == (int)(sizeof(c->alloc_links) / sizeof(c->alloc_links[0])))
		return 0;
	l = bpf_program__attach_uprobe(prog, ret, c->pid, path, off);
	if (!l) {
		e = -errno;
		err("--big-alloc-mode uprobe: attaching to %s in %s: %s%s", sym, path, strerror(-e),
		    e == -EPERM || e == -EACCES ? " (root? SELinux?)" : "");
		return -1;
	}
	c->alloc_links[c->nalloc_links++] = l;
	return 0;
}

/* --big-alloc-mode uprobe: the target's libc allocator entry points (and
 * operator new where it links libstdc++ or libc++); return probes too with
 * --big-alloc-live, and free. */
static int attach_allocs(struct coll *c)
{
	static const char *const libc_names[] = {"libc.so", "libc-2.", NULL};
	static const char *const cxx_names[] = {"libstdc++.so", "libc++.so", NULL};
	struct collect_bpf *k = c->skel;
	const struct { struct bpf_program *prog; const char *sym; int required; } fns[] = {
		{k->progs.malloc_entry, "malloc", 1},       {k->progs.calloc_entry, "calloc", 1},
		{k->progs.realloc_entry, "realloc", 1},     {k->progs.posix_memalign_entry, "posix_memalign", 0},
		{k->progs.aligned_alloc_entry, "aligned_alloc", 0}, {k->progs.memalign_entry, "memalign", 0},
		{k->progs.valloc_entry, "valloc", 0},
	};
	char lib[512], path[600];
	uint64_t seen[16];
	int nseen = 0;

	if (!find_lib(c->pid, libc_names, lib, sizeof(lib))) {
		err("--big-alloc-mode uprobe: the target maps no libc (a static binary?): use --big-alloc-mode syscall");
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)c->pid, lib);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		int before = nseen;

		if (attach_one(c, fns[i].prog, path, fns[i].sym, 0, fns[i].required, seen, &nseen))
			return -1;
		if (nseen == before && fns[i].prog == k->progs.memalign_entry)
			c->memalign_is_aligned_alloc = 1; /* glibc: one function */
		if (nseen > before && c->o->big_alloc_live &&
		    attach_one(c, k->progs.alloc_return, path, fns[i].sym, 1, 0, NULL, NULL))
			return -1;
	}
	if (c->o->big_alloc_live && attach_one(c, k->progs.free_entry, path, "free", 0, 1, NULL, NULL))
		return -1;
	if (find_lib(c->pid, cxx_names, lib, sizeof(lib))) {
		nseen = 0;
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)c->pid, lib);
		if (attach_one(c, k->progs.new_entry, path, "_Znwm", 0, 0, seen, &nseen) ||
		    attach_one(c, k->progs.new_array_entry, path, "_Znam", 0, 0, seen, &nseen))
			return -1;
		if (c->o->big_alloc_live && (attach_one(c, k->progs.alloc_return, path, "_Znwm", 1, 0, NULL, NULL) ||
					     attach_one(c, k->progs.alloc_return, path, "_Znam", 1, 0, NULL, NULL)))
			return -1;
	}
	return 0;
}

/* Adds what /proc lists to a BPF set; returns how many were new. */
static int64_t seed_set(int map_fd, const int *keys, size_t n)
{
	uint8_t one = 1;
	int64_t added = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t k = keys[i];

		if (bpf_map_update_elem(map_fd, &k, &one, BPF_NOEXIST) == 0)
			added++;
	}
	return added;
}

/* Makes a BPF set equal to /proc's list; returns the change in members. */
static int64_t resync_set(int map_fd, const int *keys, size_t n)
{
	uint32_t k, next, *stale = NULL;
	size_t nstale = 0, cap = 0;
	int64_t delta = seed_set(map_fd, keys, n);
	int more = bpf_map_get_next_key(map_fd, NULL, &next) == 0;

	while (more) {
		int live = 0;

		k = next;
		more = bpf_map_get_next_key(map_fd, &k, &next) == 0;
		for (size_t i = 0; i < n && !live; i++)
			live = (uint32_t)keys[i] == k;
		if (live)
			continue;
		if (nstale == cap) {
			void *p = realloc(stale, (cap = cap ? cap * 2 : 64) * sizeof(*stale));

			if (!p)
				break;
			stale = p;
		}
		stale[nstale++] = k;
	}
	for (size_t i = 0; i < nstale; i++)
		if (bpf_map_delete_elem(map_fd, &stale[i]) == 0)
			delta--;
	free(stale);
	return delta;
}

static int *snapshot_keys(const struct ooms_snapshot *s, int fds)
{
	size_t n = fds ? s->nfds : s->nthreads;
	int *k = malloc((n + 1) * sizeof(*k));

	for (size_t i = 0; k && i < n; i++)
		k[i] = fds ? s->fds[i].fd : s->threads[i].tid;
	return k;
}

/* Makes the fd bitmap equal to /proc's list (add_only: only set bits, for
 * seeding); returns the change in members. */
static int64_t sync_fd_bits(struct coll *c, const struct ooms_snapshot *s, int add_only)
{
	uint64_t *want = calloc(c->fd_words, 8);
	int64_t delta = 0;

	if (!want)
		return 0;
	for (size_t i = 0; i < s->nfds; i++) {
		if ((size_t)s->fds[i].fd / 64 < c->fd_words)
			want[s->fds[i].fd / 64] |= 1ull << (s->fds[i].fd % 64);
	}
	for (size_t w = 0; w < c->fd_words; w++) {
		uint64_t have = __atomic_load_n(&c->fd_bits[w], __ATOMIC_SEQ_CST);
		uint64_t set = want[w] & ~have, clear = add_only ? 0 : have & ~want[w];

		if (set)
			delta += __builtin_popcountll(set & ~__atomic_fetch_or(&c->fd_bits[w], set, __ATOMIC_SEQ_CST));
		if (clear)
			delta -= __builtin_popcountll(clear & __atomic_fetch_and(&c->fd_bits[w], ~clear, __ATOMIC_SEQ_CST));
	}
	free(want);
	return delta;
}

static void resync(struct coll *c, const struct ooms_snapshot *s, int fds)
{
	int *keys;

	if (fds) {
		__atomic_fetch_add(&totals(c)->fds_live, sync_fd_bits(c, s, 0), __ATOMIC_SEQ_CST);
		return;
	}
	keys = snapshot_keys(s, 0);
	if (!keys)
		return;
	__atomic_fetch_add(&totals(c)->threads_live,
			   resync_set(bpf_map__fd(c->skel->maps.live_threads), keys, s->nthreads),
			   __ATOMIC_SEQ_CST);
	free(keys);
}

struct alloc_line {
	struct coll *c;
	const struct ooms_alloc_rec *r;
};

static void alloc_body(struct json *j, void *arg)
{
	struct alloc_line *l = arg;

	ooms_allocs_json(j, l->c->allocs, l->r, since_start(l->c), l->c->start_ns);
}

static void handle_crossings(struct coll *c, const struct ooms_snapshot *s, const struct ooms_sample *smp,
			     const struct ooms_crossing *xs, size_t nx, const char *seen_at);

/* The sets as the kernel side holds them now (see held.h). 0 or -errno. */
static int held_snapshot(struct coll *c, struct ooms_snapshot *s)
{
	struct ooms_held_sets h = {
		.pid = c->pid,
		.fd_bits = c->fd_bits,
		.fd_words = c->fd_words,
		.threads_map_fd = bpf_map__fd(c->skel->maps.live_threads),
		.names_map_fd = bpf_map__fd(c->skel->maps.dying_names),
		.attrib = c->attrib,
		.last = &c->last,
	};
	int e = ooms_held_snapshot(&h, s);

	if (!e) {
		s->t = since_start(c);
		s->thread_limit = c->last_smp.thread_limit;
		s->fd_limit = c->last_smp.fd_limit;
	}
	return e;
}

/* Count rules that need no history, checked on each fd, thread or failure
 * event with the figure the kernel side had just after it: a burst that
 * exhausts a limit in 50 ms crosses, and its snapshot is taken, before the
 * process dies and the kernel closes everything. */
static void check_on_event(struct coll *c, const struct ooms_event *e)
{
	struct ooms_crossing xs[RULE_MAX];
	struct ooms_sample smp;
	const struct ooms_fail_group *g = e->type == EV_CALL_FAIL ? ooms_failures_last(c->fails) : NULL;
	int threads = e->type == EV_THREAD_NEW || (g && g->kind == FAIL_THREADS);
	size_t nx;

	if (!c->have_smp || (g && g->kind == FAIL_MEMORY))
		return;
	smp = c->last_smp;
	smp.t = e->ts_ns > c->start_ns ? (e->ts_ns - c->start_ns) / 1e9 : since_start(c);
	if (threads)
		smp.threads = e->live;
	else
		smp.fds = e->live;
	nx = ooms_detect_feed_instant(&c->det, &smp, xs, RULE_MAX);
	for (size_t i = 0; i < nx && c->npending < RULE_MAX; i++)
		c->pending_xs[c->npending++] = xs[i];
	if (nx)
		c->pending_smp = smp;
}

struct failure_line {
	struct coll *c;
	const struct ooms_fail_group *g;
	const char *wrote;
};

static void failure_body(struct json *j, void *arg)
{
	struct failure_line *l = arg;

	json_obj(j);
	json_kstr(j, "type", "failure");
	json_kdbl(j, "t", l->g->last_ns > l->c->start_ns ? (l->g->last_ns - l->c->start_ns) / 1e9 : 0);
	ooms_failures_json(j, l->c->fails, l->g, l->c->start_ns, 1);
	if (l->wrote)
		json_kstr(j, "wrote", l->wrote);
	json_obj_end(j);
}

static int write_snap(struct coll *c, const struct ooms_snapshot *s, enum snap_kind kind, const char *name);

/* A call failed for want of a resource: a timeline record and a live line
 * for each one the kernel sent in full; at the first failure of a kind, the
 * groups of that resource as they stood (BASE-at-failure.json), written
 * with the record once the batch of events is read. */
static void on_failure(struct coll *c, const struct ooms_event *e, size_t size)
{
	int first = 0;
	const struct ooms_fail_group *g = ooms_failures_event(c->fails, e, size, &first);

	if (!g)
		return;
	c->pending_fail[g->kind] = *g;
	c->has_pending_fail[g->kind] = 1;
}

static void report_failure(struct coll *c, const struct ooms_fail_group *g)
{
	struct failure_line l = {c, g, NULL};
	char name[64], line[512];

	if (!c->fail_snapped[g->kind]) {
		enum snap_kind kind = g->kind == FAIL_FDS ? SNAP_FDS : g->kind == FAIL_THREADS ? SNAP_THREADS : SNAP_VMSIZE;
		struct ooms_snapshot s;

		c->fail_snapped[g->kind] = 1;
		snprintf(name, sizeof(name), "%s-at-failure.json", snap_base[kind]);
		if (held_snapshot(c, &s) == 0) {
			if (write_snap(c, &s, kind, name) == 0)
				l.wrote = name;
			ooms_snapshot_free(&s);
		}
	}
	emit(c, failure_body, &l);
	if (!c->o->json) {
		ooms_failures_line(c->fails, g, line, sizeof(line));
		printf("!! failure: %s%s%s\n", line, l.wrote ? " -> " : "", l.wrote ? l.wrote : "");
		fflush(stdout);
	}
}

/* Reads what the ring buffer holds, then acts on the crossings and
 * failures its events brought. */
static void consume(struct coll *c)
{
	struct ooms_snapshot s;

	ring_buffer__consume(c->rb);
	if (c->npending && held_snapshot(c, &s) == 0) {
		handle_crossings(c, &s, &c->pending_smp, c->pending_xs, c->npending, "event");
		ooms_snapshot_free(&s);
	}
	c->npending = 0;
	for (int k = 0; k < FAIL_KIND_MAX; k++)
		if (c->has_pending_fail[k]) {
			c->has_pending_fail[k] = 0;
			report_failure(c, &c->pending_fail[k]);
		}
}

/* The OOM killer chose the target: its mappings and status as they are
 * now, while the kernel tears it down, replace the last sample's (the
 * sets come from the kernel side, which the teardown does not empty). */
static void last_look(struct coll *c)
{
	struct ooms_snapshot s;
	struct proc_status st;

	if (ooms_snapshot_take(c->pid, &s) != 0)
		return;
	if (s.nmaps) {
		s.t = since_start(c);
		ooms_snapshot_free(&c->last);
		c->last = s;
		if (proc_read_status(c->pid, &st) == 0 && st.rss_kb > 0) {
			c->last_smp.t = s.t;
			c->last_smp.rss_kb = st.rss_kb;
			c->last_smp.vmsize_kb = st.vmsize_kb;
		}
	} else {
		ooms_snapshot_free(&s);
	}
}

/* A stack from code the symbolizer has not seen mapped (a launched target
 * after its exec, a library loaded since the last sample): read the maps
 * again now, while the process is still there to read them from. */
static void sym_catch_up(struct coll *c, const struct ooms_event *e)
{
	uint64_t now;

	if (e->stack_bytes < 8 || ooms_sym_is_exec(c->sym, e->ustack[0]))
		return;
	/* at once for an unknown page of code (a program just exec'd, a library
	 * just loaded);
	 * the same page again only every 20 ms */
	now = now_ns();
	if (now - c->sym_refresh_ns < 20 * 1000 * 1000ull && e->ustack[0] >> 12 == c->sym_refresh_region)
		return;
	c->sym_refresh_ns = now;
	c->sym_refresh_region = e->ustack[0] >> 12;
	ooms_sym_refresh(c->sym);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct coll *c = ctx;
	const struct ooms_event *e = data;
	const struct ooms_alloc_rec *r;

	if (size < sizeof(struct ooms_event))
		return 0;
	sym_catch_up(c, e);
	ooms_attrib_event(c->attrib, e);
	if (e->version == OOMS_EVENT_VERSION) {
		if (e->type == EV_CALL_FAIL)
			on_failure(c, e, size);
		else if (e->type == EV_DEATH)
			c->died = 1;
		else if (e->type == EV_OOM_VICTIM)
			last_look(c);
		if (e->type == EV_FD_OPEN || e->type == EV_THREAD_NEW || e->type == EV_CALL_FAIL)
			check_on_event(c, e);
	}
	if ((e->type == EV_BIG_ALLOC || e->type == EV_ALLOC_FREE) && (r = ooms_allocs_event(c->allocs, e, size))) {
		struct alloc_line l = {c, r};
		char line[512];

		/* the newest state of the record: printed live, and in the timeline */
		emit(c, alloc_body, &l);
		if (!c->o->json) {
			ooms_allocs_line(c->allocs, r, line, sizeof(line));
			printf("%8.1f %s\n", since_start(c), line);
			fflush(stdout);
		}
	}
	return 0;
}

/* ---- samples ---- */

struct sample_rec {
	struct coll *c;
	const struct ooms_sample *s;
};

static void sample_body(struct json *j, void *arg)
{
	struct sample_rec *r = arg;
	const struct ooms_sample *s = r->s;
	volatile struct ooms_totals *t = totals(r->c);

	json_obj(j);
	json_kstr(j, "type", "sample");
	json_kdbl(j, "t", s->t);
	json_kint(j, "rss_kb", s->rss_kb);
	json_kint(j, "vmsize_kb", s->vmsize_kb);
	json_kint(j, "vmpeak_kb", s->vmpeak_kb);
	json_kint(j, "vmsize_bpf_kb", s->vmsize_bpf_kb);
	json_kint(j, "threads", s->threads);
	json_kint(j, "threads_bpf", s->threads_bpf);
	json_kint(j, "thread_limit", s->thread_limit);
	json_kstr(j, "thread_limit_src", s->thread_limit_src);
	json_kint(j, "fds", s->fds);
	json_kint(j, "fds_bpf", s->fds_bpf);
	json_kint(j, "fd_limit", s->fd_limit);
	json_kuint(j, "ringbuf_drops", s->ringbuf_drops);
	json_kuint(j, "set_full_drops", s->set_full_drops);
	json_kuint(j, "events", s->events);
	if (s->heap_src) {
		json_kint(j, "heap_used", s->heap_used);
		json_kint(j, "heap_committed", s->heap_committed);
		json_kint(j, "heap_max", s->heap_max);
		json_kstr(j, "heap_src", s->heap_src);
		if (s->heap_max > 0) /* where the heap rule's ratio lies, in bytes */
			json_kint(j, "heap_limit",
				  (int64_t)(ooms_heap_rule_threshold(&r->c->o->java.rule, s->heap_max) * (double)s->heap_max));
	}
	if (r->c->jheap && ooms_jheap_runtime(r->c->jheap) != OOMS_RT_NATIVE) {
		json_kuint(j, "gcs", s->gcs);
		json_kdbl(j, "gc_pause_ms", s->gc_pause_ms);
	}
	json_key(j, "syscalls");
	json_obj(j);
	json_kuint(j, "fd_opens", t->fd_opens);
	json_kuint(j, "fd_closes", t->fd_closes);
	json_kuint(j, "thread_news", t->thread_news);
	json_kuint(j, "thread_exits", t->thread_exits);
	json_kuint(j, "mmaps", t->mmaps);
	json_kuint(j, "munmaps", t->munmaps);
	json_kuint(j, "mremaps", t->mremaps);
	json_kuint(j, "brks", t->brks);
	json_obj_end(j);
	json_obj_end(j);
}

struct crossing_rec {
	double t;
	const struct ooms_crossing *x;
	const char *file;
	const char *allocs; /* the large allocations' snapshot written with it, or NULL */
	const char *seen_at; /* "sample" (the interval's), or "event" (between samples) */
};

static void crossing_body(struct json *j, void *arg)
{
	struct crossing_rec *r = arg;

	json_obj(j);
	json_kstr(j, "type", "crossing");
	json_kdbl(j, "t", r->t);
	json_kstr(j, "rule", ooms_rule_name(r->x->rule));
	json_kint(j, "value", r->x->value);
	json_kint(j, "limit", r->x->limit);
	json_kstr(j, "reason", r->x->reason);
	json_kstr(j, "seen_at", r->seen_at);
	json_kstr(j, "wrote", r->file);
	if (r->allocs)
		json_kstr(j, "allocs", r->allocs);
	json_obj_end(j);
}

struct drift_rec {
	double t;
	const char *what;
	int64_t proc, bpf;
};

static void drift_body(struct json *j, void *arg)
{
	struct drift_rec *r = arg;

	json_obj(j);
	json_kstr(j, "type", "drift");
	json_kdbl(j, "t", r->t);
	json_kstr(j, "what", r->what);
	json_kint(j, "proc", r->proc);
	json_kint(j, "bpf", r->bpf);
	json_kstr(j, "action", "BPF set resynchronized from /proc");
	json_obj_end(j);
}

static void check_drift(struct coll *c, const struct ooms_snapshot *s, const struct ooms_sample *smp)
{
	struct { const char *what; int64_t proc, bpf; int *run; int fds; } d[] = {
		{"fds", smp->fds, smp->fds_bpf, &c->drift_fds, 1},
		{"threads", smp->threads, smp->threads_bpf, &c->drift_threads, 0},
	};

	/* A call in flight can differ for one sample; two in a row is drift. */
	for (size_t i = 0; i < 2; i++) {
		if (d[i].proc == d[i].bpf) {
			*d[i].run = 0;
			continue;
		}
		if (++*d[i].run < 2)
			continue;
		struct drift_rec r = {smp->t, d[i].what, d[i].proc, d[i].bpf};

		emit(c, drift_body, &r);
		resync(c, s, d[i].fds);
		*d[i].run = 0;
	}
}


static enum snap_kind rule_snap(enum ooms_rule r)
{
	switch (r) {
	case RULE_THREAD_COUNT:
	case RULE_THREAD_RATIO:
		return SNAP_THREADS;
	case RULE_FD_COUNT:
	case RULE_FD_RATIO:
		return SNAP_FDS;
	default:
		return SNAP_VMSIZE;
	}
}

/* Writes snapshot kind as DIR/name. */
static int write_snap(struct coll *c, const struct ooms_snapshot *s, enum snap_kind kind, const char *name)
{
	char path[4200];
	int e;

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	if (kind == SNAP_THREADS)
		e = ooms_attrib_write_threads(c->attrib, s, path);
	else if (kind == SNAP_FDS)
		e = ooms_attrib_write_fds(c->attrib, s, path);
	else
		e = ooms_attrib_write_vmsize(c->attrib, s, path);
	if (e)
		err("cannot write %s: %s", path, strerror(-e));
	return e;
}

/* Writes snapshot kind as BASE.json (seq 0: the current view) or
 * BASE-SEQ.json (crossing seq); name gets the file's name. */
static int write_file(struct coll *c, const struct ooms_snapshot *s, enum snap_kind kind, int seq, char *name,
		      size_t name_len)
{
	if (seq)
		snprintf(name, name_len, "%s-%d.json", snap_base[kind], seq);
	else
		snprintf(name, name_len, "%s.json", snap_base[kind]);
	return write_snap(c, s, kind, name);
}

static void print_header(void)
{
	printf("%8s %9s %10s %15s %15s %7s %15s\n", "TIME(s)", "RSS(MB)", "VMSIZE(MB)", "THREADS/LIMIT",
	       "FDS/LIMIT", "DROPS", "JAVA HEAP(MB)");
}

static void print_row(const struct ooms_sample *s)
{
	char th[32], fd[32];

	snprintf(th, sizeof(th), "%" PRId64 "/%" PRId64, s->threads, s->thread_limit);
	snprintf(fd, sizeof(fd), "%" PRId64 "/%" PRId64, s->fds, s->fd_limit);
	char heap[40] = "-";

	if (s->heap_src)
		snprintf(heap, sizeof(heap), "%.0f/%.0f", s->heap_used / 1048576.0, s->heap_max / 1048576.0);
	printf("%8.1f %9.1f %10.1f %15s %15s %7" PRIu64 " %15s\n", s->t, s->rss_kb / 1024.0,
	       s->vmsize_kb / 1024.0, th, fd, s->ringbuf_drops + s->set_full_drops, heap);
	fflush(stdout);
}

/* Crossings found on a sample or on an event: the groups as they stand
 * (BASE-N.json) and the current view (BASE.json, rewritten at the end). */
static void handle_crossings(struct coll *c, const struct ooms_snapshot *s, const struct ooms_sample *smp,
			     const struct ooms_crossing *xs, size_t nx, const char *seen_at)
{
	for (size_t i = 0; i < nx; i++) {
		enum snap_kind kind = rule_snap(xs[i].rule);
		char snap[64], path[4200], numbered[64], current[64];
		struct crossing_rec cr = {smp->t, &xs[i], numbered, NULL, seen_at};

		/* the groups as they stand at the crossing (fds-N.json), and the
		 * current view (fds.json, rewritten at the end) */
		if (write_file(c, s, kind, crossings(c) + 1, numbered, sizeof(numbered)) != 0)
			cr.file = NULL;
		write_file(c, s, kind, 0, current, sizeof(current));
		/* a native target's "dump": its large allocations as they stand now */
		if (c->allocs && (!c->jheap || ooms_jheap_runtime(c->jheap) == OOMS_RT_NATIVE)) {
			snprintf(snap, sizeof(snap), "allocs-%d.json", crossings(c) + 1);
			snprintf(path, sizeof(path), "%s/%s", c->dir, snap);
			if (ooms_allocs_write(c->allocs, path, c->start_ns) == 0)
				cr.allocs = snap;
		}
		emit(c, crossing_body, &cr);
		if (!c->o->json)
			printf("!! %s: %s -> %s/%s\n", ooms_rule_name(xs[i].rule), xs[i].reason, c->dir,
			       cr.file ? cr.file : current);
		c->crossings++;
	}
}

/* The limits the count rules compare against: the tightest thread limit
 * (threads-max, RLIMIT_NPROC, --thread-limit, the pids cgroup's pids.max,
 * which counts the cgroup's tasks, the target's among them) and
 * RLIMIT_NOFILE. */
static void fill_limits(struct coll *c, const struct proc_limits *lim, struct ooms_sample *smp)
{
	smp->thread_limit = c->threads_max;
	smp->thread_limit_src = "threads-max";
	if (lim->nproc_soft > 0 && lim->nproc_soft < smp->thread_limit) {
		smp->thread_limit = lim->nproc_soft;
		smp->thread_limit_src = "RLIMIT_NPROC";
	}
	if (c->o->detect.thread_ratio > 0 && c->o->thread_limit > 0 && c->o->thread_limit < smp->thread_limit) {
		smp->thread_limit = c->o->thread_limit;
		smp->thread_limit_src = "--thread-limit";
	}
	if (ooms_cgroup_find(c->pid, &c->cg) == 0 && c->cg.pids_max > 0 && c->cg.pids_max < smp->thread_limit) {
		smp->thread_limit = c->cg.pids_max;
		smp->thread_limit_src = "pids.max";
	}
	smp->fd_limit = lim->nofile_soft;
}

/* Before the first sample, the limits alone (every figure unknown), so
 * the rules checked on events can fire from the first event on: a target
 * may exhaust its fds within 50 ms of starting. */
static void seed_limits(struct coll *c)
{
	struct proc_limits lim;
	struct ooms_sample *smp = &c->last_smp;

	memset(smp, 0, sizeof(*smp));
	smp->rss_kb = smp->vmsize_kb = smp->vmpeak_kb = smp->vmsize_bpf_kb = -1;
	smp->threads = smp->threads_bpf = smp->fds = smp->fds_bpf = -1;
	smp->heap_used = smp->heap_committed = smp->heap_max = -1;
	smp->is_32bit = c->is_32bit;
	if (proc_read_limits(c->pid, &lim) != 0)
		return;
	fill_limits(c, &lim, smp);
	c->have_smp = 1;
}

/* Returns 1 when the target is gone. */
static int take_sample(struct coll *c)
{
	struct ooms_snapshot s;
	struct proc_status st;
	struct proc_limits lim;
	struct ooms_sample smp;
	struct ooms_crossing xs[RULE_MAX];
	volatile struct ooms_totals *t = totals(c);
	int64_t vm_delta;
	size_t nx;

	consume(c);
	if (ooms_snapshot_take(c->pid, &s) != 0 || proc_read_status(c->pid, &st) != 0 ||
	    proc_read_limits(c->pid, &lim) != 0) {
		ooms_snapshot_free(&s);
		return 1;
	}
	ooms_sym_refresh(c->sym);
	if (c->launched && c->samples == 0)
		attach_libc(c); /* after exec the target may map another libc */

	memset(&smp, 0, sizeof(smp));
	smp.t = since_start(c);
	smp.ts_ns = now_ns();
	smp.rss_kb = st.rss_kb;
	smp.vmsize_kb = st.vmsize_kb;
	smp.vmpeak_kb = st.vmpeak_kb;
	vm_delta = t->vm_delta_bytes;
	smp.vmsize_bpf_kb = c->prev_vmsize_kb + (vm_delta - c->prev_vm_delta) / 1024;
	c->prev_vmsize_kb = st.vmsize_kb;
	c->prev_vm_delta = vm_delta;
	smp.threads = s.nthreads;
	smp.threads_bpf = t->threads_live;
	smp.fds = s.nfds;
	smp.fds_bpf = t->fds_live;
	fill_limits(c, &lim, &smp);
	smp.ringbuf_drops = t->ringbuf_drops + (c->jheap ? ooms_jheap_drops(c->jheap) : 0);
	smp.set_full_drops = t->set_full_drops;
	smp.events = ooms_attrib_events(c->attrib);
	smp.is_32bit = c->is_32bit;
	s.t = smp.t;
	s.thread_limit = smp.thread_limit;
	s.fd_limit = smp.fd_limit;
	smp.heap_used = smp.heap_committed = smp.heap_max = -1;
	if (c->jheap) {
		if (ooms_jheap_runtime(c->jheap) == OOMS_RT_NATIVE)
			ooms_jheap_attach(c->jheap, c->rb); /* after an exec the target may be a JVM */
		ooms_jheap_sample(c->jheap, &smp);
	}

	struct sample_rec rec = {c, &smp};

	emit(c, sample_body, &rec);
	if (!c->o->json)
		print_row(&smp);
	check_drift(c, &s, &smp);
	if (c->jheap)
		ooms_jheap_check(c->jheap, &smp);

	nx = ooms_detect_feed(&c->det, &smp, xs, RULE_MAX);
	handle_crossings(c, &s, &smp, xs, nx, "sample");
	c->last_smp = smp;
	c->have_smp = 1;
	ooms_snapshot_free(&c->last);
	c->last = s;
	c->samples++;
	c->last_sample_ns = now_ns();
	return 0;
}

/* ---- start / end records ---- */

static void start_body(struct json *j, void *arg)
{
	struct coll *c = arg;
	char cmd[1024] = "";
	struct utsname_like { char r[128]; } k = {""};
	FILE *f = fopen("/proc/sys/kernel/osrelease", "re");

	if (f) {
		if (fgets(k.r, sizeof(k.r), f))
			k.r[strcspn(k.r, "\n")] = 0;
		fclose(f);
	}
	proc_cmdline(c->pid, cmd, sizeof(cmd));
	json_obj(j);
	json_kstr(j, "type", "start");
	json_kdbl(j, "t", 0);
	json_kint(j, "pid", c->pid);
	json_kstr(j, "command", cmd);
	json_kstr(j, "mode", c->launched ? "run" : "watch");
	json_kstr(j, "kernel", k.r);
	json_kstr(j, "arch", c->arch == ARCH_X86_64 ? "x86_64" : "arm64");
	json_kbool(j, "target_32bit", c->is_32bit);
	json_kdbl(j, "interval_s", c->o->interval_s);
	json_kdbl(j, "duration_s", c->o->duration_s);
	json_kstr(j, "libc", c->libc_path[0] ? c->libc_path : NULL);
	json_kint(j, "page_size", sysconf(_SC_PAGESIZE));
	json_kuint(j, "ringbuf_bytes", ringbuf_bytes(c->o));
	json_key(j, "sources");
	json_obj(j);
	json_kstr(j, "threads", "/proc/PID/task; threads_bpf: sched_process_fork/exit");
	json_kstr(j, "fds", "/proc/PID/fd; fds_bpf: raw_syscalls:sys_exit");
	json_kstr(j, "vmsize_kb", "/proc/PID/status VmSize");
	json_kstr(j, "vmsize_bpf_kb", "previous VmSize + mmap/munmap/mremap/brk since");
	json_kstr(j, "fd_limit", "/proc/PID/limits Max open files (soft)");
	json_kstr(j, "thread_limit", "min(threads-max, RLIMIT_NPROC soft, --thread-limit)");
	json_obj_end(j);
	{
		/* when, and the settings the rules run with (the report draws them) */
		const struct ooms_detect_config *d = &c->o->detect;
		const struct ooms_heap_rule_config *h = &c->o->java.rule;
		char when[40];
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		json_kstr(j, "wall_time", when);
		json_key(j, "settings");
		json_obj(j);
		json_kint(j, "thread_count", d->thread_count_limit);
		json_kint(j, "thread_gap", d->thread_count_gap);
		json_kint(j, "thread_polls", d->thread_count_polls);
		json_kint(j, "fd_count", d->fd_count_limit);
		json_kint(j, "fd_gap", d->fd_count_gap);
		json_kint(j, "fd_polls", d->fd_count_polls);
		json_kdbl(j, "fd_ratio", d->fd_ratio);
		json_kdbl(j, "thread_ratio", d->thread_ratio);
		json_kint(j, "vmsize_limit_kb", d->vmsize_limit_kb);
		json_kbool(j, "vmsize_64bit", d->vmsize_limit_64bit);
		json_kuint(j, "big_alloc_bytes", c->o->big_alloc_bytes);
		json_kstr(j, "big_alloc_mode", !c->o->big_alloc_bytes ? NULL
					       : c->o->big_alloc_mode == ALLOC_UPROBE ? "uprobe" : "syscall");
		json_kstr(j, "heap_rule", ooms_heap_variant_name(h->variant));
		json_kdbl(j, "heap_ratio", h->ratio);
		json_kint(j, "heap_polls", h->polls);
		json_kdbl(j, "heap_interval_s", h->interval_s);
		json_kint(j, "max_dumps", h->max_dumps);
		json_kbool(j, "shim", c->o->java.shim);
		json_obj_end(j);
	}
	json_obj_end(j);
}

/* ---- the target's end ---- */

struct death_line {
	struct coll *c;
	const struct ooms_death_rec *d;
	const struct ooms_cgroup *cg;
};

static void death_body(struct json *j, void *arg)
{
	struct death_line *l = arg;
	const struct ooms_death_rec *d = l->d;
	const struct ooms_sample *s = &l->c->last_smp;
	const struct ooms_fail_group *g = ooms_failures_last(l->c->fails);
	volatile struct ooms_totals *t = totals(l->c);
	uint64_t start = l->c->start_ns;

	json_obj(j);
	json_kstr(j, "type", "death");
	json_kdbl(j, "t", d->ts_ns > start ? (d->ts_ns - start) / 1e9 : since_start(l->c));
	json_kint(j, "pid", l->c->pid);
	json_kstr(j, "cause", ooms_death_cause_name(d->cause));
	json_kstr(j, "how", d->sentence);
	if (d->status >= 0)
		json_kint(j, "wait_status", d->status);
	if (d->code >= 0)
		json_kint(j, "exit_code", d->code);
	if (d->signal) {
		json_kint(j, "signal", d->signal);
		json_kstr(j, "signal_name", ooms_signal_name(d->signal));
		json_kbool(j, "core_dumped", d->core);
		json_key(j, "sender");
		json_obj(j);
		json_kint(j, "pid", d->sender_pid);
		json_kstr(j, "comm", d->sender_comm[0] ? d->sender_comm : NULL);
		json_kint(j, "si_code", d->si_code);
		json_obj_end(j);
	}
	if (d->oom.ts_ns) {
		json_key(j, "oom_killer");
		json_obj(j);
		json_kdbl(j, "t", d->oom.ts_ns > start ? (d->oom.ts_ns - start) / 1e9 : 0);
		json_kuint(j, "total_vm_kb", d->oom.total_vm_kb);
		json_kuint(j, "anon_rss_kb", d->oom.anon_rss_kb);
		json_kuint(j, "file_rss_kb", d->oom.file_rss_kb);
		json_kuint(j, "shmem_rss_kb", d->oom.shmem_rss_kb);
		json_kuint(j, "pgtables_kb", d->oom.pgtables_kb);
		json_kint(j, "oom_score_adj", d->oom.oom_score_adj);
		json_kint(j, "allocating_pid", d->oom.killer_tgid);
		json_kstr(j, "allocating_comm", d->oom.killer_comm);
		json_obj_end(j);
	}
	if (l->cg->mem_dir[0]) {
		json_key(j, "memory_cgroup");
		json_obj(j);
		json_kstr(j, "path", l->cg->mem_name);
		json_kstr(j, "version", l->cg->mem_v2 ? "v2" : "v1");
		json_kint(j, "limit_bytes", l->cg->mem_limit);
		json_kint(j, "limit_hits", l->cg->mem_hits);
		json_kint(j, "oom_kills", l->cg->oom_kills);
		json_obj_end(j);
	}
	/* as it stood just before the end: the last sample, and the kernel
	 * side's sets, which the teardown does not empty */
	json_key(j, "last_state");
	json_obj(j);
	if (d->oom.ts_ns > start && (d->oom.ts_ns - start) / 1e9 > s->t) {
		/* the OOM killer's own figures, newer than any sample */
		json_kstr(j, "source", "oom_killer");
		json_kdbl(j, "t_sample", (d->oom.ts_ns - start) / 1e9);
		json_kint(j, "rss_kb", (int64_t)(d->oom.anon_rss_kb + d->oom.file_rss_kb + d->oom.shmem_rss_kb));
		json_kint(j, "vmsize_kb", (int64_t)d->oom.total_vm_kb);
	} else {
		json_kstr(j, "source", "sample");
		json_kdbl(j, "t_sample", s->t);
		json_kint(j, "rss_kb", s->rss_kb);
		json_kint(j, "vmsize_kb", s->vmsize_kb);
	}
	json_kint(j, "threads", t->threads_live);
	json_kint(j, "thread_limit", s->thread_limit);
	json_kint(j, "fds", t->fds_live);
	json_kint(j, "fd_limit", s->fd_limit);
	if (s->heap_src) {
		json_kint(j, "heap_used", s->heap_used);
		json_kint(j, "heap_max", s->heap_max);
	}
	json_obj_end(j);
	if (l->c->jheap) {
		double ot;
		const char *msg, *thread, *dump;
		int n = ooms_jheap_last_oom(l->c->jheap, &ot, &msg, &thread, &dump);

		if (n) {
			json_key(j, "java_oom");
			json_obj(j);
			json_kint(j, "count", n);
			json_kdbl(j, "t_last", ot);
			json_kstr(j, "message", msg);
			json_kstr(j, "thread", thread[0] ? thread : NULL);
			json_kstr(j, "dump", dump);
			json_obj_end(j);
		}
	}
	if (g) {
		json_key(j, "last_failure");
		json_obj(j);
		ooms_failures_json(j, l->c->fails, g, start, 1);
		json_obj_end(j);
	}
	json_kstr(j, "threads_file", "threads.json");
	json_kstr(j, "fds_file", "fds.json");
	json_kstr(j, "vmsize_file", "vmsize.json");
	json_obj_end(j);
}

/* death.json: the death record alone. */
static void write_death(struct coll *c, struct death_line *l)
{
	struct atomic_file af;
	struct json j;
	char path[4200];
	int e;

	snprintf(path, sizeof(path), "%s/death.json", c->dir);
	if ((e = atomic_open(&af, path)) == 0) {
		json_init(&j, af.f, 0);
		death_body(&j, l);
		json_end_line(&j);
		e = atomic_commit(&af);
	}
	if (e)
		err("cannot write %s: %s", path, strerror(-e));
}

/* The kernel's exact failure counts, and failures.json. */
static void write_failures(struct coll *c)
{
	int fd = bpf_map__fd(c->skel->maps.fail_counts);
	struct ooms_fail_key key, next, *prev = NULL;
	struct ooms_fail_count n;
	char path[4200];
	int e;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(fd, &next, &n) == 0)
			ooms_failures_set_count(c->fails, &next, n.count);
		key = next;
		prev = &key;
	}
	snprintf(path, sizeof(path), "%s/failures.json", c->dir);
	if ((e = ooms_failures_write(c->fails, path, c->start_ns)))
		err("cannot write %s: %s", path, strerror(-e));
}

struct end_rec {
	struct coll *c;
	const char *reason;
	int exit_status; /* wait status or -1 */
	const struct ooms_death_rec *death;
};

static void end_body(struct json *j, void *arg)
{
	struct end_rec *r = arg;
	volatile struct ooms_totals *t = totals(r->c);

	json_obj(j);
	json_kstr(j, "type", "end");
	json_kdbl(j, "t", since_start(r->c));
	json_kstr(j, "reason", r->reason);
	if (r->exit_status >= 0) {
		if (WIFEXITED(r->exit_status))
			json_kint(j, "target_exit_code", WEXITSTATUS(r->exit_status));
		else if (WIFSIGNALED(r->exit_status))
			json_kint(j, "target_signal", WTERMSIG(r->exit_status));
	}
	json_kuint(j, "ringbuf_drops", t->ringbuf_drops);
	json_kuint(j, "set_full_drops", t->set_full_drops);
	json_kuint(j, "events_sent", t->events_sent);
	json_kuint(j, "events_received", ooms_attrib_events(r->c->attrib));
	json_kint(j, "crossings", crossings(r->c));
	json_kuint(j, "call_fails", t->call_fails);
	json_kuint(j, "call_fails_sent", t->call_fails_sent);
	if (r->death) {
		json_kstr(j, "death", ooms_death_cause_name(r->death->cause));
		json_kstr(j, "how", r->death->sentence);
	}
	if (r->c->jheap) {
		json_kstr(j, "runtime", ooms_rt_name(ooms_jheap_runtime(r->c->jheap)));
		json_kuint(j, "runtime_events", ooms_jheap_events(r->c->jheap));
		json_kuint(j, "runtime_ringbuf_drops", ooms_jheap_drops(r->c->jheap));
		json_kint(j, "dumps", ooms_jheap_dumps(r->c->jheap));
	}
	json_obj_end(j);
}

static void default_dir(struct coll *c)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(c->dir, sizeof(c->dir), "oomscope-%d-%s", (int)c->pid, stamp);
}

static int setup(struct coll *c)
{
	struct ooms_snapshot s;
	int e, *keys;

	if (check_kernel(c))
		return -1;
	if (load_bpf(c))
		return -1;
	c->sym = ooms_sym_new(c->pid);
	c->attrib = c->sym ? ooms_attrib_new(c->pid, c->arch, c->sym) : NULL;
	if (!c->attrib) {
		err("out of memory");
		return -1;
	}
	c->fails = ooms_failures_new(c->attrib, c->arch);
	if (!c->fails) {
		err("out of memory");
		return -1;
	}
	ooms_cgroup_find(c->pid, &c->cg);
	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.events), handle_event, c, NULL);
	if (!c->rb) {
		explain_bpf_error("opening the ring buffer", -errno);
		return -1;
	}
	/* Seed after attaching: anything made in between is in the sets already. */
	e = ooms_snapshot_take(c->pid, &s);
	if (e) {
		err("process %d exited while attaching", (int)c->pid);
		return -1;
	}
	__atomic_fetch_add(&totals(c)->fds_live, sync_fd_bits(c, &s, 1), __ATOMIC_SEQ_CST);
	keys = snapshot_keys(&s, 0);
	if (keys)
		__atomic_fetch_add(&totals(c)->threads_live,
				   seed_set(bpf_map__fd(c->skel->maps.live_threads), keys, s.nthreads),
				   __ATOMIC_SEQ_CST);
	free(keys);
	ooms_attrib_mark_preexisting(c->attrib, &s);
	/* the program break so far (the end of [heap]), so the first brk after
	 * attach is measured too; unless a brk since attach set it already */
	for (size_t i = 0; i < s.nmaps; i++)
		if (!strcmp(s.maps[i].path, "[heap]")) {
			uint64_t zero = 0;

			__atomic_compare_exchange_n(&totals(c)->brk_cur, &zero, s.maps[i].end, 0, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
		}
	c->prev_vmsize_kb = s.vmsize_kb;
	c->last = s; /* what was there at attach, until the first sample */
	attach_libc(c);
	if (c->o->big_alloc_bytes && c->o->big_alloc_mode == ALLOC_UPROBE && attach_allocs(c))
		return -1;
	if (c->o->big_alloc_bytes) {
		c->allocs = ooms_allocs_new(c->attrib, c->o->big_alloc_bytes, c->o->big_alloc_mode,
					    c->o->big_alloc_live, c->o->stack_depth ? c->o->stack_depth : 20);
		if (!c->allocs) {
			err("out of memory");
			return -1;
		}
		if (c->memalign_is_aligned_alloc)
			ooms_allocs_alias(c->allocs, AF_ALIGNED_ALLOC, "aligned_alloc/memalign");
	}
	return 0;
}

static int open_run_dir(struct coll *c)
{
	char path[4200];
	int e;

	if (c->o->out_dir)
		snprintf(c->dir, sizeof(c->dir), "%s", c->o->out_dir);
	else
		default_dir(c);
	e = make_dir(c->dir);
	if (e) {
		err("cannot create run directory %s: %s", c->dir, strerror(-e));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/timeline.jsonl", c->dir);
	c->timeline = fopen(path, "we");
	if (!c->timeline) {
		err("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The Java heap watch speaks through these. */
static void jheap_emit(void *ctx, void (*body)(struct json *j, void *arg), void *arg)
{
	emit(ctx, body, arg);
}

static void jheap_say(void *ctx, const char *fmt, ...)
{
	struct coll *c = ctx;
	va_list ap;

	if (c->o->json)
		return;
	printf("%8.1f ", c->start_ns ? since_start(c) : 0.0);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void jheap_thread_name(void *ctx, uint32_t tid, const char *name)
{
	struct coll *c = ctx;

	ooms_attrib_thread_name(c->attrib, tid, name);
}

/* Progress of the phases that take a while, on a terminal only. From the
 * dump thread too: one fprintf is one write. */
static void progress(void *ctx, const char *what)
{
	struct coll *c = ctx;

	if (c->o->quiet || c->o->json || !isatty(2))
		return;
	fprintf(stderr, "oomscope: %s ...\n", what);
}

static double jheap_now(void *ctx)
{
	struct coll *c = ctx;

	return c->start_ns ? since_start(c) : 0;
}

static int add_fd(int ep, int fd, uint32_t tag)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = tag};

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

enum { TAG_RB, TAG_TIMER, TAG_SIGNAL, TAG_TARGET, TAG_DUMP };

#define RB_POLL_MS 50

/* The event loop; returns why it ended. */
static const char *loop(struct coll *c)
{
	struct itimerspec its = {0};
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
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
	    add_fd(ep, ring_buffer__epoll_fd(c->rb), TAG_RB) || add_fd(ep, tfd, TAG_TIMER) ||
	    add_fd(ep, sfd, TAG_SIGNAL) || (pidfd >= 0 && add_fd(ep, pidfd, TAG_TARGET)) ||
	    (c->jheap && add_fd(ep, ooms_jheap_fd(c->jheap), TAG_DUMP))) {
		err("event loop setup failed: %s", strerror(errno));
		why = "error";
	}
	while (!why) {
		struct epoll_event evs[8];
		int timeout = RB_POLL_MS, n;

		if (deadline) {
			uint64_t now = now_ns();

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
			consume(c); /* the BPF side wakes us only every few hundred events */
		for (int i = 0; i < n && !why; i++) {
			uint64_t ticks;
			struct signalfd_siginfo si;

			switch (evs[i].data.u32) {
			case TAG_RB:
				consume(c);
				break;
			case TAG_TIMER:
				if (read(tfd, &ticks, sizeof(ticks)) < 0)
					break;
				if (take_sample(c))
					why = "target exited";
				else if (c->o->stop_on_crossing && crossings(c) && !ooms_jheap_busy(c->jheap))
					why = "threshold crossed"; /* once a dump it asked for is written */
				break;
			case TAG_SIGNAL:
				if (read(sfd, &si, sizeof(si)) == sizeof(si))
					why = si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM";
				break;
			case TAG_TARGET:
				why = "target exited";
				break;
			case TAG_DUMP:
				ooms_jheap_done(c->jheap);
				if (c->o->stop_on_crossing && crossings(c))
					why = "threshold crossed";
				break;
			}
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	close(sfd);
	close(tfd);
	close(ep);
	return why;
}

/* "how it ended" on the terminal, with the last failure before it. */
static void print_death(struct coll *c, const struct ooms_death_rec *d)
{
	const struct ooms_fail_group *g = ooms_failures_last(c->fails);
	char line[512];

	fprintf(stderr, "oomscope: how it ended: PID %d %s\n", (int)c->pid, d->sentence);
	if (c->jheap) {
		double ot;
		const char *msg, *thread, *dump;
		int n = ooms_jheap_last_oom(c->jheap, &ot, &msg, &thread, &dump);

		if (n)
			fprintf(stderr, "  after java.lang.OutOfMemoryError: %s (thread %s, %.2f s; %d in all)%s%s\n", msg,
				thread[0] ? thread : "?", ot, n,
				dump ? "; the heap dumped at the throw: " : !strstr(msg, "heap") ? ""
				: "; no heap dump at the throw (--shim takes one)", dump ? dump : "");
	}
	if (g) {
		ooms_failures_line(c->fails, g, line, sizeof(line));
		fprintf(stderr, "  last failure%s: %s\n",
			d->ts_ns > g->last_ns ? "" : " (after)", line);
		if (d->ts_ns > g->last_ns)
			fprintf(stderr, "  %.1f ms before the end; %" PRIu64 " failed call(s) in all (failures.json)\n",
				(d->ts_ns - g->last_ns) / 1e6, ooms_failures_total(c->fails));
	}
}

int ooms_collect(const struct ooms_watch_opts *o)
{
	struct coll c;
	struct ooms_death_rec death;
	const char *why;
	int rc = 1, status = -1, e, have_death = 0;
	sigset_t mask;

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.arch = ooms_host_arch();
	c.threads_max = proc_threads_max();
	verbose_level = o->verbose;
	libbpf_set_print(libbpf_log);

	if (geteuid() != 0) {
		err("must run as root (loading BPF programs and reading another process's /proc need it)");
		return 1;
	}
	/* Signals arrive through the signalfd in the loop; the launched child resets its mask. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	if (o->argv && o->java.shim) {
		/* the JVM loads the shim as an agent at start (-agentpath) */
		const char *shim = shim_client_library(), *old = getenv("JAVA_TOOL_OPTIONS");
		char opt[8192];

		if (!shim) {
			err("--shim: liboomscope_shim.so not found beside oomscope (make builds it; or set OOMSCOPE_SHIM)");
			return 1;
		}
		snprintf(opt, sizeof(opt), "%s%s-agentpath:%s", old ? old : "", old ? " " : "", shim);
		setenv("JAVA_TOOL_OPTIONS", opt, 1);
	}
	if (o->argv) {
		e = launch_prepare(&c.launch, o->argv);
		if (e) {
			err("cannot start %s: %s", o->argv[0], strerror(-e));
			return 1;
		}
		c.launched = 1;
		c.pid = c.launch.pid;
	} else {
		c.pid = o->pid;
		if (!proc_exists(c.pid)) {
			err("no process with PID %d", (int)c.pid);
			return 1;
		}
	}
	progress(&c, "attaching: loading and attaching the BPF programs");
	if (setup(&c) || open_run_dir(&c))
		goto out;
	{
		struct ooms_jheap_io io = {&c, jheap_emit, jheap_say, jheap_now, jheap_thread_name, progress};

		c.jheap = ooms_jheap_new(c.pid, &o->java, c.dir, &io);
		if (!c.jheap) {
			err("out of memory");
			goto out;
		}
		if (ooms_jheap_attach(c.jheap, c.rb))
			goto out;
	}
	if (c.launched) {
		e = launch_go(&c.launch);
		if (e) {
			err("cannot run %s: %s", o->argv[0], strerror(-e));
			goto out;
		}
	}
	c.is_32bit = proc_exe_is_32bit(c.pid) == 1;
	ooms_detect_init(&c.det, &o->detect);
	c.start_ns = now_ns();
	seed_limits(&c);
	emit(&c, start_body, &c);
	if (!o->json) {
		fprintf(stderr, "oomscope: watching PID %d, run directory %s (Ctrl-C to stop)\n", (int)c.pid, c.dir);
		print_header();
	}

	why = loop(&c);
	consume(&c);
	ooms_jheap_finish(c.jheap, 600);
	if (!strcmp(why, "target exited") || !proc_exists(c.pid)) {
		why = "target exited";
		c.last.alive = 0;
	} else if (now_ns() - c.last_sample_ns > 100 * 1000 * 1000ull && take_sample(&c) != 0) {
		/* a last sample at the end, unless one was just taken */
		why = "target exited";
		c.last.alive = 0;
	}
	if (c.launched && !strcmp(why, "target exited"))
		status = launch_stop(&c.launch, 0);
	consume(&c);
	if (!strcmp(why, "target exited") || c.died) {
		struct ooms_cgroup after = c.cg;
		struct ooms_snapshot held;

		why = "target exited";
		ooms_cgroup_refresh(&after);
		ooms_death_classify(c.died ? &c.skel->bss->death : NULL, c.skel->bss->last_sig, OOMS_NSIG,
				    &c.skel->bss->oom, c.pid, &c.cg, &after, status, &death);
		have_death = 1;
		/* the end's groups as the target had them, not as /proc shows a
		 * process the kernel has torn down */
		if (held_snapshot(&c, &held) == 0) {
			ooms_snapshot_free(&c.last);
			c.last = held;
			c.last.alive = 0;
		}
		{
			struct death_line dl = {&c, &death, &after};

			emit(&c, death_body, &dl);
			write_death(&c, &dl);
		}
	}
	write_failures(&c);
	for (enum snap_kind k = SNAP_THREADS; k <= SNAP_VMSIZE; k++) {
		char name[64];

		write_file(&c, &c.last, k, 0, name, sizeof(name));
	}
	if (c.allocs) {
		char path[4200];
		int e;

		snprintf(path, sizeof(path), "%s/allocs.json", c.dir);
		if ((e = ooms_allocs_write(c.allocs, path, c.start_ns)))
			err("writing %s: %s", path, strerror(-e));
		snprintf(path, sizeof(path), "%s/allocs.txt", c.dir);
		if ((e = ooms_allocs_write_text(c.allocs, path)))
			err("writing %s: %s", path, strerror(-e));
	}
	{
		struct end_rec er = {&c, why, status, have_death ? &death : NULL};
		char summary[4096];

		emit(&c, end_body, &er);
		if (!o->json) {
			volatile struct ooms_totals *t = totals(&c);

			fprintf(stderr, "oomscope: stopped (%s) after %.1f s; %d crossing(s); %" PRIu64
				" events, %" PRIu64 " lost in the kernel\n",
				why, since_start(&c), crossings(&c), ooms_attrib_events(c.attrib),
				(uint64_t)(t->ringbuf_drops + t->set_full_drops));
			if (have_death)
				print_death(&c, &death);
			if (ooms_attrib_summary(c.attrib, &c.last, summary, sizeof(summary)) > 0)
				fprintf(stderr, "largest groups at the end:\n%s", summary);
			ooms_allocs_text(c.allocs, stderr, 5, 1); /* the rest: allocs.txt */
		}
	}
	{
		/* the page and the exports of the run (report.html, trace.json, allocs.pb.gz) */
		char rerr[512];

		fflush(c.timeline);
		progress(&c, "writing the report");
		if (ooms_report_write(c.dir, NULL, NULL, rerr, sizeof(rerr)))
			err("report: %s", rerr);
		else if (!o->json)
			fprintf(stderr, "oomscope: report: %s/report.html\n", c.dir);
		if (!o->json)
			fprintf(stderr, "oomscope: run directory: %s\n", c.dir);
	}
	rc = 0;
out:
	if (c.timeline)
		fclose(c.timeline);
	if (c.launched && c.launch.pid > 0)
		launch_stop(&c.launch, 2000);
	ring_buffer__free(c.rb);
	bpf_link__destroy(c.libc_link);
	for (int i = 0; i < c.nalloc_links; i++)
		bpf_link__destroy(c.alloc_links[i]);
	ooms_allocs_free(c.allocs);
	ooms_failures_free(c.fails);
	ooms_jheap_free(c.jheap);
	if (c.fd_bits)
		munmap(c.fd_bits, c.fd_words * 8);
	collect_bpf__destroy(c.skel);
	ooms_attrib_free(c.attrib);
	ooms_sym_free(c.sym);
	ooms_snapshot_free(&c.last);
	tracefs_release(c.tracefs, c.tracefs_mounted);
	return rc;
}
