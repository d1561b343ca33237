#include "collector/kernel/syscall_table.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "collector/kernel/collect.h"

struct sysent {
	const char *name;
	int nr;
	uint8_t cls;
};

#define FD SC_FD_RET
#define P0 SC_FD_PATH_A0
#define P1 SC_FD_PATH_A1
#define SO SC_FD_SOCKET

/* x86_64: asm/unistd_64.h */
static const struct sysent x86_64[] = {
	{"open", 2, P0}, {"openat", 257, P1}, {"openat2", 437, P1}, {"creat", 85, P0},
	{"open_by_handle_at", 304, FD}, {"socket", 41, SO}, {"accept", 43, FD},
	{"accept4", 288, FD}, {"eventfd", 284, FD}, {"eventfd2", 290, FD},
	{"epoll_create", 213, FD}, {"epoll_create1", 291, FD}, {"dup", 32, FD},
	{"dup2", 33, FD}, {"dup3", 292, FD}, {"memfd_create", 319, FD},
	{"timerfd_create", 283, FD}, {"signalfd", 282, FD}, {"signalfd4", 289, FD},
	{"inotify_init", 253, FD}, {"inotify_init1", 294, FD}, {"fanotify_init", 300, FD},
	{"userfaultfd", 323, FD}, {"perf_event_open", 298, FD}, {"pidfd_open", 434, FD},
	{"pidfd_getfd", 438, FD}, {"io_uring_setup", 425, FD}, {"memfd_secret", 447, FD},
	{"pipe", 22, SC_FD_PAIR_A0}, {"pipe2", 293, SC_FD_PAIR_A0},
	{"socketpair", 53, SC_FD_PAIR_A3}, {"fcntl", 72, SC_FCNTL}, {"close", 3, SC_CLOSE},
	{"mmap", 9, SC_MMAP}, {"munmap", 11, SC_MUNMAP}, {"mremap", 25, SC_MREMAP},
	{"brk", 12, SC_BRK}, {"mprotect", 10, SC_MPROTECT},
	{"clone", 56, SC_CLONE}, {"fork", 57, SC_CLONE}, {"vfork", 58, SC_CLONE}, {"clone3", 435, SC_CLONE},
};

/* arm64: the generic table (asm-generic/unistd.h); no open, dup2, pipe,
 * epoll_create, eventfd, inotify_init, signalfd. */
static const struct sysent arm64[] = {
	{"openat", 56, P1}, {"openat2", 437, P1}, {"open_by_handle_at", 265, FD},
	{"socket", 198, SO}, {"accept", 202, FD}, {"accept4", 242, FD},
	{"eventfd2", 19, FD}, {"epoll_create1", 20, FD}, {"dup", 23, FD}, {"dup3", 24, FD},
	{"memfd_create", 279, FD}, {"timerfd_create", 85, FD}, {"signalfd4", 74, FD},
	{"inotify_init1", 26, FD}, {"fanotify_init", 262, FD}, {"userfaultfd", 282, FD},
	{"perf_event_open", 241, FD}, {"pidfd_open", 434, FD}, {"pidfd_getfd", 438, FD},
	{"io_uring_setup", 425, FD}, {"memfd_secret", 447, FD},
	{"pipe2", 59, SC_FD_PAIR_A0}, {"socketpair", 199, SC_FD_PAIR_A3},
	{"fcntl", 25, SC_FCNTL}, {"close", 57, SC_CLOSE}, {"mmap", 222, SC_MMAP},
	{"munmap", 215, SC_MUNMAP}, {"mremap", 216, SC_MREMAP}, {"brk", 214, SC_BRK},
	{"mprotect", 226, SC_MPROTECT}, {"clone", 220, SC_CLONE}, {"clone3", 435, SC_CLONE},
};

/* 32-bit ARM (EABI) apps on an arm64 kernel: arch/arm/tools/syscall.tbl.
 * Numbers above 511 do not fit the compat half of the table and are left out
 * (none of the calls followed here is that high). */
static const struct sysent arm32[] = {
	{"open", 5, P0}, {"openat", 322, P1}, {"openat2", 437, P1}, {"creat", 8, P0},
	{"open_by_handle_at", 371, FD}, {"socket", 281, SO}, {"accept", 285, FD},
	{"accept4", 366, FD}, {"eventfd", 351, FD}, {"eventfd2", 356, FD},
	{"epoll_create", 250, FD}, {"epoll_create1", 357, FD}, {"dup", 41, FD},
	{"dup2", 63, FD}, {"dup3", 358, FD}, {"memfd_create", 385, FD},
	{"timerfd_create", 350, FD}, {"signalfd", 349, FD}, {"signalfd4", 355, FD},
	{"inotify_init", 316, FD}, {"inotify_init1", 360, FD}, {"fanotify_init", 367, FD},
	{"userfaultfd", 388, FD}, {"perf_event_open", 364, FD}, {"pidfd_open", 434, FD},
	{"pidfd_getfd", 438, FD}, {"io_uring_setup", 425, FD},
	{"pipe", 42, SC_FD_PAIR_A0}, {"pipe2", 359, SC_FD_PAIR_A0},
	{"socketpair", 288, SC_FD_PAIR_A3}, {"fcntl", 55, SC_FCNTL}, {"fcntl64", 221, SC_FCNTL},
	{"close", 6, SC_CLOSE}, {"mmap2", 192, SC_MMAP}, {"munmap", 91, SC_MUNMAP},
	{"mremap", 163, SC_MREMAP}, {"brk", 45, SC_BRK}, {"mprotect", 125, SC_MPROTECT},
	{"fork", 2, SC_CLONE}, {"vfork", 190, SC_CLONE}, {"clone", 120, SC_CLONE}, {"clone3", 435, SC_CLONE},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void fill(const struct sysent *t, size_t n, int base, uint8_t *classes)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].nr >= 0 && t[i].nr < OOMS_COMPAT_BASE)
			classes[base + t[i].nr] = t[i].cls;
}

void ooms_syscall_classes(enum ooms_arch arch, uint8_t *classes)
{
	for (int i = 0; i < OOMS_NR_SLOTS; i++)
		classes[i] = SC_NONE;
	if (arch == ARCH_X86_64) {
		fill(x86_64, N(x86_64), 0, classes);
	} else {
		fill(arm64, N(arm64), 0, classes);
		fill(arm32, N(arm32), OOMS_COMPAT_BASE, classes);
	}
}

static const char *lookup(const struct sysent *t, size_t n, int nr)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].nr == nr)
			return t[i].name;
	return "?";
}

const char *ooms_syscall_name(enum ooms_arch arch, uint32_t slot)
{
	if (arch == ARCH_X86_64)
		return slot < OOMS_COMPAT_BASE ? lookup(x86_64, N(x86_64), slot) : "?";
	if (slot < OOMS_COMPAT_BASE)
		return lookup(arm64, N(arm64), slot);
	return lookup(arm32, N(arm32), slot - OOMS_COMPAT_BASE);
}

enum ooms_arch ooms_host_arch(void)
{
#if defined(__aarch64__)
	return ARCH_ARM64;
#else
	return ARCH_X86_64;
#endif
}

/* Each followed syscall of the native tables takes one of the kernel side's
 * slots under the fexit, syscalls and kprobe hooks (collect.bpf.c's fx_N, the
 * links' arrays): one more than the slots must not build, rather than go
 * unfollowed under those hooks. */
_Static_assert(N(x86_64) <= OOMS_FEXIT_SLOTS, "x86_64 follows more syscalls than OOMS_FEXIT_SLOTS: raise it");
_Static_assert(N(arm64) <= OOMS_FEXIT_SLOTS, "arm64 follows more syscalls than OOMS_FEXIT_SLOTS: raise it");

const char *ooms_syscall_nth(enum ooms_arch arch, unsigned i)
{
	if (arch == ARCH_X86_64)
		return i < N(x86_64) ? x86_64[i].name : NULL;
	return i < N(arm64) ? arm64[i].name : NULL;
}

void ooms_syscall_handler(enum ooms_arch arch, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s%s", arch == ARCH_X86_64 ? "__x64_sys_" : "__arm64_sys_", name);
}

uint32_t ooms_syscall_nr(enum ooms_arch arch, const char *name)
{
	const struct sysent *t = arch == ARCH_X86_64 ? x86_64 : arm64;
	size_t n = arch == ARCH_X86_64 ? N(x86_64) : N(arm64);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return (uint32_t)t[i].nr;
	return 0;
}
