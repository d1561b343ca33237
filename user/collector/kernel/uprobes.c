/* The uprobes in the target's libraries: pthread_create in its libc (who
 * starts each thread) and the allocators' entries and returns (the big
 * allocations), each attached to the library the target maps. */
#define _GNU_SOURCE
#include "collector/kernel/kernel_side.h"
#include "collector/console/console.h"
#include "collect.skel.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "proc/maps.h"

struct lib_find {
	const char *const *prefixes;
	char *out;
	size_t len;
};

static int lib_match(void *ctx, const struct proc_map_line *m)
{
	struct lib_find *f = ctx;
	const char *base = strrchr(m->path, '/');

	if (!base || m->perms[2] != 'x')
		return 0;
	for (const char *const *p = f->prefixes; *p; p++)
		if (!strncmp(base + 1, *p, strlen(*p))) {
			snprintf(f->out, f->len, "%s", m->path);
			return 1;
		}
	return 0;
}

/* The first executable mapping whose file name starts with one of
 * prefixes. Only the maps are read: a whole snapshot would read every
 * thread's name and every fd's target too (seconds at 500,000 fds). */
static int find_lib(pid_t pid, const char *const *prefixes, char *out, size_t len)
{
	struct lib_find f = {prefixes, out, len};

	return proc_maps_each(pid, lib_match, &f) == 1;
}

/* libc: glibc's libc.so.6 (libc-2.x.so before 2.34), bionic's libc.so */
static const char *const libc_names[] = {"libc.so", "libc-2.", NULL};

/* pthread_create uprobe on the target's libc, or in a static executable
 * its own; again if the target's libc changed (exec). */
void coll_k_attach_libc(struct coll_kernel *ks)
{
	char libc[512], path[600];
	uint64_t off;
	int e;

	if (ks->o->no_pthread_probe || ks->aarch32)
		return;
	if (find_lib(ks->pid, libc_names, libc, sizeof(libc))) {
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)ks->pid, libc);
	} else {
		/* no libc mapped: a static executable (its libc inside it), or not yet started */
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/exe", (int)ks->pid);
		if ((n = readlink(path, libc, sizeof(libc) - 1)) <= 0 || ooms_sym_elf_find(path, "pthread_create", &off))
			return;
		libc[n] = 0;
	}
	if (!strcmp(libc, ks->libc_path))
		return;
	bpf_link__destroy(ks->libc_link);
	ks->libc_link = NULL;
	/* libbpf 1.1 refuses glibc's two versions of pthread_create: resolve it here */
	e = ooms_sym_elf_find(path, "pthread_create", &off);
	if (!e) {
		ks->libc_link = bpf_program__attach_uprobe(ks->skel->progs.pthread_create_entry, false,
							   ks->pid, path, off);
		e = ks->libc_link ? 0 : -errno;
	}
	if (e) {
		if (ks->o->verbose)
			coll_err("no pthread_create uprobe on %s: %s (thread start routines not shown)", libc,
			    strerror(-e));
		ks->libc_path[0] = 0;
		return;
	}
	snprintf(ks->libc_path, sizeof(ks->libc_path), "%s", libc);
}

/* An entry (or return) probe on sym. An alias of a symbol probed already
 * (glibc's aligned_alloc is memalign) is skipped: one call, one report, under
 * the first name. */
static int attach_one(struct coll_kernel *ks, struct bpf_program *prog, const char *path, const char *sym, int ret,
		      int required, uint64_t *seen, int *nseen)
{
	uint64_t off;
	struct bpf_link *l;
	int e = ooms_sym_elf_find(path, sym, &off);

	if (e) {
		if (required)
			coll_err("--big-alloc-mode uprobe: no %s in %s: %s", sym, path, strerror(-e));
		return required ? -1 : 0;
	}
	for (int i = 0; seen && i < *nseen; i++)
		if (seen[i] == off)
			return 0;
	if (seen && *nseen < 16)
		seen[(*nseen)++] = off;
	if (ks->nalloc_links == (int)(sizeof(ks->alloc_links) / sizeof(ks->alloc_links[0])))
		return 0;
	l = bpf_program__attach_uprobe(prog, ret, ks->pid, path, off);
	if (!l) {
		e = -errno;
		coll_err("--big-alloc-mode uprobe: attaching to %s in %s: %s%s", sym, path, strerror(-e),
		    e == -EPERM || e == -EACCES ? " (root? SELinux?)" : "");
		return -1;
	}
	ks->alloc_links[ks->nalloc_links++] = l;
	return 0;
}

/* --big-alloc-mode uprobe: the target's libc allocator entry points (and
 * operator new where it links libstdc++ or libc++); return probes too with
 * --big-alloc-live, and free. */
int coll_k_attach_allocs(struct coll_kernel *ks)
{
	static const char *const cxx_names[] = {"libstdc++.so", "libc++.so", NULL};
	struct collect_bpf *skel = ks->skel;
	const struct { struct bpf_program *prog; const char *sym; int required; } fns[] = {
		{skel->progs.malloc_entry, "malloc", 1},       {skel->progs.calloc_entry, "calloc", 1},
		{skel->progs.realloc_entry, "realloc", 1},     {skel->progs.posix_memalign_entry, "posix_memalign", 0},
		{skel->progs.aligned_alloc_entry, "aligned_alloc", 0}, {skel->progs.memalign_entry, "memalign", 0},
		{skel->progs.valloc_entry, "valloc", 0},
	};
	char lib[512], path[600];
	uint64_t seen[16];
	int nseen = 0;

	if (!find_lib(ks->pid, libc_names, lib, sizeof(lib))) {
		coll_err("--big-alloc-mode uprobe: the target maps no libc (a static binary?): use --big-alloc-mode syscall");
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)ks->pid, lib);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		int before = nseen;

		if (attach_one(ks, fns[i].prog, path, fns[i].sym, 0, fns[i].required, seen, &nseen))
			return -1;
		if (nseen == before && fns[i].prog == skel->progs.memalign_entry)
			ks->memalign_is_aligned_alloc = 1; /* glibc: one function */
		if (nseen > before && ks->o->big_alloc_live &&
		    attach_one(ks, skel->progs.alloc_return, path, fns[i].sym, 1, 0, NULL, NULL))
			return -1;
	}
	if (ks->o->big_alloc_live && attach_one(ks, skel->progs.free_entry, path, "free", 0, 1, NULL, NULL))
		return -1;
	if (find_lib(ks->pid, cxx_names, lib, sizeof(lib))) {
		nseen = 0;
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)ks->pid, lib);
		if (attach_one(ks, skel->progs.new_entry, path, "_Znwm", 0, 0, seen, &nseen) ||
		    attach_one(ks, skel->progs.new_array_entry, path, "_Znam", 0, 0, seen, &nseen))
			return -1;
		if (ks->o->big_alloc_live && (attach_one(ks, skel->progs.alloc_return, path, "_Znwm", 1, 0, NULL, NULL) ||
					     attach_one(ks, skel->progs.alloc_return, path, "_Znam", 1, 0, NULL, NULL)))
			return -1;
	}
	return 0;
}
